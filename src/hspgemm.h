/* hspgemm.h: the public interface of libhspgemm, sparse matrix-matrix
 * multiplication C = A*B in CSR, split between CPU threads and a device.
 *
 * Every function that can fail returns an hsp_status; hsp_strerror() names the
 * status and hsp_errmsg() gives the detail of the calling thread's last error
 * (which row, which line).  On failure no output is produced and the caller's
 * inputs are untouched.  Functions that take a context may be called from
 * several threads on one context: the context runs one call at a time, the
 * others wait their turn (one context per thread runs them at once). */
#ifndef HSPGEMM_H
#define HSPGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HSP_OK = 0,
    HSP_ERR_ARG,          /* a bad argument (NULL, unknown name, out of range) */
    HSP_ERR_NOMEM,        /* allocation failed or the memory limit was reached */
    HSP_ERR_SHAPE,        /* ncols(A) != nrows(B) */
    HSP_ERR_INVALID_CSR,  /* unsorted, duplicate or out-of-range entries */
    HSP_ERR_OVERFLOW,     /* a count (nnz, flops, bytes) would not fit its type */
    HSP_ERR_IO,           /* a file could not be opened, read or written */
    HSP_ERR_PARSE,        /* a malformed Matrix Market file */
    HSP_ERR_DEVICE,       /* the device is unavailable or failed */
    HSP_ERR_UNSUPPORTED   /* a valid request this build cannot do */
} hsp_status;

/* The name of a status, e.g. "invalid CSR matrix". */
const char *hsp_strerror(hsp_status status);
/* The detailed message of this thread's last error, "" if none.  Like errno,
 * a later call that succeeds leaves it as it was: read it after a call that
 * returned an error, not to learn whether one did. */
const char *hsp_errmsg(void);

/* ---- CSR matrices ------------------------------------------------------ */

typedef enum { HSP_FLOAT = 0, HSP_DOUBLE = 1 } hsp_precision;

/* A CSR matrix: row i holds entries rowptr[i] .. rowptr[i+1]-1 of colidx and
 * values.  Valid means: rowptr[0] == 0, rowptr monotone, rowptr[nrows] == nnz,
 * column indices in [0, ncols) and strictly increasing within each row.
 * Explicit zeros are entries like any other.  A struct filled by the caller
 * over its own arrays may be passed as an input; only matrices made by the
 * library (hsp_csr_create and every function returning hsp_csr **) may be
 * given to hsp_csr_free. */
typedef struct {
    int32_t nrows, ncols;
    int64_t nnz;
    hsp_precision precision;
    int64_t *rowptr; /* nrows + 1 */
    int32_t *colidx; /* nnz */
    void *values;    /* nnz floats or doubles, after precision */
} hsp_csr;

/* Allocate an nrows x ncols matrix with room for nnz entries; rowptr is zeroed
 * but for rowptr[nrows] = nnz, the entries are left for the caller to fill. */
hsp_status hsp_csr_create(int32_t nrows, int32_t ncols, int64_t nnz,
                          hsp_precision precision, hsp_csr **out);
/* Free A.  The arrays of a large matrix (4 MiB or more each) are kept for
 * the next matrix of about their size, which saves the page zeroing of
 * fresh memory (at most 8 blocks, 1 GiB, and a 16th of the machine's
 * memory; none in an AddressSanitizer build); hsp_release_memory hands
 * them back to the system. */
void hsp_csr_free(hsp_csr *A);
void hsp_release_memory(void);
/* The bytes this process may still take now: the memory available without
 * swapping (MemAvailable of /proc/meminfo; where unknown, the free pages),
 * or the address space left where a limit on it (ulimit -v) allows less;
 * 0 when unknown.  What the readers take as their limit by default. */
int64_t hsp_available_memory(void);
/* Check that A is a valid CSR matrix; the error message names the row. */
hsp_status hsp_csr_check(const hsp_csr *A);
/* Build a valid CSR matrix from nnz triplets in any order; duplicates are
 * summed.  rows/cols are 0-based; values is nnz entries of precision, or NULL
 * for a pattern (all ones). */
hsp_status hsp_csr_from_triplets(int32_t nrows, int32_t ncols, int64_t nnz,
                                 const int32_t *rows, const int32_t *cols,
                                 const void *values, hsp_precision precision,
                                 hsp_csr **out);
/* A deep copy of A in the given precision.  A must be valid but for the
 * order of columns within its rows (a C of options.unsorted is copied as it
 * is): bad row pointers, out-of-range and duplicate columns are refused. */
hsp_status hsp_csr_convert(const hsp_csr *A, hsp_precision precision,
                           hsp_csr **out);
/* Sort the columns of each row of A ascending, their values with them (a
 * C of hsp_multiply with options.unsorted, before it is an operand).  A's
 * row pointers must be valid and its columns in range; duplicates stay,
 * side by side.  Allocates a copy of A's entries while it works. */
hsp_status hsp_csr_sort(hsp_csr *A);
/* Value k of A as a double, whatever its precision; NaN (hsp_errmsg says
 * why) where A is NULL or k is not in [0, nnz). */
double hsp_csr_value(const hsp_csr *A, int64_t k);

/* ---- Matrix Market files ----------------------------------------------- */

/* Read a coordinate Matrix Market file (real, integer or pattern; general,
 * symmetric or skew-symmetric) into precision.  Duplicates are summed.  A parse
 * error's message names the file and line: a number that overflows the
 * precision (1e999; 1e300 in float), hexadecimal, a value that is not a whole
 * number in an integer file, a NUL byte, CR line endings (CR LF are read).
 * inf, infinity and nan (signed or not, any case) are read as such: they are
 * what hsp_mm_write writes for values that are not finite.  progress != 0
 * shows a progress line on stderr when reading takes more than a second. */
hsp_status hsp_mm_read(const char *path, hsp_precision precision, int progress,
                       hsp_csr **out);
/* hsp_mm_read within mem_limit bytes (0: the memory available when the
 * read starts, hsp_available_memory, as hsp_mm_read): a file whose declared
 * shape and entries need more to read fails with HSP_ERR_NOMEM, saying how
 * much, before that is allocated. */
hsp_status hsp_mm_read_limit(const char *path, hsp_precision precision, int progress, int64_t mem_limit,
                             hsp_csr **out);
/* Write A as a general real coordinate Matrix Market file (its rows sorted
 * or not: a C of options.unsorted is written as it is; bad row pointers,
 * out-of-range and duplicate columns are refused, as hsp_csr_convert does).  A regular file
 * is written beside its place and renamed there once whole, so that a failed
 * write leaves what was there before; path "-" writes to stdout. */
hsp_status hsp_mm_write(const char *path, const hsp_csr *A);

/* ---- Generated matrices ------------------------------------------------ */

/* Make a matrix from a spec "KIND:ARG[,ARG]", deterministic for a seed:
 *   poisson2d5:N  poisson2d9:N  poisson3d7:N  poisson3d27:N   (grid side N)
 *   aniso2d:N      (N x N grid: PyAMG's rotated anisotropic diffusion, Q1 elements,
 *                   epsilon 0.001, theta pi/3: diffusion_stencil_2d on stencil_grid)
 *   elasticity2d:N (PyAMG's linear_elasticity((N, N)): Q1 plane strain, E 1e5, nu 0.3,
 *                   2 N^2 rows, u_x and u_y of each node, whole 2x2 blocks stored)
 *   rmat:SCALE,EDGEFACTOR   (2^SCALE rows, Graph500 probabilities)
 *   random:N,PER_ROW        (N x N, PER_ROW <= N distinct random columns a row)
 *   band:N,HALFWIDTH        (N x N, |i-j| <= HALFWIDTH) */
