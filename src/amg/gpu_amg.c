/* gpu_amg.c: the steps of smoothed aggregation that a resident hierarchy
 * runs on a GPU with memory of its own (kernels/amg.cl), so that no level's
 * matrices cross to the host: the diagonal and the bound of rho(D^-1 A), the
 * passes of the Lanczos steps that lower it, strong connections, aggregates,
 * T, the smoothing of A*T into P, R = P^T (rows unsorted) and the identity,
 * which sorts them in a product; and for a re-setup, P^T's values (its
 * values-only products and the check of a new A's pattern are the
 * pipeline's: spgemm/gpu_plan.c).  What crosses is a few
 * numbers: a flag, one every few launches of the root search, a maximum or
 * a sum per work-group, T's entry count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"
#include "amg/gpu_amg.h"

/* The root search (find_roots): chunks of rows taken in the host's order,
 * the rounds in that order at most, the rounds between two looks at
 * whether it is done, the rounds of a launch of hsp_mis_rounds, and the
 * most work-groups a launch's decisions may reach for its work-groups to
 * skip those whose neighbourhood saw none (more: none skipped). */
enum { MIS_CHUNK = 1 << 21, MIS_ORDER_ROUNDS = 4096, MIS_CHECK = 8, MIS_ITERS = 8, MIS_REACH = 256 };

/* The temporaries of one aggregation (W_PART: the diagonal's partial
 * bounds, then, for classical strength, each row's largest square;
 * W_SETTLED, W_CHANGED: a flag and the last launch with a decision per
 * work-group of hsp_mis_rounds;
 * W_UNDECIDED: a flag, and the reach of a strong connection in rows;
 * W_ROOT: 1 for each root, then for each node in an aggregate; W_AGG: the
 * aggregate of each node, or -1). */
enum { W_WHERE, W_BAD, W_PART, W_STRONG, W_KEY, W_MAX1, W_UNDECIDED, W_ROOT, W_FIRST, W_NEAR, W_SETTLED, W_CHANGED,
       W_AGG, W_COUNT };

/* T's arrays where the device holds it: row pointers, columns, values, and
 * the weights of its aggregates (the next level's nodes): the nodes of
 * level 0 in each. */
enum { T_WEIGHTS = 3 };

/* *out: the largest (most) or the sum of the ngroups values of the
 * kernels' type at part (buf holds as many). */
static hsp_status parts_read(gpu *g, int dbl, gpu_array *part, size_t ngroups, int most, void *buf, double *out)
{
    hsp_status s = gpu_array_read(g, part, buf, ngroups * (dbl ? sizeof(double) : sizeof(float)));
    *out = 0;
    for (size_t k = 0; s == HSP_OK && k < ngroups; k++) {
        double x = dbl ? ((double *)buf)[k] : ((float *)buf)[k];
        *out = most ? fmax(*out, x) : *out + x;
    }
    return s;
}

/* where[], the rows without a nonzero diagonal (an error naming the first),
 * and *rho, the largest sum_j |a_ij| / |a_ii|. */
static hsp_status diagonal(gpu *g, const hsp_csr *A, const gpu_held *h, gpu_array *w, double *rho)
{
    int dbl = A->precision == HSP_DOUBLE;
    int64_t n = A->nrows;
    int32_t bad = A->nrows;
    size_t size = gpu_pow2_group(g, dbl, GK_SA_DIAG), vs = hsp_value_size(A->precision);
    size_t ngroups = ((size_t)n + size - 1) / size;
    void *part = malloc(ngroups * vs + 1);
    hsp_status s = part ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for %zu maxima", ngroups);
    if (s == HSP_OK) s = gpu_array_write(g, &w[W_BAD], &bad, sizeof bad);
    gpu_arg a[] = {gpu_val(&n, sizeof n),     gpu_array_arg(&h->a[0]),    gpu_array_arg(&h->a[1]),
                   gpu_array_arg(&h->a[2]),   gpu_array_arg(&w[W_WHERE]), gpu_array_arg(&w[W_BAD]),
                   gpu_array_arg(&w[W_PART]), gpu_local(size * vs)};
    if (s == HSP_OK) s = g->ops->launch(g, dbl, GK_SA_DIAG, a, 8, ngroups, size);
    if (s == HSP_OK) s = gpu_flag_read(g, &w[W_BAD], A->nrows, &bad);
    if (s == HSP_OK && bad < A->nrows) s = hsp_fail_diagonal(bad);
    *rho = 0;
    if (s == HSP_OK) s = parts_read(g, dbl, &w[W_PART], ngroups, 1, part, rho);
    free(part);
    return s;
}

