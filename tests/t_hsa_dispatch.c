/* t_hsa_dispatch.c: the hsa device's runtime, memory, loading and dispatch
 * code, run against fake_hsa.c (a stand-in for ROCr 5.2.3) since no AMD GPU
 * is here: hsa_init paired with hsa_shut_down and the fault handler
 * registered once per runtime, from many threads; pools (coarse-grained for
 * job arrays, fine-grained kernel arguments), every kernel of both code
 * objects looked up by its descriptor symbol and checked; packets and kernel
 * arguments as the layouts say, fences at system scope only where host and
 * GPU hand data over, barrier bits between dependent launches only,
 * kernel-argument blocks never reused while in flight, freed arrays kept as
 * spares for the next, a full queue waited
 * on; a GPU memory fault, a queue error and a deadline each turned into an
 * error that loses the device, which then keeps its memory; the queue
 * destroyed before what it uses; and the GPU arrays over this memory, host
 * ranges registered coarse-grained once each. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/hsa/aql.h"
#include "fake_hsa.h"
#include "device/hsa/hsa_gpu.h"
#include "core/internal.h"
#include "tap.h"

static gpu g;
static hsa_state *st;

/* The first code object of each precision for one target. */
static const hsp_code_object *object(int dbl)
{
    for (int k = 0; k < hsp_ncode_objects; k++)
        if (hsp_code_objects[k].dbl == dbl && !strcmp(hsp_code_objects[k].target, hsp_code_objects[0].target))
            return &hsp_code_objects[k];
    return NULL;
}

/* A new state in st for the fake's APU in memory mode, as the device opens
 * one (device_hsa.c): the runtime held, faults watched, pools, both
 * executables, the queue.  The fake's fault, if one is set, stays set. */
static hsp_status open_state(hsa_mem_mode mode)
{
    static const gpu_ops ops = {hsa_alloc, hsa_free, NULL, NULL, NULL, hsa_map_host, hsa_unmap_host,
                                NULL, NULL, hsa_finish, NULL, NULL, NULL};
    long fail_at = fake_hsa.fail_at;
    fake_hsa_reset();
    fake_hsa.fail_at = fail_at;
    st = calloc(1, sizeof *st);
    memset(&g, 0, sizeof g);
    g.ops = &ops, g.backend = st, g.timeout_s = 10, g.host_arrays = mode != HSA_MEM_POOL;
    st->agent.handle = FAKE_GPU_AGENT, st->cpu.handle = FAKE_CPU_AGENT, st->shared = 1;
    st->xnack_hint = hsa_xnack_hint("gfx1035");
    st->max_group = 1024, st->group_mem = 64 << 10, st->mode = mode;
    hsa_status_t e = hsa_runtime_hold();
    st->held = e == HSA_STATUS_SUCCESS;
    hsp_status s = st->held ? hsa_runtime_watch(st) : hsp_fail(HSP_ERR_DEVICE, "HSA: hsa_init: %s", hsa_error(e));
    st->watched = s == HSP_OK;
    if (s == HSP_OK) s = hsa_find_pools(st);
    for (int d = 0; d < 2 && s == HSP_OK; d++) {
        fake_hsa.co = object(d);
        s = hsa_load(st, object(d), d);
    }
    return s == HSP_OK ? hsa_queue_open(st) : s;
}

/* ---- the runtime ------------------------------------------------------------------ */

static void *hold_and_release(void *arg)
{
    for (int k = 0; k < 2000; k++) {
        hsa_runtime_hold();
        hsa_runtime_release();
    }
    return arg;
}

static void test_runtime(void)
{
    int ok = hsa_runtime_hold() == HSA_STATUS_SUCCESS && hsa_runtime_hold() == HSA_STATUS_SUCCESS;
    tap_ok(ok && fake_hsa.inits == 2 && fake_hsa.handlers == 1,
           "runtime: two holds, two hsa_init, one fault handler (%d, %d)", fake_hsa.inits, fake_hsa.handlers);
    hsa_runtime_release(), hsa_runtime_release();
    tap_ok(fake_hsa.inits == 0 && fake_hsa.handlers == 0, "runtime: each hold released by an hsa_shut_down");
    hsa_runtime_hold();
    tap_ok(fake_hsa.handlers == 1, "runtime: a runtime started again gets the handler again");
    hsa_runtime_release();
    pthread_t t[4];
    for (int k = 0; k < 4; k++) pthread_create(&t[k], NULL, hold_and_release, NULL);
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    tap_ok(fake_hsa.inits == 0 && fake_hsa.handlers == 0,
           "runtime: 4 threads holding and releasing at once leave it shut down (%d, %d)", fake_hsa.inits,
           fake_hsa.handlers);
}

/* ---- opening ---------------------------------------------------------------------- */

