/* gpu.h: a GPU device over a back end (private to the library).  Each
 * feature's GPU host code (spgemm/gpu_*.c, spmm/gpu_spmm.c,
 * bitmap/gpu_bitmap.c, amg/gpu_amg.c) is written once over what a back end
 * offers (gpu_ops: memory, transfers, kernel launches and a queue) and the
 * device arrays (gpu_mem.c), kernels (gpu_kernels.c) and launches
 * (gpu_launch.c) declared here; gpu_device.c makes the device and
 * open/device_gpu.c gives it the features' tables.  OpenCL
 * (device/opencl/) and the HSA runtime (device/hsa/) are the back ends. */
#ifndef HSP_GPU_H
#define HSP_GPU_H

#include "device/device.h"

struct hsp_job;

/* How many arguments every row kernel takes first (kernels/common.h's
 * HSP_ROW_ARGS; gpu_row_args). */
enum { ROW_ARGS = 13 };

/* The kernels of kernels/, by number (kernels/kernels.def); heap kernel u is
 * GK_HEAP + u, for 2 <= u <= GK_HEAP_MAX; GK_TABLE rows in the table. */
enum {
#define HSP_KERNEL(id, name, nargs, feature, atomics) GK_##id,
#include "../kernels/kernels.def"
#undef HSP_KERNEL
    GK_TABLE,
    GK_HEAP_MAX = 64,
    GK_COUNT = GK_HEAP + GK_HEAP_MAX + 1
};
_Static_assert(GK_HEAP == GK_TABLE - 1, "the heap family is the last line of kernels/kernels.def");

/* The features whose host code launches kernels (SHARED: several). */
typedef enum {
    GPU_FEATURE_SPGEMM, GPU_FEATURE_SPMM, GPU_FEATURE_BITMAP, GPU_FEATURE_AMG, GPU_FEATURE_SHARED
} gpu_feature;

/* A row of the kernel table: the name (the heap family's prefix), the
 * argument count, the feature, and whether it adds values in local memory
 * by compare-and-swap (in double: 64-bit atomics), absent where the device
 * has none (gpu.local_add). */
typedef struct {
    const char *name;
    int nargs;
    gpu_feature feature;
    int atomics;
} gpu_kernel_info;

/* The kernel table (gpu_kernels.c), GK_TABLE rows; kernel number j's row
 * (the heap kernels share GK_HEAP's). */
extern const gpu_kernel_info gpu_kernel_table[];
static inline const gpu_kernel_info *gpu_kernel_of(int j)
{
    return &gpu_kernel_table[j < GK_HEAP ? j : GK_HEAP];
}
/* Does kernel number j exist (heap kernels start at u = 2)? */
static inline int gpu_kernel_exists(int j)
{
    return j >= 0 && j < GK_COUNT && (j < GK_HEAP || j >= GK_HEAP + 2);
}
/* Is kernel number j one that adds in local memory by atomics? */
static inline int gpu_kernel_adds_locally(int j)
{
    return gpu_kernel_of(j)->atomics;
}
/* The kernel's name in kernels/ ("hsp_heap_17"); buf holds at least 24 bytes. */
const char *gpu_kernel_name(int kernel, char *buf);
/* The number of the kernel called name, or -1 where none is. */
int gpu_kernel_number(const char *name);
/* The feature's name ("spgemm"). */
const char *gpu_feature_name(gpu_feature f);
/* HSP_OK where kernel exists and takes nargs arguments, else HSP_ERR_ARG
 * naming the kernel and both counts: every back end's launch checks first,
 * so that no kernel runs with arguments missing or left from a launch before. */
hsp_status gpu_kernel_check(int kernel, int nargs);