/* Rounds from round first over every node (hsp_mis_max, hsp_mis_update)
 * until none is undecided (checked every MIS_CHECK rounds: a round past the
 * last changes nothing); from round MIS_ORDER_ROUNDS + 1 with the
 * undecided nodes' keys hashed, which ends in a few more. */
static hsp_status full_rounds(gpu *g, int dbl, int64_t n, const gpu_held *h, gpu_array *w, int first)
{
    int64_t one = 1;
    int32_t undecided = 1;
    gpu_arg rekey[] = {gpu_val(&n, sizeof n), gpu_array_arg(&w[W_KEY])};
    gpu_arg max1[] = {gpu_val(&n, sizeof n),       gpu_array_arg(&h->a[0]),  gpu_array_arg(&h->a[1]),
                      gpu_array_arg(&w[W_STRONG]), gpu_array_arg(&w[W_KEY]), gpu_array_arg(&w[W_MAX1])};
    gpu_arg zero[] = {gpu_val(&one, sizeof one), gpu_array_arg(&w[W_UNDECIDED])};
    gpu_arg update[] = {gpu_val(&n, sizeof n),          gpu_array_arg(&h->a[0]),  gpu_array_arg(&h->a[1]),
                        gpu_array_arg(&w[W_STRONG]),    gpu_array_arg(&w[W_KEY]), gpu_array_arg(&w[W_MAX1]),
                        gpu_array_arg(&w[W_UNDECIDED]), gpu_array_arg(&w[W_ROOT])};
    hsp_status s = HSP_OK;
    for (int round = first; s == HSP_OK && undecided > 0; round++) {
        int check = round % MIS_CHECK == 0;
        if (round == MIS_ORDER_ROUNDS + 1) s = gpu_launch_items(g, dbl, GK_MIS_REKEY, rekey, 2, n);
        if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_MIS_MAX, max1, 6, n);
        if (s == HSP_OK && check) s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, 1);
        if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_MIS_UPDATE, update, 8, n);
        if (s == HSP_OK && check) s = g->ops->finish(g);
        if (s == HSP_OK && check) s = gpu_array_read(g, &w[W_UNDECIDED], &undecided, sizeof undecided);
    }
    return s;
}

/* Is every strong connection of A strong both ways?  *span: the largest
 * |i - j| of a strong entry (i, j). */
static hsp_status symmetric(gpu *g, int dbl, int64_t n, const gpu_held *h, gpu_array *w, int *yes, int32_t *span)
{
    int32_t out[2] = {0, 0}; /* asymmetric, span */
    gpu_arg a[] = {gpu_val(&n, sizeof n), gpu_array_arg(&h->a[0]), gpu_array_arg(&h->a[1]), gpu_array_arg(&w[W_STRONG]),
                   gpu_array_arg(&w[W_UNDECIDED])};
    hsp_status s = gpu_array_write(g, &w[W_UNDECIDED], out, sizeof out);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_MIS_SYMMETRIC, a, 5, n);
    if (s == HSP_OK) s = g->ops->finish(g);
    if (s == HSP_OK) s = gpu_array_read(g, &w[W_UNDECIDED], out, sizeof out);
    *yes = !out[0], *span = out[1];
    return s;
}

/* The work-groups of `size` rows behind a work-group that a launch's
 * decisions may reach it from (a decision reaches two strong connections,
 * 2 span rows, a round), or -1 where that passes MIS_REACH or the keys'
 * chunks interleave (then every work-group runs every launch). */
static int32_t mis_reach(int64_t n, int32_t span, size_t size)
{
    int64_t one = (2 * (int64_t)span + (int64_t)size - 1) / (int64_t)size + 1, reach = one * (MIS_ITERS + 1);
    return n > MIS_CHUNK || reach > MIS_REACH ? -1 : (int32_t)reach;
}

/* Launches of hsp_mis_rounds (MIS_ITERS rounds each, in the work-groups not
 * settled with a decision near in the two launches before) after max1 is
 * made, until no node is undecided (*done; checked every MIS_CHECK launches)
 * or the rounds pass MIS_ORDER_ROUNDS.  The strong connections must be
 * symmetric. */