static void test_open(void)
{
    int opened = open_state(HSA_MEM_POOL) == HSP_OK;
    tap_ok(opened && fake_hsa.inits == 1 && fake_hsa.handlers == 1, "open: runtime held, fault handler registered");
    tap_ok(st->kernarg_pool.handle == FAKE_POOL_KERNARG && st->arrays.handle == FAKE_POOL_GPU_COARSE &&
               st->arrays_coarse && st->arrays_local,
           "pools (APU): job arrays from the GPU's own coarse-grained pool, kernel arguments fine-grained");
    gpu_array x;
    tap_ok(hsa_alloc(&g, &x, 4096) == HSP_OK && fake_hsa.last_pool == FAKE_POOL_GPU_COARSE &&
               fake_hsa.last_access_agents == 2,
           "pools (APU): an array allowed to the GPU and the CPU");
    hsa_free(&g, &x);
    st->shared = 0;
    hsa_find_pools(st);
    tap_ok(st->arrays.handle == FAKE_POOL_FINE && !st->arrays_coarse,
           "pools: no coarse-grained pool the host reaches: the CPU's fine-grained one");
    fake_hsa.dgpu = 1;
    hsa_find_pools(st);
    tap_ok(st->arrays.handle == FAKE_POOL_CPU_COARSE && st->arrays_coarse && !st->arrays_local,
           "pools (dGPU host): the CPU agent's coarse-grained pool");
    fake_hsa.dgpu = 0, fake_hsa.no_kernarg_pool = 1;
    tap_ok(hsa_find_pools(st) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "kernel-argument"),
           "pools: a CPU agent without a kernel-argument pool is refused: %s", hsp_errmsg());
    fake_hsa.no_kernarg_pool = 0, st->shared = 1;
    hsa_find_pools(st);
    hsa_unload(st);
    fake_hsa.co = object(0), fake_hsa.misreport = "hsp_esc";
    tap_ok(hsa_load(st, object(0), 0) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "hsp_esc"),
           "load: a kernel whose argument size disagrees with its layout is refused: %s", hsp_errmsg());
    hsa_unload(st);
    fake_hsa.misreport = NULL, fake_hsa.symbols = 0;
    int ok = hsa_load(st, object(0), 0) == HSP_OK;
    fake_hsa.co = object(1);
    ok = ok && hsa_load(st, object(1), 1) == HSP_OK;
    int kernels = 0;
    for (int j = 0; j < GK_COUNT; j++) kernels += gpu_kernel_exists(j);
    tap_ok(ok && fake_hsa.symbols == 2 * kernels && fake_hsa.bad_symbol_names == 0,
           "load: both precisions, %d kernels looked up by their .kd symbols", fake_hsa.symbols);
    int complete = 1;
    for (int d = 0; d < 2; d++)
        for (int j = 0; j < GK_COUNT; j++)
            complete &= gpu_kernel_exists(j) == (st->kernel[d][j].layout != NULL && st->kernel[d][j].object != 0);
    tap_ok(complete, "load: every kernel has a descriptor and a layout");
    tap_ok(st->queue->size == 256 && st->slot % 64 == 0 && st->slot >= st->kernel[1][GK_ESC].layout->kernarg_size,
           "queue: 256 packets, kernel-argument blocks of %u bytes", st->slot);
}

/* ---- dispatch --------------------------------------------------------------------- */

/* Explicit argument j of a layout. */
static const hsp_karg *explicit_arg(const hsp_kernel_info *k, int j)
{
    for (int a = 0; a < k->nargs; a++)
        if (!hsp_karg_hidden(k->arg[a].kind) && j-- == 0) return &k->arg[a];
    return NULL;
}

/* Launch the bound kernel with m = value over groups x size. */
static hsp_status launch_bound(int64_t m, size_t groups, size_t size)
{
    static gpu_array arrays[4] = {{.ptr = (void *)0x1000}, {.ptr = (void *)0x2000}, {.ptr = (void *)0x3000},
                                  {.ptr = (void *)0x4000}};
    gpu_arg a[5] = {{GPU_ARG_VALUE, NULL, &m, sizeof m}};
    for (int j = 0; j < 4; j++) a[j + 1] = (gpu_arg){GPU_ARG_ARRAY, &arrays[j], NULL, 0};
    return hsa_launch(&g, 0, GK_BOUND, a, 5, groups, size);
}

/* m as the bound kernel's logged arguments give it. */
static int64_t logged_m(int n)
{
    int64_t m;
    memcpy(&m, fake_hsa.kernarg[n] + explicit_arg(st->kernel[0][GK_BOUND].layout, 0)->offset, sizeof m);
    return m;
}

/* The packet type of logged packet n. */
static int type(int n)
{
    return fake_hsa.header[n] & 0xff;
}

