/* t_hsa_dispatch.c: the hsa device's memory, loading and dispatch code,
 * run against fake_hsa.c (a stand-in for the HSA runtime) since no AMD GPU
 * is here: pools found, every kernel of both code objects looked up by its
 * descriptor symbol and checked, packets and kernel arguments as the
 * layouts say, barrier bits between dependent launches only, kernel-argument
 * blocks never reused while in flight, a full queue waited on, errors
 * reported; and the GPU arrays over its memory, with realloc and mapping. */
#include <stdlib.h>
#include <string.h>
#include "aql.h"
#include "fake_hsa.h"
#include "hsa_gpu.h"
#include "internal.h"
#include "tap.h"

static gpu g;
static hsa_state st;

/* The first code object of each precision for one target. */
static const hsp_code_object *object(int dbl)
{
    for (int k = 0; k < hsp_ncode_objects; k++)
        if (hsp_code_objects[k].dbl == dbl && !strcmp(hsp_code_objects[k].target, hsp_code_objects[0].target))
            return &hsp_code_objects[k];
    return NULL;
}

static void test_open(void)
{
    fake_hsa_reset();
    fake_hsa.co = object(0);
    g.backend = &st;
    st.agent.handle = 7, st.cpu.handle = 8, st.max_group = 1024, st.group_mem = 64 << 10, st.mode = HSA_MEM_POOL;
    fake_hsa.no_kernarg_pool = 1;
    tap_ok(hsa_find_pools(&st) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "kernel-argument"),
           "pools: a CPU agent without a kernel-argument pool is refused: %s", hsp_errmsg());
    fake_hsa.no_kernarg_pool = 0;
    tap_ok(hsa_find_pools(&st) == HSP_OK && st.fine.handle == 1 && st.kernarg_pool.handle == 2,
           "pools: the fine-grained and the kernel-argument pool found, the coarse one passed over");
    fake_hsa.misreport = "hsp_esc";
    tap_ok(hsa_load(&st, object(0), 0) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "hsp_esc"),
           "load: a kernel whose argument size disagrees with its layout is refused: %s", hsp_errmsg());
    hsa_unload(&st);
    fake_hsa.misreport = NULL, fake_hsa.symbols = 0;
    int ok = hsa_load(&st, object(0), 0) == HSP_OK;
    fake_hsa.co = object(1);
    ok = ok && hsa_load(&st, object(1), 1) == HSP_OK;
    tap_ok(ok && fake_hsa.symbols == 2 * 67 && fake_hsa.bad_symbol_names == 0,
           "load: both precisions, %d kernels looked up by their .kd symbols", fake_hsa.symbols);
    int complete = 1;
    for (int d = 0; d < 2; d++)
        for (int j = 0; j < GK_COUNT; j++)
            complete &= gpu_kernel_exists(j) == (st.kernel[d][j].layout != NULL && st.kernel[d][j].object != 0);
    tap_ok(complete, "load: every kernel has a descriptor and a layout");
    hsp_status s = hsa_queue_open(&st);
    tap_ok(s == HSP_OK && st.queue->size == 256 && st.slot % 64 == 0 &&
               st.slot >= st.kernel[1][GK_ESC].layout->kernarg_size,
           "queue: 256 packets, kernel-argument blocks of %u bytes", st.slot);
}

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
    memcpy(&m, fake_hsa.kernarg[n] + explicit_arg(st.kernel[0][GK_BOUND].layout, 0)->offset, sizeof m);
    return m;
}