static hsp_status many_rounds(gpu *g, int dbl, int64_t n, int32_t span, const gpu_held *h, gpu_array *w, int *done)
{
    size_t size = gpu_pow2_group(g, dbl, GK_MIS_ROUNDS), groups = ((size_t)n + size - 1) / size;
    int64_t ngroups = (int64_t)groups, one = 1;
    int32_t iters = MIS_ITERS, undecided = 1, launch = 0, reach = mis_reach(n, span, size);
    gpu_arg zero[] = {gpu_val(&ngroups, sizeof ngroups), gpu_array_arg(&w[W_SETTLED])};
    gpu_arg zero_changed[] = {gpu_val(&ngroups, sizeof ngroups), gpu_array_arg(&w[W_CHANGED])};
    gpu_arg zero1[] = {gpu_val(&one, sizeof one), gpu_array_arg(&w[W_UNDECIDED])};
    gpu_arg max1[] = {gpu_val(&n, sizeof n),       gpu_array_arg(&h->a[0]),  gpu_array_arg(&h->a[1]),
                      gpu_array_arg(&w[W_STRONG]), gpu_array_arg(&w[W_KEY]), gpu_array_arg(&w[W_MAX1])};
    gpu_arg rounds[] = {gpu_val(&n, sizeof n),          gpu_array_arg(&h->a[0]),       gpu_array_arg(&h->a[1]),
                        gpu_array_arg(&w[W_STRONG]),    gpu_array_arg(&w[W_KEY]),      gpu_array_arg(&w[W_MAX1]),
                        gpu_array_arg(&w[W_ROOT]),      gpu_val(&iters, sizeof iters), gpu_array_arg(&w[W_SETTLED]),
                        gpu_array_arg(&w[W_UNDECIDED]), gpu_local(5 * sizeof(int32_t)),
                        gpu_val(&launch, sizeof launch), gpu_array_arg(&w[W_CHANGED]),
                        gpu_val(&reach, sizeof reach)};
    hsp_status s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, ngroups);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero_changed, 2, ngroups);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_MIS_MAX, max1, 6, n);
    for (int at = 0; s == HSP_OK && undecided > 0 && at * MIS_ITERS < MIS_ORDER_ROUNDS; at++) {
        int check = (at + 1) % MIS_CHECK == 0;
        launch = at;
        if (check) s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero1, 2, 1);
        if (s == HSP_OK) s = g->ops->launch(g, dbl, GK_MIS_ROUNDS, rounds, 14, groups, size);
        if (s == HSP_OK && check) s = g->ops->finish(g);
        if (s == HSP_OK && check) s = gpu_array_read(g, &w[W_UNDECIDED], &undecided, sizeof undecided);
    }
    *done = undecided == 0;
    return s;
}

/* Every node's key, undecided where it has a strong connection, else out: in the host's order
 * within chunks of rows, or with parallel hashed (HSP_AGGREGATION_PARALLEL); no root yet. */
static hsp_status start_keys(gpu *g, int dbl, int64_t n, const gpu_held *h, gpu_array *w, int parallel)
{
    int64_t chunk = MIS_CHUNK;
    gpu_arg init[] = {gpu_val(&n, sizeof n),   gpu_val(&chunk, sizeof chunk), gpu_array_arg(&h->a[0]),
                      gpu_array_arg(&w[W_STRONG]), gpu_array_arg(&w[W_KEY]),   gpu_array_arg(&w[W_ROOT])};
    gpu_arg rekey[] = {gpu_val(&n, sizeof n), gpu_array_arg(&w[W_KEY])};
    hsp_status s = gpu_launch_items(g, dbl, GK_MIS_INIT, init, 6, n);
    return s == HSP_OK && parallel ? gpu_launch_items(g, dbl, GK_MIS_REKEY, rekey, 2, n) : s;
}

/* The roots: rounds of the largest key within distance 2 until no node is
 * undecided; w[W_ROOT] gets 1 for each root, w[W_KEY] the final keys.  The
 * keys follow the host's order within chunks of MIS_CHUNK rows, so that a
 * level of at most that many rows gets the host's roots, in rounds as many
 * as the longest chain of that order (for a 2D grid about a third of a row
 * and then a round or so a row: 1368 rounds for poisson2d9:1024); past
 * MIS_ORDER_ROUNDS, the undecided nodes' keys are hashed.  With parallel
 * they are hashed from the start: a few rounds, the host's parallel roots. */