/* The log indices of the dispatch packets, up to max into at; their number. */
static int dispatches(int *at, int max)
{
    int count = 0;
    for (int n = 0; n < fake_hsa.nlog && count < max; n++)
        if (type(n) == HSA_PACKET_TYPE_KERNEL_DISPATCH) at[count++] = n;
    return count;
}

/* The header a dispatch with barrier bit and acquire scope has. */
static uint16_t dispatch_header(int barrier, hsa_fence_scope_t acquire)
{
    return hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier, acquire, HSA_FENCE_SCOPE_AGENT);
}

static void test_dispatch(void)
{
    const hsp_kernel_info *k = st->kernel[0][GK_BOUND].layout;
    fake_hsa.nlog = 0, g.host_wrote = 1;
    hsp_status s = launch_bound(1234, 5, 256);
    tap_ok(s == HSP_OK && fake_hsa_pending() == 1 && fake_hsa.doorbells == 1,
           "dispatch: one packet queued, doorbell rung");
    s = launch_bound(99, 1, 64);
    tap_ok(s == HSP_OK && hsa_finish(&g) == HSP_OK && fake_hsa.nlog == 3 && *(int64_t *)(uintptr_t)st->done.handle == 0,
           "dispatch: finish waits until the completion signal is back at 0");
    hsa_kernel_dispatch_packet_t *p = &fake_hsa.log[0];
    tap_ok(fake_hsa.header[0] == dispatch_header(1, HSA_FENCE_SCOPE_SYSTEM) && p->setup == 1 &&
               p->workgroup_size_x == 256 && p->grid_size_x == 1280 && p->grid_size_y == 1 &&
               p->kernel_object == st->kernel[0][GK_BOUND].object && p->group_segment_size == k->group_fixed &&
               p->private_segment_size == k->private_fixed && p->completion_signal.handle == st->done.handle,
           "dispatch: header 0x%04x (system acquire after the host wrote), 5 x 256, descriptor, segments, signal",
           fake_hsa.header[0]);
    tap_ok(fake_hsa.header[1] == dispatch_header(1, HSA_FENCE_SCOPE_AGENT),
           "fences: the next dispatch acquires at agent scope, and every dispatch releases at agent scope (0x%04x)",
           fake_hsa.header[1]);
    hsa_barrier_and_packet_t *b = (hsa_barrier_and_packet_t *)&fake_hsa.log[2];
    tap_ok(fake_hsa.header[2] == hsp_aql_header(HSA_PACKET_TYPE_BARRIER_AND, 1, HSA_FENCE_SCOPE_NONE,
                                                HSA_FENCE_SCOPE_SYSTEM) &&
               b->completion_signal.handle == st->done.handle && !b->dep_signal[0].handle,
           "fences: finish ends with a barrier-AND packet releasing at system scope (0x%04x)", fake_hsa.header[2]);
    int args_ok = logged_m(0) == 1234;
    for (int j = 1; j < 5; j++) {
        uint64_t ptr;
        memcpy(&ptr, fake_hsa.kernarg[0] + explicit_arg(k, j)->offset, sizeof ptr);
        args_ok &= ptr == 0x1000u * (uint64_t)j;
    }
    for (int a = 0; a < k->nargs; a++)
        for (uint32_t c = 0; c < k->arg[a].size && hsp_karg_hidden(k->arg[a].kind); c++)
            args_ok &= fake_hsa.kernarg[0][k->arg[a].offset + c] == 0;
    tap_ok(args_ok, "dispatch: m and the four array addresses at their offsets, hidden arguments zero");
    fake_hsa.nlog = 0;
    tap_ok(hsa_finish(&g) == HSP_OK && fake_hsa.nlog == 0, "fences: a finish with nothing launched queues nothing");
}

/* Stage 3's bins may overlap each other, nothing else. */
static void test_barriers(void)
{
    static gpu_array arr = {.ptr = (void *)0x1000};
    int64_t first = 0, nrows = 10;
    gpu_arg a[13];
    for (int j = 0; j < 13; j++) a[j] = (gpu_arg){GPU_ARG_ARRAY, &arr, NULL, 0};
    a[7] = (gpu_arg){GPU_ARG_VALUE, NULL, &first, 8}, a[8] = (gpu_arg){GPU_ARG_VALUE, NULL, &nrows, 8};
    fake_hsa.nlog = 0;
    g.overlap = 1;
    int ok = 1;
    for (int u = 2; u <= 4; u++) ok &= hsa_launch(&g, 0, GK_HEAP + u, a, 13, 1, 64) == HSP_OK;
    g.overlap = 0;
    ok &= launch_bound(1, 1, 64) == HSP_OK && launch_bound(2, 1, 64) == HSP_OK && hsa_finish(&g) == HSP_OK;
    int barriers[5];
    for (int n = 0; n < 5; n++) barriers[n] = fake_hsa.header[n] >> HSA_PACKET_HEADER_BARRIER & 1;
    tap_ok(ok && fake_hsa.nlog == 6 && barriers[0] && !barriers[1] && !barriers[2] && barriers[3] && barriers[4],
           "barriers: bins 2, 3, 4 overlap after the first; the launches after them wait (%d%d%d%d%d)", barriers[0],
           barriers[1], barriers[2], barriers[3], barriers[4]);
}

