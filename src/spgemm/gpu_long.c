/* gpu_long.c: long rows on a GPU device.  Every long row owns a
 * region of one pool (two halves of grow_start entries to begin with).  The
 * merge kernel stops a row whose result would outgrow half its region and
 * records where it stopped; the host then gives the row a region twice as
 * large (or more) and launches those rows again, which carry their result so
 * far into it.  The pool grows by realloc (host arrays, grow=realloc): the
 * new regions at its end, nothing copied unless realloc moves the block.
 * Otherwise it grows as a device without re-allocatable memory must, at its
 * best: when the new regions do not fit, a new pool twice as large holding
 * each long row's result so far, copied, and the new regions after them; the
 * old pool, with its dead regions, freed.  (A pool the host cannot reach is
 * copied whole, by one copy on the device.) */
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/job.h"
#include "spgemm/gpu_stages.h"

/* Room for entries pool entries (column and value), by growth when
 * keep > 0 entries are in use. */
static hsp_status pool_room(gpu *g, hsp_job *job, int64_t entries, int64_t keep)
{
    if (entries <= g->job->pool_cap) return HSP_OK;
    int64_t cap = entries > 2 * g->job->pool_cap ? entries : 2 * g->job->pool_cap;
    hsp_status s = hsp_job_reserve(job, hsp_entry_bytes(job, cap - g->job->pool_cap));
    if (s != HSP_OK) return s;
    if (!keep) {
        s = gpu_reserve(g, GA_PCOL, (size_t)cap * sizeof(int32_t));
        if (s == HSP_OK) s = gpu_reserve(g, GA_PVAL, (size_t)cap * job->vsize);
    } else {
        int use_realloc = job->ctx->options.grow == HSP_GROW_REALLOC, moved[2] = {0, 0};
        int64_t copied = 0;
        s = gpu_grow(g, GA_PCOL, (size_t)cap * sizeof(int32_t), (size_t)keep * sizeof(int32_t),
                     use_realloc, &copied, &moved[0]);
        if (s == HSP_OK)
            s = gpu_grow(g, GA_PVAL, (size_t)cap * job->vsize, (size_t)keep * job->vsize, use_realloc,
                         &copied, &moved[1]);
        atomic_fetch_add(&job->grow_bytes_copied, copied);
        atomic_fetch_add(&job->grow_moves, moved[0] + moved[1]);
    }
    if (s == HSP_OK) g->job->pool_cap = cap;
    return s;
}

/* A long-row table of n entries on the host. */
static hsp_status host_tables(gpu *g, int64_t n)
{
    gpu_longrow *l = realloc(g->job->lrows, (size_t)(n ? n : 1) * sizeof *l);
    if (l) g->job->lrows = l;
    int32_t *r = l ? realloc(g->job->relaunch, (size_t)(n ? n : 1) * sizeof *r) : NULL;
    if (r) g->job->relaunch = r;
    return l && r ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for %lld long rows", (long long)n);
}

hsp_status gpu_long_start(gpu *g, hsp_job *job, int64_t esc_max, int dense)
{
    int64_t n = job->nlong, first = job->bin_start[job->ctx->engine->bins.nbins - 1], off = 0;
    hsp_status s = host_tables(g, n);
    if (s != HSP_OK) return s;
    for (int64_t k = 0; k < n; k++) {
        int64_t u = job->ub[job->bin_rows[first + k]], h = job->ctx->options.grow_start;
        if (u <= esc_max && 2 * h < u) h = (u + 1) / 2;
        if (u > esc_max && dense) h = 0;
        g->job->lrows[k] = (gpu_longrow){.off = off, .hcap = h, .roff = off};
        off += 2 * h;
    }
    g->job->pool_used = off, g->job->pool_cap = 0;
    s = pool_room(g, job, off ? off : 1, 0); /* the kernels take the pool as an argument */
    return s == HSP_OK ? gpu_upload(g, GA_LROWS, g->job->lrows, (size_t)n * sizeof *g->job->lrows) : s;
}