static hsp_status find_roots(gpu *g, const hsp_csr *A, const gpu_held *h, gpu_array *w, int parallel)
{
    int dbl = A->precision == HSP_DOUBLE, sym = 0, done = 0;
    int32_t span = 0;
    int64_t n = A->nrows;
    hsp_status s = start_keys(g, dbl, n, h, w, parallel);
    if (s == HSP_OK) s = symmetric(g, dbl, n, h, w, &sym, &span);
    if (s == HSP_OK && sym) s = many_rounds(g, dbl, n, span, h, w, &done);
    /* Where many_rounds stopped short, which nodes it left undecided depends on how its
     * work-groups ran (PoCL 5's threads: 4491 to 4493 rows at level 1 of a 15000-row chain from
     * run to run), and hashing their keys would carry that into the roots: start again in
     * rounds over every node, which reach the hashing in one state every run (hashed already:
     * past the round that would hash them). */
    if (s == HSP_OK && sym && !done) s = start_keys(g, dbl, n, h, w, parallel);
    if (s == HSP_OK && !done) s = full_rounds(g, dbl, n, h, w, parallel ? MIS_ORDER_ROUNDS + 2 : 1);
    return s;
}

/* Each node's aggregate into w[W_AGG]: its root's, or its strong
 * neighbour's, or none where it has no strong connection (w[W_ROOT] then 1
 * for each node in one). */
static hsp_status assign(gpu *g, const hsp_csr *A, const gpu_held *h, gpu_array *w)
{
    int dbl = A->precision == HSP_DOUBLE;
    int64_t n = A->nrows;
    int32_t bad = A->nrows;
    gpu_arg near[] = {gpu_val(&n, sizeof n),       gpu_array_arg(&h->a[0]),  gpu_array_arg(&h->a[1]),
                      gpu_array_arg(&w[W_STRONG]), gpu_array_arg(&w[W_KEY]), gpu_array_arg(&w[W_FIRST]),
                      gpu_array_arg(&w[W_NEAR])};
    gpu_arg far[] = {gpu_val(&n, sizeof n),       gpu_array_arg(&h->a[0]),  gpu_array_arg(&h->a[1]),
                     gpu_array_arg(&w[W_STRONG]), gpu_array_arg(&w[W_KEY]), gpu_array_arg(&w[W_NEAR]),
                     gpu_array_arg(&w[W_AGG]),    gpu_array_arg(&w[W_BAD]), gpu_array_arg(&w[W_ROOT])};
    hsp_status s = gpu_array_write(g, &w[W_BAD], &bad, sizeof bad);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_AGG_NEAR, near, 7, n);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_AGG_FAR, far, 9, n);
    if (s == HSP_OK) s = gpu_flag_read(g, &w[W_BAD], A->nrows, &bad);
    if (s == HSP_OK && bad < A->nrows)
        s = hsp_fail(HSP_ERR_DEVICE, "aggregation on the device left node %d in no aggregate", bad);
    return s;
}

/* T from the aggregates in w[W_AGG] and the weights of A's nodes (prev's,
 * the T of the level before; all 1 where NULL): its row pointers from the
 * members (*tnnz of them), then its arrays, its aggregates' weights and an
 * entry a member. */
static hsp_status tentative(gpu *g, const hsp_csr *A, int32_t naggs, const gpu_held *prev, gpu_array *w, gpu_held *t,
                            int64_t *tnnz)
{
    int dbl = A->precision == HSP_DOUBLE, weighted = prev != NULL;
    int64_t n = A->nrows, na = naggs;
    const gpu_array *nw = prev ? &prev->a[T_WEIGHTS] : &w[W_AGG]; /* any array where not weighted */
    gpu_arg zero[] = {gpu_val(&na, sizeof na), gpu_array_arg(&t->a[T_WEIGHTS])};
    gpu_arg sum[] = {gpu_val(&n, sizeof n), gpu_array_arg(&w[W_AGG]), gpu_val(&weighted, sizeof weighted),
                     gpu_array_arg(nw), gpu_array_arg(&t->a[T_WEIGHTS])};
    gpu_arg rows[] = {gpu_val(&n, sizeof n), gpu_array_arg(&w[W_AGG]), gpu_val(&weighted, sizeof weighted),
                      gpu_array_arg(nw),     gpu_array_arg(&t->a[T_WEIGHTS]), gpu_array_arg(&t->a[0]),
                      gpu_array_arg(&t->a[1]), gpu_array_arg(&t->a[2])};
    size_t first[2] = {((size_t)n + 1) * sizeof(int64_t), (size_t)naggs * sizeof(int32_t)};
    hsp_status s = gpu_array_new(g, &t->a[0], first[0]);
    if (s == HSP_OK) s = gpu_array_new(g, &t->a[T_WEIGHTS], first[1]);
    if (s == HSP_OK) s = gpu_scan(g, dbl, &w[W_ROOT], &t->a[0], n, tnnz);
    size_t bytes[2] = {(size_t)*tnnz * sizeof(int32_t), (size_t)*tnnz * hsp_value_size(A->precision)};
    if (s == HSP_OK) s = gpu_arrays_new(g, &t->a[1], bytes, 2);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, na);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_AGG_WEIGHTS, sum, 5, n);
    return s == HSP_OK ? gpu_launch_items(g, dbl, GK_SA_TENTATIVE, rows, 8, n) : s;
}