static void test_dispatch(void)
{
    const hsp_kernel_info *k = st.kernel[0][GK_BOUND].layout;
    fake_hsa.nlog = 0;
    hsp_status s = launch_bound(1234, 5, 256);
    tap_ok(s == HSP_OK && fake_hsa_pending() == 1 && fake_hsa.doorbells == 1,
           "dispatch: one packet queued, doorbell rung");
    tap_ok(hsa_finish(&g) == HSP_OK && fake_hsa.nlog == 1 && *(int64_t *)(uintptr_t)st.done.handle == 0,
           "dispatch: finish waits until the completion signal is back at 0");
    hsa_kernel_dispatch_packet_t *p = &fake_hsa.log[0];
    tap_ok(fake_hsa.header[0] == hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, 1) && p->setup == 1 &&
               p->workgroup_size_x == 256 && p->grid_size_x == 1280 && p->grid_size_y == 1 &&
               p->kernel_object == st.kernel[0][GK_BOUND].object && p->group_segment_size == k->group_fixed &&
               p->private_segment_size == k->private_fixed && p->completion_signal.handle == st.done.handle,
           "dispatch: header 0x%04x, 5 x 256, descriptor, segments, signal", fake_hsa.header[0]);
    int args_ok = logged_m(0) == 1234;
    for (int j = 1; j < 5; j++) {
        uint64_t ptr;
        memcpy(&ptr, fake_hsa.kernarg[0] + explicit_arg(k, j)->offset, sizeof ptr);
        args_ok &= ptr == 0x1000u * (uint64_t)j;
    }
    for (int a = 0; a < k->nargs; a++)
        for (uint32_t b = 0; b < k->arg[a].size && hsp_karg_hidden(k->arg[a].kind); b++)
            args_ok &= fake_hsa.kernarg[0][k->arg[a].offset + b] == 0;
    tap_ok(args_ok, "dispatch: m and the four array addresses at their offsets, hidden arguments zero");
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
    tap_ok(ok && fake_hsa.nlog == 5 && barriers[0] && !barriers[1] && !barriers[2] && barriers[3] && barriers[4],
           "barriers: bins 2, 3, 4 overlap after the first; the launches after them wait (%d%d%d%d%d)", barriers[0],
           barriers[1], barriers[2], barriers[3], barriers[4]);
}

/* ESC: local blocks after the static group segment; too much is refused. */
static void test_local(void)
{
    static gpu_array arr = {.ptr = (void *)0x1000};
    const hsp_kernel_info *k = st.kernel[1][GK_ESC].layout;
    int64_t first = 0, nrows = 3;
    int32_t n2 = 512, islong = 0;
    gpu_arg a[21];
    for (int j = 0; j < 21; j++) a[j] = (gpu_arg){GPU_ARG_ARRAY, &arr, NULL, 0};
    a[7] = (gpu_arg){GPU_ARG_VALUE, NULL, &first, 8}, a[8] = (gpu_arg){GPU_ARG_VALUE, NULL, &nrows, 8};
    a[13] = (gpu_arg){GPU_ARG_VALUE, NULL, &n2, 4}, a[17] = (gpu_arg){GPU_ARG_VALUE, NULL, &islong, 4};
    a[14] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 512 * 4}, a[15] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 512 * 8};
    a[16] = (gpu_arg){GPU_ARG_LOCAL, NULL, NULL, 256 * 4};
    fake_hsa.nlog = 0;
    int ok = hsa_launch(&g, 1, GK_ESC, a, 21, 3, 256) == HSP_OK && hsa_finish(&g) == HSP_OK;
    uint32_t second;
    memcpy(&second, fake_hsa.kernarg[0] + explicit_arg(k, 15)->offset, sizeof second);
    tap_ok(ok && fake_hsa.log[0].group_segment_size == k->group_fixed + 512 * 12 + 256 * 4 &&
               second == k->group_fixed + 512 * 4,
           "local: group segment %u = static %u + three blocks; the second block at %u", fake_hsa.log[0].group_segment_size,
           k->group_fixed, second);
    st.group_mem = 4096;
    tap_ok(hsa_launch(&g, 1, GK_ESC, a, 21, 3, 256) == HSP_ERR_UNSUPPORTED && strstr(hsp_errmsg(), "group memory"),
           "local: more group memory than the GPU has is refused: %s", hsp_errmsg());
    st.group_mem = 64 << 10;
    tap_ok(hsa_launch(&g, 1, GK_ESC, a, 20, 3, 256) == HSP_ERR_ARG, "arguments: one too few refused: %s", hsp_errmsg());
    tap_ok(launch_bound(1, 1u << 31, 256) == HSP_ERR_UNSUPPORTED, "grid: 2^31 groups of 256 refused: %s", hsp_errmsg());
    hsa_finish(&g);
}

/* Launches past the kernel-argument blocks and past the queue's size. */
static void test_many(void)
{
    fake_hsa.nlog = 0;
    int ok = 1;
    for (int n = 0; n < 300; n++) ok &= launch_bound(n, 1, 64) == HSP_OK;
    int pending = fake_hsa_pending();
    ok &= hsa_finish(&g) == HSP_OK;
    int right = fake_hsa.nlog == 300;
    for (int n = 0; n < fake_hsa.nlog; n++) right &= logged_m(n) == n;
    tap_ok(ok && right && pending == 300 - 256, "300 launches: the 257th waited for the first 256; all arguments intact");
    hsa_queue_close(&st);
    fake_hsa.queue_max = 16;
    ok = hsa_queue_open(&st) == HSP_OK && st.queue->size == 16;
    fake_hsa.nlog = 0;
    for (int n = 0; n < 40; n++) ok &= launch_bound(n, 1, 64) == HSP_OK && fake_hsa_pending() <= 16;
    ok &= hsa_finish(&g) == HSP_OK;
    right = fake_hsa.nlog == 40;
    for (int n = 0; n < fake_hsa.nlog; n++) right &= logged_m(n) == n;
    tap_ok(ok && right, "a queue of 16: 40 launches wait for room, in order, arguments intact");
}

