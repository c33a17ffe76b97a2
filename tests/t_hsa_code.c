/* t_hsa_code.c: every embedded AMDGPU code object, read through comgr, is an
 * executable for its target holding every kernel with its argument list and
 * kernel descriptor, in both precisions; kernel arguments pack by the
 * layout its metadata gives; agents' ISA names find their code object;
 * without an AMD GPU, --device=hsa says why. */
#include <amd_comgr.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "agents.h"
#include "aql.h"
#include "kernel_info.h"
#include "tap.h"

/* The explicit arguments of kernels (in kernels/); hidden ones may follow. */
enum { ROW_ARGS = 13 };
static const struct {
    const char *name;
    int args;
} expected[] = {{"hsp_bound", 5}, {"hsp_esc", ROW_ARGS + 8}, {"hsp_merge", ROW_ARGS + 7},
                {"hsp_arrange", 13}, {"hsp_heap_2", ROW_ARGS}, {"hsp_heap_33", ROW_ARGS},
                {"hsp_heap_64", ROW_ARGS}};

/* Is co an executable for its target? */
static int isa_matches(const hsp_code_object *co, char *isa, size_t len)
{
    amd_comgr_data_t data;
    size_t size = 0;
    int ok = amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &data) == AMD_COMGR_STATUS_SUCCESS;
    if (!ok) return 0;
    ok = amd_comgr_set_data(data, (size_t)(co->end - co->start), (const char *)co->start) == AMD_COMGR_STATUS_SUCCESS &&
         amd_comgr_get_data_isa_name(data, &size, NULL) == AMD_COMGR_STATUS_SUCCESS && size <= len &&
         amd_comgr_get_data_isa_name(data, &size, isa) == AMD_COMGR_STATUS_SUCCESS;
    amd_comgr_release_data(data);
    return ok && strstr(isa, "amdgcn-amd-amdhsa") && strstr(isa, co->target);
}

static void check_object(const hsp_code_object *co)
{
    char isa[256] = "", what[64], kd[72];
    int n = 0;
    snprintf(what, sizeof what, "%s %s", co->target, co->dbl ? "double" : "float");
    tap_ok(isa_matches(co, isa, sizeof isa), "%s: an executable for %s", what, isa);
    tap_ok(hsp_code_object_kernels(co, &n) == HSP_OK && n == 4 + 63,
           "%s: %d kernels (bound, esc, merge, arrange, heap 2..64)", what, n);
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        hsp_kernel_info info;
        hsp_status s = hsp_kernel_info_read(co, expected[k].name, &info);
        snprintf(kd, sizeof kd, "%s.kd", expected[k].name);
        tap_ok(s == HSP_OK && !strcmp(info.symbol, kd) && info.nexplicit == expected[k].args &&
                   info.kernarg_size >= 8u * (unsigned)expected[k].args / 2 && info.max_group_size >= 64,
               "%s: %s with %d arguments, %u bytes of them, descriptor %s", what, expected[k].name,
               info.nexplicit, info.kernarg_size, info.symbol);
    }
}

