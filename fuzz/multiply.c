/* fuzz/multiply.c: products of small matrices decoded from the bytes,
 * against the reference product (tests/ref.c).
 *
 * Bytes 0-3 give A's rows, A's columns (= B's rows), B's columns (1..48
 * each) and a choice: the context (per-row methods and grow mode, from a
 * fixed list), the precision, and whether A is taken raw.  The rest are
 * entries of 3 bytes: row, column, value (a signed byte / 16), A's first.
 * Raw, A's row pointers and columns are the bytes as they come, checked by
 * hsp_csr_check, which must refuse what is not CSR; else entries go through
 * hsp_csr_from_triplets (any order, duplicates summed).  The contexts use a
 * wavefront of 4 and 512 bytes of local memory, so that rows of a few
 * products already fall in every group, and long rows start with a buffer
 * of 4 entries, so that they grow. */
#include <string.h>
#include "fuzz.h"

enum { MAX_DIM = 48 };

static const char *const method_sets[][3] = {
    {"dense", "dense", "dense"}, {"heap", "esc", "merge"}, {"hash", "hash", "dense"},
    {"auto", "auto", "auto"},    {"esc", "merge", "hash"}, {"merge", "heap", "esc"},
};
enum { NSETS = sizeof method_sets / sizeof method_sets[0] };

static hsp_method method_of(const char *name)
{
    for (int m = HSP_METHOD_HEAP; m <= HSP_METHOD_AUTO; m++)
        if (!strcmp(hsp_method_name((hsp_method)m), name)) return (hsp_method)m;
    fuzz_fail("no method %s", name);
}

/* Context k: method set k / 2, grow mode k % 2; made at its first use. */
static hsp_context *context(int k)
{
    static hsp_context *ctx[2 * NSETS];
    if (ctx[k]) return ctx[k];
    hsp_options o;
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 2, o.grow = k % 2 ? HSP_GROW_COPY : HSP_GROW_REALLOC;
    o.wavefront = 4, o.local_mem = 512, o.grow_start = 4;
    for (int g = 0; g < 3; g++) o.method[g] = method_of(method_sets[k / 2][g]);
    if (hsp_context_create(&o, &ctx[k]) != HSP_OK) fuzz_fail("no context: %s", hsp_errmsg());
    return ctx[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    int32_t m = 1 + data[0] % MAX_DIM, k = 1 + data[1] % MAX_DIM, n = 1 + data[2] % MAX_DIM;
    int choice = data[3], is_raw = choice & 1;
    hsp_precision p = choice & 2 ? HSP_FLOAT : HSP_DOUBLE;
    int64_t entries = (int64_t)(size - 4) / 3, na = entries / 2;
    hsp_csr *A = is_raw ? fuzz_raw_csr(m, k, data + 4, na, p) : fuzz_entries_csr(m, k, data + 4, na, p);
    hsp_csr *B = fuzz_entries_csr(k, n, data + 4 + 3 * na, entries - na, p);
    if (is_raw && hsp_csr_check(A) != HSP_OK) {
        hsp_csr *C = (hsp_csr *)A;
        if (hsp_multiply(context(0), A, B, &C, NULL) != HSP_ERR_INVALID_CSR || C)
            fuzz_fail("an invalid A was multiplied");
    } else {
        double *mag = NULL;
        hsp_csr *C = NULL, *ref = ref_multiply(A, B, &mag);
        if (!ref) fuzz_fail("no memory for the reference");
        hsp_status s = hsp_multiply(context((choice >> 2) % (2 * NSETS)), A, B, &C, NULL);
        char why[256];
        if (s != HSP_OK) fuzz_fail("the product failed: %s", hsp_errmsg());
        if (!ref_compare(C, ref, mag, why, sizeof why)) fuzz_fail("the product differs from the reference: %s", why);
        hsp_csr_free(C), hsp_csr_free(ref), free(mag);
    }
    hsp_csr_free(A), hsp_csr_free(B);
    return 0;
}
