/* t_bind.c: the pool's worker threads, bound each to one CPU other than the
 * caller's by default, and left to the scheduler (the process's CPUs) with
 * hsp_options.unbound.  Workers are told from the caller by their thread
 * ids under /proc/self/task.  And threads = 0: one thread per CPU the
 * caller may run on (as taskset or mpiexec's binding leave it), not per
 * online CPU. */
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "hspgemm.h"
#include "tap.h"

/* The fewest and most CPUs any thread but the caller may run on; the
 * number of such threads (the pool's worker, and any a sanitizer runs). */
static int worker_cpus(int *fewest, int *most)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    pid_t me = (pid_t)syscall(SYS_gettid);
    int n = 0;
    *fewest = 1 << 30, *most = 0;
    while (d && (e = readdir(d))) {
        pid_t tid = (pid_t)atoi(e->d_name);
        cpu_set_t set;
        if (tid <= 0 || tid == me || sched_getaffinity(tid, sizeof set, &set) != 0) continue;
        int c = CPU_COUNT(&set);
        *fewest = c < *fewest ? c : *fewest, *most = c > *most ? c : *most, n++;
    }
    if (d) closedir(d);
    return n;
}

/* A context of 2 threads, bound or not: its one worker's CPUs. */
static void check(int unbound, int allowed)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    int fewest, most;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 2, o.unbound = unbound;
    hsp_status s = hsp_context_create(&o, &ctx);
    int n = s == HSP_OK ? worker_cpus(&fewest, &most) : 0;
    /* other threads (a sanitizer's) may run anywhere: the worker is told by one CPU */
    if (unbound)
        tap_ok(n >= 1 && fewest == allowed,
               "unbound: the worker may run on the process's %d CPUs (%d other threads, %d-%d CPUs)", allowed, n,
               n ? fewest : 0, n ? most : 0);
    else
        tap_ok(n >= 1 && fewest == 1, "bound: the worker runs on one CPU (%d other threads, %d-%d CPUs)", n,
               n ? fewest : 0, n ? most : 0);
    hsp_context_free(ctx);
}

/* The threads of a product on a context of threads = 0 made by a caller
 * bound to one CPU (which it is again after). */
static void threads_of_a_bound_caller(cpu_set_t *allowed)
{
    cpu_set_t one;
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_csr *A = NULL, *C = NULL;
    hsp_stats st = {0};
    int cpu = 0;
    while (!CPU_ISSET(cpu, allowed)) cpu++;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    hsp_options_init(&o);
    o.device = "cpu";
    int bound = sched_setaffinity(0, sizeof one, &one) == 0;
    hsp_status s = hsp_context_create(&o, &ctx);
    sched_setaffinity(0, sizeof *allowed, allowed);
    if (s == HSP_OK && hsp_generate("poisson2d5:100", 1, HSP_DOUBLE, &A) == HSP_OK)
        s = hsp_multiply(ctx, A, A, &C, &st);
    tap_ok(bound && s == HSP_OK && st.threads == 1,
           "threads = 0 made on one CPU of the %d allowed: a product on %d thread(s), not %d", CPU_COUNT(allowed),
           st.threads, CPU_COUNT(allowed));
    hsp_csr_free(A), hsp_csr_free(C), hsp_context_free(ctx);
}

int main(void)
{
    cpu_set_t set;
    int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    unsetenv("HSPGEMM_NO_BIND");
    check(1, allowed);
    if (allowed >= 2) check(0, allowed);
    else tap_skip("the process may run on one CPU only", "bound: the worker runs on one CPU");
    if (allowed >= 2) threads_of_a_bound_caller(&set);
    else tap_skip("the process may run on one CPU only", "threads = 0 made on one CPU");
    return tap_done();
}