/* Strength (zeros: A's stored zeros count, of symmetric strength), roots,
 * aggregates and T (*tnnz entries; prev: the T of the level before, or
 * NULL), with w allocated: as
 * the host's, nodes of no strong connection in no aggregate, and where no
 * node has one, one empty aggregate. */
static hsp_status aggregate(gpu *g, const hsp_csr *A, const gpu_held *h, const hsp_amg_options *o, int zeros,
                            const gpu_held *prev, gpu_array *w, gpu_held *t, int32_t *naggs, int64_t *tnnz,
                            double *rho)
{
    int dbl = A->precision == HSP_DOUBLE;
    int64_t n = A->nrows, roots = 0;
    int classical = o->strength == HSP_STRENGTH_CLASSICAL, stored = zeros && !classical; /* a zero: never, there */
    gpu_vt_value store;
    hsp_status s = diagonal(g, A, h, w, rho);
    gpu_arg rowmax[] = {gpu_val(&n, sizeof n), gpu_array_arg(&h->a[0]), gpu_array_arg(&h->a[1]),
                        gpu_array_arg(&h->a[2]), gpu_array_arg(&w[W_PART])};
    gpu_arg strong[] = {gpu_val(&n, sizeof n),      gpu_array_arg(&h->a[0]),    gpu_array_arg(&h->a[1]),
                        gpu_array_arg(&h->a[2]),    gpu_array_arg(&w[W_WHERE]), gpu_array_arg(&w[W_PART]),
                        gpu_vt(dbl, o->theta, &store), gpu_val(&classical, sizeof classical),
                        gpu_val(&stored, sizeof stored), gpu_array_arg(&w[W_STRONG])};
    if (s == HSP_OK && classical) s = gpu_launch_items(g, dbl, GK_SA_ROWMAX, rowmax, 5, n);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_SA_STRONG, strong, 10, n);
    if (s == HSP_OK) s = find_roots(g, A, h, w, o->aggregation == HSP_AGGREGATION_PARALLEL);
    if (s == HSP_OK) s = gpu_scan(g, dbl, &w[W_ROOT], &w[W_FIRST], n, &roots);
    *naggs = roots >= n ? 0 : roots ? (int32_t)roots : 1; /* 0: nothing to gain */
    if (s != HSP_OK || !*naggs) return s;
    s = assign(g, A, h, w);
    return s == HSP_OK ? tentative(g, A, *naggs, prev, w, t, tnnz) : s;
}

/* The bytes of the temporaries of an aggregation of A. */
static void work_bytes(const hsp_csr *A, size_t *bytes)
{
    size_t n = (size_t)A->nrows, vs = hsp_value_size(A->precision);
    size_t b[W_COUNT] = {[W_WHERE] = n * sizeof(int64_t), [W_BAD] = sizeof(int32_t), [W_PART] = (n + 1) * vs,
                         [W_STRONG] = (size_t)A->nnz, [W_KEY] = n * sizeof(uint64_t),
                         [W_MAX1] = n * sizeof(uint64_t),
                         [W_UNDECIDED] = 2 * sizeof(int32_t), [W_ROOT] = n * sizeof(int64_t),
                         [W_FIRST] = (n + 1) * sizeof(int64_t), [W_NEAR] = n * sizeof(int32_t),
                         [W_SETTLED] = (n + 1) * sizeof(int32_t), [W_CHANGED] = (n + 1) * sizeof(int32_t),
                         [W_AGG] = n * sizeof(int32_t)};
    memcpy(bytes, b, sizeof b);
}

