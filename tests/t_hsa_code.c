/* t_hsa_code.c: every embedded AMDGPU code object, read through comgr, is an
 * executable for its target; the kernel layouts embedded at build time equal
 * what comgr reads from it now, kernel by kernel, and hold the kernels of
 * kernels/kernels.def with its argument counts; kernel arguments pack by a
 * layout (the v5 hidden arguments filled with the dispatch shape, the rest
 * zero, those needing a pointer from the runtime refused); an unknown
 * argument kind, or one needing a pointer from the runtime, stops the build
 * tool; agents' ISA names find their code object; without an AMD GPU,
 * --device=hsa says why. */
#include <amd_comgr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device/gpu.h"
#include "device/hsa/agents.h"
#include "device/hsa/aql.h"
#include "device/hsa/kernel_meta.h"
#include "tap.h"

/* The kernels of the table (kernels/kernels.def): how many exist. */
static int table_kernels(void)
{
    int n = 0;
    for (int j = 0; j < GK_COUNT; j++) n += gpu_kernel_exists(j);
    return n;
}

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

/* Are the argument lists of a and b equal? */
static int same_args(const hsp_kernel_info *a, const hsp_kernel_info *b)
{
    if (a->nargs != b->nargs) return 0;
    for (int j = 0; j < a->nargs; j++) {
        const hsp_karg *x = &a->arg[j], *y = &b->arg[j];
        if (x->kind != y->kind || x->offset != y->offset || x->size != y->size || x->pointee_align != y->pointee_align)
            return 0;
    }
    return 1;
}

/* The first part in which layouts a and b differ, or NULL when they are equal. */
static const char *layout_difference(const hsp_kernel_info *a, const hsp_kernel_info *b)
{
    if (strcmp(a->name, b->name)) return "name";
    if (strcmp(a->symbol, b->symbol)) return "symbol";
    if (a->kernarg_size != b->kernarg_size || a->kernarg_align != b->kernarg_align) return "kernarg size or align";
    if (a->group_fixed != b->group_fixed || a->private_fixed != b->private_fixed) return "segment sizes";
    if (a->max_group_size != b->max_group_size || a->wavefront != b->wavefront) return "group size or wavefront";
    if (a->nexplicit != b->nexplicit) return "explicit argument count";
    return same_args(a, b) ? NULL : "arguments (kind, offset, size or alignment)";
}

/* The embedded layouts of co equal what comgr reads from its image now. */
static void check_table(const hsp_code_object *co, const char *what)
{
    hsp_kernel_meta *read = NULL;
    int n = 0, nread = 0, k = 0;
    const char *diff = NULL;
    const hsp_kernel_info *table = hsp_code_object_kernels(co, &n);
    hsp_status s = hsp_kernel_meta_read(co->start, (size_t)(co->end - co->start), co->target, &read, &nread);
    tap_ok(s == HSP_OK && table && n == nread && n == table_kernels(),
           "%s: %d kernels embedded, %d read by comgr, %d in the table%s%s", what, n, nread, table_kernels(),
           s == HSP_OK ? "" : ": ", s == HSP_OK ? "" : hsp_errmsg());
    for (; s == HSP_OK && k < n && k < nread && !diff; k++) diff = layout_difference(&table[k], &read[k].info);
    tap_ok(s == HSP_OK && n > 0 && n == nread && !diff, "%s: each embedded layout equals comgr's%s%s%s%s", what,
           diff ? "; not so in " : "", diff ? read[k - 1].name : "", diff ? ": " : "", diff ? diff : "");
    free(read);
}

/* Is layout k in order: arguments by offset, none overlapping, all inside
 * the kernarg segment, the explicit ones first; descriptor name.kd? */
