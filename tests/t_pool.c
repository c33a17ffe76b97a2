/* t_pool.c: the pool's runs of chunks, and the split of weighted rows into
 * parts (hsp_split_rows).  hsp_pool_chunks: each chunk made
 * once, and a thread's chunks in increasing order (the cpu device's
 * one-pass SpGEMM places a thread's chunks in C in the order it made them).
 * hsp_pool_chunks_kept: each chunk once, and thread t's chunks those of its
 * own t-th first, then of the t+1-th and on (mod the threads), each range's
 * in order.  On pools of 1 to 5 threads, with fewer chunks than threads
 * (ranges of none) and many more. */
#include <stdatomic.h>
#include <stdlib.h>
#include "core/pool.h"
#include "tap.h"

enum { MOST = 1000, THREADS_MOST = 5 };

/* The chunks made in one run: by each chunk, how often; by each thread,
 * which chunks in the order it made them. */
typedef struct {
    atomic_int made[MOST];
    int64_t order[THREADS_MOST][MOST];
    int count[THREADS_MOST];
    int bad_tid;
} record;

static void note(void *arg, int tid, int64_t c)
{
    record *r = arg;
    if (tid < 0 || tid >= THREADS_MOST) {
        r->bad_tid = 1;
        return;
    }
    atomic_fetch_add(&r->made[c], 1);
    r->order[tid][r->count[tid]++] = c;
}

/* Each of the n chunks made once, by a thread of the pool. */
static int once_each(const record *r, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        if (atomic_load(&r->made[c]) != 1) return 0;
    return !r->bad_tid;
}

/* The range (of threads ranges) that chunk c of n lies in. */
static int range_of(int64_t c, int64_t n, int ranges)
{
    int k = 0;
    while (k + 1 < ranges && n * (k + 1) / ranges <= c) k++;
    return k;
}

/* How many ranges after thread tid's own chunk c's lies (0: its own). */
static int turn_of(int64_t c, int64_t n, int ranges, int tid)
{
    return (range_of(c, n, ranges) - tid + ranges) % ranges;
}

/* Do thread tid's chunks go through the ranges from its own on, in turn
 * (ranges 1: one range, in increasing order)? */
static int in_turn(const record *r, int tid, int64_t n, int ranges)
{
    for (int q = 1; q < r->count[tid]; q++) {
        int64_t a = r->order[tid][q - 1], b = r->order[tid][q];
        int ka = turn_of(a, n, ranges, tid), kb = turn_of(b, n, ranges, tid);
        if (kb < ka || (kb == ka && b <= a)) return 0;
    }
    return 1;
}

static void check(hsp_pool *pool, int threads, int64_t n, int kept)
{
    record *r = calloc(1, sizeof *r);
    int right = r != NULL;
    for (int round = 0; right && round < 50; round++) { /* the threads meet in many ways */
        *r = (record){0};
        for (int64_t c = 0; c < n; c++) atomic_init(&r->made[c], 0);
        (kept ? hsp_pool_chunks_kept : hsp_pool_chunks)(pool, n, note, r);
        right = once_each(r, n);
        for (int t = 0; t < threads && right; t++) right = in_turn(r, t, n, kept ? threads : 1);
    }
    tap_ok(right, "%s on %d thread(s), %lld chunks: each once, each thread's %s",
           kept ? "hsp_pool_chunks_kept" : "hsp_pool_chunks", threads, (long long)n,
           kept ? "from its own range on, each range in order" : "in increasing order");
    free(r);
}

/* hsp_split_rows on rows of random lengths (many empty, a few long), each
 * row weighing each more than its entries: the cuts in order from 0 to n,
 * and every part's weight within the heaviest row of an equal share. */
static void test_split(void)
{
    enum { N = 3000 };
    static int64_t prefix[N + 1], cut[65];
    uint64_t seed = 7;
    int right = 1;
    prefix[0] = 5; /* the prefix need not start at 0 */
    for (int64_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t len = (seed >> 33) % 4 == 0 ? 0 : (seed >> 40) % 100 == 0 ? 500 : (int64_t)((seed >> 50) % 9);
        prefix[i + 1] = prefix[i] + len;
    }
    for (int64_t each = 0; each <= 8; each += 4)
        for (int64_t parts = 1; parts <= 64; parts *= 4) {
            int64_t got = hsp_split_rows(prefix, each, N, parts, cut), total = prefix[N] - prefix[0] + each * N;
            right = right && got == parts && cut[0] == 0 && cut[got] == N;
            for (int64_t p = 0; right && p < got; p++) {
                int64_t w = prefix[cut[p + 1]] - prefix[cut[p]] + each * (cut[p + 1] - cut[p]);
                right = cut[p] <= cut[p + 1] && w <= total / parts + 500 + each + 1;
            }
        }
    tap_ok(right, "hsp_split_rows: cuts in order, each part within a row of an equal share");
}

int main(void)
{
    test_split();
    static const int64_t counts[] = {0, 1, 2, 3, 4, 7, 16, 40, MOST};
    for (int threads = 1; threads <= THREADS_MOST; threads++) {
        hsp_pool *pool = NULL;
        if (!tap_ok(hsp_pool_create(threads, 1, &pool) == HSP_OK, "a pool of %d thread(s)", threads)) continue;
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
            for (int kept = 0; kept < 2; kept++) check(pool, threads, counts[k], kept);
        hsp_pool_free(pool);
    }
    return tap_done();
}