static hsp_status sa_tentative(hsp_device *dev, const hsp_csr *A, void *held, const hsp_amg_options *o, int zeros,
                               const void *held_prev, void **held_t, int32_t *naggs, int64_t *tnnz, double *rho)
{
    gpu *g = dev->state;
    size_t bytes[W_COUNT];
    gpu_array w[W_COUNT] = {{0}};
    hsp_status s;
    gpu_held *t = gpu_held_new(g, NULL, 0, &s); /* its arrays once the aggregates are counted */
    *held_t = NULL, *naggs = 0, *tnnz = 0;
    work_bytes(A, bytes);
    if (s == HSP_OK) s = gpu_arrays_new(g, w, bytes, W_COUNT);
    if (s == HSP_OK) s = aggregate(g, A, held, o, zeros, held_prev, w, t, naggs, tnnz, rho);
    s = gpu_done(g, s, w, W_COUNT);
    if (s == HSP_OK && !*naggs) free(t), t = NULL; /* it would not coarsen */
    return gpu_noted(dev, gpu_held_result(g, s, t, held_t));
}

static hsp_status sa_radius(hsp_device *dev, const hsp_csr *A, void *held, double *rho)
{
    gpu *g = dev->state;
    size_t bytes[W_COUNT];
    gpu_array w[W_COUNT] = {{0}};
    work_bytes(A, bytes);
    hsp_status s = gpu_arrays_new(g, w, bytes, W_PART + 1);
    if (s == HSP_OK) s = diagonal(g, A, held, w, rho);
    return gpu_noted(dev, gpu_done(g, s, w, W_PART + 1));
}

static hsp_status sa_smooth(hsp_device *dev, const hsp_csr *A, void *held_a, void *held_t, double w,
                            const hsp_csr *P, void *held_p)
{
    gpu *g = dev->state;
    int dbl = A->precision == HSP_DOUBLE;
    const gpu_held *a = held_a, *t = held_t, *p = held_p;
    int64_t n = P->nrows;
    gpu_vt_value store;
    gpu_arg args[] = {gpu_val(&n, sizeof n),   gpu_array_arg(&a->a[0]), gpu_array_arg(&a->a[1]),
                      gpu_array_arg(&a->a[2]), gpu_vt(dbl, w, &store),      gpu_array_arg(&p->a[0]),
                      gpu_array_arg(&p->a[1]), gpu_array_arg(&p->a[2]), gpu_array_arg(&t->a[0]),
                      gpu_array_arg(&t->a[1]), gpu_array_arg(&t->a[2])};
    return gpu_noted(dev, gpu_launch_items(g, dbl, GK_SA_SMOOTH, args, 11, n));
}

/* R's row pointers from P's columns: count, widen, scan. */
static hsp_status transpose_rows(gpu *g, int dbl, const hsp_csr *P, const gpu_held *p, gpu_array *next,
                                 gpu_array *counts, gpu_array *rrp)
{
    int64_t m = P->ncols, nnz = P->nnz, total;
    gpu_arg zero[] = {gpu_val(&m, sizeof m), gpu_array_arg(next)};
    gpu_arg count[] = {gpu_val(&nnz, sizeof nnz), gpu_array_arg(&p->a[1]), gpu_array_arg(next)};
    gpu_arg widen[] = {gpu_val(&m, sizeof m), gpu_array_arg(next), gpu_array_arg(counts)};
    hsp_status s = gpu_launch_items(g, dbl, GK_ZERO_INTS, zero, 2, m);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_COUNT_INTS, count, 3, nnz);
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_WIDEN, widen, 3, m);
    return s == HSP_OK ? gpu_scan(g, dbl, counts, rrp, m, &total) : s;
}

static hsp_status transpose(hsp_device *dev, const hsp_csr *P, void *held_p, void **held_r)
{
    gpu *g = dev->state;
    int dbl = P->precision == HSP_DOUBLE;
    const gpu_held *p = held_p;
    int64_t n = P->nrows, m = P->ncols;
    gpu_array tmp[2] = {{0}};
    size_t tmp_bytes[2] = {(size_t)m * sizeof(int32_t), (size_t)m * sizeof(int64_t)};
    size_t bytes[3] = {((size_t)m + 1) * sizeof(int64_t), (size_t)P->nnz * sizeof(int32_t),
                       (size_t)P->nnz * hsp_value_size(P->precision)};
    hsp_status s;
    gpu_held *r = gpu_held_new(g, bytes, 3, &s);
    *held_r = NULL;
    if (!r) return gpu_noted(dev, s);
    if ((s = gpu_arrays_new(g, tmp, tmp_bytes, 2)) == HSP_OK)
        s = transpose_rows(g, dbl, P, p, &tmp[0], &tmp[1], &r->a[0]);
    gpu_arg scatter[] = {gpu_val(&n, sizeof n),   gpu_array_arg(&p->a[0]), gpu_array_arg(&p->a[1]),
                         gpu_array_arg(&p->a[2]), gpu_array_arg(&r->a[0]), gpu_array_arg(&tmp[0]),
                         gpu_array_arg(&r->a[1]), gpu_array_arg(&r->a[2])};
    if (s == HSP_OK) s = gpu_launch_items(g, dbl, GK_TR_SCATTER, scatter, 8, n);
    return gpu_noted(dev, gpu_held_result(g, gpu_done(g, s, tmp, 2), r, held_r));
}

