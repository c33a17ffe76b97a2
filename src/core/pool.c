/* pool.c: the thread pool, and the split of weighted items into its parts.
 * A generation counter tells the workers a new run has been posted.  Between
 * runs a worker spins a little before it sleeps on a condition variable, and
 * so does the caller waiting for the workers: a product posts several runs a
 * few microseconds apart, and waking a sleeping thread costs tens of
 * microseconds (more in a virtual machine).  The workers are bound to CPUs
 * other than the caller's (bind_workers).
 *
 * Each thread's part of a run is taken once, by its worker or, where the
 * worker has not come to it when the caller is done with its own, by the
 * caller: a worker that another process keeps off its CPU costs a run no
 * more than that part done on one thread, where waiting for it could take
 * the scheduler's time slice (milliseconds) each run (doc/performance.md).
 *
 * A run of chunks takes them from one queue, in order (hsp_pool_chunks), or
 * each thread from its own range of them first (hsp_pool_chunks_kept), so
 * that a product repeated on the same operands finds each part's rows in
 * the cache of the core that made them the time before.
 *
 * After fork() the child has only the thread that forked: a pool made
 * before has no workers there, and its lock may have been held by one of
 * them.  A run in the child finds that from the count of forks (a
 * pthread_atfork handler counts them in the child) and starts the pool
 * anew first: new lock, conditions and workers. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/internal.h"
#include "core/pool.h"

/* The next chunk of a range of a run, on a cache line of its own (a
 * thread takes from its own range, and from the others' at the end). */
typedef struct {
    atomic_llong next;
    char pad[64 - sizeof(atomic_llong)];
} cursor;

struct hsp_pool {
    int nthreads;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    atomic_uint_fast64_t generation;
    atomic_uint_fast64_t *taken; /* the generation whose part of each thread was last taken */
    atomic_int running, stop;    /* running: workers inside a run */
    hsp_pool_fn fn;
    void *arg;
    int bound_beside; /* the caller's CPU the workers are bound beside; -1: not bound */
    int unbound;      /* hsp_pool_create's */
    int workers;      /* workers running: nthreads - 1, or 0 where they could not be started
                         (each run then runs every thread's part on the caller, in turn) */
    unsigned forks;   /* the process's forks when the workers were started */
    cursor *cursors;  /* a run of chunks': the next chunk of each range (one per thread) */
};

/* The forks of this process's ancestry so far, counted in each child. */
static atomic_uint forks;
static pthread_once_t forks_counted = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    atomic_fetch_add(&forks, 1);
}

static void count_forks(void)
{
    pthread_atfork(NULL, NULL, count_fork);
}

typedef struct {
    hsp_pool *pool;
    int tid;
} worker_arg;

enum { SPINS = 1 << 14, YIELD_EVERY = 64 }; /* about 50-100 microseconds of spinning */

/* Spin step k: let the other hardware thread of the core run, and every
 * YIELD_EVERY steps the other threads of this CPU.  Where the thread waited
 * for shares this CPU (more threads than CPUs, or unbound threads the
 * scheduler put together) a spin without yields holds it up until the spin
 * ends: small products took 15 times as long (doc/performance.md,
 * "Figures behind the code"). */