static int layout_sane(const hsp_kernel_info *k)
{
    char kd[80];
    uint32_t end = 0;
    snprintf(kd, sizeof kd, "%s.kd", k->name);
    int ok = !strcmp(k->symbol, kd) && k->nexplicit <= k->nargs && k->kernarg_align >= 8;
    for (int j = 0; j < k->nargs && ok; j++) {
        const hsp_karg *a = &k->arg[j];
        ok = a->offset >= end && a->size > 0 && a->offset + a->size <= k->kernarg_size &&
             hsp_karg_hidden(a->kind) == (j >= k->nexplicit);
        end = a->offset + a->size;
    }
    return ok;
}

/* Every embedded layout of co in order (checks the reading without comgr). */
static void check_sane(const hsp_code_object *co, const char *what)
{
    int n = 0, k = 0;
    const hsp_kernel_info *table = hsp_code_object_kernels(co, &n);
    while (k < n && layout_sane(&table[k])) k++;
    tap_ok(n > 0 && k == n, "%s: every layout in order (arguments by offset, inside the segment, hidden last)%s%s",
           what, k < n ? "; not so in " : "", k < n ? table[k].name : "");
}

/* Every kernel of the table, with its explicit argument count, room for them
 * (at least 4 bytes each) and work-groups of 64 at least; the first that
 * differs is named. */
static void check_expected(const hsp_code_object *co, const char *what)
{
    char buf[24];
    int j = 0;
    for (; j < GK_COUNT; j++) {
        if (!gpu_kernel_exists(j)) continue;
        int want = gpu_kernel_of(j)->nargs;
        const hsp_kernel_info *k = hsp_kernel_find(co, gpu_kernel_name(j, buf));
        if (k && k->nexplicit == want && k->kernarg_size >= 4u * (unsigned)want && k->max_group_size >= 64) continue;
        tap_diag("%s: %s has %d arguments (the table: %d), %u bytes of them, work-groups of %u", what, buf,
                 k ? k->nexplicit : -1, want, k ? k->kernarg_size : 0, k ? k->max_group_size : 0);
        break;
    }
    tap_ok(j == GK_COUNT, "%s: the table's %d kernels, each with its argument count", what, table_kernels());
}

/* The kernels a product runs by default (methods hash, hash, auto: short
 * and medium rows by hash, several a work-group or one, medium rows too large
 * for it and long rows that fit in local memory by ESC, the other long rows
 * dense; bins on the device for resident products), and ESC for several
 * rows a work-group (esc, esc, auto), and a resident hierarchy's steps and
 * its solve's on a device with memory of its own: none takes scratch memory (on an APU,
 * system memory) and each at most 64 VGPRs, for at least 4 waves a SIMD on
 * gfx90c (256 VGPRs a lane).  (hsp_merge, the paper's method for long rows,
 * runs only when asked for.) */
static void check_resources(const hsp_code_object *co, const char *what)
{
    static const char *const kernels[] = {
        "hsp_bound",      "hsp_esc",        "hsp_esc_rows",     "hsp_arrange",     "hsp_bin_count",
        "hsp_bin_place",  "hsp_row_sums",   "hsp_row_scan",     "hsp_dense_count", "hsp_dense",       "hsp_dense_runs",
        "hsp_hash_rows",  "hsp_hash",       "hsp_sa_diag",      "hsp_sa_strong",   "hsp_mis_init",
        "hsp_mis_rekey",  "hsp_mis_max",    "hsp_mis_update", "hsp_mis_rounds", "hsp_mis_symmetric", "hsp_agg_near",     "hsp_agg_far",     "hsp_zero_ints",
        "hsp_count_ints", "hsp_agg_weights", "hsp_widen", "hsp_sa_tentative", "hsp_sa_smooth",   "hsp_tr_scatter",
        "hsp_identity",   "hsp_numeric",    "hsp_tr_values",    "hsp_same_pattern", "hsp_numeric_rows",
        "hsp_rmerge",     "hsp_hash_rows_count", "hsp_hash_count", "hsp_part_scan", "hsp_bin_scan",
        "hsp_arrange_rows", "hsp_spmm", "hsp_spmm_lanes", "hsp_spmm_pieces", "hsp_spmm_both", "hsp_lz_start",
        "hsp_lz_multiply", "hsp_lz_orthogonalize", "hsp_lz_advance", "hsp_lz_sum", "hsp_spmv", "hsp_diagonals",
        "hsp_vector"};
    hsp_kernel_meta *read = NULL;
    int nread = 0;
    hsp_status s = hsp_kernel_meta_read(co->start, (size_t)(co->end - co->start), co->target, &read, &nread);
    for (size_t j = 0; j < sizeof kernels / sizeof kernels[0]; j++) {
        const hsp_kernel_meta *k = NULL;
        for (int x = 0; s == HSP_OK && x < nread && !k; x++) k = strcmp(read[x].name, kernels[j]) ? NULL : &read[x];
        int ok = k && k->info.private_fixed == 0 && k->vgpr_count > 0 && k->vgpr_count <= 64;
        tap_ok(ok, "%s: %s takes no scratch and at most 64 VGPRs: %u bytes, %d VGPRs", what, kernels[j],
               k ? k->info.private_fixed : 0, k ? k->vgpr_count : -1);
    }
    free(read);
}