static hsp_status transpose_values(hsp_device *dev, const hsp_csr *P, void *held_p, void *held_r)
{
    gpu *g = dev->state;
    const gpu_held *p = held_p, *r = held_r;
    int64_t n = P->nrows;
    gpu_arg a[] = {gpu_val(&n, sizeof n),   gpu_array_arg(&p->a[0]), gpu_array_arg(&p->a[1]), gpu_array_arg(&p->a[2]),
                   gpu_array_arg(&r->a[0]), gpu_array_arg(&r->a[1]), gpu_array_arg(&r->a[2])};
    return gpu_noted(dev, gpu_launch_items(g, P->precision == HSP_DOUBLE, GK_TR_VALUES, a, 7, n));
}

static hsp_status identity(hsp_device *dev, int32_t n, hsp_precision precision, void **held)
{
    gpu *g = dev->state;
    int dbl = precision == HSP_DOUBLE;
    int64_t rows = n;
    size_t bytes[3] = {((size_t)n + 1) * sizeof(int64_t), (size_t)n * sizeof(int32_t),
                       (size_t)n * hsp_value_size(precision)};
    hsp_status s;
    gpu_held *h = gpu_held_new(g, bytes, 3, &s);
    *held = NULL;
    if (!h) return gpu_noted(dev, s);
    gpu_arg a[] = {gpu_val(&rows, sizeof rows), gpu_array_arg(&h->a[0]), gpu_array_arg(&h->a[1]),
                   gpu_array_arg(&h->a[2])};
    return gpu_noted(dev, gpu_held_result(g, gpu_launch_items(g, dbl, GK_IDENTITY, a, 4, rows), h, held));
}

/* The Lanczos vectors (device.h's HSP_LZ_*), the work-groups' sums, and the steps' scalars. */
enum { LZ_SCALE, LZ_V, LZ_W, LZ_PREV, LZ_U, LZ_PART, LZ_SCALARS, LZ_COUNT };
typedef struct {
    gpu_array a[LZ_COUNT];
    void *scalars; /* the scalars read back */
} lz_work;

static lz_work *lanczos_new(gpu *g, const hsp_csr *A, hsp_status *s)
{
    size_t vs = hsp_value_size(A->precision), bytes[LZ_COUNT];
    lz_work *z = calloc(1, sizeof *z);
    for (int k = 0; k < LZ_COUNT; k++) bytes[k] = ((size_t)A->nrows + 1) * vs;
    bytes[LZ_SCALARS] = HSP_LZ_SCALARS * vs;
    if (z) z->scalars = malloc(bytes[LZ_SCALARS]);
    *s = z && z->scalars ? gpu_arrays_new(g, z->a, bytes, LZ_COUNT)
                         : hsp_fail(HSP_ERR_NOMEM, "no memory for Lanczos steps");
    if (*s == HSP_OK) return z;
    if (z) free(z->scalars); /* arrays() freed its own */
    free(z);
    return NULL;
}

static void lanczos_free(gpu *g, lz_work *z)
{
    if (z && !g->lost) gpu_arrays_free(g, z->a, LZ_COUNT);
    if (z) free(z->scalars);
    free(z);
}

/* The scalars of the steps so far into the caller's doubles. */
static hsp_status lanczos_read(gpu *g, int dbl, lz_work *z, double *scalars)
{
    hsp_status s =
        gpu_array_read(g, &z->a[LZ_SCALARS], z->scalars, HSP_LZ_SCALARS * (dbl ? sizeof(double) : sizeof(float)));
    for (int k = 0; s == HSP_OK && k < HSP_LZ_SCALARS; k++)
        scalars[k] = dbl ? ((double *)z->scalars)[k] : ((float *)z->scalars)[k];
    return s;
}