/* ESC: local blocks after the static group segment; too much is refused. */
static void test_local(void)
{
    static gpu_array arr = {.ptr = (void *)0x1000};
    const hsp_kernel_info *k = st->kernel[1][GK_ESC].layout;
    int64_t first = 0, nrows = 3;
    int32_t n2 = 512, islong = 0, keyed = 1;
    gpu_arg a[23];
    for (int j = 0; j < 23; j++) a[j] = (gpu_arg){GPU_ARG_ARRAY, &arr, NULL, 0};
    a[7] = (gpu_arg){GPU_ARG_VALUE, NULL, &first, 8}, a[8] = (gpu_arg){GPU_ARG_VALUE, NULL, &nrows, 8};
    a[13] = (gpu_arg){GPU_ARG_VALUE, NULL, &n2, 4}, a[17] = (gpu_arg){GPU_ARG_VALUE, NULL, &islong, 4};
    a[14] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 512 * 4}, a[15] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 512 * 8};
    a[16] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 256 * 4}, a[21] = (gpu_arg){GPU_ARG_VALUE, NULL, &keyed, 4};
    fake_hsa.nlog = 0;
    int ok = hsa_launch(&g, 1, GK_ESC, a, 22, 3, 256) == HSP_OK && hsa_finish(&g) == HSP_OK;
    uint32_t second;
    memcpy(&second, fake_hsa.kernarg[0] + explicit_arg(k, 15)->offset, sizeof second);
    tap_ok(ok && fake_hsa.log[0].group_segment_size == k->group_fixed + 512 * 12 + 256 * 4 &&
               second == k->group_fixed + 512 * 4,
           "local: group segment %u = static %u + three blocks; the second block at %u",
           fake_hsa.log[0].group_segment_size, k->group_fixed, second);
    st->group_mem = 4096;
    tap_ok(hsa_launch(&g, 1, GK_ESC, a, 22, 3, 256) == HSP_ERR_UNSUPPORTED && strstr(hsp_errmsg(), "group memory"),
           "local: more group memory than the GPU has is refused: %s", hsp_errmsg());
    st->group_mem = 64 << 10;
    int logged = fake_hsa.nlog;
    tap_ok(hsa_launch(&g, 1, GK_ESC, a, 21, 3, 256) == HSP_ERR_ARG && strstr(hsp_errmsg(), "hsp_esc takes 22") &&
               fake_hsa.nlog == logged,
           "arguments: one too few refused by the kernel table, nothing dispatched: %s", hsp_errmsg());
    tap_ok(hsa_launch(&g, 1, GK_ESC, a, 23, 3, 256) == HSP_ERR_ARG && strstr(hsp_errmsg(), "gave 23") &&
               fake_hsa.nlog == logged,
           "arguments: one too many refused, nothing dispatched: %s", hsp_errmsg());
    tap_ok(launch_bound(1, 1u << 31, 256) == HSP_ERR_UNSUPPORTED, "grid: 2^31 groups of 256 refused: %s",
           hsp_errmsg());
    hsa_finish(&g);
}

/* The bound kernel's m of each logged dispatch is its launch number, count of them. */
static int launches_in_order(int count)
{
    int at[FAKE_LOG_MAX], n = dispatches(at, FAKE_LOG_MAX), right = n == count;
    for (int j = 0; j < n; j++) right &= logged_m(at[j]) == j;
    return right;
}

/* Launches past the kernel-argument blocks and past the queue's size. */
static void test_many(void)
{
    fake_hsa.nlog = 0;
    int ok = 1;
    for (int n = 0; n < 300; n++) ok &= launch_bound(n, 1, 64) == HSP_OK;
    int pending = fake_hsa_pending();
    ok &= hsa_finish(&g) == HSP_OK;
    tap_ok(ok && launches_in_order(300) && pending == 300 - 256,
           "300 launches: the 257th waited for the first 256; all arguments intact");
    hsa_queue_close(st);
    fake_hsa.queue_max = 16;
    ok = hsa_queue_open(st) == HSP_OK && st->queue->size == 16;
    fake_hsa.nlog = 0;
    for (int n = 0; n < 40; n++) ok &= launch_bound(n, 1, 64) == HSP_OK && fake_hsa_pending() <= 16;
    ok &= hsa_finish(&g) == HSP_OK;
    tap_ok(ok && launches_in_order(40), "a queue of 16: 40 launches wait for room, in order, arguments intact");
}