hsp_status hsp_generate(const char *spec, uint64_t seed, hsp_precision precision,
                        hsp_csr **out);

/* ---- Devices -------------------------------------------------------------- */

typedef struct {
    char name[32];         /* what hsp_options.device takes: "cpu", "opencl:0", "hsa:0" */
    char description[128]; /* model and platform */
    int is_gpu;
    int wavefront;         /* W of the bin layout */
    int64_t local_mem;     /* bytes of local memory per work-group */
    int fp64;              /* double precision */
    char memory[32];       /* "host", "system SVM", "buffer SVM", "buffers"; hsa:
                              "svm", "svm mapped", "pool" */
    int usable;            /* it can run here (an HSA agent needs a code object
                              for its ISA in this build) */
    char note[192];        /* what to know about it, or "" (hsa without host
                              arrays in place: what XNACK takes on this GPU) */
    char version[128];     /* its software's versions: the OpenCL platform's
                              and driver's, or the HSA runtime's; "" for cpu */
} hsp_device_info;

/* The devices of every back end built in: cpu first, then each OpenCL
 * device, then each HSA GPU agent.  Up to max go into list; *count is how
 * many there are.  Device "auto" takes the first usable HSA agent, else the
 * first OpenCL GPU, else cpu. */
hsp_status hsp_devices(hsp_device_info *list, int max, int *count);

/* Kernel builds: an opencl device compiles its kernels when it opens (in
 * hsp_context_create) where they are not in the on-disk cache yet: once per
 * device, driver and precision, and it takes a while (about 10 s on an
 * NVIDIA GPU, 20 s on Intel's CPU runtime, minutes on PoCL).  A hook set
 * here hears each such build: HSP_BUILD_START before it, HSP_BUILD_DONE
 * after (failed or not), with the OpenCL device's name, the precision of
 * the kernels, the folder they will be cached in (NULL where they are not:
 * HSPGEMM_CACHE_DIR=off, or no HOME) and, at the end, the seconds it took,
 * so that a program can say what it waits for (the CLI prints a line, the
 * Python package logs it).  Called in the thread that opens the device.  One
 * hook for the process, NULL (the default) for none; setting it is
 * thread-safe. */
typedef enum { HSP_BUILD_START, HSP_BUILD_DONE } hsp_build_event;
typedef void (*hsp_build_hook)(hsp_build_event event, const char *device, hsp_precision precision,
                               const char *cache, double seconds, void *arg);
void hsp_set_build_hook(hsp_build_hook hook, void *arg);

/* ---- Contexts and multiplication ---------------------------------------- */

/* How a long row's buffer grows when it overflows: realloc in place, or
 * allocate a new buffer, copy and free the old one (dump and relaunch). */
typedef enum { HSP_GROW_REALLOC = 0, HSP_GROW_COPY = 1 } hsp_grow;

/* Per-row methods for the device's bin groups.  HSP_METHOD_DEFAULT lets the
 * device choose what measures fastest there; the paper's methods are heap
 * (group 3), ESC (group 4) and merge (group 5). */
typedef enum {
    HSP_METHOD_DEFAULT = 0,
    HSP_METHOD_HEAP,  /* k-way merge of the row's B rows with a heap */
    HSP_METHOD_ESC,   /* expand, sort, compress */
    HSP_METHOD_MERGE, /* merge each B row into the sorted result so far */
    HSP_METHOD_HASH,  /* hash-table accumulator, then sort */
    HSP_METHOD_DENSE, /* dense accumulator over the columns (on a GPU, over
                         windows of columns, each row counted first) */
    HSP_METHOD_AUTO,  /* per row: merge where the row's B rows lie in a narrow
                         band of columns (span < 4 u), dense elsewhere; a GPU's
                         long rows: ESC where their products fit in local
                         memory, dense elsewhere (merge without 64-bit atomics
                         in double) */
    HSP_METHOD_RMERGE, /* a GPU's short and medium rows: w work-items merge the
                         row's B rows at once, w - 1 at a time (Gremse et al. 2015) */
    HSP_METHOD_HASH2  /* a GPU's short and medium rows: hash in two phases,
                         each row counted first, then filled into C in place
                         (no copy from the upper-bound C~) */
} hsp_method;
#define HSP_NMETHODS (HSP_METHOD_HASH2 + 1) /* methods, HSP_METHOD_DEFAULT among them */

enum { HSP_NGROUPS = 5, HSP_NMETHODGROUPS = 3, HSP_MAX_BINS = 72 };

/* The options of a context.  Make them with hsp_options_init, then set the
 * members wanted: src/options.def lists each one's default and range once
 * (hsp_option_table below gives them at run time). */
