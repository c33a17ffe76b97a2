/* device.h: the device interface.  A device computes the rows of bins 2 and
 * up (groups short, medium and long) while CPU threads do bins 0 and 1.  It
 * reports the wavefront width and local memory that shape the bin layout, and
 * whether its buffers may be grown by a host realloc. */
#ifndef HSP_DEVICE_H
#define HSP_DEVICE_H

#include <stddef.h>
#include "hspgemm.h"
#include "core/pool.h"

struct hsp_job;
struct hsp_ellr;
typedef struct hsp_device hsp_device;

/* The most arrays one resident thing holds (a prepared A's: ellr.h). */
enum { HSP_HELD_MAX = 8 };

struct hsp_device {
    const char *name;           /* "cpu", "opencl" */
    char description[160];      /* shown in stats (hsp_stats.device), e.g. "cpu" */
    char note[256];             /* what "auto" passed over and why, or "" */
    int wavefront;              /* threads that run in lock step */
    int64_t local_mem;          /* bytes of fast memory per work-group */
    int64_t medium_max;         /* the largest u of the medium group (rows whose products a
                                   work-group sorts in local memory); 0: the paper's 16 W */
    int host_realloc;           /* buffers can grow by host realloc */
    int async;                  /* launched bins run while the CPU threads work */
    int direct;                 /* rows are computed on the host threads, straight into C
                                   (direct.c): no launch_bin, wait or C~ */
    int lost;                   /* after a failure the device may still write memory it
                                   was given (arrays of the job, C): none of it is freed */
    hsp_method default_method[HSP_NMETHODGROUPS];
    unsigned methods[HSP_NMETHODGROUPS]; /* bit m: method m can run on the group */
    unsigned exact[HSP_NMETHODGROUPS];   /* bit m: method m sums each entry of C in one fixed
                                            order on the group (the same bits from run to run) */
    int deterministic;          /* the context wants exact sums (hsp_options.deterministic):
                                   nothing the device does adds by atomics */
    /* Stage 1 on the device (fills job->ub, but for a job->resident.all_device), or
     * NULL for the CPU threads. */
    hsp_status (*bound)(hsp_device *dev, struct hsp_job *job);
    /* Stage 2 on the device, for a job->resident.all_device (a device with hold has it). */
    hsp_status (*bin)(hsp_device *dev, struct hsp_job *job);
    /* Queue bin b of the job, and the bins after it that the same launch
     * takes (*last: the last bin queued); returns at once or after the work. */
    hsp_status (*launch_bin)(hsp_device *dev, struct hsp_job *job, int bin, int *last);
    /* Wait for every queued bin; the first error of any row is returned. */
    hsp_status (*wait)(hsp_device *dev, struct hsp_job *job);
    /* Stage 4 on the device for the rows of bins 2 and up (C's row pointers
     * are set and its arrays allocated), or NULL for the CPU threads. */
    hsp_status (*arrange)(hsp_device *dev, struct hsp_job *job);
    /* Resident arrays (hspgemm.h: resident matrices, a prepared A, resident
     * dense matrices), NULL where the device uses host arrays in place: hold
     * copies n (at most HSP_HELD_MAX) host arrays of the bytes given into
     * arrays of the device's own, *held; home reads the first n back into
     * host (bytes as held); drop frees them.  A job's held operands and its
     * held C: hsp_job. */
    hsp_status (*hold)(hsp_device *dev, int n, const void *const *host, const size_t *bytes, void **held);
    hsp_status (*home)(hsp_device *dev, void *held, int n, void *const *host, const size_t *bytes);
    void (*drop)(hsp_device *dev, void *held);
    /* C = alpha A B + beta C (hsp_spmm), A's rows as ellr.h lays them out,
     * the operands checked; an operand's held arrays (from hold: A's, as
     * ellr.h orders them; B's or C's one) where it is resident, else NULL
     * and its host arrays are used; *blocks: the blocks of C asked for
     * (hsp_options.spmm_blocks), then those moved (0 where none).  NULL where
     * the CPU threads do it. */
    hsp_status (*spmm)(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                       hsp_dense *C, void *const held[3], int *blocks);
    /* C = A B of bitmap-blocked operands (checked, one precision; Zhang and Gruenwald's (2018)
     * block product), every value of C 1 where pattern; *flops: twice its
     * multiply-adds.  NULL where the CPU threads do it. */
    hsp_status (*bitmap_multiply)(hsp_device *dev, const hsp_bitmap *A, const hsp_bitmap *B, int pattern,
                                  hsp_bitmap **C, int64_t *flops);
    /* What the device does on matrices it holds besides products (set with
     * hold), or NULL. */
    const struct hsp_held_ops *held_ops;
    void (*destroy)(hsp_device *dev);
    void *state;
};