/* ---- memory ----------------------------------------------------------------------- */

/* Was the last registration coarse-grained and in place for the agent? */
static int registered_coarse(void)
{
    const hsa_amd_svm_attribute_pair_t *a = fake_hsa.svm_attrs;
    return fake_hsa.svm_nattrs == 2 && a[0].attribute == HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG &&
           a[0].value == HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED &&
           a[1].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE && a[1].value == st->agent.handle;
}

/* What host arrays in place take, per processor. */
static void test_xnack_hints(void)
{
    tap_ok(strstr(hsa_xnack_hint("gfx1035"), "no XNACK") && strstr(hsa_xnack_hint("gfx1033"), "hsa:N,svm") &&
               strstr(hsa_xnack_hint("gfx1036"), "no XNACK") && strstr(hsa_xnack_hint("gfx1103"), "no XNACK"),
           "xnack: RDNA2 and RDNA3 APUs have none; HSA_XNACK=1 does nothing there");
    tap_ok(strstr(hsa_xnack_hint("gfx90c"), "HSA_XNACK=1") && strstr(hsa_xnack_hint("gfx90c"), "amdgpu.noretry=0"),
           "xnack: gfx90c needs HSA_XNACK=1 and amdgpu.noretry=0");
    tap_ok(strstr(hsa_xnack_hint("gfx1010"), "HSA_XNACK=1") && !strstr(hsa_xnack_hint("gfx1010"), "noretry"),
           "xnack: other GPUs: HSA_XNACK=1 where supported");
}

/* The GPU arrays of gpu_mem.c over this memory. */
static void test_memory(void)
{
    tap_ok(hsa_choose_memory(1, 1, HSA_WANT_DEFAULT) == HSA_MEM_SVM &&
               hsa_choose_memory(1, 0, HSA_WANT_DEFAULT) == HSA_MEM_POOL &&
               hsa_choose_memory(1, 0, HSA_WANT_SVM) == HSA_MEM_SVM_MAPPED &&
               hsa_choose_memory(0, 0, HSA_WANT_SVM) == HSA_MEM_POOL &&
               hsa_choose_memory(1, 1, HSA_WANT_POOL) == HSA_MEM_POOL,
           "memory: svm by default with XNACK; without it a pool unless svm is asked for; nosvm");
    double host[1000];
    int64_t copied = 0;
    int moved = 0;
    for (int j = 0; j < 1000; j++) host[j] = j;
    g.host_arrays = 0, st->mode = HSA_MEM_POOL, g.host_wrote = 0;
    int ok = gpu_upload(&g, GA_AVAL, host, sizeof host) == HSP_OK && g.a[GA_AVAL].ptr != host &&
             !memcmp(g.a[GA_AVAL].ptr, host, sizeof host) && g.host_wrote;
    ok &= gpu_grow(&g, GA_AVAL, 2 * sizeof host, sizeof host, 1, &copied, &moved) == HSP_OK &&
          copied == sizeof host && !memcmp(g.a[GA_AVAL].ptr, host, sizeof host);
    tap_ok(ok && fake_hsa.svm_calls == 0, "pool: arrays copied in (the host wrote); growth copies %lld bytes",
           (long long)copied);
    gpu_release(&g, GA_AVAL);
    gpu_spares_free(&g); /* the grown array's old block and the released one */
    g.host_arrays = 1, st->mode = HSA_MEM_SVM_MAPPED;
    ok = gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && g.a[GA_BVAL].ptr == host;
    tap_ok(ok && fake_hsa.svm_calls == 1 && fake_hsa.svm_ptr == host && fake_hsa.svm_bytes == sizeof host &&
               registered_coarse(),
           "svm mapped: a host array is used in place, registered coarse-grained and accessible to the agent");
    ok = gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && gpu_upload(&g, GA_AVAL, host + 10, 80) == HSP_OK;
    tap_ok(ok && fake_hsa.svm_calls == 1,
           "registration: the same range again, and a part of it, are not registered again");
    hsa_unmap_host(&g, NULL);
    ok = gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK;
    tap_ok(ok && fake_hsa.svm_calls == 2, "registration: a product's ranges are forgotten before the next product");
    copied = 0;
    ok = gpu_reserve(&g, GA_PCOL, 4096) == HSP_OK && fake_hsa.svm_calls == 3;
    hsa_unmap_host(&g, NULL);
    ok &= gpu_upload(&g, GA_AVAL, g.a[GA_PCOL].ptr, 100) == HSP_OK && fake_hsa.svm_calls == 3;
    tap_ok(ok, "registration: the device's own arrays stay registered from product to product");
    ok = gpu_grow(&g, GA_PCOL, 1 << 20, 4096, 1, &copied, &moved) == HSP_OK && copied == 0;
    tap_ok(ok && fake_hsa.svm_calls == 4 && fake_hsa.svm_ptr == g.a[GA_PCOL].ptr && fake_hsa.svm_bytes == 1 << 20 &&
               st->nranges == 1,
           "svm mapped: the pool grows by realloc (moved: %d), the new range registered in place of the old",
           moved);
    ok = gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && st->nranges == 2;
    gpu_release(&g, GA_PCOL), gpu_release(&g, GA_BVAL), gpu_release(&g, GA_AVAL);
    tap_ok(ok && st->nranges == 1 && !st->ranges[0].owned,
           "registration: a freed array of the device's own is forgotten, a product's range kept (%d left)",
           st->nranges);
    hsa_unmap_host(&g, NULL);
    fake_hsa.svm_fails = 1;
    tap_ok(gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "pool") &&
               strstr(hsp_errmsg(), "no XNACK") && !g.a[GA_BVAL].ptr,
           "svm mapped: a range the runtime will not register is an error that says what to do: %s", hsp_errmsg());
    fake_hsa.svm_fails = 0;
    st->mode = HSA_MEM_SVM;
    int calls = fake_hsa.svm_calls;
    tap_ok(gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && fake_hsa.svm_calls == calls + 1 &&
               registered_coarse(),
           "svm: host memory is accessible by default, and registered coarse-grained once");
    gpu_release(&g, GA_BVAL);
    g.host_arrays = 0, st->mode = HSA_MEM_POOL;
}