typedef struct {
    size_t size;          /* sizeof the hsp_options the caller was built with, which
                             hsp_options_init sets: members are only ever added at the
                             end, and hsp_context_create takes the defaults for those
                             past size (a caller built against an older hspgemm.h); a
                             size it does not know (0: options not made by
                             hsp_options_init) is an error */
    const char *device;   /* "auto" (default: the hsa device if it opens, else
                             a GPU through OpenCL if there is one, else cpu;
                             stats' device_note says what it passed over),
                             "cpu", "opencl[:N]" with ",nosvm" (use buffers)
                             and ",nofp64" (no double), or "hsa[:N]" with
                             ",nosvm" (copy through a pool) or ",svm" (host
                             arrays registered range by range without XNACK) */
    int threads;          /* CPU threads; 0 = one per CPU the calling thread may run on
                             (its affinity: taskset, cgroup cpusets, mpiexec's binding) */
    int unbound;          /* nonzero: the pool's threads are left to the scheduler instead
                             of each bound to a CPU other than the caller's (doc/design.md, "How a
                             product is computed"): for processes that share a machine
                             unbound by their launcher (MPI ranks), whose pools would bind
                             their threads to the same CPUs.  Default 0; HSPGEMM_NO_BIND=1
                             does the same for every context */
    hsp_grow grow;        /* default HSP_GROW_REALLOC */
    hsp_method method[HSP_NMETHODGROUPS]; /* for groups 3, 4, 5 */
    int wavefront;        /* 0 = the device's; else 2..64, a power of two */
    int64_t local_mem;    /* bytes; 0 = the device's */
    int64_t grow_start;   /* first buffer of a group-5 row; 0 = 256 entries */
    int64_t mem_limit;    /* bytes of temporary + output memory; 0 = the machine's
                             physical memory.  A product's row arrays take 28 bytes
                             a row of A (C's row pointers, each row's bound, offset
                             and bin): one whose row arrays pass the limit is
                             refused before they are allocated and before the
                             operands' rows are read */
    int64_t small_nnz;    /* with a GPU device, products whose A and B hold at most
                             this many entries together run on the CPU threads
                             alone (a GPU's fixed costs outweigh them); 0 = 2^18,
                             -1 = every product on the device */
    double device_timeout; /* seconds a wait for the hsa device may last before
                             the product fails and the device is given up
                             (a kernel that never ends); 0 = the environment's
                             HSPGEMM_DEVICE_TIMEOUT, else 600 */
    int unsorted;         /* nonzero: hsp_multiply may leave the columns of each row
                             of C in any order, as MKL and scipy do (the cpu device
                             skips their sort, a third of its time on some matrices;
                             the GPU devices still sort); hsp_csr_sort puts them in
                             order, which an operand of hsp_multiply needs.  Products
                             made inside plans, hsp_rap and the AMG setup are sorted
                             whatever this says.  Default 0: sorted */
    int bitmap;           /* nonzero: hsp_multiply blocks A and B into 8x8 bitmaps
                             (hsp_bitmap_from_csr), multiplies them block by block
                             (hsp_bitmap_multiply: on the GPU device, else the CPU
                             threads) and gives C back in CSR; stats' times include the
                             conversions.  Other products (plans, hsp_rap, resident
                             ones, the AMG setup) are not blocked.  Default 0 */
    int pattern;          /* nonzero: hsp_multiply gives C's pattern, every value 1 (the
                             entries products land on, as with drop_zeros 0; A's and B's
                             values not used).  With bitmap set, only the blocks' patterns
                             are made: no values pass; in CSR the values are made and then
                             set to 1 (no faster).  Default 0 */
    int drop_zeros;       /* nonzero: hsp_multiply and hsp_rap (without a plan) leave
                             out the entries of C whose value is exactly 0 (products
                             that cancel, explicit zeros of the operands), as scipy's
                             A @ B does.  Default 0 keeps them: C's pattern then depends
                             on A's and B's patterns alone, which plans, resident
                             products and the AMG setup rely on (they always keep
                             them), and C needs no second pass */
    int deterministic;    /* nonzero: every entry of C is summed in one fixed order, so
                             that a product gives the same bits each time it runs on the
                             same device (the CPU device always does).  GPU devices then
                             take RMerge where they would hash and merge where they would go
                             dense, and a method that adds by atomics (hash, hash2, dense) is an
                             error; plans and resident AMG set-ups sum each row on one
                             work-item.  Slower on a GPU (doc/devices.md: Deterministic products).
                             Default 0 */
    const char *profile;  /* a tuned profile (hsp_tune; doc/devices.md: Tuning): the method of
                             each bin of short and medium rows, and of the long rows,
                             that a device takes where method[] leaves the choice to it.
                             NULL (default): the user's profile file,
                             $XDG_CONFIG_HOME/hspgemm/profile (else
                             ~/.config/hspgemm/profile), where it exists; "none": no
                             profile; else a file, which must exist and parse.  Only
                             its sections for the context's device are taken; in
                             deterministic contexts, only their exact methods */
    int spmm_blocks;      /* hsp_spmm and hsp_spmm_ellr on a device reached by transfers
                             (opencl buffers), B and C the host's: C made in this many
                             blocks of its rows (row-major C) or columns, whose
                             transfers go beside the launches of the others
                             (FastSpMM's streams), at most HSP_SPMM_MAX_BLOCKS.  0 or 1
                             (default): none, B sent whole, one launch, C brought back
                             whole, which was faster on an H100 (doc/library.md: Sparse times
                             dense) */
    double spmm_cpu_share; /* hsp_spmm, hsp_spmm_ellr and hsp_spmm_resident on a device that
                             reads host memory (system SVM, an APU): the share of B's
                             columns (rounded to whole columns) that the CPU threads make
                             while the device makes the rest, at once; 0 (default): the
                             device alone, 1: the CPU threads alone.  `hspgemm spmm
                             --cpu-share=auto` sets it from both sides' measured times
                             (doc/library.md: Sparse times dense) */
} hsp_options;
#define HSP_SPMM_MAX_BLOCKS 256

/* The CPUs the calling thread may run on (its affinity: taskset, cgroup
 * cpusets, mpiexec's binding), else where that is unknown the online CPUs:
 * the threads of a context made with threads = 0. */
int hsp_cpu_count(void);

/* Fill o, of size bytes, with the defaults above and o->size = size (o
 * NULL: nothing); hsp_options_init passes the caller's sizeof(hsp_options). */
void hsp_options_init_size(hsp_options *o, size_t size);
#define hsp_options_init(o) hsp_options_init_size((o), sizeof(hsp_options))

/* How an option is stored and written (src/options.def). */
typedef enum {
    HSP_OPTION_TEXT,    /* const char *, e.g. "cpu" */
    HSP_OPTION_INT,     /* int */
    HSP_OPTION_INT64,   /* int64_t */
    HSP_OPTION_BYTES,   /* int64_t bytes; on the command line also 64K, 512M, 4G, 1T */
    HSP_OPTION_REAL,    /* double */
    HSP_OPTION_FLAG,    /* int, 0 or 1 */
    HSP_OPTION_GROW,    /* hsp_grow, written "realloc" or "copy" */
    HSP_OPTION_METHODS  /* hsp_method[HSP_NMETHODGROUPS], written by name */
} hsp_option_kind;
/* One option of hsp_options as src/options.def lists it, for front ends
 * (the command line, the Python package, the PETSc plugin) that take them
 * by name: its default is what hsp_options_init sets at offset. */
typedef struct {
    const char *name;     /* the member of hsp_options */
    hsp_option_kind kind;
    size_t offset;        /* offsetof(hsp_options, name) */
    double lo, hi;        /* the numbers hsp_context_create takes */
    const char *give;     /* what they are, as its message says it; NULL: not checked */
    const char *flag;     /* the command line's flag without "--", "=WHAT" after a name
                             that takes a value ("threads=N"); NULL: none */
    double flag_lo, flag_hi; /* the numbers the flag takes */
    const char *takes;    /* what it takes, as "--flag takes TAKES" says it */
    const char *help;     /* its --help text ('\n' between lines), or NULL */
    const char *python;   /* the keyword of hspgemm.Context, or NULL */
    const char *petsc;    /* the PETSc plugin's option ("-hsp_threads"), or NULL */
} hsp_option_info;
/* The options, in the order of hsp_options' members; their count into *count. */
const hsp_option_info *hsp_option_table(int *count);

typedef struct hsp_context hsp_context;

/* Create a context: opens the device and starts the thread pool, which every
 * multiply on this context reuses.  A context serves one call at a time:
 * calls from other threads on it (on its resident matrices, plans and
 * hierarchies too) wait for the one running.  Free it when no call is.
 * fork(): in the child (which has only the forking thread) a context made
 * before works on the cpu device, its pool started anew at its first call
 * there, and may be freed there; fork while no call runs on it.  A GPU
 * device's runtime in a child is its driver's affair: PoCL's hangs there
 * (even in a context made in the child), Intel's CPU runtime works. */
hsp_status hsp_context_create(const hsp_options *o, hsp_context **out);
/* The checks hsp_context_create makes of o (its size, each option's range:
 * src/options.def), without opening a device: for front ends that check
 * their options before they make a context. */
hsp_status hsp_options_check(const hsp_options *o);
void hsp_context_free(hsp_context *ctx);

/* The bin layout of a context: bin b holds rows whose upper bound u satisfies
 * lo[b] <= u <= hi[b] (hi = INT64_MAX for the last bin); group[b] is 0..4. */
typedef struct {
    int nbins;
    int width; /* the wavefront W: bins 0..W hold one u each */
    int64_t lo[HSP_MAX_BINS], hi[HSP_MAX_BINS];
    int group[HSP_MAX_BINS];
} hsp_bins;
/* ctx's bin layout, owned by ctx; NULL where ctx is NULL. */
const hsp_bins *hsp_context_bins(const hsp_context *ctx);

