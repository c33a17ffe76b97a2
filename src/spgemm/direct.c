/* direct.c: stages 3 and 4 on a device that computes rows on the host
 * threads (the cpu device).  The rows are taken in their own order, in
 * chunks of about equal work, so that neighbouring rows share the rows of B
 * they read.
 *
 * One pass (the default): in stage 3 a thread computes a chunk's rows one
 * after another at the top of its region (scratch.h), the address space
 * where its long rows grow in place, so that the chunk's entries, long rows
 * and all, lie together.  C's arrays are allocated first for the most
 * entries the rows allow (only the pages written are ever touched); once the
 * chunks before a chunk are done, its place in C is known, and the thread
 * that computed it copies it there while it is still in the thread's cache,
 * then reuses the region.  Stage 4 copies the chunks left (all of them when
 * C could not be allocated first).
 *
 * Two passes, where a thread's region cannot be had, or the rows and the
 * largest C they allow would pass the memory limit: stage 3 counts each
 * row's entries by marks (long rows computed into their buffers), stage 4
 * allocates C and computes the rows straight into it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "spgemm/direct.h"
#include "core/internal.h"
#include "spgemm/rows.h"

enum { CHUNKS_PER_THREAD = 16, CHUNK_MIN_WORK = 2048, CHUNK_MAX_WORK = 32768 };
enum { STREAM_BYTES = 8 << 20 }; /* a C that may hold this much is written by streaming stores */

/* One stage-3 pass over chunks; in one-pass mode, where each chunk lies. */
typedef struct direct_run {
    hsp_job *job;
    hsp_rows_mode mode;
    int64_t nchunks;
    int64_t *cut;    /* chunk c is rows cut[c] .. cut[c + 1] - 1 */
    int64_t *nnz;    /* one pass: chunk c's entries, -1 until it is done */
    int64_t *staged; /* one pass: those of its rows that are not long (reserved apart) */
    int64_t *from;   /* one pass: where they start in the region of thread tid[c] */
    int *tid;
    int64_t *at;     /* one pass: chunk c's offset in C, known for c <= known */
    unsigned char *placed; /* one pass: chunk c is in C */
    int64_t *oldest; /* one pass: thread t's chunks before oldest[t] are in C */
    int64_t most;    /* one pass: the most entries C can have; C's arrays hold
                        them from the start, or 0 when they are allocated in stage 4 */
    int stream;      /* one pass: C is large: chunks go to it by streaming stores */
    int64_t known;   /* chunks 0 .. known - 1 are done (guarded by lock) */
    pthread_mutex_t lock;
} direct_run;

/* The buffer of the first long row at or after row i. */
static hsp_growbuf *first_long(const hsp_job *job, int64_t i)
{
    int64_t lo = 0, hi = job->nlong;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (job->bin_rows[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return job->longbuf + lo;
}

/* Entries the rows of chunk c that are not long put on the region. */
static int64_t count_staged(const hsp_job *job, const direct_run *r, int64_t c)
{
    int64_t n = 0;
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) n += job->ub[i] <= job->medium_max ? job->C->rowptr[i + 1] : 0;
    return n;
}

/* memcpy; with stream, by stores that go around the caches (a large C is
 * written once and not read soon: its lines are not read before they are
 * written, nor do they push the thread's rows out of its cache). */
static void copy_out(void *dst, const void *src, size_t bytes, int stream)
{
#ifdef __SSE2__
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* up to d's first 16-byte boundary */
    if (!stream || head > bytes) head = bytes;
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64)
        for (int k = 0; k < 64; k += 16)
            _mm_stream_si128((__m128i *)(void *)(d + k), _mm_loadu_si128((const __m128i *)(const void *)(s + k)));
    memcpy(d, s, bytes);
    if (stream) _mm_sfence();
#else
    (void)stream;
    memcpy(dst, src, bytes);
#endif
}

/* Chunk c's entries from its thread's region to their place in C, its
 * counts in C's row pointers turned into offsets, and the bytes it held on
 * the region given back.  Where C was allocated first, the chunk's entries
 * are accounted for now, as they are written. */