static inline void spin_pause(int k)
{
    if (k % YIELD_EVERY == YIELD_EVERY - 1) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Bind the workers each to one of the CPUs the process may use other than
 * cpu, the caller's (which stays free to move): left to itself the
 * scheduler of a 2-core VM at times put a worker on the caller's CPU and
 * kept it there while the other CPU idled, so that the threads took turns
 * (twice the time: doc/performance.md, "Figures behind the code").  Not
 * when the workers outnumber the
 * other CPUs, or where the pool is unbound (hsp_options.unbound, or
 * HSPGEMM_NO_BIND set). */
static void bind_workers(hsp_pool *pool, int cpu)
{
    cpu_set_t allowed, one;
    pool->bound_beside = -1;
    if (cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(cpu, &allowed) ||
        CPU_COUNT(&allowed) < pool->nthreads)
        return;
    pool->bound_beside = cpu;
    for (int c = 0, t = 0; c < CPU_SETSIZE && t < pool->nthreads - 1; c++) {
        if (!CPU_ISSET(c, &allowed) || c == cpu) continue;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        pthread_setaffinity_np(pool->threads[t++], sizeof one, &one);
    }
}

/* Take thread tid's part of run gen: 1 where no one has yet. */
static int take(hsp_pool *pool, int tid, uint64_t gen)
{
    uint_fast64_t was = atomic_load(&pool->taken[tid]);
    while (was < gen)
        if (atomic_compare_exchange_weak(&pool->taken[tid], &was, gen)) return 1;
    return 0;
}

/* Worker tid's part of run gen, where the caller has not taken it. */
static void join_run(hsp_pool *pool, int tid, uint64_t gen)
{
    atomic_fetch_add(&pool->running, 1);
    if (take(pool, tid, gen)) pool->fn(pool->arg, tid);
    if (atomic_fetch_sub(&pool->running, 1) == 1) {
        pthread_mutex_lock(&pool->lock);
        pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* A worker: wait for a new generation, run its part of it. */
static void *worker_main(void *p)
{
    worker_arg *w = p;
    hsp_pool *pool = w->pool;
    int tid = w->tid;
    uint64_t seen = 0;
    free(w);
    for (;;) {
        for (int k = 0; k < SPINS && atomic_load(&pool->generation) == seen && !atomic_load(&pool->stop); k++)
            spin_pause(k);
        pthread_mutex_lock(&pool->lock);
        while (atomic_load(&pool->generation) == seen && !atomic_load(&pool->stop))
            pthread_cond_wait(&pool->wake, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
        if (atomic_load(&pool->stop)) break;
        seen = atomic_load(&pool->generation);
        join_run(pool, tid, seen);
    }
    return NULL;
}

int hsp_cpu_count(void)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) return CPU_COUNT(&allowed);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Ask every worker to stop and join those started. */
static void stop_workers(hsp_pool *pool, int started)
{
    pthread_mutex_lock(&pool->lock);
    atomic_store(&pool->stop, 1);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int t = 0; t < started; t++) pthread_join(pool->threads[t], NULL);
}

/* Start the pool's workers, its lock and conditions made first; where a
 * worker cannot be started, those started are stopped and there are none. */
static hsp_status start_workers(hsp_pool *pool)
{
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_store(&pool->generation, 0), atomic_store(&pool->running, 0), atomic_store(&pool->stop, 0);
    for (int t = 0; t < pool->nthreads; t++) atomic_store(&pool->taken[t], 0);
    pool->forks = atomic_load(&forks), pool->workers = 0, pool->bound_beside = -1;
    for (int t = 0; t < pool->nthreads - 1; t++) {
        worker_arg *w = malloc(sizeof *w);
        if (w) *w = (worker_arg){pool, t + 1};
        if (!w || pthread_create(&pool->threads[t], NULL, worker_main, w) != 0) {
            free(w);
            stop_workers(pool, t);
            return hsp_fail(HSP_ERR_NOMEM, "could not start thread %d of %d", t + 2, pool->nthreads);
        }
    }
    pool->workers = pool->nthreads - 1;
    if (pool->workers && !pool->unbound && !getenv("HSPGEMM_NO_BIND")) bind_workers(pool, sched_getcpu());
    return HSP_OK;
}

hsp_status hsp_pool_create(int nthreads, int unbound, hsp_pool **out)
{
    *out = NULL;
    if (nthreads < 1 || nthreads > 4096)
        return hsp_fail(HSP_ERR_ARG, "thread count %d outside 1..4096", nthreads);
    pthread_once(&forks_counted, count_forks);
    hsp_pool *pool = calloc(1, sizeof *pool);
    if (!pool || !(pool->threads = calloc((size_t)nthreads, sizeof *pool->threads)) ||
        !(pool->taken = calloc((size_t)nthreads, sizeof *pool->taken)) ||
        !(pool->cursors = calloc((size_t)nthreads, sizeof *pool->cursors))) {
        if (pool) free(pool->threads), free(pool->taken);
        free(pool);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the thread pool");
    }
    pool->nthreads = nthreads, pool->unbound = unbound;
    hsp_status s = start_workers(pool);
    if (s != HSP_OK) {
        hsp_pool_free(pool);
        return s;
    }
    *out = pool;
    return HSP_OK;
}

/* Has the process forked since the pool's workers were started (they are
 * then not in this process)? */
static int forked(const hsp_pool *pool)
{
    return pool->forks != atomic_load(&forks);
}

void hsp_pool_free(hsp_pool *pool)
{
    if (!pool) return;
    if (forked(pool)) { /* a child's: no worker to stop, and a lock they may have held */
        free(pool->threads), free(pool->taken), free(pool->cursors);
        free(pool);
        return;
    }
    if (!atomic_load(&pool->stop)) stop_workers(pool, pool->workers);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    free(pool->threads), free(pool->taken), free(pool->cursors);
    free(pool);
}

int hsp_pool_size(const hsp_pool *pool)
{
    return pool->nthreads;
}

void hsp_pool_run(hsp_pool *pool, hsp_pool_fn fn, void *arg)
{
    if (forked(pool)) start_workers(pool); /* without workers where it fails: the run below copes */
    if (pool->workers == 0) {
        for (int tid = 0; tid < pool->nthreads; tid++) fn(arg, tid);
        return;
    }
    int cpu = sched_getcpu();
    if (pool->bound_beside >= 0 && cpu >= 0 && cpu != pool->bound_beside) bind_workers(pool, cpu);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    uint64_t gen = atomic_fetch_add(&pool->generation, 1) + 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int tid = 0; tid < pool->nthreads; tid++) /* the caller's part, then those no worker came to */
        if (take(pool, tid, gen)) fn(arg, tid);
    for (int k = 0; k < SPINS && atomic_load(&pool->running) > 0; k++) spin_pause(k);
    pthread_mutex_lock(&pool->lock);
    while (atomic_load(&pool->running) > 0) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

typedef struct {
    cursor *cursors;
    int64_t nchunks;
    int ranges; /* 1: one queue of all chunks; else the threads' own ranges */
    hsp_chunk_fn fn;
    void *arg;
} chunk_run;

/* The first chunk of range k (k = ranges: one past the last chunk). */
static int64_t range_start(const chunk_run *run, int k)
{
    return run->nchunks * k / run->ranges;
}

/* Thread tid's chunks: those of its range (range 0 where there is one) in
 * order, then what is left of the others'. */
static void run_chunks(void *p, int tid)
{
    chunk_run *run = p;
    for (int j = 0; j < run->ranges; j++) {
        int k = (tid + j) % run->ranges;
        for (int64_t end = range_start(run, k + 1), c; (c = atomic_fetch_add(&run->cursors[k].next, 1)) < end;)
            run->fn(run->arg, tid, c);
    }
}

/* nchunks chunks in ranges ranges (1 or the pool's threads) on the pool. */
static void run_ranges(hsp_pool *pool, int64_t nchunks, int ranges, hsp_chunk_fn fn, void *arg)
{
    if (nchunks <= 1) { /* no worker woken for it: a wake costs more than a small product on a GPU */
        if (nchunks == 1) fn(arg, 0, 0);
        return;
    }
    chunk_run run = {pool->cursors, nchunks, ranges, fn, arg};
    for (int k = 0; k < ranges; k++) atomic_store(&run.cursors[k].next, range_start(&run, k));
    hsp_pool_run(pool, run_chunks, &run);
}

void hsp_pool_chunks(hsp_pool *pool, int64_t nchunks, hsp_chunk_fn fn, void *arg)
{
    run_ranges(pool, nchunks, 1, fn, arg);
}

void hsp_pool_chunks_kept(hsp_pool *pool, int64_t nchunks, hsp_chunk_fn fn, void *arg)
{
    run_ranges(pool, nchunks, pool->nthreads, fn, arg);
}

int64_t hsp_split_weighted(const int64_t *prefix, int64_t n, int64_t parts, int64_t *cut)
{
    return hsp_split_rows(prefix, 0, n, parts, cut);
}

int64_t hsp_split_rows(const int64_t *prefix, int64_t each, int64_t n, int64_t parts, int64_t *cut)
{
    int64_t total = prefix ? prefix[n] - prefix[0] + each * n : n;
    if (parts > n) parts = n;
    if (parts < 1) parts = 1; /* no items: one empty part, which the pool runs on the caller */
    cut[0] = 0;
    for (int64_t p = 1; p < parts; p++) {
        int64_t target = total / parts * p + total % parts * p / parts, lo = cut[p - 1], hi = n;
        if (!prefix) {
            cut[p] = target;
            continue;
        }
        while (lo < hi) { /* first row whose prefix reaches the target */
            int64_t mid = lo + (hi - lo) / 2;
            if (prefix[mid] - prefix[0] + each * mid < target) lo = mid + 1;
            else hi = mid;
        }
        cut[p] = lo;
    }
    cut[parts] = n;
    return parts;
}