static hsp_status lanczos(hsp_device *dev, const hsp_csr *A, void *held, void **work, int pass, int step,
                          double *scalars)
{
    static const int kernels[] = {[HSP_LZ_START] = GK_LZ_START, [HSP_LZ_MULTIPLY] = GK_LZ_MULTIPLY,
                                  [HSP_LZ_ORTHOGONALIZE] = GK_LZ_ORTHOGONALIZE, [HSP_LZ_ADVANCE] = GK_LZ_ADVANCE};
    static const int nargs[] = {[HSP_LZ_START] = 9, [HSP_LZ_MULTIPLY] = 10, [HSP_LZ_ORTHOGONALIZE] = 9,
                                [HSP_LZ_ADVANCE] = 8};
    gpu *g = dev->state;
    const gpu_held *h = held;
    int dbl = A->precision == HSP_DOUBLE;
    int64_t n = A->nrows, alpha_at = HSP_LZ_ALPHA + step, norm2_at = HSP_LZ_NORM2 + step;
    int sum_at = hsp_lanczos_sum_at(pass, step);
    hsp_status s = HSP_OK;
    if (pass == HSP_LZ_END) {
        lanczos_free(g, *work);
        *work = NULL;
        return HSP_OK;
    }
    if (pass == HSP_LZ_START && !(*work = lanczos_new(g, A, &s))) return gpu_noted(dev, s);
    lz_work *z = *work;
    if (pass == HSP_LZ_READ) return gpu_noted(dev, lanczos_read(g, dbl, z, scalars));
    size_t size = gpu_pow2_group(g, dbl, kernels[pass]), ngroups = ((size_t)n + size - 1) / size;
    gpu_arg local = gpu_local(size * hsp_value_size(A->precision));
    gpu_array *x = z->a;
    gpu_arg a[][10] = {
        [HSP_LZ_START] = {gpu_val(&n, sizeof n), gpu_array_arg(&h->a[0]), gpu_array_arg(&h->a[1]),
                          gpu_array_arg(&h->a[2]), gpu_array_arg(&x[LZ_SCALE]), gpu_array_arg(&x[LZ_W]),
                          gpu_array_arg(&x[LZ_V]), gpu_array_arg(&x[LZ_PART]), local},
        [HSP_LZ_MULTIPLY] = {gpu_val(&n, sizeof n), gpu_array_arg(&h->a[0]), gpu_array_arg(&h->a[1]),
                             gpu_array_arg(&h->a[2]), gpu_array_arg(&x[LZ_SCALE]), gpu_array_arg(&x[LZ_U]),
                             gpu_array_arg(&x[LZ_V]), gpu_array_arg(&x[LZ_W]), gpu_array_arg(&x[LZ_PART]), local},
        [HSP_LZ_ORTHOGONALIZE] = {gpu_val(&n, sizeof n), gpu_array_arg(&x[LZ_SCALARS]),
                                  gpu_val(&alpha_at, sizeof alpha_at), gpu_val(&norm2_at, sizeof norm2_at),
                                  gpu_array_arg(&x[LZ_V]), gpu_array_arg(&x[LZ_PREV]), gpu_array_arg(&x[LZ_W]),
                                  gpu_array_arg(&x[LZ_PART]), local},
        [HSP_LZ_ADVANCE] = {gpu_val(&n, sizeof n), gpu_array_arg(&x[LZ_SCALARS]), gpu_val(&norm2_at, sizeof norm2_at),
                            gpu_array_arg(&x[LZ_SCALE]), gpu_array_arg(&x[LZ_W]), gpu_array_arg(&x[LZ_V]),
                            gpu_array_arg(&x[LZ_PREV]), gpu_array_arg(&x[LZ_U])}};
    if (n) s = g->ops->launch(g, dbl, kernels[pass], a[pass], nargs[pass], ngroups, size);
    if (s == HSP_OK && sum_at >= 0)
        s = gpu_parts_add(g, dbl, &z->a[LZ_PART], (int64_t)ngroups, &z->a[LZ_SCALARS], sum_at);
    return gpu_noted(dev, s);
}

const hsp_amg_device gpu_amg_device = {.tentative = sa_tentative,
                                       .radius = sa_radius,
                                       .smooth = sa_smooth,
                                       .transpose = transpose,
                                       .transpose_values = transpose_values,
                                       .identity = identity,
                                       .lanczos = lanczos,
                                       .spmv = gpu_spmv,
                                       .diagonals = gpu_diagonals,
                                       .vector = gpu_vector};
