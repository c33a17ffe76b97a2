/* t_concurrent.c: the library used from several threads at once, on the
 * device under test ($HSPGEMM_TEST_DEVICE, default cpu):
 * - contexts of their own: each thread makes one and runs products (rows of
 *   every group, long ones growing), Galerkin products and an AMG setup,
 *   each checked against the reference, while the others do the same;
 * - one context shared by two threads taking turns (the callers order
 *   their calls), and shared by threads that call at once (the context
 *   runs one call at a time, the others wait): products and Galerkin
 *   products of every thread right;
 * - errors at the same time as products elsewhere: each thread's
 *   hsp_errmsg is its own.
 * Built with --enable-sanitizers=thread, ThreadSanitizer checks all of it
 * for data races (CI runs it so). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

enum { WORKERS = 4, ROUNDS = 3, AT_ONCE = 200 };

/* What one worker did: its failures, with the first one's reason. */
typedef struct {
    void *(*run)(void *);       /* what the thread does */
    int id;
    hsp_context *shared;        /* the context of the turn-taking test, or NULL */
    pthread_mutex_t *turn;      /* held around each call on shared */
    int failures;
    char why[256];
} worker;

static void fail(worker *w, const char *what, const char *detail)
{
    if (!w->failures++) snprintf(w->why, sizeof w->why, "%.40s: %.200s", what, detail);
}

/* A*B on ctx against the reference. */
static void check_product(worker *w, hsp_context *ctx, const hsp_csr *A, const hsp_csr *B)
{
    double *mag = NULL;
    hsp_csr *C = NULL, *ref = ref_multiply(A, B, &mag);
    char why[256];
    if (w->turn) pthread_mutex_lock(w->turn);
    hsp_status s = hsp_multiply(ctx, A, B, &C, NULL);
    if (w->turn) pthread_mutex_unlock(w->turn);
    if (s != HSP_OK) fail(w, "multiply", hsp_errmsg());
    else if (!ref || !ref_compare(C, ref, mag, why, sizeof why)) fail(w, "multiply", ref ? why : "no reference");
    hsp_csr_free(C), hsp_csr_free(ref), free(mag);
}

/* P^T*A*P on ctx against the two reference products. */
static void check_rap(worker *w, hsp_context *ctx, const hsp_csr *A, const hsp_csr *P)
{
    hsp_csr *C = NULL, *R = NULL, *AP = ref_multiply(A, P, NULL);
    hsp_transpose(P, &R);
    double *mag = NULL;
    hsp_csr *ref = AP && R ? ref_multiply(R, AP, &mag) : NULL;
    char why[256];
    hsp_status s = hsp_rap(ctx, NULL, A, P, HSP_RAP_R_AP, &C, NULL, NULL);
    if (s != HSP_OK) fail(w, "rap", hsp_errmsg());
    else if (!ref || !ref_compare(C, ref, mag, why, sizeof why)) fail(w, "rap", ref ? why : "no reference");
    hsp_csr_free(C), hsp_csr_free(R), hsp_csr_free(AP), hsp_csr_free(ref), free(mag);
}

/* An AMG setup on ctx: levels that coarsen, each A the Galerkin product of the one above. */
static void check_amg(worker *w, hsp_context *ctx, const hsp_csr *S)
{
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_amg_options_init(&o);
    o.coarse_size = 50;
    if (hsp_amg_setup(ctx, S, &o, &amg) != HSP_OK) {
        fail(w, "amg setup", hsp_errmsg());
        return;
    }
    if (amg->nlevels < 2) fail(w, "amg setup", "one level");
    for (int l = 0; l + 1 < amg->nlevels; l++) {
        hsp_csr *AP = ref_multiply(amg->level[l].A, amg->level[l].P, NULL);
        double *mag = NULL;
        hsp_csr *ref = AP ? ref_multiply(amg->level[l].R, AP, &mag) : NULL;
        char why[256];
        if (!ref || !ref_compare(amg->level[l + 1].A, ref, mag, why, sizeof why))
            fail(w, "amg level", ref ? why : "no reference");
        hsp_csr_free(AP), hsp_csr_free(ref), free(mag);
    }
    hsp_amg_free(amg);
}

/* A context of its own, rounds of every kind of call. */
static void *own_context(void *arg)
{
    worker *w = arg;
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.threads = 2, o.small_nnz = -1, o.grow_start = 8, o.grow = w->id % 2;
    if (hsp_context_create(&o, &ctx) != HSP_OK) {
        fail(w, "context", hsp_errmsg());
        return NULL;
    }
    hsp_csr *S = NULL;
    hsp_generate("poisson2d5:20", 1, HSP_DOUBLE, &S);
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t seed = 100 * (uint64_t)w->id + (uint64_t)r;
        hsp_csr *A = ref_random(300, 200, 0, 40, w->id % 3 ? HSP_DOUBLE : HSP_FLOAT, seed);
        hsp_csr *B = ref_random(200, 250, 0, 40, w->id % 3 ? HSP_DOUBLE : HSP_FLOAT, seed + 50);
        hsp_csr *P = ref_random(S->nrows, 60, 1, 2, HSP_DOUBLE, seed + 70);
        check_product(w, ctx, A, B);
        check_rap(w, ctx, S, P);
        hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(P);
    }
    check_amg(w, ctx, S);
    hsp_csr_free(S);
    hsp_context_free(ctx);
    return NULL;
}