static void copy_chunk(direct_run *r, int64_t c)
{
    hsp_job *job = r->job;
    hsp_csr *C = job->C;
    const hsp_region *g = &job->ctx->scratch[r->tid[c]].region;
    int64_t at = r->at[c], n = r->nnz[c];
    size_t vs = job->vsize;
    hsp_status st = r->most > 0 ? hsp_job_reserve(job, hsp_entry_bytes(job, n)) : HSP_OK;
    if (st != HSP_OK) {
        hsp_job_error(job, st);
        return;
    }
    copy_out(C->colidx + at, g->base[0] + (size_t)r->from[c] * sizeof(int32_t), (size_t)n * sizeof(int32_t), r->stream);
    copy_out((unsigned char *)C->values + (size_t)at * vs, g->base[1] + (size_t)r->from[c] * vs, (size_t)n * vs,
             r->stream);
    hsp_job_release(job, hsp_entry_bytes(job, r->staged[c]));
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) at += C->rowptr[i + 1], C->rowptr[i + 1] = at;
    r->placed[c] = 1;
}

/* Chunk c, of thread tid, is done: the offsets in C known so far are
 * extended, and the thread's chunks whose place is known are copied there;
 * when none of its chunks is left on its region, the region is free again. */
static void place_ready(direct_run *r, int tid, int64_t c)
{
    pthread_mutex_lock(&r->lock);
    while (r->known < r->nchunks && r->nnz[r->known] >= 0) r->at[r->known + 1] = r->at[r->known] + r->nnz[r->known], r->known++;
    int64_t known = r->known;
    pthread_mutex_unlock(&r->lock);
    int64_t k = r->oldest[tid];
    for (; k < known; k++)
        if (r->tid[k] == tid && !r->placed[k]) copy_chunk(r, k);
    r->oldest[tid] = k;
    if (r->placed[c]) hsp_region_empty(&r->job->ctx->scratch[tid].region);
}

/* Stage 3 on chunk c, by thread tid (and stage 4 of two passes). */
static void compute_chunk(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    hsp_job *job = r->job;
    if (atomic_load(&job->status) != HSP_OK) return;
    hsp_scratch *s = &job->ctx->scratch[tid];
    int32_t first = (int32_t)r->cut[c], last = (int32_t)r->cut[c + 1];
    int64_t top = (int64_t)(s->region.top[0] / sizeof(int32_t));
    hsp_status st = hsp_rows_run(job, s, r->mode, first, last, first_long(job, first));
    if (st == HSP_OK && r->mode == HSP_ROWS_STAGE) { /* the long rows are reserved already */
        r->staged[c] = count_staged(job, r, c);
        st = hsp_job_reserve(job, hsp_entry_bytes(job, r->staged[c]));
        r->tid[c] = tid, r->from[c] = top;
        pthread_mutex_lock(&r->lock);
        r->nnz[c] = (int64_t)(s->region.top[0] / sizeof(int32_t)) - top;
        pthread_mutex_unlock(&r->lock);
        if (st == HSP_OK && r->most > 0) place_ready(r, tid, c);
    }
    if (st != HSP_OK) hsp_job_error(job, st);
}

/* Stage 4 of one pass on chunk c: copied into C unless it is there. */
static void place_chunk(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    (void)tid;
    if (!r->placed[c]) copy_chunk(r, c);
}

/* One pass where every thread has its region and the memory limit holds
 * the rows that are not long, on the regions, and the largest C (the sums
 * of stage 1). */
static hsp_rows_mode choose_mode(hsp_job *job)
{
    for (int t = 0; t < hsp_pool_size(job->ctx->pool); t++)
        if (!hsp_region_get(&job->ctx->scratch[t])) return HSP_ROWS_COUNT;
    int64_t need = atomic_load(&job->temp_bytes) + hsp_entry_bytes(job, job->direct.staged) +
                   hsp_entry_bytes(job, job->direct.most);
    return need > hsp_memory_limit(&job->ctx->options) ? HSP_ROWS_COUNT : HSP_ROWS_STAGE;
}

/* C's arrays for the most entries the rows allow, so that chunks can go to
 * C in stage 3: address space, of which only the pages written are ever
 * touched (and accounted for).  They keep that size (cutting them would
 * cost the reuse of their pages by the next product of the same size: see
 * alloc.c).  Where they cannot be had, r->most is 0 and stage 4 allocates C
 * (no error). */
static void alloc_c_early(hsp_job *job, direct_run *r)
{
    hsp_csr *C = job->C;
    int64_t most = job->direct.most;
    if (job->resident.hold_c || most == 0 || most > INT64_MAX / 16) return;
    C->colidx = hsp_alloc((size_t)most * sizeof *C->colidx);
    C->values = hsp_alloc((size_t)most * job->vsize);
    if (C->colidx && C->values) {
        r->most = most;
        return;
    }
    hsp_free_large(C->colidx), hsp_free_large(C->values);
    C->colidx = NULL, C->values = NULL;
}