/* The arrays of a job on the device. */
enum { GA_ARP, GA_ACOL, GA_AVAL, GA_BRP, GA_BCOL, GA_BVAL, GA_UB, GA_ROWS, GA_SLOT,
       GA_TCOL, GA_TVAL, GA_CNT, GA_PCOL, GA_PVAL, GA_LROWS, GA_RELAUNCH, GA_LONGROWS, GA_CRP,
       GA_CCOL, GA_CVAL,
       /* stages 2 and 4 on the device (gpu_bins.c) */
       GA_BIN_HI, GA_BIN_GROUP, GA_PART_FIGURES, GA_PART_BASE, GA_PART_SUM, GA_BIN_SUMS, GA_LONG_U,
       /* long rows by the dense method (gpu_dense.c): their entries up to each window */
       GA_WEND,
       /* sparse times dense (gpu_spmm.c): A's arrays (ellr.h's hsp_ellr_arrays, from GA_SPMM_A); B; C;
          the sums of long rows' pieces, and each long row's count of pieces done (0 between launches) */
       GA_SPMM_A, GA_SPMM_B = GA_SPMM_A + HSP_HELD_MAX, GA_SPMM_C, GA_SPMM_P, GA_SPMM_DONE, GA_COUNT };

/* An array the kernels use: host-visible memory at ptr (SVM, a fine-grained
 * pool, or a host array used in place when owned is 0), or a back-end handle
 * mem that only transfers reach. */
typedef struct {
    void *ptr, *mem;
    size_t bytes;
    int owned;
} gpu_array;

/* A kernel argument: an array, a value of size bytes at data, or a block of
 * size bytes of local memory. */
typedef enum { GPU_ARG_ARRAY, GPU_ARG_VALUE, GPU_ARG_LOCAL } gpu_arg_kind;
enum { GPU_ARGS_MAX = 31 }; /* the most a kernel takes (hsp_spmm_both; gpu_kernels.c checks) */
typedef struct {
    gpu_arg_kind kind;
    const gpu_array *array;
    const void *data;
    size_t size;
} gpu_arg;

/* Resident arrays on the device (hold): a matrix's row pointers, columns and
 * values; a prepared A's four (ellr.h); a dense matrix's one. */
typedef struct {
    gpu_array a[HSP_HELD_MAX];
} gpu_held;

typedef struct gpu gpu;

/* Arrays of the device's own that were freed, kept for the next ones (the
 * result of the next resident product takes the last one's): a warm product
 * allocates no device memory, and neither does a warm AMG set-up's chain of
 * Galerkin products (six arrays a level). */
enum { GPU_SPARES = 32 };

/* A resident C whose arrays at its bound on entries (the products) take at
 * most this many bytes gets them so, and its nnz is read with C done, not
 * before stage 4: one round trip less (gpu_nnz_later). */
enum { GPU_NNZ_LATER_BYTES = 16 << 20 };

/* What a back end does.  Arrays: alloc fills ptr or mem (bytes > 0); write
 * and read move data of arrays without ptr; copy copies the first bytes of
 * src to dst (arrays without ptr); read takes bytes from offset on; map_host makes host memory used in place
 * reachable by the device (owned: an array of the device's own, kept between
 * products) and unmap_host forgets such an array before it is freed or
 * reallocated, or (host NULL) the last product's arrays before the next
 * product (both NULL when host memory is always reachable).  Kernels: the
 * largest work-group of a kernel; launch a 1-D grid of groups x size (args in
 * the kernel's order); finish waits for all launched work and transfers.
 * Transfers beside the kernels (NULL where the back end has none; arrays
 * without ptr): put copies host's bytes into x from offset on, on a queue of
 * its own, and the launches after it wait for it; get copies x's bytes from
 * offset on into host on another queue once the launches before it have
 * run, and returns with them there. */
typedef struct {
    hsp_status (*alloc)(gpu *g, gpu_array *x, size_t bytes);
    void (*free)(gpu *g, gpu_array *x);
    hsp_status (*write)(gpu *g, gpu_array *x, const void *host, size_t bytes);
    hsp_status (*read)(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes);
    hsp_status (*copy)(gpu *g, gpu_array *dst, gpu_array *src, size_t bytes);
    hsp_status (*map_host)(gpu *g, void *host, size_t bytes, int owned);
    void (*unmap_host)(gpu *g, void *host);
    size_t (*group_limit)(gpu *g, int dbl, int kernel);
    hsp_status (*launch)(gpu *g, int dbl, int kernel, const gpu_arg *args, int nargs, size_t groups,
                         size_t size);
    hsp_status (*finish)(gpu *g);
    void (*close)(gpu *g);
    hsp_status (*put)(gpu *g, gpu_array *x, size_t offset, const void *host, size_t bytes);
    hsp_status (*get)(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes);
} gpu_ops;