static void check_object(const hsp_code_object *co)
{
    char isa[256] = "", what[64];
    snprintf(what, sizeof what, "%s %s", co->target, co->dbl ? "double" : "float");
    tap_ok(isa_matches(co, isa, sizeof isa), "%s: an executable for %s", what, isa);
    check_table(co, what);
    check_sane(co, what);
    check_expected(co, what);
    check_resources(co, what);
}

/* Kernels with equal argument lists, over all code objects, share one array. */
static void test_shared_args(void)
{
    int pairs = 0, shared = 0;
    for (int c = 0; c < hsp_ncode_objects; c++)
        for (int d = c; d < hsp_ncode_objects; d++) {
            int n, m;
            const hsp_kernel_info *a = hsp_code_object_kernels(&hsp_code_objects[c], &n);
            const hsp_kernel_info *b = hsp_code_object_kernels(&hsp_code_objects[d], &m);
            for (int j = 0; j < n; j++)
                for (int k = 0; k < m; k++)
                    if (same_args(&a[j], &b[k])) pairs++, shared += a[j].arg == b[k].arg;
        }
    tap_ok(pairs > table_kernels() && shared == pairs, "equal argument lists stored once: %d of %d pairs share", shared,
           pairs);
}

/* Kernels found by exact name only; a code object of another target has no table. */
static void test_find(const hsp_code_object *co)
{
    hsp_code_object other = *co;
    int n = -1;
    other.target = "gfx000";
    tap_ok(hsp_kernel_find(co, "hsp_esc") && !hsp_kernel_find(co, "hsp_es") && !hsp_kernel_find(co, "hsp_esc2") &&
               !hsp_kernel_find(co, ""),
           "find: hsp_esc found; hsp_es, hsp_esc2 and \"\" not");
    tap_ok(!hsp_code_object_kernels(&other, &n) && n == 0 && !hsp_kernel_find(&other, "hsp_esc"),
           "find: no layouts for a target without a table");
}