/* The chunks, cut at blocks of rows by their weights (job->direct.weight); in one
 * pass, their places in C and, where it can be had, C. */
static hsp_status start_run(hsp_job *job, direct_run *r)
{
    int64_t m = job->A->nrows, block = hsp_direct_block(m), nblocks = (m + block - 1) / block;
    int64_t work = job->direct.weight[nblocks];
    int64_t chunks = CHUNKS_PER_THREAD * (int64_t)hsp_pool_size(job->ctx->pool);
    if (chunks < work / CHUNK_MAX_WORK) chunks = work / CHUNK_MAX_WORK;
    if (chunks > work / CHUNK_MIN_WORK) chunks = work / CHUNK_MIN_WORK > 0 ? work / CHUNK_MIN_WORK : 1;
    r->job = job;
    r->mode = choose_mode(job);
    r->stream = hsp_entry_bytes(job, job->direct.most) >= STREAM_BYTES;
    r->cut = malloc((size_t)(chunks + 1) * sizeof *r->cut);
    r->nnz = malloc((size_t)(chunks + 1) * sizeof *r->nnz);
    r->staged = malloc((size_t)(chunks + 1) * sizeof *r->staged);
    r->from = malloc((size_t)(chunks + 1) * sizeof *r->from);
    r->tid = malloc((size_t)(chunks + 1) * sizeof *r->tid);
    r->at = malloc((size_t)(chunks + 1) * sizeof *r->at);
    r->placed = calloc((size_t)chunks + 1, 1);
    r->oldest = calloc((size_t)hsp_pool_size(job->ctx->pool), sizeof *r->oldest);
    if (!r->cut || !r->nnz || !r->staged || !r->from || !r->tid || !r->at || !r->placed || !r->oldest)
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    r->nchunks = hsp_split_weighted(job->direct.weight, nblocks, chunks, r->cut);
    for (int64_t c = 0; c <= r->nchunks; c++) r->cut[c] = r->cut[c] * block < m ? r->cut[c] * block : m;
    for (int64_t c = 0; c <= r->nchunks; c++) r->nnz[c] = -1;
    r->at[0] = 0;
    if (r->mode == HSP_ROWS_STAGE) alloc_c_early(job, r);
    return HSP_OK;
}

hsp_status hsp_direct_compute(hsp_job *job)
{
    double t0 = hsp_now_ms();
    direct_run *r = job->direct.run = calloc(1, sizeof *r);
    if (r) pthread_mutex_init(&r->lock, NULL);
    hsp_status s = r ? start_run(job, r) : hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    job->stats->ms_device = hsp_now_ms() - t0;
    return s != HSP_OK ? s : hsp_job_status(job);
}

/* Stage 4 of one pass: C's size, and the chunks not yet in C copied there
 * (C allocated first where stage 3 could not). */
static hsp_status arrange_staged(hsp_job *job, direct_run *r)
{
    hsp_csr *C = job->C;
    for (int64_t c = r->known; c < r->nchunks; c++) r->at[c + 1] = r->at[c] + r->nnz[c];
    C->nnz = r->at[r->nchunks];
    hsp_status s = HSP_OK;
    if (r->most > 0) job->stats->nnz_c = C->nnz; /* C's arrays are there */
    else s = hsp_job_alloc_entries(job);
    if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, place_chunk, r);
    return s;
}

hsp_status hsp_direct_arrange(hsp_job *job)
{
    direct_run *r = job->direct.run;
    hsp_status s;
    job->stats->passes = r->mode == HSP_ROWS_STAGE ? 1 : 2;
    if (r->mode == HSP_ROWS_STAGE) {
        s = arrange_staged(job, r);
    } else {
        r->mode = HSP_ROWS_FILL;
        s = hsp_job_alloc_c(job);
        if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    }
    return s != HSP_OK ? s : hsp_job_status(job);
}

void hsp_direct_free(hsp_job *job)
{
    direct_run *r = job->direct.run;
    if (!r) return;
    free(r->cut), free(r->nnz), free(r->staged), free(r->from), free(r->tid), free(r->at), free(r->placed), free(r->oldest);
    pthread_mutex_destroy(&r->lock);
    free(r);
    job->direct.run = NULL;
}