struct gpu {
    const gpu_ops *ops;
    void *backend;           /* the back end's own state */
    int host_arrays;         /* host arrays are used in place; the pool may realloc */
    int beside;              /* ops->put and ops->get move its arrays (buffers) */
    int fp64;                /* double kernels exist */
    int local_add[2];        /* the kernels that add in local memory by atomics
                                (dense, hash) exist, in float and in double (where the
                                device has 64-bit atomics) */
    const char *no_fp64;     /* why not, for the message */
    int warp_shuffles;       /* the kernels trade registers within a warp (NVIDIA's OpenCL:
                                rmerge.cl's PTX shuffles), so RMerge takes no barriers */
    int pieces_apart;        /* SpMM's long rows' pieces go by a launch of their own, not as
                                the first work-groups of the rows' (gpu_spmm.c): Intel's CPU
                                runtime's compiler crashes on hsp_spmm_both */
    int64_t local_mem;       /* local memory of a work-group, bytes */
    int compute_units;       /* the processors that run work-groups at once (0: not known) */
    gpu_array a[GA_COUNT];
    gpu_array spare[GPU_SPARES]; /* freed arrays kept (counted in device_bytes) */
    uint64_t spare_kept[GPU_SPARES], spares_kept; /* when each was kept: the count of arrays kept then */
    int64_t device_bytes, peak_device_bytes;
    int64_t moved[2];        /* bytes copied to the device and back since the job began */
    int host_wrote;          /* the host wrote memory the device reads since the last launch */
    double timeout_s;        /* the longest wait for the device (hsp_options.device_timeout) */
    int lost;                /* the back end cannot trust the GPU any more (a fault, a wait
                                past the deadline): every call fails, and nothing the GPU
                                was given is freed, since it may still write there */
    char lost_why[160];
    /* the product in flight */
    int overlap;             /* launches now may run at once (stage 3's bins) */
    int b_is_a;              /* B is A: the B arrays are A's */
    const gpu_array *held[2]; /* A's and B's three arrays where the product's operand is a
                                resident matrix (gpu_held), else NULL */
    struct gpu_job *job;     /* the pipeline's own state (spgemm/gpu_stages.h), made at the
                                first product, freed with the device */
};

/* Arrays (gpu_mem.c): room for bytes (kept between jobs, grown when short);
 * host data in (a copy, or the host array itself when host_arrays; room
 * only when host is NULL); data back; release.  gpu_grow grows array which
 * to bytes keeping its first keep bytes, by realloc (host arrays and
 * use_realloc) or allocate + copy; it counts the bytes copied and moves. */
hsp_status gpu_reserve(gpu *g, int which, size_t bytes);
hsp_status gpu_upload(gpu *g, int which, const void *host, size_t bytes);
hsp_status gpu_download(gpu *g, int which, void *host, size_t bytes);
/* ops->put and ops->get on array which (reserved), the bytes counted. */
hsp_status gpu_put(gpu *g, int which, size_t offset, const void *host, size_t bytes);
hsp_status gpu_get(gpu *g, int which, size_t offset, void *host, size_t bytes);
void gpu_release(gpu *g, int which);
hsp_status gpu_grow(gpu *g, int which, size_t bytes, size_t keep, int use_realloc, int64_t *copied, int *moved);
/* The first bytes of array x from host, or to host; bytes from offset on to host. */
hsp_status gpu_array_write(gpu *g, gpu_array *x, const void *host, size_t bytes);
hsp_status gpu_array_read(gpu *g, gpu_array *x, void *host, size_t bytes);
hsp_status gpu_array_read_at(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes);
/* The first bytes of src into dst, on the device (host-visible ones by the host). */
hsp_status gpu_array_copy(gpu *g, gpu_array *dst, gpu_array *src, size_t bytes);
/* An array of the device's own of bytes in x (a host array where host arrays
 * are used in place; a spare of at least bytes and at most twice that where
 * one is kept); freeing one keeps it as a spare where it can (or frees it;
 * nothing when x holds no array of its own) and leaves x empty.
 * gpu_spares_free frees the spares (the caller waited for the queue). */