static void test_queue_error(void)
{
    launch_bound(1, 1, 64);
    fake_hsa_fail_queue(HSA_STATUS_ERROR_EXCEPTION);
    tap_ok(hsa_finish(&g) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "faulted"),
           "a queue error is reported: %s", hsp_errmsg());
}

/* The GPU arrays of gpu_mem.c over this memory. */
static void test_memory(void)
{
    tap_ok(hsa_choose_memory(1, 1, 0) == HSA_MEM_SVM && hsa_choose_memory(1, 0, 0) == HSA_MEM_SVM_MAPPED &&
               hsa_choose_memory(0, 0, 0) == HSA_MEM_POOL && hsa_choose_memory(1, 1, 1) == HSA_MEM_POOL,
           "memory: svm by default, svm mapped, none, and nosvm");
    static const gpu_ops ops = {hsa_alloc, hsa_free, NULL, NULL, NULL, hsa_map_host, NULL, NULL, hsa_finish, NULL};
    double host[1000];
    int64_t copied = 0;
    int moved = 0;
    for (int j = 0; j < 1000; j++) host[j] = j;
    g.ops = &ops, g.host_arrays = 0, st.mode = HSA_MEM_POOL;
    int ok = gpu_upload(&g, GA_AVAL, host, sizeof host) == HSP_OK && g.a[GA_AVAL].ptr != host &&
             !memcmp(g.a[GA_AVAL].ptr, host, sizeof host);
    ok &= gpu_grow(&g, GA_AVAL, 2 * sizeof host, sizeof host, 1, &copied, &moved) == HSP_OK && copied == sizeof host &&
          !memcmp(g.a[GA_AVAL].ptr, host, sizeof host);
    tap_ok(ok && fake_hsa.svm_calls == 0, "pool: arrays copied in; growth copies %lld bytes", (long long)copied);
    gpu_release(&g, GA_AVAL);
    g.host_arrays = 1, st.mode = HSA_MEM_SVM_MAPPED;
    ok = gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && g.a[GA_BVAL].ptr == host;
    tap_ok(ok && fake_hsa.svm_calls == 1 && fake_hsa.svm_ptr == host && fake_hsa.svm_bytes == sizeof host &&
               fake_hsa.svm_attr.attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE &&
               fake_hsa.svm_attr.value == st.agent.handle,
           "svm mapped: a host array is used in place, made accessible to the agent first");
    copied = 0;
    ok = gpu_reserve(&g, GA_PCOL, 4096) == HSP_OK &&
         gpu_grow(&g, GA_PCOL, 1 << 20, 4096, 1, &copied, &moved) == HSP_OK && copied == 0;
    tap_ok(ok && fake_hsa.svm_ptr == g.a[GA_PCOL].ptr && fake_hsa.svm_bytes == 1 << 20,
           "svm mapped: the pool grows by realloc (moved: %d) and the new range is made accessible", moved);
    gpu_release(&g, GA_PCOL), gpu_release(&g, GA_BVAL);
    fake_hsa.svm_fails = 1;
    tap_ok(gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "hsa,nosvm") &&
               !g.a[GA_BVAL].ptr,
           "svm mapped: a range the runtime will not map is an error that says what to do: %s", hsp_errmsg());
    fake_hsa.svm_fails = 0;
    st.mode = HSA_MEM_SVM;
    int calls = fake_hsa.svm_calls;
    tap_ok(gpu_upload(&g, GA_BVAL, host, sizeof host) == HSP_OK && fake_hsa.svm_calls == calls,
           "svm: host memory is accessible by default, nothing to map");
    gpu_release(&g, GA_BVAL);
}

int main(void)
{
    if (!tap_ok(object(0) && object(1), "code objects of both precisions for %s", hsp_code_objects[0].target))
        return tap_done();
    test_open();
    test_dispatch();
    test_barriers();
    test_local();
    test_many();
    test_queue_error();
    test_memory();
    hsa_queue_close(&st);
    hsa_unload(&st);
    return tap_done();
}