/* ---- closing, faults, deadlines --------------------------------------------------- */

static void test_close(void)
{
    int inits = fake_hsa.inits;
    launch_bound(1, 1, 64);
    hsa_finish(&g);
    hsa_close(&g);
    tap_ok(fake_hsa.queues == 0 && fake_hsa.freed_under_queue == 0 && fake_hsa.inits == inits - 1,
           "close: the queue destroyed before its signal and kernel arguments; the runtime released");
}

/* Close a lost device: it keeps its queue, memory and runtime hold.  Then,
 * since the GPU is a fake that runs nothing, give all of it back here. */
static void test_lost_close(const char *what)
{
    int frees = fake_hsa.pool_frees, inits = fake_hsa.inits;
    hsa_close(&g);
    tap_ok(fake_hsa.queues == 1 && fake_hsa.pool_frees == frees && fake_hsa.inits == inits,
           "%s: closing the lost device destroys and frees nothing, and keeps the runtime", what);
    g.lost = 0;
    hsa_close(&g);
}

static void test_fault(void)
{
    open_state(HSA_MEM_POOL);
    int ok = launch_bound(1, 1, 64) == HSP_OK;
    int claimed = fake_hsa_memory_fault(FAKE_GPU_AGENT, 0xdead000, HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT);
    tap_ok(ok && claimed && fake_hsa.aborts == 0, "fault: a memory fault on our agent is claimed (no abort)");
    double t0 = hsp_now_ms();
    hsp_status s = hsa_finish(&g);
    tap_ok(s == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "0xdead000") && strstr(hsp_errmsg(), "page not present") &&
               g.lost && hsp_now_ms() - t0 < 1000,
           "fault: finish stops at once with an error naming the address: %s", hsp_errmsg());
    tap_ok(launch_bound(2, 1, 64) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "unusable") && fake_hsa.nlog == 0,
           "fault: the lost device launches nothing more: %s", hsp_errmsg());
    test_lost_close("fault");
    tap_ok(!fake_hsa_memory_fault(FAKE_GPU_AGENT, 0x1000, 0) && fake_hsa.aborts == 1,
           "fault: once the device is closed, faults on its agent are left to the runtime");
    tap_ok(!fake_hsa_memory_fault(FAKE_GPU_AGENT + 5, 0x1000, 0) && fake_hsa.aborts == 2,
           "fault: a fault on another agent is left to the runtime");
}

static void test_queue_error(void)
{
    open_state(HSA_MEM_POOL);
    launch_bound(1, 1, 64);
    fake_hsa.hang = 1;
    fake_hsa_fail_queue(HSA_STATUS_ERROR_EXCEPTION);
    tap_ok(hsa_finish(&g) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "faulted") && g.lost,
           "queue error: reported, and the device is lost: %s", hsp_errmsg());
    test_lost_close("queue error");
}