hsp_status gpu_array_new(gpu *g, gpu_array *x, size_t bytes);
void gpu_array_free(gpu *g, gpu_array *x);
/* n such arrays of the bytes given (all freed where one fails); n freed. */
hsp_status gpu_arrays_new(gpu *g, gpu_array *x, const size_t *bytes, int n);
void gpu_arrays_free(gpu *g, gpu_array *x, int n);
void gpu_spares_free(gpu *g);
/* A new matrix for the device to hold, its first n arrays of the bytes
 * given (none yet when n is 0; no values when 2); NULL with *s the error.
 * gpu_held_result puts h into *out when s is HSP_OK, else frees it with its
 * arrays (a lost device's are left to it); returns s. */
gpu_held *gpu_held_new(gpu *g, const size_t *bytes, int n, hsp_status *s);
hsp_status gpu_held_result(gpu *g, hsp_status s, gpu_held *h, void **out);
/* The first row named by the flag at x, or n when none was (x set to n first). */
hsp_status gpu_flag_read(gpu *g, gpu_array *x, int32_t n, int32_t *row);
/* Every launched kernel done (where s is HSP_OK), then the n temporaries at
 * w freed (a lost device's left to it); s or the wait's error. */
hsp_status gpu_done(gpu *g, hsp_status s, gpu_array *w, int n);
/* The array an argument means (B's are A's when B is A). */
const gpu_array *gpu_array_of(gpu *g, int which);

/* A value of the kernels' type VT (float or double), and x as an argument of
 * that type, kept in *store. */
typedef union {
    float f;
    double d;
} gpu_vt_value;
gpu_arg gpu_vt(int dbl, double x, gpu_vt_value *store);

/* Argument builders: an array of the job (gpu_array_of), one of the
 * caller's, a value, a block of local memory. */
static inline gpu_arg gpu_arr(gpu *g, int which)
{
    return (gpu_arg){GPU_ARG_ARRAY, gpu_array_of(g, which), NULL, 0};
}
static inline gpu_arg gpu_array_arg(const gpu_array *x)
{
    return (gpu_arg){GPU_ARG_ARRAY, x, NULL, 0};
}
static inline gpu_arg gpu_val(const void *data, size_t size)
{
    return (gpu_arg){GPU_ARG_VALUE, NULL, data, size};
}
static inline gpu_arg gpu_local(size_t size)
{
    return (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, size};
}

/* Work-groups of GPU_SPAN_GROUP items (fewer where the kernel allows
 * fewer: *size, a power of two), GPU_SPAN_ROWS rows an item, over m rows. */
enum { GPU_SPAN_ROWS = 8, GPU_SPAN_GROUP = 256 };
int64_t gpu_span_groups(gpu *g, int dbl, int kernel, int64_t m, size_t *size);
/* crp[0] = 0 and crp[i + 1] = cnt[0] + ... + cnt[i] for i < m (arrays of
 * int64_t on the device, whose sum must fit), all on the device; *total =
 * crp[m], read back (a wait for the queue) unless total is NULL. */
hsp_status gpu_scan(gpu *g, int dbl, const gpu_array *cnt, gpu_array *crp, int64_t m, int64_t *total);

/* s, after noting in dev whether the back end lost the GPU. */
static inline hsp_status gpu_noted(hsp_device *dev, hsp_status s)
{
    dev->lost = ((gpu *)dev->state)->lost;
    return s;
}

/* The work-group size for a kernel: want, or less where it allows less. */
size_t gpu_group_size(gpu *g, int dbl, int kernel, size_t want);
/* The largest power of two of at most GPU_ITEMS_GROUP items a work-group
 * the kernel allows; a launch of the kernel with a work-item for each of n
 * rows or entries, in work-groups of that size. */
enum { GPU_ITEMS_GROUP = 256 };
size_t gpu_pow2_group(gpu *g, int dbl, int kernel);
hsp_status gpu_launch_items(gpu *g, int dbl, int kernel, const gpu_arg *a, int na, int64_t n);

/* A new device over a back end: ops, a zeroed state of state_bytes at
 * g->backend (g is dev->state); dev->destroy closes it.  name is for the
 * message when memory is short. */
hsp_status gpu_device_new(const gpu_ops *ops, size_t state_bytes, const char *name, hsp_device **dev);
/* Once the back end is open (g->local_mem, g->host_arrays known): the
 * device's limits, finish, and hold, home and drop where it has memory of
 * its own. */
void gpu_device_ready(hsp_device *dev);

#endif