/* Figures of one multiplication. */
typedef struct {
    size_t size;          /* sizeof the hsp_stats the library wrote, set by every call
                             that fills one: members are only ever added at the end, so
                             a caller built against a newer hspgemm.h reads a member only
                             where size covers it */
    double ms_stage[4];   /* upper bound, binning, compute, arrange */
    double ms_total;      /* the whole call, C complete (resident ones too) */
    double ms_other;      /* of it, outside the stages: checks, the job's set-up and clean-up */
    double ms_device;     /* stage 3: from the first launch until the device's bins are done */
    double ms_host;       /* stage 3: the CPU threads on bins 0-1, meanwhile */
    double ms_overlap;    /* stage 3: time both sides worked at once */
    int64_t flops;        /* 2 * sum of upper bounds */
    int64_t nnz_c;
    int64_t rows_group[HSP_NGROUPS], flops_group[HSP_NGROUPS];
    int64_t rows_bin[HSP_MAX_BINS];
    int64_t grow_events;  /* group-5 buffer growths */
    int64_t grow_bytes_copied; /* bytes copied by grow=copy */
    int64_t grow_moves;   /* grow=realloc calls that returned a new address */
    int64_t peak_temp_bytes; /* peak of temporary memory (C~, buffers) */
    int64_t peak_device_bytes; /* peak of device memory held (opencl device) */
    int64_t bytes_to_device, bytes_to_host; /* copied between host and device memory
                                               (none where the device uses host arrays) */
    int threads;
    int passes;           /* the cpu device's passes over the rows: 1 (each row computed
                             once), or 2 (counted, then computed into C) where the memory
                             limit cannot hold C~ and the largest C the rows allow */
    int resident;         /* operands and C stayed on the device (hsp_multiply_resident):
                             the bytes above are the product's own transfers (row counts,
                             bins), not its matrices' */
    hsp_grow grow;        /* the grow mode that ran (copy where realloc cannot) */
    int bitmap;           /* the product ran by 8x8 bitmap blocks (hsp_bitmap_multiply,
                             options.bitmap): no stages, bins or growth */
    int64_t blocks_c;     /* then: C's blocks */
    hsp_method method[HSP_NMETHODGROUPS]; /* as resolved by the device */
    hsp_method bin_method[HSP_MAX_BINS]; /* the method of each non-empty bin of short,
                                            medium and long rows (else DEFAULT) */
    char profile[256];    /* the profile file whose methods the product took, or "" */
    char device[160];     /* hsp_device_info's description of the device that ran it */
    char device_note[256]; /* what device "auto" passed over and why, or "" */
} hsp_stats;

/* C = A*B.  A and B must be valid CSR of one precision; C has that precision,
 * sorted rows (unless the context's options.unsorted), duplicates summed and
 * explicit zeros (from cancellation) kept.  stats may be NULL. */
hsp_status hsp_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B,
                        hsp_csr **C, hsp_stats *stats);

/* ---- Matrices resident on the device ------------------------------------------ */

/* A CSR matrix held by a context's device, so that a chain of products
 * (C = A*B, then C*D, ...) keeps its operands and results there and brings a
 * matrix home only when asked.  On a device that uses host arrays in place
 * (cpu, an OpenCL device with system SVM, an APU through hsa) it is host
 * arrays, and placing and bringing home copy nothing.  A resident matrix
 * belongs to its context: use it there alone and free it before the context. */
typedef struct hsp_resident hsp_resident;

/* Place A (valid CSR, checked here) on ctx's device: a copy of A there where
 * the device has memory of its own; else A itself, which must then stay
 * alive and unchanged until M is freed. */
hsp_status hsp_place(hsp_context *ctx, const hsp_csr *A, hsp_resident **M);
/* C = A*B as hsp_multiply computes it, of resident operands into a resident
 * C: nothing of A, B or C crosses to or from the host (the product moves only
 * its row counts and bins).  stats as for hsp_multiply. */
hsp_status hsp_multiply_resident(hsp_context *ctx, const hsp_resident *A, const hsp_resident *B,
                                 hsp_resident **C, hsp_stats *stats);
/* M on the host, read back from the device at the first call (where host
 * arrays are used in place: M's own arrays, nothing copied).  *host belongs
 * to M and stays valid until M is freed. */
hsp_status hsp_resident_host(hsp_resident *M, const hsp_csr **host);
/* M's shape and entry count, which the host always knows. */
void hsp_resident_shape(const hsp_resident *M, int32_t *nrows, int32_t *ncols, int64_t *nnz);
void hsp_resident_free(hsp_resident *M);

/* ---- Galerkin products and symbolic reuse ------------------------------------ */

/* AT = A^T (rows sorted); A must be valid. */
hsp_status hsp_transpose(const hsp_csr *A, hsp_csr **AT);

/* A plan: what a product keeps so that a later product of operands with the
 * same patterns (new values) computes C's values only, into the same C: no
 * bounds, binning, allocation or sorting (AMG re-setup when coefficients
 * change).  Made by hsp_multiply_plan or hsp_rap, freed by hsp_plan_free.
 * A plan keeps copies of the patterns and compares operands with them, not
 * their addresses: a plan of A*A takes A2*A3 where A2 and A3 both have A's
 * pattern, and one of A*B takes A2*A2 where A2 has both patterns. */
typedef struct hsp_plan hsp_plan;
void hsp_plan_free(hsp_plan *plan);

/* C = A*B as hsp_multiply does it, and a plan for products of A's and B's
 * patterns. */
hsp_status hsp_multiply_plan(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                             hsp_plan **plan, hsp_stats *stats);
/* C's values anew from A and B, whose patterns (and C's) must be the plan's:
 * HSP_ERR_ARG naming the operand and the first row that differs, else C's
 * values are overwritten.  Runs on the context's CPU threads. */
hsp_status hsp_multiply_reuse(hsp_context *ctx, hsp_plan *plan, const hsp_csr *A, const hsp_csr *B,
                              hsp_csr *C);

/* hsp_multiply_plan of resident operands into a resident C; on a device with
 * memory of its own the plan keeps the three patterns there. */
hsp_status hsp_multiply_plan_resident(hsp_context *ctx, const hsp_resident *A, const hsp_resident *B,
                                      hsp_resident **C, hsp_plan **plan, hsp_stats *stats);
/* hsp_multiply_reuse of resident matrices: on a device with memory of its
 * own the patterns are checked and C's values computed there (a row of C by
 * a work-item, or by a team with the row's columns in local memory). */
hsp_status hsp_multiply_reuse_resident(hsp_context *ctx, hsp_plan *plan, const hsp_resident *A,
                                       const hsp_resident *B, hsp_resident *C);

/* The order of a Galerkin product's two products. */
typedef enum {
    HSP_RAP_R_AP = 0, /* R*(A*P) */
    HSP_RAP_RA_P = 1  /* (R*A)*P */
} hsp_rap_order;

/* C = R*A*P in the given order; R NULL means P^T, formed once.  plan, if not
 * NULL, gets a plan for hsp_rap_reuse; stats is NULL or an array of two
 * hsp_stats, which get the figures of the first and the second product.
 * Without a plan, where P aggregates (at most one entry in each row) and R
 * is P^T or has at most one entry in each column, and the product runs on
 * the CPU threads, C is one pass over A instead (no A*P held; either order
 * gives the same C): stats[0] gets its figures, stats[1] zeros.  Errors
 * name R, A and P.  options.drop_zeros applies where plan is NULL. */
hsp_status hsp_rap(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                   hsp_rap_order order, hsp_csr **C, hsp_plan **plan, hsp_stats stats[2]);
/* C's values anew from R, A and P of the plan's patterns (R NULL exactly when
 * it was NULL for hsp_rap); errors as hsp_multiply_reuse. */