static void test_deadline(void)
{
    open_state(HSA_MEM_POOL);
    g.timeout_s = 0.05, fake_hsa.hang = 1;
    launch_bound(1, 1, 64);
    double t0 = hsp_now_ms();
    hsp_status s = hsa_finish(&g);
    double waited = hsp_now_ms() - t0;
    tap_ok(s == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "0.05 s") && strstr(hsp_errmsg(), "HSPGEMM_DEVICE_TIMEOUT") &&
               g.lost && waited >= 50 && waited < 2000,
           "deadline: a kernel that never ends fails the wait after %.0f ms: %s", waited, hsp_errmsg());
    test_lost_close("deadline");
    open_state(HSA_MEM_POOL);
    hsa_queue_close(st);
    fake_hsa.queue_max = 16;
    hsa_queue_open(st);
    g.timeout_s = 0.05, fake_hsa.hang = 1;
    s = HSP_OK;
    for (int n = 0; n < 17 && s == HSP_OK; n++) s = launch_bound(n, 1, 64);
    tap_ok(s == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "room in the queue") && g.lost,
           "deadline: a full queue that never drains fails the launch: %s", hsp_errmsg());
    test_lost_close("deadline in a full queue");
}

/* ---- faults: each call of the runtime that can fail, failed in turn ------------------- */

enum { WALK_N = 512 };
static double walk_a[WALK_N], walk_b[WALK_N], walk_copy[2][WALK_N];

/* A product as the back end sees it: the operands in (copied to the pool,
 * or registered in place), room for a result, grown as a long row's pool
 * grows, three launches, the wait, and a result back (the stand-in runs no
 * kernel: A's values come back); the product's host ranges are forgotten at
 * its end. */
static hsp_status walk_product(double *out)
{
    int64_t m = WALK_N, copied = 0;
    int moved;
    hsp_status s = gpu_upload(&g, GA_AVAL, walk_a, sizeof walk_a);
    if (s == HSP_OK) s = gpu_upload(&g, GA_BVAL, walk_b, sizeof walk_b);
    if (s == HSP_OK) s = gpu_reserve(&g, GA_UB, sizeof walk_a);
    if (s == HSP_OK) s = gpu_grow(&g, GA_UB, 64 * sizeof walk_a, sizeof walk_a, 1, &copied, &moved);
    gpu_arg a[5] = {gpu_val(&m, sizeof m), gpu_arr(&g, GA_AVAL), gpu_arr(&g, GA_BVAL), gpu_arr(&g, GA_UB),
                    gpu_arr(&g, GA_UB)};
    for (int k = 0; k < 3 && s == HSP_OK; k++) s = hsa_launch(&g, 0, GK_BOUND, a, 5, 2, 256);
    if (s == HSP_OK) s = hsa_finish(&g);
    if (s == HSP_OK) s = gpu_download(&g, GA_AVAL, out, sizeof walk_a);
    hsa_unmap_host(&g, NULL);
    return s;
}

/* Close the state as the device's destroy does (device_gpu.c): wait, free
 * the arrays, close; a lost device keeps all of it. */
static void close_state(void)
{
    if (!g.lost) hsa_finish(&g);
    for (int a = 0; a < GA_COUNT && !g.lost; a++) gpu_release(&g, a);
    if (!g.lost) gpu_spares_free(&g);
    hsa_close(&g);
}

/* Why a run of a walk went wrong (s its status, out its result, faulted:
 * a call failed), or "". */
static void walk_judge(hsp_status s, int faulted, const double *out, const char *before, char *why, size_t len)
{
    why[0] = 0;
    if (s == HSP_OK && faulted) snprintf(why, len, "succeeded although a call failed");
    else if (s == HSP_OK && out && memcmp(out, walk_a, sizeof walk_a))
        snprintf(why, len, "succeeded with another result");
    else if (s != HSP_OK && s != HSP_ERR_DEVICE && s != HSP_ERR_NOMEM)
        snprintf(why, len, "returned %s: %s", hsp_strerror(s), hsp_errmsg());
    else if (s != HSP_OK && !strcmp(hsp_errmsg(), before)) snprintf(why, len, "failed without a message of its own");
    else if (memcmp(walk_a, walk_copy[0], sizeof walk_a) || memcmp(walk_b, walk_copy[1], sizeof walk_b))
        snprintf(why, len, "changed an operand");
}

/* Does a registered host range hold the bytes at p? */
static int in_range(const void *p, size_t bytes)
{
    for (int k = 0; k < st->nranges; k++)
        if (st->ranges[k].start <= (uintptr_t)p && (uintptr_t)p + bytes <= st->ranges[k].end) return 1;
    return 0;
}

/* After a run (s its status): the device does the product, rightly, and
 * is closed.  A lost one cannot: closing it must free nothing, and then the
 * test gives it all back.  why is set unless it says something already. */