/* Pack hsp_esc's 21 arguments: 15 buffers, 3 values, 3 local blocks. */
static void test_pack(const hsp_code_object *co)
{
    hsp_kernel_info k;
    hsp_kernarg_value v[ROW_ARGS + 8];
    uint64_t ptr[8];
    int64_t first = 7, nrows = 9;
    int32_t n2 = 512, islong = 1;
    uint32_t local[3] = {512 * 4, 512 * 8, 256 * 4}, group = 0;
    unsigned char buf[512];
    if (!tap_ok(hsp_kernel_info_read(co, "hsp_esc", &k) == HSP_OK && k.kernarg_size <= sizeof buf,
                "pack: hsp_esc's layout read"))
        return;
    for (int j = 0; j < 8; j++) ptr[j] = 0x100000000ull * (uint64_t)(j + 1) + 0x40;
    for (int j = 0; j < ROW_ARGS + 8; j++) v[j] = (hsp_kernarg_value){&ptr[j % 8], 8};
    v[7] = (hsp_kernarg_value){&first, 8}, v[8] = (hsp_kernarg_value){&nrows, 8};
    v[13] = (hsp_kernarg_value){&n2, 4}, v[17] = (hsp_kernarg_value){&islong, 4};
    for (int j = 0; j < 3; j++) v[14 + j] = (hsp_kernarg_value){NULL, local[j]};
    memset(buf, 0xee, sizeof buf);
    int ok = hsp_kernarg_pack(&k, v, ROW_ARGS + 8, buf, &group) == HSP_OK;
    tap_ok(ok && group == k.group_fixed + local[0] + local[1] + local[2],
           "pack: group segment %u bytes = static %u + the three local blocks", group, k.group_fixed);
    int at_offsets = ok, x = 0;
    uint32_t expect_local = k.group_fixed;
    unsigned char used[512] = {0};
    for (int j = 0; j < k.nargs && at_offsets; j++) {
        const hsp_karg *a = &k.arg[j];
        memset(used + a->offset, a->kind == HSP_KARG_HIDDEN ? 0 : 1, a->size);
        if (a->kind == HSP_KARG_HIDDEN) continue;
        if (a->kind == HSP_KARG_LOCAL) {
            uint32_t off;
            memcpy(&off, buf + a->offset, 4);
            at_offsets = off == expect_local && off % a->pointee_align == 0;
            expect_local += (uint32_t)v[x].size;
        } else {
            at_offsets = !memcmp(buf + a->offset, v[x].data, v[x].size);
        }
        x++;
    }
    tap_ok(at_offsets, "pack: every argument at its metadata offset, local blocks at aligned offsets");
    int zero = ok;
    for (uint32_t b = 0; b < k.kernarg_size; b++) zero &= used[b] || buf[b] == 0;
    tap_ok(zero, "pack: padding and hidden arguments are zero");
    v[13].size = 8;
    tap_ok(hsp_kernarg_pack(&k, v, ROW_ARGS + 8, buf, &group) == HSP_ERR_ARG &&
               strstr(hsp_errmsg(), "argument 13"), "pack: a value of the wrong size is refused: %s", hsp_errmsg());
    tap_ok(hsp_kernarg_pack(&k, v, ROW_ARGS, buf, &group) == HSP_ERR_ARG, "pack: too few values refused");
}

/* The object that ISA name target with features (":xnack-", ...) matches in
 * precision dbl. */
static const hsp_code_object *match(const char *target, int length, const char *features, int dbl)
{
    char name[128];
    snprintf(name, sizeof name, "amdgcn-amd-amdhsa--%.*s%s", length, target, features);
    return hsp_code_object_match(name, dbl);
}

/* ISA names as HSA gives them find the object of their processor and
 * precision, with or without target features; no other processor does, not
 * even one the target's name begins or ends. */
static void test_match(void)
{
    static const char *const features[] = {"", ":xnack-", ":xnack+", ":sramecc+:xnack+", ":sramecc-"};
    enum { NFEATURES = sizeof features / sizeof features[0] };
    int found = 0, wrong = 0;
    for (int c = 0; c < hsp_ncode_objects; c++) {
        const hsp_code_object *co = &hsp_code_objects[c];
        int len = (int)strlen(co->target);
        for (int f = 0; f < NFEATURES; f++) found += match(co->target, len, features[f], co->dbl) == co;
        wrong += match(co->target, len - 1, "", co->dbl) || match(co->target, len - 1, ":xnack-", co->dbl);
        wrong += match(co->target, len, "0", co->dbl) || match(co->target, len, "0:xnack-", co->dbl);
    }
    tap_ok(found == NFEATURES * hsp_ncode_objects && !wrong,
           "match: each of the %d objects by its ISA name with %d feature sets; none by its name one shorter or "
           "longer (%d)", hsp_ncode_objects, NFEATURES, wrong);
    const char *target = hsp_code_objects[0].target;
    char pal[96];
    snprintf(pal, sizeof pal, "amdgcn-amd-amdpal--%s", target);
    const hsp_code_object *f = match(target, 64, ":xnack-", 0), *d = match(target, 64, ":xnack-", 1);
    tap_ok(f && d && !f->dbl && d->dbl && !strcmp(f->target, target) && !strcmp(d->target, target),
           "match: %s in float and in double", target);
    tap_ok(!match("gfx1100", 64, "", 0) && !match("", 0, "", 1) && !hsp_code_object_match(target, 0) &&
               !hsp_code_object_match(pal, 0) && !hsp_code_object_match("", 0),
           "match: none for gfx1100 (not built), no processor, %s alone, %s or an empty name", target, pal);
}