hsp_status hsp_rap_reuse(hsp_context *ctx, hsp_plan *plan, const hsp_csr *R, const hsp_csr *A,
                         const hsp_csr *P, hsp_csr *C);
/* C = R*A*P of resident matrices (R given: e.g. P^T from hsp_transpose,
 * placed) in the order given, both products resident: the intermediate never
 * leaves the device.  stats: NULL or an array of two, as for hsp_rap. */
hsp_status hsp_rap_resident(hsp_context *ctx, const hsp_resident *R, const hsp_resident *A, const hsp_resident *P,
                            hsp_rap_order order, hsp_resident **C, hsp_stats stats[2]);

/* ---- Algebraic multigrid setup: smoothed aggregation or classical ------------- */

/* How the set-up measures the strength of a connection (hsp_amg_options.strength). */
typedef enum {
    HSP_STRENGTH_SYMMETRIC = 0, /* |a_ij| >= theta sqrt(|a_ii a_jj|): PyAMG's smoothed aggregation's */
    HSP_STRENGTH_CLASSICAL = 1  /* |a_ij| >= theta max_{k != i} |a_ik|: PyAMG's "classical" (norm
                                   "abs"), hypre's measure in absolute values */
} hsp_strength_measure;

/* How aggregation picks its roots (nodes whose strong neighbours are free become aggregates with
 * them; the nodes left join a neighbour's). */
typedef enum {
    HSP_AGGREGATION_AUTO = 0,     /* GREEDY, but PARALLEL where a device with memory of its own
                                     aggregates (hsp_amg_setup_resident) */
    HSP_AGGREGATION_GREEDY = 1,   /* PyAMG's standard aggregation: the nodes visited in their order.
                                     A device follows that order in rounds: hundreds on a grid */
    HSP_AGGREGATION_PARALLEL = 2  /* the nodes visited in the order of a hash of their numbers: the
                                     roots a device finds in a few rounds of "the largest within
                                     distance 2"; the CPU threads make the same aggregates (of a
                                     symmetric A) */
} hsp_aggregation;

/* How the set-up coarsens (hsp_amg_options.coarsening). */
typedef enum {
    HSP_COARSEN_AGGREGATION = 0, /* smoothed aggregation (PyAMG's smoothed_aggregation_solver): every
                                option below */
    HSP_COARSEN_CLASSICAL = 1 /* classical (Ruge-Stueben) AMG as hypre's BoomerAMG on one process:
                                strong couplings -a_ij >= theta max_k -a_ik (signs as a_ii's
                                opposite), Ruge and Stueben's first-pass C/F splitting, extended+i
                                interpolation truncated to 4 entries a row; for scalar problems
                                (B NULL, block 1) on the host (hsp_amg_setup, or a resident A of a
                                device that uses host arrays in place); strength, omega and
                                aggregation unused (doc/amg.md: "Classical AMG") */
} hsp_amg_coarsening;

typedef struct {
    hsp_strength_measure strength; /* default HSP_STRENGTH_CLASSICAL (doc/amg.md: "Strength of
                            connection" has the figures for it) */
    double theta;        /* strength's threshold.  A node with no strong connection joins no
                            aggregate, as in PyAMG's aggregation, and where none has one the next
                            level is one aggregate with P = 0.  Symmetric: level 0's stored
                            entries are its connections, explicit zeros too (at theta 0 strong,
                            as PyAMG takes them); on the coarse levels a product's exact zeros
                            are none (scipy's products that PyAMG uses drop them).  Classical: a
                            zero is never strong.  Nodes of several rows (block, nullspace)
                            compare, as PyAMG does for BSR, the Frobenius norms of their blocks
                            (symmetric) or their largest |entry| (classical).  Default 0.25 */
    double omega;        /* smoother weight: P = (I - omega / rho D^-1 A) T, rho the spectral
                            radius of D^-1 A as 15 Lanczos steps estimate it, on the CPU
                            threads or, for a resident hierarchy on a device with memory of
                            its own, there (at most Gershgorin's bound); default 4/3 */
    int max_levels;      /* at most this many levels, the finest included; default 10 */
    int32_t coarse_size; /* stop at a level of at most this many nodes (rows / its block, as
                            PyAMG's max_coarse); default 1000 */
    hsp_rap_order order; /* of the Galerkin products; default R*(A*P) */
    /* The near-nullspace candidates (PyAMG's B): nrows x nullspace values, row by row
     * (B[i * nullspace + j]), which T reproduces on each aggregate (a QR per aggregate, as
     * PyAMG's fit_candidates: T's columns orthonormal there, and the next level's B its R);
     * the next levels then have nodes of nullspace rows.  NULL (default): one candidate, the
     * constant vector.  Read during the setup only. */
    const double *B;
    int32_t nullspace;   /* the columns of B (1 to HSP_AMG_MAX_NULLSPACE); default 1 */
    int32_t block;       /* rows per node of level 0 (A's BSR block size in PyAMG); default 1 */
    hsp_aggregation aggregation; /* default HSP_AGGREGATION_AUTO (doc/amg.md: "Aggregation") */
    int float_levels;    /* 1, where A is double: the levels are made from a float copy of A's
                            values (over A's own pattern), so that P, R and every coarse A are
                            float and the set-up's products and the cycles read half the bytes
                            of values; level 0's A stays the caller's, and hsp_amg_solve's outer
                            iteration (CG, or the cycles as corrections to b - A x) and its
                            residuals run on it in double, so the tolerance means what it does
                            without.  Not for a resident hierarchy on a device with memory of its
                            own (HSP_ERR_UNSUPPORTED).  Default 0 (doc/amg.md: "Float levels") */
    hsp_amg_coarsening coarsening; /* default HSP_COARSEN_AGGREGATION */
} hsp_amg_options;

/* Fill o with the defaults above (o NULL: nothing). */
void hsp_amg_options_init(hsp_amg_options *o);

enum { HSP_AMG_MAX_LEVELS = 32, HSP_AMG_MAX_NULLSPACE = 16 };

/* One level: its operator, and (but on the coarsest) the prolongation P from
 * the next level's space and the restriction R = P^T to it (all owned by the
 * hierarchy but level 0's A); the figures of making them. */
typedef struct {
    const hsp_csr *A;    /* level 0: the caller's matrix */
    hsp_csr *P;
    const hsp_csr *R;
    /* a resident hierarchy's (hsp_amg_setup_resident) A, P and R, resident;
     * level 0's A is the caller's; NULL in a hierarchy of hsp_amg_setup */
    const hsp_resident *rA, *rP, *rR;
    int32_t naggregates; /* P has naggregates x nullspace columns (classical: its C points) */
    double ms_aggregate; /* strength of connection, aggregation, tentative T */
    double ms_smooth;    /* A*T and P = (I - w D^-1 A) T */
    double ms_transpose; /* R = P^T, on a CPU thread beside A*P in the order R*(A*P) */
    double ms_rap[2];    /* the two products of the next level's A = R*A*P */
    /* which side did what in the three products (A*T and R*A*P's two), their
     * hsp_stats summed (a resident re-setup runs every step on the device:
     * ms_device is all of it) */
    double ms_device;    /* stage 3 on the device (the cpu device's: its threads') */
    double ms_host;      /* the CPU threads on bins 0-1 meanwhile (beside a GPU device) */
    double ms_wait;      /* R*(A*P): the wait, after A*P, for R = P^T from its CPU thread */
} hsp_amg_level;