/* Products on the shared context, in turns with the other thread. */
static void *shared_context(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < 2 * ROUNDS; r++) {
        uint64_t seed = 1000 + 100 * (uint64_t)w->id + (uint64_t)r;
        hsp_csr *A = ref_random(200, 150, 0, 30, HSP_DOUBLE, seed), *B = ref_random(150, 180, 0, 30, HSP_DOUBLE, seed + 1);
        check_product(w, w->shared, A, B);
        hsp_csr_free(A), hsp_csr_free(B);
    }
    return NULL;
}

/* Products and, every 10th round, Galerkin products on the shared context,
 * called while the other threads call it too. */
static void *shared_at_once(void *arg)
{
    worker *w = arg;
    hsp_csr *S = NULL;
    hsp_generate("poisson2d5:12", 1, HSP_DOUBLE, &S);
    for (int r = 0; r < AT_ONCE; r++) {
        uint64_t seed = 5000 + 1000 * (uint64_t)w->id + (uint64_t)r;
        hsp_csr *A = ref_random(60, 50, 0, 12, HSP_DOUBLE, seed), *B = ref_random(50, 70, 0, 12, HSP_DOUBLE, seed + 1);
        hsp_csr *P = r % 10 ? NULL : ref_random(S->nrows, 20, 1, 2, HSP_DOUBLE, seed + 2);
        check_product(w, w->shared, A, B);
        if (P) check_rap(w, w->shared, S, P);
        hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(P);
    }
    hsp_csr_free(S);
    return NULL;
}

/* Shape errors while other threads multiply: the message must be this one's. */
static void *errors(void *arg)
{
    worker *w = arg;
    hsp_context *ctx = NULL;
    hsp_options o;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 1;
    if (hsp_context_create(&o, &ctx) != HSP_OK) {
        fail(w, "context", hsp_errmsg());
        return NULL;
    }
    hsp_csr *A = ref_random(10, 11 + w->id, 1, 3, HSP_DOUBLE, 5), *C = NULL;
    char want[64];
    snprintf(want, sizeof want, "A is 10 x %d but B is 10 x %d", 11 + w->id, 11 + w->id);
    for (int r = 0; r < 200; r++)
        if (hsp_multiply(ctx, A, A, &C, NULL) != HSP_ERR_SHAPE || !strstr(hsp_errmsg(), want))
            fail(w, "shape error", hsp_errmsg());
    hsp_csr_free(A);
    hsp_context_free(ctx);
    return NULL;
}

/* Run n workers at once; return their failures (the first reason in why). */
static int run_workers(worker *w, int n, char *why, size_t len)
{
    pthread_t t[WORKERS + 2];
    int failures = 0;
    for (int k = 0; k < n; k++) pthread_create(&t[k], NULL, w[k].run, &w[k]);
    for (int k = 0; k < n; k++) pthread_join(t[k], NULL);
    why[0] = 0;
    for (int k = 0; k < n; k++) {
        if (w[k].failures && !why[0]) snprintf(why, len, "thread %d: %s", k, w[k].why);
        failures += w[k].failures;
    }
    return failures;
}

int main(void)
{
    worker w[WORKERS + 2];
    char why[300];
    memset(w, 0, sizeof w);
    for (int k = 0; k < WORKERS; k++) w[k] = (worker){.run = own_context, .id = k};
    int failed = run_workers(w, WORKERS, why, sizeof why);
    tap_ok(!failed, "%d threads, a context each on %s: %d rounds of products and Galerkin products and an AMG "
           "setup each, all equal to the reference%s%s", WORKERS, ref_device(), ROUNDS, failed ? "; " : "", why);

    hsp_context *shared = ref_context();
    pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
    memset(w, 0, sizeof w);
    for (int k = 0; k < 2; k++) w[k] = (worker){.run = shared_context, .id = k, .shared = shared, .turn = &turn};
    failed = shared ? run_workers(w, 2, why, sizeof why) : 1;
    tap_ok(!failed, "two threads taking turns on one context: %d products each, all equal to the reference%s%s",
           2 * ROUNDS, failed ? "; " : "", shared ? why : hsp_errmsg());
    hsp_context_free(shared);

    shared = ref_context();
    memset(w, 0, sizeof w);
    for (int k = 0; k < 3; k++) w[k] = (worker){.run = shared_at_once, .id = k, .shared = shared};
    failed = shared ? run_workers(w, 3, why, sizeof why) : 1;
    tap_ok(!failed, "three threads calling one context at once: %d products and %d Galerkin products each, all "
           "equal to the reference%s%s", AT_ONCE, AT_ONCE / 10, failed ? "; " : "", shared ? why : hsp_errmsg());
    hsp_context_free(shared);

    memset(w, 0, sizeof w);
    for (int k = 0; k < WORKERS + 2; k++) w[k] = (worker){.run = k < WORKERS ? errors : own_context, .id = k};
    failed = run_workers(w, WORKERS + 2, why, sizeof why);
    tap_ok(!failed, "%d threads making shape errors while 2 others multiply: each hsp_errmsg names its own "
           "shapes%s%s", WORKERS, failed ? "; " : "", why);
    return tap_done();
}
