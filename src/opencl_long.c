/* opencl_long.c: long rows on the opencl device.  Every long row owns a
 * region of one pool (two halves of grow_start entries to begin with).  The
 * merge kernel stops a row whose result would outgrow half its region and
 * records where it stopped; the host then gives the row a region twice as
 * large (or more) at the pool's end, growing the pool by realloc (system
 * SVM, grow=realloc) or by allocate + copy, and launches those rows again. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "opencl.h"
#include "stages.h"

/* Room for entries pool entries (column and value), by growth when
 * keep > 0 entries are in use. */
static hsp_status pool_room(ocl_state *st, hsp_job *job, int64_t entries, int64_t keep)
{
    if (entries <= st->pool_cap) return HSP_OK;
    int64_t cap = entries > 2 * st->pool_cap ? entries : 2 * st->pool_cap;
    hsp_status s = hsp_job_reserve(job, hsp_entry_bytes(job, cap - st->pool_cap));
    if (s != HSP_OK) return s;
    if (!keep) {
        s = ocl_reserve(st, OA_PCOL, (size_t)cap * sizeof(int32_t));
        if (s == HSP_OK) s = ocl_reserve(st, OA_PVAL, (size_t)cap * job->vsize);
    } else {
        int use_realloc = job->ctx->options.grow == HSP_GROW_REALLOC, moved[2] = {0, 0};
        int64_t copied = 0;
        s = ocl_grow(st, OA_PCOL, (size_t)cap * sizeof(int32_t), (size_t)keep * sizeof(int32_t),
                     use_realloc, &copied, &moved[0]);
        if (s == HSP_OK)
            s = ocl_grow(st, OA_PVAL, (size_t)cap * job->vsize, (size_t)keep * job->vsize, use_realloc,
                         &copied, &moved[1]);
        atomic_fetch_add(&job->grow_bytes_copied, copied);
        atomic_fetch_add(&job->grow_moves, moved[0] + moved[1]);
    }
    if (s == HSP_OK) st->pool_cap = cap;
    return s;
}

/* A long-row table of n entries on the host. */
static hsp_status host_tables(ocl_state *st, int64_t n)
{
    ocl_longrow *l = realloc(st->lrows, (size_t)(n ? n : 1) * sizeof *l);
    if (l) st->lrows = l;
    int32_t *r = l ? realloc(st->relaunch, (size_t)(n ? n : 1) * sizeof *r) : NULL;
    if (r) st->relaunch = r;
    return l && r ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for %lld long rows", (long long)n);
}

hsp_status ocl_long_start(ocl_state *st, hsp_job *job, int64_t esc_max)
{
    int64_t n = job->nlong, first = job->bin_start[job->ctx->bins.nbins - 1], off = 0;
    hsp_status s = host_tables(st, n);
    if (s != HSP_OK) return s;
    for (int64_t k = 0; k < n; k++) {
        int64_t u = job->ub[job->bin_rows[first + k]], h = job->ctx->options.grow_start;
        if (u <= esc_max && 2 * h < u) h = (u + 1) / 2;
        st->lrows[k] = (ocl_longrow){.off = off, .hcap = h, .roff = off};
        off += 2 * h;
    }
    st->pool_used = off, st->pool_cap = 0;
    s = pool_room(st, job, st->pool_used, 0);
    return s == HSP_OK ? ocl_upload(st, OA_LROWS, st->lrows, (size_t)n * sizeof *st->lrows) : s;
}

/* Give each stopped row a region large enough for its next merge; returns
 * the number of such rows, listed in st->relaunch. */
static int64_t regrow(ocl_state *st, hsp_job *job)
{
    int64_t count = 0, first = job->bin_start[job->ctx->bins.nbins - 1];
    for (int64_t k = 0; k < job->nlong; k++) {
        ocl_longrow *l = &st->lrows[k];
        if (!l->need) continue;
        int64_t h = 2 * l->hcap;
        while (h < l->need) h *= 2;
        l->off = st->pool_used, l->hcap = h, l->need = 0;
        st->pool_used += 2 * h;
        st->relaunch[count++] = job->bin_rows[first + k];
    }
    return count;
}

hsp_status ocl_long_finish(ocl_state *st, hsp_job *job)
{
    size_t table = (size_t)job->nlong * sizeof *st->lrows;
    for (;;) {
        hsp_status s = ocl_download(st, OA_LROWS, st->lrows, table);
        if (s != HSP_OK) return s;
        int64_t used = st->pool_used, n = regrow(st, job);
        if (!n) return HSP_OK;
        atomic_fetch_add(&job->grow_events, n);
        s = pool_room(st, job, st->pool_used, used);
        if (s == HSP_OK) s = ocl_upload(st, OA_LROWS, st->lrows, table);
        if (s == HSP_OK) s = ocl_upload(st, OA_RELAUNCH, st->relaunch, (size_t)n * sizeof(int32_t));
        if (s == HSP_OK) s = ocl_launch_rows(st, job, HSP_METHOD_MERGE, -1, 1, OA_RELAUNCH, 0, n);
        if (s != HSP_OK) return s;
    }
}
