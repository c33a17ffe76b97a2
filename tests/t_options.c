/* t_options.c: the option table (src/options.def, hsp_option_table) against
 * hsp_options: every member listed, in order; hsp_context_create's checks
 * of each range in the table's words; the size members of hsp_options and
 * hsp_stats (issue 58). */
#include <stdalign.h>
#include <stdio.h>
#include <string.h>
#include "hspgemm.h"
#include "tap.h"

/* Bytes and alignment of an option of kind k. */
static size_t kind_size(hsp_option_kind k, size_t *align)
{
    static const size_t size[] = {
        [HSP_OPTION_TEXT] = sizeof(const char *), [HSP_OPTION_INT] = sizeof(int),
        [HSP_OPTION_INT64] = sizeof(int64_t),     [HSP_OPTION_BYTES] = sizeof(int64_t),
        [HSP_OPTION_REAL] = sizeof(double),       [HSP_OPTION_FLAG] = sizeof(int),
        [HSP_OPTION_GROW] = sizeof(hsp_grow),     [HSP_OPTION_METHODS] = sizeof(hsp_method[HSP_NMETHODGROUPS])};
    *align = k == HSP_OPTION_METHODS ? alignof(hsp_method) : size[k];
    return size[k];
}

/* Does the table list every member of hsp_options after size, in order, each
 * where its kind's alignment puts it after the one before (a member left
 * out leaves a gap)? */
static void every_member(const hsp_option_info *t, int n)
{
    size_t end = sizeof(size_t), align, size;
    int k = 0;
    for (; k < n; k++) {
        size = kind_size(t[k].kind, &align);
        if (t[k].offset != (end + align - 1) / align * align) break;
        end = t[k].offset + size;
    }
    tap_ok(k == n && sizeof(hsp_options) - end < alignof(hsp_options), "the table lists hsp_options' %d members "
           "after size, in order, with no gap (%s)", n, k < n ? t[k].name : "the struct's end");
}

/* o with option t set to x (a number of its kind). */
static hsp_options with(const hsp_option_info *t, double x)
{
    hsp_options o;
    hsp_options_init(&o);
    void *p = (char *)&o + t->offset;
    if (t->kind == HSP_OPTION_INT) *(int *)p = (int)x;
    else if (t->kind == HSP_OPTION_REAL) *(double *)p = x;
    else *(int64_t *)p = (int64_t)x;
    return o;
}

/* Each checked option: its default and ends taken, a value past its range
 * refused with "member = VALUE: give GIVE". */
static void ranges(const hsp_option_info *t, int n)
{
    for (int k = 0; k < n; k++) {
        if (!t[k].give) continue;
        hsp_options o = with(&t[k], t[k].lo), p = with(&t[k], t[k].hi < 1e18 ? t[k].hi : 1e18);
        int ends = hsp_options_check(&o) == HSP_OK && hsp_options_check(&p) == HSP_OK;
        hsp_options bad = with(&t[k], t[k].lo > -1e18 ? t[k].lo - 1 : t[k].hi + 1);
        char want[256];
        snprintf(want, sizeof want, "%s = ", t[k].name);
        hsp_status s = hsp_options_check(&bad);
        tap_ok(ends && s == HSP_ERR_ARG && strstr(hsp_errmsg(), want) && strstr(hsp_errmsg(), t[k].give),
               "%s: %g to %g taken, past them: %s", t[k].name, t[k].lo, t[k].hi, hsp_errmsg());
    }
    hsp_options o;
    hsp_options_init(&o);
    tap_ok(hsp_options_check(&o) == HSP_OK, "the defaults pass the checks");
    o.grow = (hsp_grow)7;
    tap_ok(hsp_options_check(&o) == HSP_ERR_ARG && strstr(hsp_errmsg(), "grow mode 7"), "%s", hsp_errmsg());
    hsp_options_init(&o);
    o.method[1] = HSP_NMETHODS;
    tap_ok(hsp_options_check(&o) == HSP_ERR_ARG && strstr(hsp_errmsg(), "group 4"), "%s", hsp_errmsg());
}

/* hsp_options.size: set by hsp_options_init, refused where unknown; a
 * smaller struct's init writes no further than its size. */
static void sizes(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    tap_ok(o.size == sizeof o, "hsp_options_init sets size (%zu)", o.size);
    o.size = 0;
    hsp_status s = hsp_context_create(&o, &ctx);
    tap_ok(s == HSP_ERR_ARG && !ctx && strstr(hsp_errmsg(), "hsp_options_init"),
           "options of size 0 (not made by hsp_options_init) refused: %s", hsp_errmsg());
    o.size = sizeof o + 8;
    tap_ok(hsp_options_check(&o) == HSP_ERR_ARG && strstr(hsp_errmsg(), "hsp_options.size"),
           "options larger than the library's (a newer header) refused: %s", hsp_errmsg());
    unsigned char bytes[sizeof o + 16];
    memset(bytes, 0xa5, sizeof bytes);
    hsp_options_init_size((hsp_options *)(void *)bytes, 16);
    int kept = 1;
    for (size_t k = 16; k < sizeof bytes; k++) kept &= bytes[k] == 0xa5;
    tap_ok(kept, "hsp_options_init_size(o, 16) writes 16 bytes, no further");
    hsp_options_init(&o);
    o.device = "cpu", o.threads = 1;
    hsp_csr *A = NULL, *C = NULL;
    hsp_stats st;
    memset(&st, 0, sizeof st);
    s = hsp_context_create(&o, &ctx);
    if (s == HSP_OK) s = hsp_generate("poisson2d5:8", 1, HSP_DOUBLE, &A);
    if (s == HSP_OK) s = hsp_multiply(ctx, A, A, &C, &st);
    tap_ok(s == HSP_OK && st.size == sizeof st, "hsp_multiply sets stats.size (%zu)", st.size);
    hsp_csr_free(C), C = NULL;
    o.bitmap = 1;
    hsp_context *blocked = NULL;
    memset(&st, 0, sizeof st);
    if (s == HSP_OK) s = hsp_context_create(&o, &blocked);
    if (s == HSP_OK) s = hsp_multiply(blocked, A, A, &C, &st);
    tap_ok(s == HSP_OK && st.size == sizeof st, "a product by bitmap blocks sets stats.size (%zu)", st.size);
    hsp_csr_free(A), hsp_csr_free(C);
    hsp_context_free(ctx), hsp_context_free(blocked);
}

int main(void)
{
    int n = 0;
    const hsp_option_info *t = hsp_option_table(&n);
    tap_ok(t && n > 0 && hsp_option_table(NULL) == t, "hsp_option_table lists %d options", n);
    every_member(t, n);
    ranges(t, n);
    sizes();
    return tap_done();
}