static void walk_after(hsp_status s, double *out, char *why, size_t len)
{
    int live = fake_hsa.live;
    if (s != HSP_OK && g.lost) {
        close_state();
        if (!why[0] && fake_hsa.live != live)
            snprintf(why, len, "closing the lost device freed %d things", live - fake_hsa.live);
        g.lost = 0;
        for (int a = 0; a < GA_COUNT; a++) gpu_release(&g, a);
        gpu_spares_free(&g);
        hsa_close(&g);
        return;
    }
    for (int a = 0; a < GA_COUNT && !why[0] && st->mode != HSA_MEM_POOL; a++)
        if (g.a[a].owned && !in_range(g.a[a].ptr, g.a[a].bytes))
            snprintf(why, len, "array %d of the device's own is not registered for the GPU", a);
    if (!why[0] && st->queue && (walk_product(out) != HSP_OK || memcmp(out, walk_a, sizeof walk_a)))
        snprintf(why, len, "the device then failed the product: %s", hsp_errmsg());
    close_state();
}

/* Fail each counted call of the runtime in turn, made by opening a state in
 * mode (product 0) or by a product on an open state (product 1).  Each run
 * must fail (there is no other way) with HSP_ERR_DEVICE or HSP_ERR_NOMEM and
 * a message of its own, leave the operands as they were,
 * leave the device able to do the product again, and once closed leave
 * nothing made (allocations, signals, queues, executables, runtime holds). */
static void walk(const char *name, hsa_mem_mode mode, int product)
{
    double out[WALK_N];
    char why[256] = "", before[] = "an error made before the run";
    long n, points = 0, failed = 0, lost = 0;
    for (int j = 0; j < WALK_N; j++) walk_a[j] = j + 0.5, walk_b[j] = -j;
    memcpy(walk_copy[0], walk_a, sizeof walk_a), memcpy(walk_copy[1], walk_b, sizeof walk_b);
    for (n = 1; !why[0]; n++) {
        hsp_fail(HSP_ERR_ARG, "%s", before);
        fake_hsa.fail_at = product ? 0 : n;
        hsp_status s = open_state(mode);
        if (product && s != HSP_OK) {
            snprintf(why, sizeof why, "the state did not open: %s", hsp_errmsg());
            break;
        }
        if (product) fake_hsa.calls = 0, fake_hsa.fail_at = n, s = walk_product(out);
        long calls = fake_hsa.calls;
        fake_hsa.fail_at = 0;
        walk_judge(s, calls >= n, product ? out : NULL, before, why, sizeof why);
        failed += s != HSP_OK, lost += g.lost;
        if (!product && s != HSP_OK) close_state(); /* as the device's open does */
        else walk_after(s, out, why, sizeof why);
        if (!why[0] && (fake_hsa.live || fake_hsa.inits || fake_hsa.handlers || fake_hsa.queues))
            snprintf(why, sizeof why, "closed, it left %d things made, %d runtime holds, %d handlers, %d queues",
                     fake_hsa.live, fake_hsa.inits, fake_hsa.handlers, fake_hsa.queues);
        if (calls < n) break; /* no call n: the whole run was done */
        points++;
    }
    tap_ok(!why[0], "faults, %s: each of its %ld runtime calls failed in turn: %ld errors with a message (%ld losing "
           "the device), operands intact, the device then right, nothing left", name, points, failed, lost);
    if (why[0]) tap_diag("when call %ld failed: %s", n, why);
}

static void test_fault_walk(void)
{
    walk("opening in pool mode", HSA_MEM_POOL, 0);
    walk("a product in pool mode", HSA_MEM_POOL, 1);
    walk("a product in svm mode", HSA_MEM_SVM, 1);
    walk("a product in svm mapped mode", HSA_MEM_SVM_MAPPED, 1);
}

/* Spares: a freed array of the device's own is kept; the next array of
 * about its size takes it without an allocation, one of less than
 * half its size gets memory of its own; closing frees both. */
static void test_spares(void)
{
    gpu_array x, y, z;
    open_state(HSA_MEM_POOL);
    hsp_status s = gpu_array_new(&g, &x, 4096);
    void *first = x.ptr;
    gpu_array_free(&g, &x);
    int live = fake_hsa.live;
    if (s == HSP_OK) s = gpu_array_new(&g, &y, 3000);
    int kept = s == HSP_OK && y.ptr == first && fake_hsa.live == live;
    if (s == HSP_OK) s = gpu_array_new(&g, &z, 1000);
    int own = s == HSP_OK && z.ptr != first && fake_hsa.live == live + 1;
    gpu_array_free(&g, &y), gpu_array_free(&g, &z);
    close_state();
    tap_ok(kept && own && !fake_hsa.live, "spares: a freed array serves the next of about its size without an "
           "allocation, not one of less than half; closing frees both");
}

int main(void)
{
    if (!tap_ok(object(0) && object(1), "code objects of both precisions for %s", hsp_code_objects[0].target))
        return tap_done();
    test_runtime();
    test_open();
    test_dispatch();
    test_barriers();
    test_local();
    test_many();
    test_xnack_hints();
    test_memory();
    test_close();
    test_fault();
    test_queue_error();
    test_deadline();
    test_spares();
    test_fault_walk();
    return tap_done();
}