/* What a device with memory of its own does on matrices it holds (held:
 * what dev->hold made, or a product's C) besides products: the steps of a
 * resident AMG hierarchy and of resident plans.
 * tentative aggregates A's nodes over its strong connections (theta; zeros:
 * A's stored zeros count, as level 0's) into *naggs aggregates (0: none
 * would coarsen; nodes of no strong connection in none, and where no node
 * has one, one empty aggregate, as the host's) and holds the tentative
 * prolongator T of *tnnz entries (one a node in an aggregate: the constant
 * candidate at level 0, and on each later level the norms of the one
 * before, held_prev being the T of the level before), with *rho a bound of
 * rho(D^-1 A); radius checks A's
 * diagonal and gives *rho; smooth turns A*T, held as P, into
 * T - (w / a_ii) A*T; transpose holds P^T, its rows unsorted, and
 * transpose_values writes P's values into an R of P^T's pattern; identity
 * holds the n x n identity (a product with it sorts a matrix's rows);
 * numeric writes C's values as A*B over C's pattern; same_pattern gives the
 * first row where X and Y (of X's shape and entry count) differ, or
 * X->nrows; pattern holds a copy of M's row pointers and columns (no
 * values), for same_pattern; lanczos runs one pass (below) of a Lanczos
 * estimate of rho(D^-1 A) (src/amg/radius.c drives them), its vectors held
 * in *work from HSP_LZ_START to HSP_LZ_END; finish waits for what the others
 * launched. */
typedef struct hsp_held_ops {
    hsp_status (*tentative)(hsp_device *dev, const hsp_csr *A, void *held, double theta, int zeros,
                            const void *held_prev, void **held_t, int32_t *naggs, int64_t *tnnz, double *rho);
    hsp_status (*radius)(hsp_device *dev, const hsp_csr *A, void *held, double *rho);
    hsp_status (*smooth)(hsp_device *dev, const hsp_csr *A, void *held_a, void *held_t, double w, const hsp_csr *P,
                         void *held_p);
    hsp_status (*transpose)(hsp_device *dev, const hsp_csr *P, void *held_p, void **held_r);
    hsp_status (*transpose_values)(hsp_device *dev, const hsp_csr *P, void *held_p, void *held_r);
    hsp_status (*identity)(hsp_device *dev, int32_t n, hsp_precision precision, void **held);
    hsp_status (*numeric)(hsp_device *dev, const hsp_csr *C, const hsp_csr *A, const hsp_csr *B, void *held_a,
                          void *held_b, void *held_c);
    hsp_status (*same_pattern)(hsp_device *dev, const hsp_csr *X, void *held_x, void *held_y, int32_t *row);
    hsp_status (*pattern)(hsp_device *dev, const hsp_csr *M, void *held, void **held_pattern);
    hsp_status (*lanczos)(hsp_device *dev, const hsp_csr *A, void *held, void **work, int pass, int step,
                          double *scalars);
    hsp_status (*finish)(hsp_device *dev);
} hsp_held_ops;

/* The passes of Lanczos step j on S = |D|^-1/2 A |D|^-1/2 (similar to
 * D^-1 A), over vectors v, w, prev, with scalars alpha (HSP_LZ_ALPHA + j)
 * and norm2 (HSP_LZ_NORM2 + j) kept where the passes run, so that a
 * device's steps need no read until READ: START: w = the start vector
 * (hsp_lanczos_start), v = 0, norm2[0] = |w|^2; ADVANCE j: beta =
 * sqrt(norm2[j]), prev = v, v = w / beta; MULTIPLY j: w = S v, alpha[j] =
 * w.v; ORTHOGONALIZE j: w -= alpha[j] v + beta prev, norm2[j + 1] = |w|^2;
 * READ: the scalars into the caller's array (HSP_LZ_SCALARS of them); END:
 * the vectors freed. */
enum { HSP_LZ_START, HSP_LZ_ADVANCE, HSP_LZ_MULTIPLY, HSP_LZ_ORTHOGONALIZE, HSP_LZ_READ, HSP_LZ_END };
enum { HSP_LZ_STEPS = 15, HSP_LZ_ALPHA = 0, HSP_LZ_NORM2 = HSP_LZ_STEPS, HSP_LZ_SCALARS = 2 * HSP_LZ_STEPS + 1 };

/* The scalar that pass `pass` of step `step` sums into, or -1 (ADVANCE). */
static inline int hsp_lanczos_sum_at(int pass, int step)
{
    return pass == HSP_LZ_START ? HSP_LZ_NORM2 : pass == HSP_LZ_MULTIPLY ? HSP_LZ_ALPHA + step
           : pass == HSP_LZ_ORTHOGONALIZE ? HSP_LZ_NORM2 + step + 1 : -1;
}

/* Entry i of the Lanczos start vector: a hash of i in [-0.5, 0.5), so that
 * every frequency is in it and any device makes it in parallel
 * (kernels/amg.cl's lanczos_start is the same function). */
static inline double hsp_lanczos_start(int64_t i)
{
    uint32_t h = (uint32_t)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
    return h / 4294967296.0 - 0.5;
}

/* Parse "prefix[:N][,flag]..." (the name has prefix): *index is N or -1,
 * bit j of *set says flag j (of nflags) was given; HSP_ERR_ARG saying what
 * the device takes otherwise. */
hsp_status hsp_device_spec(const char *spec, const char *prefix, const char *const *flags, int nflags, int *index,
                           unsigned *set);

#endif
