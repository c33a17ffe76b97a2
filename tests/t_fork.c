/* t_fork.c: the library in a child of fork(), as Python's multiprocessing
 * uses it (the 'fork' start method): the child has only the thread that
 * forked, none of the pool's workers.  A context made and used in the
 * parent multiplies right in the child and in a grandchild (the pool is
 * started anew there); the child frees it and makes and uses another; the
 * parent's context still works after.  A fork while another thread is
 * inside the allocation cache's lock leaves the child able to allocate.
 * Every child has an alarm, so that one that hangs dies of SIGALRM: a
 * failure, not a hang of the test. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/internal.h"
#include "ref.h"
#include "tap.h"

enum { CHILD_SECONDS = 60, RACES = 40, RACE_SECONDS = 10 };

static hsp_csr *A, *ref; /* the operand (rows enough for every thread) and A*A */
static double *mag;

/* A*A on ctx against the reference: 1 where right. */
static int right(hsp_context *ctx)
{
    hsp_csr *C = NULL;
    char why[256] = "";
    int ok = hsp_multiply(ctx, A, A, &C, NULL) == HSP_OK && ref_compare(C, ref, mag, why, sizeof why);
    hsp_csr_free(C);
    return ok;
}

/* A cpu context of 3 threads (2 workers, whatever the machine's cores). */
static hsp_context *context(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 3;
    return hsp_context_create(&o, &ctx) == HSP_OK ? ctx : NULL;
}

/* Run child() in a child process with an alarm of seconds: "" where it
 * exited 0, else how it ended, in why. */
static void in_child(int (*child)(hsp_context *), hsp_context *ctx, unsigned seconds, char *why, size_t len)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(seconds);
        _exit(child(ctx) ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) snprintf(why, len, "fork or wait failed");
    else if (WIFSIGNALED(status)) snprintf(why, len, "killed by signal %d%s", WTERMSIG(status),
                                           WTERMSIG(status) == SIGALRM ? " (hung)" : "");
    else if (WEXITSTATUS(status) != 0) snprintf(why, len, "exit status %d", WEXITSTATUS(status));
    else why[0] = 0;
}

/* The parent's context in a grandchild. */
static int grandchild(hsp_context *ctx)
{
    return right(ctx);
}

/* The parent's context in the child, then in a grandchild; then freed, and
 * another made and used. */
static int child(hsp_context *ctx)
{
    char why[128];
    if (!right(ctx)) return 0;
    in_child(grandchild, ctx, CHILD_SECONDS, why, sizeof why);
    if (why[0]) return 0;
    hsp_context_free(ctx);
    hsp_context *fresh = context();
    int ok = fresh && right(fresh);
    hsp_context_free(fresh);
    return ok;
}

/* Forks while another thread takes the allocation cache's lock: each
 * child must allocate.  Not under AddressSanitizer: there a child hung at
 * times inside the sanitizer's allocator, whose own lock the other thread
 * held at the fork (1 run in about 30 of CI's), and the cache keeps
 * nothing; the plain build runs it. */
#ifdef __SANITIZE_ADDRESS__
static void races(void)
{
    tap_skip("AddressSanitizer's allocator may be held by the other thread at a fork",
             "forks while another thread takes the allocation cache's lock");
}
#else
static atomic_int racing;

/* Large blocks through the allocation cache, again and again (its lock
 * taken and given back), until racing is cleared. */
static void *churn(void *unused)
{
    (void)unused;
    while (atomic_load(&racing)) {
        hsp_free_large(hsp_alloc((size_t)8 << 20));
        hsp_release_memory();
    }
    return NULL;
}

/* A large block through the cache in the child. */
static int allocates(hsp_context *unused)
{
    (void)unused;
    void *p = hsp_alloc((size_t)8 << 20);
    hsp_free_large(p);
    hsp_release_memory();
    return p != NULL;
}

static void races(void)
{
    char why[128];
    pthread_t thread;
    int hung = 0, failed = 0;
    atomic_store(&racing, 1);
    pthread_create(&thread, NULL, churn, NULL);
    for (int k = 0; k < RACES; k++) {
        in_child(allocates, NULL, RACE_SECONDS, why, sizeof why);
        hung += strstr(why, "hung") != NULL, failed += why[0] != 0;
        if (hung) break; /* once is enough: each costs RACE_SECONDS */
    }
    atomic_store(&racing, 0);
    pthread_join(thread, NULL);
    tap_ok(!failed, "forks while another thread takes the allocation cache's lock: each child allocates "
                    "(%d of %d failed, %d hung)", failed, RACES, hung);
}
#endif

int main(void)
{
    char why[128];
    if (hsp_generate("poisson3d7:20", 1, HSP_DOUBLE, &A) != HSP_OK || !(ref = ref_multiply(A, A, &mag))) {
        tap_ok(0, "the operand and its reference: %s", hsp_errmsg());
        return tap_done();
    }
    hsp_context *ctx = context();
    tap_ok(ctx && right(ctx), "a product in the parent (3 threads, the pool started)");
    in_child(child, ctx, CHILD_SECONDS, why, sizeof why);
    tap_ok(!why[0], "after fork: the parent's context multiplies in the child and a grandchild, is freed "
                    "there, and a new one works%s%s", why[0] ? ": " : "", why);
    tap_ok(ctx && right(ctx), "the parent's context still multiplies after the fork");
    hsp_context_free(ctx);

    races();
    hsp_csr_free(A), hsp_csr_free(ref), free(mag);
    return tap_done();
}