typedef struct hsp_amg_state hsp_amg_state;
typedef struct {
    int nlevels;
    hsp_amg_level level[HSP_AMG_MAX_LEVELS];
    double ms_total;
    char device[160];     /* the device that ran the finest level's products */
    hsp_amg_state *state; /* what hsp_amg_resetup reuses */
} hsp_amg;

/* Build the hierarchy of A (square, with no zero on its diagonal), the
 * products on the context's device; o NULL: the defaults above.  *out is
 * NULL after any failure. */
hsp_status hsp_amg_setup(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, hsp_amg **out);
/* The hierarchy of a resident A, every level's A, P and R resident (the
 * level's rA, rP, rR).  Where the device uses host arrays in place this is
 * hsp_amg_setup's hierarchy over A's own arrays, whose host matrices are
 * set too.  On a device with memory of its own every step runs there, and
 * the level's A, P and R stay NULL until hsp_amg_home.  The aggregates are
 * then made there too, by default in parallel (o->aggregation AUTO: the
 * aggregates hsp_amg_setup makes with HSP_AGGREGATION_PARALLEL); with
 * HSP_AGGREGATION_GREEDY in the CPU's order within chunks of 2^21 rows: a
 * level of at most that many rows gets the CPU's greedy aggregates, a larger
 * one slightly fewer (doc/library.md: "Matrices resident on the device").
 * There, with B, nullspace > 1 or block > 1 (o), each level's strength,
 * aggregates, T and next candidates are made on the host as hsp_amg_setup
 * makes them, from the level's A brought home (hsp_resident_host, level 0's
 * too), and T is placed on the device; rho, A*T, P, R and R*A*P are made
 * there, and a re-setup runs there alone.  o NULL: the defaults; *out is
 * NULL after any failure. */
hsp_status hsp_amg_setup_resident(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out);
/* Every level's A, P and R of a resident hierarchy on the host (brought home
 * from the device where it holds them; level 0's A by hsp_resident_host of
 * the caller's matrix). */
hsp_status hsp_amg_home(hsp_amg *amg);
/* The hierarchy's values anew for A of the same pattern and new values, the
 * aggregates and patterns kept: every product computes values only.  A must
 * stay valid while amg is used (it becomes level 0).  Another pattern is
 * refused before anything changes; a later error (a zero on a diagonal)
 * leaves the levels partly updated: set up again or free the hierarchy. */
hsp_status hsp_amg_resetup(hsp_context *ctx, hsp_amg *amg, const hsp_csr *A);
/* hsp_amg_resetup of a resident hierarchy for a resident A (which becomes
 * level 0's): values only, on the device where it made the levels; the
 * hierarchy's A must still be valid, to check the pattern against.  There
 * the levels' A, P and R are NULL afterwards until hsp_amg_home (what was
 * brought home before is stale). */
hsp_status hsp_amg_resetup_resident(hsp_context *ctx, hsp_amg *amg, const hsp_resident *A);
void hsp_amg_free(hsp_amg *amg);

/* ---- Algebraic multigrid solve ------------------------------------------------- */

/* The smoother of each level but a coarsest one solved directly. */
typedef enum {
    HSP_SMOOTHER_GAUSS_SEIDEL = 0, /* sweeps forward and backward (hsp_sweep says which when).  On
                                      several threads "hybrid", as hypre's: Gauss-Seidel within each
                                      part of rows (parts of about equal entries, one a thread; a level
                                      of fewer than 16384 entries is one part), Jacobi between the
                                      parts (their values from before the sweep); with one thread it is
                                      exactly PyAMG's Gauss-Seidel.  The result depends on
                                      the number of threads, never on their timing */
    HSP_SMOOTHER_JACOBI = 1,       /* x += w D^-1 (b - A x), w = jacobi_omega / rho(D^-1 A), as
                                      PyAMG's jacobi (withrho) */
    HSP_SMOOTHER_L1_JACOBI = 2,    /* x += D_l1^-1 (b - A x), d_i = sum_j |a_ij| (hypre's l1 scaling):
                                      convergent on any SPD A, no eigenvalue bound needed */
    HSP_SMOOTHER_CHEBYSHEV = 3,    /* a Chebyshev polynomial in D^-1 A of chebyshev_degree over
                                      [chebyshev_lower rho, 1.1 rho], rho = rho(D^-1 A) (PyAMG's is
                                      in A unscaled): degree products with A a sweep */
    HSP_SMOOTHER_AUTO = 4          /* GAUSS_SEIDEL on the CPU threads; CHEBYSHEV where a device
                                      holds the hierarchy (Gauss-Seidel's sweep is sequential) */
} hsp_smoother;

/* Gauss-Seidel's sweeps in a cycle: forward before the coarse correction and backward after,
 * as hypre's cycle (the default), or symmetric (forward then backward) before and after, as
 * PyAMG's default smoother: twice the sweeps.  Both make a symmetric cycle where pre == post.
 * Forward-backward was never the slower on the 2-core VM (2 threads, CG to 1e-8, the solve's
 * ms, symmetric / forward-backward): poisson2d5:1024 601 / 587, poisson2d9:1024 682 / 597,
 * poisson3d7:101 784 / 778, poisson3d27:101 1104 / 1092, aniso2d:1024 7127 / 5874,
 * elasticity2d:512 976 / 867 (doc/amg.md). */
typedef enum { HSP_SWEEP_SYMMETRIC = 0, HSP_SWEEP_FORWARD_BACKWARD = 1 } hsp_sweep;

/* The outer iteration: CG preconditioned by one cycle (the hierarchy's cycle is
 * symmetric: every smoother above is, and the post-smoother is the pre-smoother's
 * adjoint), or the cycles alone (stationary). */
typedef enum { HSP_ACCEL_CG = 0, HSP_ACCEL_NONE = 1 } hsp_accel;
/* V: each level visits the next once; W: twice (the coarsest level once, as PyAMG's). */
typedef enum { HSP_CYCLE_V = 0, HSP_CYCLE_W = 1 } hsp_cycle;

typedef struct {
    double tol;            /* stop at |b - A x| / |b| <= tol; default 1e-8 */
    int maxiter;           /* at most this many iterations (0: the initial residual only);
                              default 100 */
    hsp_accel accel;       /* default HSP_ACCEL_CG */
    hsp_cycle cycle;       /* default HSP_CYCLE_V */
    hsp_smoother smoother; /* default HSP_SMOOTHER_AUTO */
    int pre, post;         /* sweeps before and after the coarse correction, 0 to 100; default 1, 1
                              (a Gauss-Seidel sweep: one way, or both with HSP_SWEEP_SYMMETRIC) */
    double jacobi_omega;   /* HSP_SMOOTHER_JACOBI's weight over rho(D^-1 A), in (0, 2); default 1
                              (PyAMG's: 1 / rho, about 1/2 on a Poisson matrix) */
    int chebyshev_degree;  /* 1 to 16; default 2 (PyAMG's 3: doc/amg.md, "Chebyshev's interval") */
    double chebyshev_lower; /* the interval's lower end over rho, in (0, 1.1); default 0.2 (PyAMG's
                               1/30: fewer iterations at 0.2 at degrees 2 and 3, doc/amg.md) */
    int x0;                /* 1: x holds the initial guess; 0 (default): start from zero */
    hsp_sweep sweep;       /* Gauss-Seidel's sweeps; default HSP_SWEEP_FORWARD_BACKWARD (hypre's) */
} hsp_amg_solve_options;

/* Fill o with the defaults above (o NULL: nothing). */
void hsp_amg_solve_options_init(hsp_amg_solve_options *o);

