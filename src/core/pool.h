/* pool.h: a fixed pool of POSIX threads, created once per context and reused
 * for every parallel step of every multiplication. */
#ifndef HSP_POOL_H
#define HSP_POOL_H

#include <stdint.h>
#include "hspgemm.h"

typedef struct hsp_pool hsp_pool;
typedef void (*hsp_pool_fn)(void *arg, int tid);
typedef void (*hsp_chunk_fn)(void *arg, int tid, int64_t chunk);

/* Start nthreads - 1 workers, bound each to a CPU other than the caller's
 * unless unbound (or HSPGEMM_NO_BIND is set); the caller is thread 0 of
 * every run.  Fork-safe: in a child of fork() the first run starts the
 * workers anew (the child has none of the parent's). */
hsp_status hsp_pool_create(int nthreads, int unbound, hsp_pool **out);
void hsp_pool_free(hsp_pool *pool);
int hsp_pool_size(const hsp_pool *pool);
/* Call fn(arg, tid) once on each thread, tid = 0 .. size-1, and wait (on
 * the caller, tid after tid, where a child of fork() could not start its
 * workers again). */
void hsp_pool_run(hsp_pool *pool, hsp_pool_fn fn, void *arg);
/* Call fn(arg, tid, c) for c = 0 .. nchunks-1, each chunk taken by whichever
 * thread is free next (dynamic scheduling: a thread's chunks come in
 * increasing order, which the cpu device's SpGEMM needs), and wait; one
 * chunk or none runs on the caller (tid 0) alone. */
void hsp_pool_chunks(hsp_pool *pool, int64_t nchunks, hsp_chunk_fn fn, void *arg);
/* The same, but thread t takes the chunks of its own t-th of them first,
 * then, once those are taken, what is left of the others': where no thread
 * falls behind, each makes the same chunks in every run, and a product
 * repeated on the same operands finds its rows in that core's cache
 * (doc/performance.md: "Figures behind the code").  A thread's chunks need
 * not come in increasing order. */
void hsp_pool_chunks_kept(hsp_pool *pool, int64_t nchunks, hsp_chunk_fn fn, void *arg);
/* The chunks of size rows that hold n rows. */
static inline int64_t hsp_row_chunks(int32_t n, int32_t size)
{
    return ((int64_t)n + size - 1) / size;
}
/* Chunk c of n rows in chunks of size: its first row; *last, one past its end. */
static inline int32_t hsp_chunk_rows(int64_t c, int32_t size, int32_t n, int32_t *last)
{
    int64_t end = (c + 1) * size;
    *last = end < n ? (int32_t)end : n;
    return (int32_t)(c * size);
}
/* Split n items, of weight given by a prefix array (NULL: one each), into
 * parts of about equal weight for the pool: part p is [cut[p], cut[p + 1]).
 * Returns the parts. */
int64_t hsp_split_weighted(const int64_t *prefix, int64_t n, int64_t parts, int64_t *cut);
/* The same, each item weighing each more than its share of the prefix
 * (a row's own cost beside its entries'). */
int64_t hsp_split_rows(const int64_t *prefix, int64_t each, int64_t n, int64_t parts, int64_t *cut);

#endif