/* Give each stopped row a region large enough for its next merge at the
 * pool's end; returns the number of such rows, listed in g->job->relaunch. */
static int64_t regrow(gpu *g, hsp_job *job)
{
    int64_t count = 0, first = job->bin_start[job->ctx->engine->bins.nbins - 1];
    for (int64_t k = 0; k < job->nlong; k++) {
        gpu_longrow *l = &g->job->lrows[k];
        if (!l->need) continue;
        int64_t h = 2 * l->hcap;
        while (h < l->need) h *= 2;
        l->off = g->job->pool_used, l->hcap = h, l->need = 0;
        g->job->pool_used += 2 * h;
        g->job->relaunch[count++] = job->bin_rows[first + k];
    }
    return count;
}

/* Grow the pool without realloc where the host reaches it: a new pool, twice
 * as large or more, of each long row's result so far (copied) and, after
 * them, the regions regrow gave from entry used on; the old pool, dead
 * regions and all, freed. */
static hsp_status compact(gpu *g, hsp_job *job, int64_t used)
{
    gpu_array fresh[2] = {{0}}, *old = &g->a[GA_PCOL]; /* columns, values */
    size_t size[2] = {sizeof(int32_t), job->vsize};
    int64_t live = 0, at = 0;
    for (int64_t k = 0; k < job->nlong; k++) live += g->job->lrows[k].len;
    int64_t need = live + g->job->pool_used - used, cap = need > 2 * g->job->pool_cap ? need : 2 * g->job->pool_cap;
    hsp_status s = hsp_job_reserve(job, hsp_entry_bytes(job, cap - g->job->pool_cap));
    for (int a = 0; a < 2 && s == HSP_OK; a++) s = gpu_array_new(g, &fresh[a], (size_t)cap * size[a]);
    if (s != HSP_OK) {
        gpu_array_free(g, &fresh[0]), gpu_array_free(g, &fresh[1]);
        return s;
    }
    for (int64_t k = 0; k < job->nlong; k++) {
        gpu_longrow *l = &g->job->lrows[k];
        for (int a = 0; a < 2; a++)
            memcpy((char *)fresh[a].ptr + at * size[a], (char *)old[a].ptr + l->roff * size[a],
                   (size_t)l->len * size[a]);
        l->roff = at, at += l->len;
        if (l->off >= used) l->off += live - used; /* a new region */
    }
    for (int a = 0; a < 2; a++) gpu_array_free(g, &old[a]), old[a] = fresh[a];
    g->job->pool_used = need, g->job->pool_cap = cap;
    atomic_fetch_add(&job->grow_bytes_copied, live * (int64_t)(size[0] + size[1]));
    g->host_wrote = 1;
    return HSP_OK;
}

hsp_status gpu_long_finish(gpu *g, hsp_job *job)
{
    size_t table = (size_t)job->nlong * sizeof *g->job->lrows;
    for (;;) {
        hsp_status s = gpu_download(g, GA_LROWS, g->job->lrows, table);
        if (s != HSP_OK) return s;
        int64_t used = g->job->pool_used, n = regrow(g, job);
        if (!n) return HSP_OK;
        atomic_fetch_add(&job->grow_events, n);
        int in_place = g->host_arrays && job->ctx->options.grow == HSP_GROW_REALLOC;
        int full = g->job->pool_used > g->job->pool_cap; /* the new regions do not fit: the pool must grow */
        s = full && !in_place && g->a[GA_PCOL].ptr ? compact(g, job, used) : pool_room(g, job, g->job->pool_used, used);
        if (s == HSP_OK) s = gpu_upload(g, GA_LROWS, g->job->lrows, table);
        if (s == HSP_OK) s = gpu_upload(g, GA_RELAUNCH, g->job->relaunch, (size_t)n * sizeof(int32_t));
        if (s == HSP_OK) s = gpu_launch_rows(g, job, HSP_METHOD_MERGE, -1, 1, GA_RELAUNCH, 0, n);
        if (s != HSP_OK) return s;
    }
}