typedef struct {
    int iterations;   /* outer iterations made */
    int converged;    /* 1 when the final relative residual is at most tol */
    double residual;  /* the final |b - A x| / |b|, recomputed from x (0 where b = 0) */
    double *history;  /* the caller's array of history_size doubles, or NULL: the relative
                         residual before the first iteration ([0]) and after each (CG's: its
                         recurrence's, but where it said converged: the recomputed one) */
    int history_size;
    int history_len;  /* entries written: iterations + 1, at most history_size */
    double ms_solve;  /* the solve's time, the hierarchy's first-solve preparation included */
    hsp_smoother smoother; /* the smoother it ran (AUTO resolved) */
    int on_device;    /* 1: its steps ran on the device that holds the hierarchy */
} hsp_amg_solve_info;

/* Solve A x = b, A level 0's, by the hierarchy.  b and x: level 0's nrows values
 * in A's precision (float or double).  A hierarchy of hsp_amg_setup (or a resident
 * one on a device that uses host arrays in place) is solved on the CPU threads:
 * the vectors of the cycles and of CG are double.  A resident hierarchy whose
 * levels a device with memory of its own made (hsp_amg_setup_resident) is solved
 * there: its vectors, of A's precision, stay on the device; what crosses is b and
 * x once, the coarsest level's vector each cycle (at most 5000 values) and a few
 * numbers an iteration (its dot products); Gauss-Seidel is refused there
 * (HSP_ERR_UNSUPPORTED).  Residual norms and CG's scalars are double.  o NULL: the
 * defaults; info NULL or filled (its history and history_size the caller's).
 * The first solve of a hierarchy (and the first after a re-setup) prepares what
 * every solve uses: each level's inverted diagonal, rho(D^-1 A) where the
 * smoother needs it (the setup's where it made one), parts of rows for the
 * threads and the coarsest level's dense factor (Cholesky, else LU with partial
 * pivoting; a coarsest level of more than 5000 rows gets pre + post smoother
 * sweeps instead of a direct solve).  Not converging within maxiter is no error
 * (HSP_OK, info->converged 0).  Errors (x untouched): an argument NULL, an
 * option out of range (the message names it), b or an initial x not finite, a
 * singular coarsest level, CG's breakdown (p.Ap or r.z not positive: A or the
 * cycle is not positive definite). */
hsp_status hsp_amg_solve(hsp_context *ctx, hsp_amg *amg, const void *b, void *x, const hsp_amg_solve_options *o,
                         hsp_amg_solve_info *info);
/* z = M r: one cycle of the options (their cycle, smoother, pre, post) from z = 0,
 * a symmetric positive definite preconditioner for the caller's Krylov method; r
 * and z as hsp_amg_solve's b and x (r need not be finite: NaN in, NaN out). */
hsp_status hsp_amg_apply(hsp_context *ctx, hsp_amg *amg, const void *r, void *z, const hsp_amg_solve_options *o);

/* ---- Tuning ---------------------------------------------------------------------- */

typedef struct {
    hsp_precision precision; /* of the products timed; default HSP_DOUBLE */
    int64_t rows;            /* rows of each generated matrix, about; 0 = 2^18 */
    int runs;                /* timed runs of each product (their median counts); 0 = 5 */
    const char *profile;     /* the file to write; NULL = the user's profile file
                                (hsp_options.profile), its folders made */
    int progress;            /* nonzero: a progress line on stderr (on a terminal) */
    const hsp_csr *const *matrices; /* where nmatrices > 0: these are squared instead of
                                the generated set (valid, square, of the precision above;
                                rows is then unused): a profile for the user's own kind */
    const char *const *names; /* their names in the profile's comment, or NULL */
    int nmatrices;
} hsp_tune_options;

/* Fill t with the defaults above (t NULL: nothing). */
void hsp_tune_options_init(hsp_tune_options *t);

/* The profile file that profile (as hsp_options.profile) names into path
 * (len bytes): the user's where profile is NULL.  0 where there is none
 * ("none", or neither HOME nor XDG_CONFIG_HOME set) or path is too short. */
int hsp_profile_path(const char *profile, char *path, size_t len);

/* Time every method ctx's device runs on each bin of short and medium rows,
 * and on its long rows, against the device's own choice: whole products,
 * one bin's method changed at a time, squaring a set of generated matrices
 * (doc/devices.md: Tuning) or t's matrices.  Write the methods that beat the
 * device's own by more than 5% in bins of 1024 rows or more, with the times,
 * as the profile's section for the device and precision (other sections of
 * the file are kept); a matrix whose own product fails (too large for the
 * device) is passed over, noted there.  ctx must have a GPU device (opencl,
 * hsa): the cpu device has no bins launched.
 * ctx's own methods are as before when it returns; it does not load the new
 * profile (a context made afterwards does). */
hsp_status hsp_tune(hsp_context *ctx, const hsp_tune_options *t);

/* ---- Sparse times dense (SpMM) ------------------------------------------------ */

/* A dense nrows x ncols matrix of floats or doubles (after precision) in the
 * caller's array: entry (i, j) at values[i * ld + j] in row-major order,
 * values[j * ld + i] in column-major order; ld at least ncols (row-major) or
 * nrows (column-major), and at least 1. */
typedef enum { HSP_ROW_MAJOR = 0, HSP_COL_MAJOR = 1 } hsp_order;
typedef struct {
    int32_t nrows, ncols;
    int64_t ld;
    hsp_order order;
    hsp_precision precision;
    void *values;
} hsp_dense;

/* Read a Matrix Market array file ("%%MatrixMarket matrix array real
 * general", or integer: the size line "M N", then M N values column by
 * column, one a line) into a new column-major *out of precision (ld the
 * rows, at least 1); errors name the line (values as hsp_mm_read takes them,
 * too few or too many of them).  hsp_dense_free
 * frees what it allocated. */
hsp_status hsp_mm_read_dense(const char *path, hsp_precision precision, hsp_dense *out);
/* Write M (either order) as such a file (a regular file whole or not at all;
 * "-": stdout). */
hsp_status hsp_mm_write_dense(const char *path, const hsp_dense *M);
/* Free the values hsp_mm_read_dense allocated (M->values NULL after; M may be NULL). */
void hsp_dense_free(hsp_dense *M);

/* Figures of one hsp_spmm. */
typedef struct {
    double ms;            /* the whole call */
    int64_t flops;        /* 2 nnz(A) ncols(B) */
    int threads;
    char format[8];       /* A's storage the product read: "csr" or "ellr" */
    char device[160];     /* what computed it, named as hsp_stats.device names it: the
                             device's description, "cpu" for the CPU threads (threads says
                             how many), "<description> and cpu" where both made columns */
    int blocks;           /* the blocks of C whose transfers overlapped the launches
                             (options.spmm_blocks); 1: moved whole; 0: nothing moved */
    int cpu_cols;         /* the columns of B the CPU threads made beside a device
                             (options.spmm_cpu_share), or all of them where no device did */
} hsp_spmm_stats;

/* C = alpha A B + beta C: A valid CSR, B and C dense (either order each),
 * all of one precision; B is ncols(A) x L and C nrows(A) x L, C's array
 * apart from B's and A's (an overlap is an error).  Where beta is 0, C's old
 * values are not read (a NaN there does not spread).  Runs on the
 * context's CPU threads, rows split by their entries (doc/library.md: Sparse times
 * dense).  There, column-major B of two columns or more is first copied
 * into a row-major workspace that the context keeps for the next call
 * (ncols(A) x L values, B's size; freed with the context): a failure to get
 * it is HSP_ERR_NOMEM, C untouched.  stats may be NULL. */