/* A dispatch packet for hsp_esc and a barrier-AND, built without a GPU. */
static void test_packets(const hsp_code_object *co)
{
    hsp_kernel_info k;
    hsa_kernel_dispatch_packet_t d;
    hsa_barrier_and_packet_t b;
    hsa_signal_t done = {0x1234}, deps[2] = {{0x10}, {0x20}};
    char kernarg[256];
    if (!tap_ok(hsp_kernel_info_read(co, "hsp_esc", &k) == HSP_OK, "packets: hsp_esc's layout read")) return;
    memset(&d, 0xff, sizeof d);
    hsp_aql_dispatch(&d, &k, 0xabc000, kernarg, 100, 256, 7168, done);
    tap_ok(d.header == 0xffff && d.setup == 0xffff, "packets: header and setup untouched until published");
    hsp_aql_publish(&d, hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, 1), 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    tap_ok((d.header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH && (d.header >> 8 & 1) == 1 &&
               (d.header >> 9 & 3) == HSA_FENCE_SCOPE_SYSTEM && (d.header >> 11 & 3) == HSA_FENCE_SCOPE_SYSTEM &&
               d.setup == 1,
           "packets: dispatch header 0x%04x (type 2, barrier, system acquire and release), 1 dimension", d.header);
    tap_ok(d.workgroup_size_x == 256 && d.workgroup_size_y == 1 && d.workgroup_size_z == 1 &&
               d.grid_size_x == 25600 && d.grid_size_y == 1 && d.grid_size_z == 1,
           "packets: 100 groups of 256: grid 25600 x 1 x 1");
    tap_ok(d.group_segment_size == 7168 && d.private_segment_size == k.private_fixed &&
               d.kernel_object == 0xabc000 && d.kernarg_address == kernarg && d.completion_signal.handle == 0x1234 &&
               d.reserved0 == 0 && d.reserved2 == 0,
           "packets: segments, kernel object, arguments, signal; reserved fields zero");
    memset(&b, 0xff, sizeof b);
    hsp_aql_barrier(&b, deps, 2, done);
    hsp_aql_publish(&b, hsp_aql_header(HSA_PACKET_TYPE_BARRIER_AND, 1), 0);
    tap_ok((b.header & 0xff) == HSA_PACKET_TYPE_BARRIER_AND && b.dep_signal[0].handle == 0x10 &&
               b.dep_signal[1].handle == 0x20 && b.dep_signal[2].handle == 0 && b.dep_signal[4].handle == 0 &&
               b.completion_signal.handle == 0x1234 && b.reserved0 == 0,
           "packets: barrier-AND on two signals, the rest none");
}

/* No /dev/kfd (every machine here): the hsa device is refused, saying why,
 * and finds no agent; with one, it is refused as not yet able to dispatch. */
static void test_no_gpu(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_hsa_agent list[16];
    int count = 0, kfd = access("/dev/kfd", F_OK) == 0;
    hsp_options_init(&o);
    o.device = "hsa";
    hsp_status s = hsp_context_create(&o, &ctx);
    tap_ok(!ctx && (kfd ? s != HSP_OK : s == HSP_ERR_DEVICE && strstr(hsp_errmsg(), "/dev/kfd")),
           "--device=hsa %s: %s", kfd ? "with /dev/kfd" : "without /dev/kfd", hsp_errmsg());
    o.device = "hsa:x";
    tap_ok(hsp_context_create(&o, &ctx) == HSP_ERR_ARG && !ctx, "a bad hsa index: %s", hsp_errmsg());
    /* (hsp_devices would load PoCL, whose LLVM clashes with comgr's here) */
    char why[256] = "";
    tap_ok(hsp_hsa_agents(list, 16, &count, why, sizeof why) == HSP_OK && (kfd || (count == 0 && strstr(why, "/dev/kfd"))),
           "%d HSA agents: %s", count, why);
}

int main(void)
{
    tap_ok(hsp_ncode_objects >= 2 && hsp_ncode_objects % 2 == 0, "%d code objects: float and double per target",
           hsp_ncode_objects);
    for (int k = 0; k < hsp_ncode_objects; k++) check_object(&hsp_code_objects[k]);
    test_match();
    if (hsp_ncode_objects) test_pack(&hsp_code_objects[0]);
    if (hsp_ncode_objects) test_packets(&hsp_code_objects[0]);
    test_no_gpu();
    return tap_done();
}
