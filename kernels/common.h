/* common.h: what every kernel shares.  Built with -DHSP_DOUBLE for double
 * values (float otherwise).  Matrices are CSR with long row pointers and int
 * column indices, as in the library's hspgemm.h. */
#ifdef HSP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double VT;
#else
typedef float VT;
#endif

/* local_add(p, v): *p += v against the work-group's other work-items: one
 * shared-memory reduction under NVIDIA's compiler (PTX red.shared, sm_60 and
 * up), else by compare-and-swap, in double only where the device has 64-bit
 * atomics (HSP_LOCAL_ADD is defined where local_add exists; the kernels that
 * need it are left out elsewhere). */
#if !defined(HSP_DOUBLE) || defined(cl_khr_int64_base_atomics) || defined(__NV_CL_C_VERSION)
#define HSP_LOCAL_ADD 1
#ifdef __NV_CL_C_VERSION
void local_add(volatile __local VT *p, VT v)
{
#ifdef HSP_DOUBLE
    asm volatile("red.shared.add.f64 [%0], %1;" : : "l"((ulong)p), "d"(v) : "memory");
#else
    asm volatile("red.shared.add.f32 [%0], %1;" : : "l"((ulong)p), "f"(v) : "memory");
#endif
}
#else
#ifdef HSP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
void local_add(volatile __local VT *p, VT v)
{
#ifdef HSP_DOUBLE
    long seen, old = as_long(*p);
    do {
        seen = old;
        old = atom_cmpxchg((volatile __local long *)p, seen, as_long(as_double(seen) + v));
    } while (old != seen);
#else
    int seen, old = as_int(*p);
    do {
        seen = old;
        old = atomic_cmpxchg((volatile __local int *)p, seen, as_int(as_float(seen) + v));
    } while (old != seen);
#endif
}
#endif
#endif

#ifdef __NV_CL_C_VERSION
/* Warp primitives of NVIDIA GPUs by inline PTX (its OpenCL has no sub-group
 * functions): x from lane ^ s; x from lane - d (lanes below d their own); the warp's
 * lanes whose yes is set, a bit each; the warp's writes to memory seen by
 * all its lanes.  Every lane of the warp calls each. */
int shuffle_xor(int x, int s)
{
    int y;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "r"(x), "r"(s));
    return y;
}
int shuffle_up(int x, int d)
{
    int y;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(y) : "r"(x), "r"(d));
    return y;
}
uint ballot(int yes)
{
    uint m;
    asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "=r"(m) : "r"(yes));
    return m;
}
void warp_sync(void)
{
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}
/* shuffle_xor of a value. */
VT shuffle_xor_vt(VT x, int s)
{
#ifdef HSP_DOUBLE
    int2 h = as_int2(x);
    return as_double((int2)(shuffle_xor(h.x, s), shuffle_xor(h.y, s)));
#else
    return as_float(shuffle_xor(as_int(x), s));
#endif
}
#endif

/* The state of a long row between launches of the merge kernel; the host
 * keeps the same layout (src/device/opencl/opencl.h).  The row owns pool entries
 * [off, off + 2 hcap) (two halves); its result so far, len entries, lies at
 * roff, and holds its first `next` products.  A row that stopped because its
 * next merge needs more than hcap entries sets need; the host grows it and
 * launches it again, to go on from product next. */
typedef struct {
    long off, hcap, roff, len, next, need;
} hsp_longrow;

/* Inclusive sum over the work-group of each item's x, in scan (one T per
 * item); returns the exclusive sum for this item, and the total in *total.
 * group_scan for int, group_scan_long for long. */
#define GROUP_SCAN(NAME, T)                                          \
    T NAME(T x, __local T *scan, T *total)                           \
    {                                                                \
        int lid = get_local_id(0), n = get_local_size(0);            \
        scan[lid] = x;                                               \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        for (int d = 1; d < n; d <<= 1) {                            \
            T add = lid >= d ? scan[lid - d] : 0;                    \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
            scan[lid] += add;                                        \
            barrier(CLK_LOCAL_MEM_FENCE);                            \
        }                                                            \
        *total = scan[n - 1];                                        \
        T excl = scan[lid] - x;                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                \
        return excl;                                                 \
    }
GROUP_SCAN(group_scan, int)
GROUP_SCAN(group_scan_long, long)

/* The arguments every row kernel takes: A and B, the rows to compute (entries
 * first .. first + nrows - 1 of rows), each row's C~ offset (slot), C~, and
 * the count of entries of each row of C (cnt, indexed by row). */
#define HSP_ROW_ARGS                                                                      \
    __global const long *arp, __global const int *acol, __global const VT *aval,        \
    __global const long *brp, __global const int *bcol, __global const VT *bval,        \
    __global const int *rows, long first, long nrows, __global const long *slot,        \
    __global int *tcol, __global VT *tval, __global long *cnt