hsp_status hsp_spmm(hsp_context *ctx, double alpha, const hsp_csr *A, const hsp_dense *B, double beta,
                    hsp_dense *C, hsp_spmm_stats *stats);

/* A sparse matrix prepared for repeated products with dense matrices, in
 * sliced ELLPACK-R (FastSpMM's ELLPACK-R: Ortega et al. 2014, by slices of rows):
 * each slice of `height` rows padded to its longest row and stored slot by
 * slot (entry k of the slice's row r at k height + r, so that a slice's rows
 * are read together), with each row's length.  Where that padding would
 * pass HSP_ELLR_MAX_PADDING times A's entries, or where ctx's device is
 * the CPU threads (which read CSR faster: doc/library.md, Sparse times dense), it
 * keeps A's rows in CSR instead; on the CPU threads, where A's rows vary in
 * length and share few columns with their neighbours, also a copy of its
 * rows by length, read for C of 1 to 16 columns (copy_bytes below).  Built
 * once by hsp_ellr_from_csr from valid CSR (checked there, on ctx's
 * threads) into arrays of its own; hsp_spmm_ellr then reads it
 * without another check.  Where ctx's device has memory of its own, the
 * prepared A is copied there too (resident: a product on ctx moves none of
 * A), and must be freed before ctx. */
#define HSP_ELLR_MAX_PADDING 2.0
typedef struct hsp_ellr hsp_ellr;
typedef struct {
    int32_t nrows, ncols, width; /* width: the longest row's entries */
    int32_t height;              /* the rows of a slice (0 in CSR) */
    int64_t nnz;                 /* entries */
    int64_t slots;               /* ELLPACK-R's slots, padding included (0 in CSR) */
    char format[8];              /* what it holds: "ellr", or "csr" where the slots would pass
                                    HSP_ELLR_MAX_PADDING x nnz or ctx is on the CPU threads */
    int64_t bytes, csr_bytes;    /* its memory, and A's in CSR */
    int64_t copy_bytes;          /* the CSR copy kept beside it, else 0: prepared on a GPU
                                    device, for row-major B of several columns (beside
                                    ELLPACK-R: of three or more, or two of rows of 8 entries
                                    or fewer on average; beside CSR with long rows, its rows
                                    by length and their order); on the CPU threads, its rows
                                    by length and their order, for C of 1 to 16 columns
                                    (row-major past 1), where A's rows vary in length and
                                    share few columns with their neighbours (doc/library.md) */
} hsp_ellr_info;
hsp_status hsp_ellr_from_csr(hsp_context *ctx, const hsp_csr *A, hsp_ellr **out);
/* What E holds into *info (E NULL: info zeroed; info NULL: nothing). */
void hsp_ellr_describe(const hsp_ellr *E, hsp_ellr_info *info);
void hsp_ellr_free(hsp_ellr *E);
/* hsp_spmm with A prepared (stats' format says which form it read). */
hsp_status hsp_spmm_ellr(hsp_context *ctx, double alpha, const hsp_ellr *A, const hsp_dense *B, double beta,
                         hsp_dense *C, hsp_spmm_stats *stats);

/* A dense matrix resident on a context's device, for products that move
 * nothing (a solver iterating on the device): a copy of the caller's array
 * (its span: ld as given) where the device has memory of its own, else the
 * caller's array itself, which must then stay alive until it is freed.  It
 * belongs to its context: free it before the context. */
typedef struct hsp_dense_resident hsp_dense_resident;
/* Place X (checked as hsp_spmm checks its operands) on ctx's device. */
hsp_status hsp_place_dense(hsp_context *ctx, const hsp_dense *X, hsp_dense_resident **M);
/* M's values into X, which has M's shape, order, precision and ld (X may be
 * the array M was placed from; nothing copied where that is M's array). */
hsp_status hsp_dense_resident_home(const hsp_dense_resident *M, hsp_dense *X);
void hsp_dense_resident_free(hsp_dense_resident *M);
/* hsp_spmm_ellr of resident B and C and an A prepared on ctx: where the
 * device has memory of its own, nothing crosses to or from the host. */
hsp_status hsp_spmm_resident(hsp_context *ctx, double alpha, const hsp_ellr *A, const hsp_dense_resident *B,
                             double beta, hsp_dense_resident *C, hsp_spmm_stats *stats);

/* ---- Bitmap-blocked matrices (bmSPARSE: Zhang and Gruenwald 2018) ------------ */

/* A sparse matrix as its non-empty 8x8 blocks: block b covers rows
 * 8 (key[b] >> 32) .. +7 and columns 8 (key[b] & 0xffffffff) .. +7; bit
 * 8 r + c of bitmap[b] marks an entry at the block's row r, column c; the
 * entries' values follow one another in values, block by block and within a
 * block in bit order (row by row).  Valid means: keys strictly increasing
 * (block rows, then block columns), each block inside the matrix with no
 * bit past its last row or column and at least one bit set, and nnz the
 * bits set in all.  Where a value starts is a population count: there are
 * no indices per entry.  Its memory is 16 bytes a block and a value an
 * entry (hsp_bitmap_bytes) against CSR's 8 bytes a row and 4 and a value an
 * entry: less where its fill, nnz / nblocks, passes 16 / (4 + 8 nrows /
 * nnz) (4 entries a block; fewer where rows are short).  Only matrices
 * made by the library may be given to hsp_bitmap_free. */
typedef struct {
    int32_t nrows, ncols;
    int64_t nblocks, nnz;
    hsp_precision precision;
    uint64_t *key;    /* nblocks: block row << 32 | block column */
    uint64_t *bitmap; /* nblocks */
    void *values;     /* nnz floats or doubles, after precision */
} hsp_bitmap;

/* The blocks of valid CSR A, its entries (explicit zeros too) and values
 * exactly. */
hsp_status hsp_bitmap_from_csr(const hsp_csr *A, hsp_bitmap **out);
/* The CSR matrix of valid B: the same entries and values. */
hsp_status hsp_bitmap_to_csr(const hsp_bitmap *B, hsp_csr **out);
/* Check that B is valid; the message names the first bad block. */
hsp_status hsp_bitmap_check(const hsp_bitmap *B);
/* Bytes of B's arrays (keys, bitmaps, values); 0 for NULL. */
int64_t hsp_bitmap_bytes(const hsp_bitmap *B);
void hsp_bitmap_free(hsp_bitmap *B);
/* C = A*B of valid A and B of one precision, block by block on ctx's GPU
 * device (opencl, hsa) where it has one, else on its CPU threads: each block of C sums the products of A's blocks in its block
 * row with B's blocks in their block rows, its pattern the blocks'
 * pattern product (an entry that cancels to zero is kept, as hsp_multiply
 * keeps it); with ctx's options.pattern, C's pattern only, every value 1.
 * stats (may be NULL) gets size, ms_total, flops (0 for a pattern), nnz_c,
 * threads, device, bitmap (1) and blocks_c. */
hsp_status hsp_bitmap_multiply(hsp_context *ctx, const hsp_bitmap *A, const hsp_bitmap *B, hsp_bitmap **C,
                               hsp_stats *stats);

/* Names used by the CLI and in stats: "realloc", "heap", ... */
const char *hsp_grow_name(hsp_grow g);
const char *hsp_method_name(hsp_method m);
const char *hsp_group_name(int group);

#ifdef __cplusplus
}
#endif
#endif