/* Pack hsp_esc's 22 arguments: 15 buffers, 4 values, 3 local blocks. */
static void test_pack(const hsp_code_object *co)
{
    const hsp_kernel_info *k = hsp_kernel_find(co, "hsp_esc");
    hsp_kernarg_value v[ROW_ARGS + 9];
    uint64_t ptr[8];
    int64_t first = 7, nrows = 9;
    int32_t n2 = 512, islong = 1, keyed = 1;
    uint32_t local[3] = {512 * 4, 512 * 8, 256 * 4}, group = 0;
    unsigned char buf[512];
    if (!tap_ok(k && k->kernarg_size <= sizeof buf, "pack: hsp_esc's layout found")) return;
    for (int j = 0; j < 8; j++) ptr[j] = 0x100000000ull * (uint64_t)(j + 1) + 0x40;
    for (int j = 0; j < ROW_ARGS + 9; j++) v[j] = (hsp_kernarg_value){&ptr[j % 8], 8};
    v[7] = (hsp_kernarg_value){&first, 8}, v[8] = (hsp_kernarg_value){&nrows, 8};
    v[13] = (hsp_kernarg_value){&n2, 4}, v[17] = (hsp_kernarg_value){&islong, 4};
    v[21] = (hsp_kernarg_value){&keyed, 4};
    for (int j = 0; j < 3; j++) v[14 + j] = (hsp_kernarg_value){NULL, local[j]};
    memset(buf, 0xee, sizeof buf);
    int ok = hsp_kernarg_pack(k, v, ROW_ARGS + 9, 100, 256, buf, &group) == HSP_OK;
    tap_ok(ok && group == k->group_fixed + local[0] + local[1] + local[2],
           "pack: group segment %u bytes = static %u + the three local blocks", group, k->group_fixed);
    int at_offsets = ok, x = 0;
    uint32_t expect_local = k->group_fixed;
    unsigned char used[512] = {0};
    for (int j = 0; j < k->nargs && at_offsets; j++) {
        const hsp_karg *a = &k->arg[j];
        if (hsp_karg_hidden(a->kind)) continue;
        memset(used + a->offset, 1, a->size);
        if (a->kind == HSP_KARG_DYNAMIC_SHARED_POINTER) {
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
    for (uint32_t b = 0; b < k->kernarg_size; b++) zero &= used[b] || buf[b] == 0;
    tap_ok(zero, "pack: padding is zero");
    v[13].size = 8;
    tap_ok(hsp_kernarg_pack(k, v, ROW_ARGS + 9, 100, 256, buf, &group) == HSP_ERR_ARG &&
               strstr(hsp_errmsg(), "argument 13"), "pack: a value of the wrong size is refused: %s", hsp_errmsg());
    tap_ok(hsp_kernarg_pack(k, v, ROW_ARGS, 100, 256, buf, &group) == HSP_ERR_ARG, "pack: too few values refused");
}

/* hsp_bound's hidden arguments (v4: global offsets, hidden_none) pack zero. */
static void test_pack_v4_hidden(const hsp_code_object *co)
{
    const hsp_kernel_info *k = hsp_kernel_find(co, "hsp_bound");
    uint64_t x = 0x1122334455667788;
    hsp_kernarg_value v[5] = {{&x, 8}, {&x, 8}, {&x, 8}, {&x, 8}, {&x, 8}};
    unsigned char buf[512];
    uint32_t group;
    if (!tap_ok(k && k->nexplicit == 5 && k->kernarg_size <= sizeof buf, "pack v4: hsp_bound's layout found")) return;
    memset(buf, 0xee, sizeof buf);
    int zero = hsp_kernarg_pack(k, v, 5, 100, 256, buf, &group) == HSP_OK, hidden = 0;
    for (int j = 0; j < k->nargs; j++)
        if (hsp_karg_hidden(k->arg[j].kind))
            for (uint32_t b = 0; b < k->arg[j].size; b++) hidden++, zero &= buf[k->arg[j].offset + b] == 0;
    tap_ok(zero && hidden > 0, "pack v4: hsp_bound's %d hidden arguments (%d bytes) zero", k->nargs - k->nexplicit,
           hidden);
}

/* A code-object-v5 layout (our objects are v4): a buffer and a value, then
 * hidden arguments where v5 puts them after explicit ones ending at 16; the
 * pointers from the runtime (88 to 136), which packing refuses, left out. */
static const hsp_karg v5_args[] = {
    {HSP_KARG_GLOBAL_BUFFER, 0, 8, 0}, {HSP_KARG_BY_VALUE, 8, 4, 0}, {HSP_KARG_HIDDEN_BLOCK_COUNT_X, 16, 4, 0},
    {HSP_KARG_HIDDEN_BLOCK_COUNT_Y, 20, 4, 0}, {HSP_KARG_HIDDEN_BLOCK_COUNT_Z, 24, 4, 0},
    {HSP_KARG_HIDDEN_GROUP_SIZE_X, 28, 2, 0}, {HSP_KARG_HIDDEN_GROUP_SIZE_Y, 30, 2, 0},
    {HSP_KARG_HIDDEN_GROUP_SIZE_Z, 32, 2, 0}, {HSP_KARG_HIDDEN_REMAINDER_X, 34, 2, 0},
    {HSP_KARG_HIDDEN_REMAINDER_Y, 36, 2, 0}, {HSP_KARG_HIDDEN_REMAINDER_Z, 38, 2, 0},
    {HSP_KARG_HIDDEN_GLOBAL_OFFSET_X, 56, 8, 0}, {HSP_KARG_HIDDEN_GLOBAL_OFFSET_Y, 64, 8, 0},
    {HSP_KARG_HIDDEN_GLOBAL_OFFSET_Z, 72, 8, 0}, {HSP_KARG_HIDDEN_GRID_DIMS, 80, 2, 0},
    {HSP_KARG_HIDDEN_NONE, 136, 8, 0},
};

/* The little-endian number of size bytes at p. */
static uint32_t load(const unsigned char *p, int size)
{
    uint32_t x = 0;
    for (int b = size - 1; b >= 0; b--) x = x << 8 | p[b];
    return x;
}

/* Packing fills the v5 dispatch shape (x given, y and z 1, no remainders, one
 * dimension) at its widths, and zeroes the global offsets and hidden_none. */
static void test_pack_v5(void)
{
    const hsp_kernel_info k = {"v5", "v5.kd", 144, 8, 0, 0, 1024, 64, sizeof v5_args / sizeof v5_args[0], 2, v5_args};
    uint64_t ptr = 0x7f0012345678;
    int32_t count = -3;
    hsp_kernarg_value v[2] = {{&ptr, 8}, {&count, 4}};
    unsigned char buf[144];
    uint32_t group = 1;
    memset(buf, 0xee, sizeof buf);
    int ok = hsp_kernarg_pack(&k, v, 2, 100000, 1000, buf, &group) == HSP_OK && group == 0;
    tap_ok(ok && !memcmp(buf, &ptr, 8) && !memcmp(buf + 8, &count, 4), "pack v5: the explicit arguments in place");
    tap_ok(ok && load(buf + 16, 4) == 100000 && load(buf + 20, 4) == 1 && load(buf + 24, 4) == 1,
           "pack v5: block counts %u, %u, %u (u32)", load(buf + 16, 4), load(buf + 20, 4), load(buf + 24, 4));
    tap_ok(ok && load(buf + 28, 2) == 1000 && load(buf + 30, 2) == 1 && load(buf + 32, 2) == 1,
           "pack v5: group sizes %u, %u, %u (u16)", load(buf + 28, 2), load(buf + 30, 2), load(buf + 32, 2));
    tap_ok(ok && load(buf + 80, 2) == 1, "pack v5: grid dims %u", load(buf + 80, 2));
    int zero = ok;
    for (int b = 12; b < 144; b++) zero &= (b >= 16 && b < 34) || (b >= 80 && b < 82) || buf[b] == 0;
    tap_ok(zero, "pack v5: remainders, global offsets, hidden_none and padding zero");
}

/* The hidden arguments that need a pointer from the runtime, by kind and name. */
static const struct {
    hsp_karg_kind kind;
    const char *name;
} runtime_kinds[] = {
    {HSP_KARG_HIDDEN_PRINTF_BUFFER, "hidden_printf_buffer"},
    {HSP_KARG_HIDDEN_HOSTCALL_BUFFER, "hidden_hostcall_buffer"},
    {HSP_KARG_HIDDEN_DEFAULT_QUEUE, "hidden_default_queue"},
    {HSP_KARG_HIDDEN_COMPLETION_ACTION, "hidden_completion_action"},
    {HSP_KARG_HIDDEN_MULTIGRID_SYNC_ARG, "hidden_multigrid_sync_arg"},
    {HSP_KARG_HIDDEN_HEAP_V1, "hidden_heap_v1"},
};

/* Packing refuses a layout with a hidden argument that needs a pointer from
 * the runtime (a buffer, then one such argument), naming the kernel and kind. */
static void test_pack_runtime_kinds(void)
{
    uint64_t ptr = 0x7f0012345678;
    hsp_kernarg_value v[1] = {{&ptr, 8}};
    unsigned char buf[16];
    uint32_t group = 0;
    for (size_t r = 0; r < sizeof runtime_kinds / sizeof runtime_kinds[0]; r++) {
        const hsp_karg args[] = {{HSP_KARG_GLOBAL_BUFFER, 0, 8, 0}, {runtime_kinds[r].kind, 8, 8, 0}};
        const hsp_kernel_info k = {"needy", "needy.kd", 16, 8, 0, 0, 1024, 64, 2, 1, args};
        hsp_status s = hsp_kernarg_pack(&k, v, 1, 100, 256, buf, &group);
        tap_ok(s == HSP_ERR_UNSUPPORTED && strstr(hsp_errmsg(), "kernel needy") &&
                   strstr(hsp_errmsg(), runtime_kinds[r].name),
               "pack: %s refused: %s", runtime_kinds[r].name, s == HSP_OK ? "packed" : hsp_errmsg());
    }
}

/* The code object image of co with the first from in its metadata renamed
 * to, a string of the same length (msgpack gives a string's length before
 * it, so the metadata stays well formed); NULL when there is no from. */
static unsigned char *renamed_image(const hsp_code_object *co, const char *from, const char *to, size_t *size)
{
    size_t len = strlen(from);
    unsigned char *image, *at;
    *size = (size_t)(co->end - co->start);
    if (strlen(to) != len || !(image = malloc(*size))) return NULL;
    memcpy(image, co->start, *size);
    if ((at = memmem(image, *size, from, len))) memcpy(at, to, len);
    return at ? image : (free(image), NULL);
}

/* Write bytes to path; nonzero when done. */
static int write_file(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(bytes, 1, size, f) == size;
    return (f && fclose(f) == 0) && ok;
}

/* src/device/hsa/layouts run on image as both of co's target's objects: its exit
 * status, and what it said into out. */
static int run_tool(const hsp_code_object *co, const unsigned char *image, size_t size, char *out, size_t len)
{
    char dir[] = "/tmp/t_hsa_code.XXXXXX", path[2][96], cmd[512];
    const char *builddir = getenv("top_builddir");
    int status = -1, written = 1;
    if (!mkdtemp(dir)) return -1;
    for (int p = 0; p < 2; p++) {
        snprintf(path[p], sizeof path[p], "%s/%s-%s.hsaco", dir, co->target, p ? "double" : "float");
        written &= write_file(path[p], image, size);
    }
    snprintf(cmd, sizeof cmd, "%s/src/device/hsa/layouts %s %s 2>&1 >/dev/null", builddir ? builddir : ".", dir, co->target);
    FILE *p = written ? popen(cmd, "r") : NULL;
    if (p) {
        out[fread(out, 1, len - 1, p)] = '\0';
        status = pclose(p);
    }
    for (int j = 0; j < 2; j++) unlink(path[j]);
    rmdir(dir);
    return status;
}

/* Is msg a refusal naming target, a kernel of ours, kind (quoted) and why? */
static int names_refusal(const char *msg, const char *target, const char *kind, const char *why)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", kind);
    return strstr(msg, target) && strstr(msg, "kernel hsp_") && strstr(msg, quoted) && strstr(msg, why);
}

/* With the first from in co's metadata renamed kind, the reading fails, and so
 * the build tool, naming the target, the kernel, the kind and why. */
static void check_kind_refused(const hsp_code_object *co, const char *from, const char *kind, const char *why)
{
    hsp_kernel_meta *read = NULL;
    int n = 0;
    char out[1024] = "";
    size_t size;
    unsigned char *image = renamed_image(co, from, kind, &size);
    if (!tap_ok(image != NULL, "%s: an image with %s for %s", kind, kind, from)) return;
    hsp_status s = hsp_kernel_meta_read(image, size, co->target, &read, &n);
    tap_ok(s == HSP_ERR_UNSUPPORTED && !read && names_refusal(hsp_errmsg(), co->target, kind, why), "%s refused: %s",
           kind, s == HSP_OK ? "read" : hsp_errmsg());
    int status = run_tool(co, image, size, out, sizeof out);
    tap_ok(status != 0 && status != -1 && names_refusal(out, co->target, kind, why),
           "src/device/hsa/layouts fails on %s (status %d): %.*s", kind, status, (int)strcspn(out, "\n"), out);
    free(image);
}

/* An argument kind the packing does not know, or one that needs a pointer
 * from the runtime, stops the reading and the build tool. */
static void test_refused_kinds(const hsp_code_object *co)
{
    check_kind_refused(co, "hidden_none", "hidden_nope", "does not know how to fill");
    check_kind_refused(co, "hidden_global_offset_x", "hidden_hostcall_buffer", "the hsa device does not provide");
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

/* A dispatch packet for hsp_esc, built without a GPU. */
static void test_packets(const hsp_code_object *co)
{
    const hsp_kernel_info *k = hsp_kernel_find(co, "hsp_esc");
    hsa_kernel_dispatch_packet_t d;
    hsa_signal_t done = {0x1234};
    char kernarg[256];
    if (!tap_ok(k != NULL, "packets: hsp_esc's layout found")) return;
    memset(&d, 0xff, sizeof d);
    hsp_aql_dispatch(&d, k, 0xabc000, kernarg, 100, 256, 7168, done);
    tap_ok(d.header == 0xffff && d.setup == 0xffff, "packets: header and setup untouched until published");
    uint16_t header = hsp_aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, 1, HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_AGENT);
    hsp_aql_publish(&d, header, 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    tap_ok((d.header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH && (d.header >> 8 & 1) == 1 &&
               (d.header >> 9 & 3) == HSA_FENCE_SCOPE_SYSTEM && (d.header >> 11 & 3) == HSA_FENCE_SCOPE_AGENT &&
               d.setup == 1,
           "packets: dispatch header 0x%04x (type 2, barrier, system acquire, agent release), 1 dimension", d.header);
    tap_ok(d.workgroup_size_x == 256 && d.workgroup_size_y == 1 && d.workgroup_size_z == 1 &&
               d.grid_size_x == 25600 && d.grid_size_y == 1 && d.grid_size_z == 1,
           "packets: 100 groups of 256: grid 25600 x 1 x 1");
    tap_ok(d.group_segment_size == 7168 && d.private_segment_size == k->private_fixed &&
               d.kernel_object == 0xabc000 && d.kernarg_address == kernarg && d.completion_signal.handle == 0x1234 &&
               d.reserved0 == 0 && d.reserved2 == 0,
           "packets: segments, kernel object, arguments, signal; reserved fields zero");
}

/* No /dev/kfd (every machine here): the hsa device is refused, saying why,
 * and finds no agent. */
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
    test_shared_args();
    test_match();
    test_pack_v5();
    test_pack_runtime_kinds();
    if (hsp_ncode_objects) {
        test_find(&hsp_code_objects[0]);
        test_pack(&hsp_code_objects[0]);
        test_pack_v4_hidden(&hsp_code_objects[0]);
        test_refused_kinds(&hsp_code_objects[0]);
        test_packets(&hsp_code_objects[0]);
    }
    test_no_gpu();
    return tap_done();
}
