/* t_edges.c: the public interface at its edges, as users met them: NULL
 * and out-of-range arguments, matrices that only look valid given to the
 * functions that copy or write them, messages that name the operand at
 * fault, plans that compare patterns rather than addresses, dropping
 * the zeros that cancellation leaves, and tuning's arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ref.h"
#include "tap.h"

static hsp_context *ctx;

static void test_null_and_range(void)
{
    hsp_csr *A = ref_small();
    tap_ok(isnan(hsp_csr_value(NULL, 0)) && strstr(hsp_errmsg(), "NULL"), "hsp_csr_value(NULL, 0) is NaN: %s",
           hsp_errmsg());
    tap_ok(isnan(hsp_csr_value(A, 1000000000)) && strstr(hsp_errmsg(), "entry 1000000000 of 4"),
           "hsp_csr_value(A, 1e9) is NaN: %s", hsp_errmsg());
    tap_ok(isnan(hsp_csr_value(A, -1)) && isnan(hsp_csr_value(A, 4)), "hsp_csr_value(A, -1) and (A, nnz) are NaN");
    tap_ok(hsp_csr_value(A, 3) == 4, "hsp_csr_value(A, nnz - 1) is the last value");
    hsp_options_init(NULL);
    hsp_amg_options_init(NULL);
    tap_ok(1, "hsp_options_init(NULL) and hsp_amg_options_init(NULL) return");
    tap_ok(hsp_context_bins(NULL) == NULL, "hsp_context_bins(NULL) is NULL");
    tap_ok(hsp_context_bins(ctx) && hsp_context_bins(ctx)->nbins > 0, "hsp_context_bins(ctx) is its layout");
    hsp_ellr_info info;
    memset(&info, 0xff, sizeof info);
    hsp_ellr_describe(NULL, &info);
    tap_ok(info.nrows == 0 && info.bytes == 0 && !info.format[0] && strstr(hsp_errmsg(), "NULL"),
           "hsp_ellr_describe(NULL, &info) zeroes info: %s", hsp_errmsg());
    hsp_ellr_describe(NULL, NULL);
    tap_ok(hsp_bitmap_bytes(NULL) == 0 && strstr(hsp_errmsg(), "NULL"), "hsp_bitmap_bytes(NULL) is 0: %s",
           hsp_errmsg());
    hsp_csr_free(A);
}

/* convert and write refuse A once *slot holds bad, naming text; A as it was. */
static void refuse_broken(hsp_csr *A, int32_t *col, int64_t *ptr, int64_t bad, const char *what, const char *text)
{
    int64_t keep = col ? *col : *ptr;
    if (col) *col = (int32_t)bad;
    else *ptr = bad;
    hsp_csr *B = NULL;
    tap_ok(hsp_csr_convert(A, HSP_FLOAT, &B) == HSP_ERR_INVALID_CSR && !B && strstr(hsp_errmsg(), text),
           "hsp_csr_convert refuses %s: %s", what, hsp_errmsg());
    char path[] = "/tmp/hsp_edges_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    FILE *f = fopen(path, "w");
    if (f) fputs("before\n", f), fclose(f);
    char line[16] = "";
    hsp_status s = hsp_mm_write(path, A);
    f = fopen(path, "r");
    if (f && !fgets(line, sizeof line, f)) line[0] = 0;
    if (f) fclose(f);
    tap_ok(s == HSP_ERR_INVALID_CSR && strstr(hsp_errmsg(), text) && !strcmp(line, "before\n"),
           "hsp_mm_write refuses %s, the file untouched: %s", what, hsp_errmsg());
    tap_ok(col ? *col == bad : *ptr == bad, "the matrix with %s is left as it was", what);
    remove(path);
    hsp_csr_free(B);
    if (col) *col = (int32_t)keep;
    else *ptr = keep;
}

static void test_copies_check(void)
{
    hsp_csr *A = ref_small(), *B = NULL, *back = NULL;
    refuse_broken(A, NULL, &A->rowptr[1], 3, "row pointers not monotone", "not monotone");
    refuse_broken(A, &A->colidx[3], NULL, 4, "a column out of range", "column 4 out of range");
    refuse_broken(A, &A->colidx[1], NULL, 0, "a duplicate column in a sorted row", "duplicate column 0");
    int32_t c[] = {3, 0, 1};
    double v[] = {1, 2, 3};
    hsp_csr *D = NULL;
    hsp_csr_create(1, 4, 3, HSP_DOUBLE, &D);
    memcpy(D->colidx, c, sizeof c), memcpy(D->values, v, sizeof v);
    refuse_broken(D, &D->colidx[2], NULL, 3, "a duplicate column in an unsorted row", "duplicate column 3");
    A->colidx[0] = 2, A->colidx[1] = 0; /* row 0 unsorted, as options.unsorted leaves a C */
    tap_ok(hsp_csr_convert(A, HSP_FLOAT, &B) == HSP_OK && B->colidx[0] == 2 && B->colidx[1] == 0 &&
               ((float *)B->values)[1] == 2,
           "hsp_csr_convert copies an unsorted row as it is");
    char path[] = "/tmp/hsp_edges_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    tap_ok(hsp_mm_write(path, A) == HSP_OK && hsp_mm_read(path, HSP_DOUBLE, 0, &back) == HSP_OK &&
               back->nnz == 4 && back->colidx[0] == 0 && hsp_csr_value(back, 0) == 2,
           "hsp_mm_write writes an unsorted row; it reads back sorted");
    remove(path);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(D), hsp_csr_free(back);
}

/* hsp_rap(R, A, P) fails with status and a message holding text. */
static void rap_refused(const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_status status, const char *text,
                        const char *what)
{
    hsp_csr *C = NULL;
    hsp_status s = hsp_rap(ctx, R, A, P, HSP_RAP_R_AP, &C, NULL, NULL);
    tap_ok(s == status && !C && strstr(hsp_errmsg(), text), "hsp_rap: %s: %s", what, hsp_errmsg());
}

static void test_rap_messages(void)
{
    hsp_csr *A = NULL, *P = ref_random(400, 50, 1, 3, HSP_DOUBLE, 3), *Pshort = ref_random(100, 50, 1, 3, HSP_DOUBLE, 4);
    hsp_csr *R = ref_random(50, 400, 1, 9, HSP_DOUBLE, 5), *Rwide = ref_random(50, 401, 1, 9, HSP_DOUBLE, 6);
    hsp_generate("poisson2d5:20", 1, HSP_DOUBLE, &A);
    rap_refused(NULL, A, Pshort, HSP_ERR_SHAPE, "A is 400 x 400 but P is 100 x 50", "P with too few rows");
    rap_refused(Rwide, A, P, HSP_ERR_SHAPE, "R is 50 x 401 but A is 400 x 400", "R with too many columns");
    hsp_csr *Awide = ref_random(300, 400, 1, 5, HSP_DOUBLE, 9);
    rap_refused(NULL, Awide, P, HSP_ERR_SHAPE, "R = P^T is 50 x 400 but A is 300 x 400", "R = P^T that does not fit A");
    hsp_csr_free(Awide);
    int32_t keep = R->colidx[0];
    R->colidx[0] = 400;
    rap_refused(R, A, P, HSP_ERR_INVALID_CSR, "R: row 0: column 400 out of range", "an invalid R");
    R->colidx[0] = keep, keep = P->colidx[0], P->colidx[0] = -1;
    rap_refused(R, A, P, HSP_ERR_INVALID_CSR, "P: row 0: column -1", "an invalid P");
    P->colidx[0] = keep;
    hsp_csr *C = NULL;
    hsp_stats st[2];
    tap_ok(hsp_rap(ctx, R, A, P, HSP_RAP_RA_P, &C, NULL, st) == HSP_OK && st[0].nnz_c > 0 &&
               st[1].nnz_c == C->nnz,
           "hsp_rap's stats: the first product's and the second's");
    hsp_csr_free(A), hsp_csr_free(P), hsp_csr_free(Pshort), hsp_csr_free(R), hsp_csr_free(Rwide), hsp_csr_free(C);
}

/* hsp_amg_setup refuses o; the message names name and no other option. */
static void amg_refused(const hsp_amg_options *o, const char *name)
{
    static const char *const names[] = {"theta", "omega", "max_levels", "coarse_size", "order"};
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL;
    hsp_generate("poisson2d5:10", 1, HSP_DOUBLE, &A);
    int ok = hsp_amg_setup(ctx, A, o, &amg) == HSP_ERR_ARG && !amg && strstr(hsp_errmsg(), name);
    for (int k = 0; k < 5; k++) ok = ok && (!strcmp(names[k], name) || !strstr(hsp_errmsg(), names[k]));
    tap_ok(ok, "a bad %s is named alone: %s", name, hsp_errmsg());
    hsp_csr_free(A);
}

static void test_amg_messages(void)
{
    hsp_amg_options o;
    hsp_amg_options_init(&o), o.theta = -0.5, amg_refused(&o, "theta");
    hsp_amg_options_init(&o), o.omega = 0, amg_refused(&o, "omega");
    hsp_amg_options_init(&o), o.max_levels = 0, amg_refused(&o, "max_levels");
    hsp_amg_options_init(&o), o.max_levels = HSP_AMG_MAX_LEVELS + 1, amg_refused(&o, "max_levels");
    hsp_amg_options_init(&o), o.coarse_size = 0, amg_refused(&o, "coarse_size");
    hsp_amg_options_init(&o), o.order = (hsp_rap_order)7, amg_refused(&o, "order");
    /* issue 56: NULL options were refused (hsp_context_create takes them), and a NULL argument left *out as it was */
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL, *given = NULL;
    hsp_generate("poisson2d5:40", 1, HSP_DOUBLE, &A);
    hsp_amg_options_init(&o);
    hsp_status s = hsp_amg_setup(ctx, A, NULL, &amg), d = hsp_amg_setup(ctx, A, &o, &given);
    tap_ok(s == HSP_OK && d == HSP_OK && amg->nlevels == given->nlevels && amg->nlevels > 1,
           "hsp_amg_setup(ctx, A, NULL, &amg) sets up with the default options: %d levels", amg ? amg->nlevels : 0);
    hsp_amg_free(amg), hsp_amg_free(given);
    amg = (hsp_amg *)&amg;
    s = hsp_amg_setup(NULL, A, NULL, &amg);
    tap_ok(s == HSP_ERR_ARG && !amg, "a NULL context is refused, *out set to NULL: %s", hsp_errmsg());
    hsp_resident *rA = NULL;
    s = hsp_place(ctx, A, &rA);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, rA, NULL, &amg);
    tap_ok(s == HSP_OK && amg->nlevels > 1, "hsp_amg_setup_resident(ctx, rA, NULL, &amg): the default options too (%d "
           "levels)", s == HSP_OK ? amg->nlevels : 0);
    hsp_amg_free(amg);
    amg = (hsp_amg *)&amg;
    s = hsp_amg_setup_resident(ctx, NULL, NULL, &amg);
    tap_ok(s == HSP_ERR_ARG && !amg, "hsp_amg_setup_resident of a NULL A is refused, *out set to NULL: %s",
           hsp_errmsg());
    hsp_resident_free(rA);
    hsp_csr_free(A);
}

/* M's values times 1 + k / 8 at entry k mod 8: the same pattern, new values. */
static hsp_csr *revalued(const hsp_csr *M)
{
    hsp_csr *N = NULL;
    hsp_csr_convert(M, M->precision, &N);
    for (int64_t k = 0; N && k < N->nnz; k++) ((double *)N->values)[k] *= 1 + (double)(k % 8) / 8;
    return N;
}

/* A plan of X*Y reused for U*V (patterns of X and Y) gives U*V's product. */
static void reuse_ok(const hsp_csr *X, const hsp_csr *Y, const hsp_csr *U, const hsp_csr *V, const char *what)
{
    hsp_csr *C = NULL;
    hsp_plan *plan = NULL;
    double *mag = NULL;
    hsp_csr *ref = ref_multiply(U, V, &mag);
    char why[256] = "";
    hsp_status s = hsp_multiply_plan(ctx, X, Y, &C, &plan, NULL);
    if (s == HSP_OK) s = hsp_multiply_reuse(ctx, plan, U, V, C);
    int same = s == HSP_OK && ref_compare(C, ref, mag, why, sizeof why);
    tap_ok(same, "a plan made for %s: %s", what, s == HSP_OK ? (same ? "the reference product" : why) : hsp_errmsg());
    hsp_plan_free(plan), hsp_csr_free(C), hsp_csr_free(ref), free(mag);
}

static void test_plan_patterns(void)
{
    hsp_csr *A = ref_random(120, 120, 1, 9, HSP_DOUBLE, 7), *copy = NULL;
    hsp_csr_convert(A, HSP_DOUBLE, &copy);
    hsp_csr *A2 = revalued(A), *A3 = revalued(A2), *B = ref_random(120, 120, 1, 9, HSP_DOUBLE, 8);
    reuse_ok(A, A, A2, A3, "(A, A) reused for (A2, A3) of A's pattern");
    reuse_ok(A, copy, A2, A2, "(A, a copy of A) reused for (A2, A2)");
    hsp_csr *C = NULL;
    hsp_plan *plan = NULL;
    hsp_multiply_plan(ctx, A, A, &C, &plan, NULL);
    tap_ok(hsp_multiply_reuse(ctx, plan, A, B, C) == HSP_ERR_ARG && !strncmp(hsp_errmsg(), "B ", 2),
           "a plan of (A, A) refuses (A, B) of another pattern: %s", hsp_errmsg());
    hsp_plan_free(plan), hsp_csr_free(C);
    hsp_csr_free(A), hsp_csr_free(copy), hsp_csr_free(A2), hsp_csr_free(A3), hsp_csr_free(B);
}

/* Operands of the caller's without entries, their columns and values NULL
 * (as PETSc hands over an empty block): plans made and reused. */
static void test_plan_empty(void)
{
    int64_t rows[5] = {0, 0, 0, 0, 0};
    hsp_csr E = {4, 4, 0, HSP_DOUBLE, rows, NULL, NULL}, *C = NULL, *R = NULL;
    hsp_plan *plan = NULL, *rplan = NULL;
    int ok = hsp_multiply_plan(ctx, &E, &E, &C, &plan, NULL) == HSP_OK && C->nnz == 0 &&
             hsp_multiply_reuse(ctx, plan, &E, &E, C) == HSP_OK &&
             hsp_rap(ctx, NULL, &E, &E, HSP_RAP_R_AP, &R, &rplan, NULL) == HSP_OK && R->nnz == 0 &&
             hsp_rap_reuse(ctx, rplan, NULL, &E, &E, R) == HSP_OK;
    tap_ok(ok, "plans of operands without entries (NULL columns and values) made and reused%s%s", ok ? "" : ": ",
           ok ? "" : hsp_errmsg());
    hsp_plan_free(plan), hsp_plan_free(rplan), hsp_csr_free(C), hsp_csr_free(R);
}

/* A with values of small integers of either sign, so that products cancel. */
static hsp_csr *cancelling(int32_t nrows, int32_t ncols, uint64_t seed)
{
    hsp_csr *A = ref_random(nrows, ncols, 0, 8, HSP_DOUBLE, seed);
    for (int64_t k = 0; k < A->nnz; k++) {
        double v = ((double *)A->values)[k];
        ((double *)A->values)[k] = v < -0.5 ? -2 : v < 0 ? -1 : v < 0.5 ? 1 : 2;
    }
    return A;
}

/* Is C the reference R without its zeros, entry for entry? */
static int is_ref_without_zeros(const hsp_csr *C, const hsp_csr *R)
{
    int64_t k = 0;
    for (int32_t i = 0; i < R->nrows; i++) {
        for (int64_t r = R->rowptr[i]; r < R->rowptr[i + 1]; r++) {
            if (hsp_csr_value(R, r) == 0) continue;
            if (k >= C->nnz || C->colidx[k] != R->colidx[r] || hsp_csr_value(C, k) != hsp_csr_value(R, r)) return 0;
            k++;
        }
        if (C->rowptr[i + 1] != k) return 0;
    }
    return k == C->nnz;
}

static void test_drop_zeros(void)
{
    hsp_options o;
    hsp_context *dropping = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.drop_zeros = 1;
    if (!tap_ok(hsp_context_create(&o, &dropping) == HSP_OK, "a context with drop_zeros")) return;
    hsp_csr *A = cancelling(300, 200, 11), *B = cancelling(200, 250, 12), *ref = ref_multiply(A, B, NULL);
    hsp_csr *kept = NULL, *dropped = NULL;
    hsp_stats st;
    int64_t zeros = 0;
    for (int64_t k = 0; k < ref->nnz; k++) zeros += hsp_csr_value(ref, k) == 0;
    tap_ok(zeros > 0 && hsp_multiply(ctx, A, B, &kept, NULL) == HSP_OK && kept->nnz == ref->nnz,
           "by default the %lld entries that cancel to 0 stay in C (%lld entries)", (long long)zeros,
           (long long)ref->nnz);
    tap_ok(hsp_multiply(dropping, A, B, &dropped, &st) == HSP_OK && is_ref_without_zeros(dropped, ref) &&
               st.nnz_c == ref->nnz - zeros && hsp_csr_check(dropped) == HSP_OK,
           "with drop_zeros C is the reference without them (%lld entries), stats.nnz_c too",
           (long long)(ref->nnz - zeros));
    hsp_csr *S = cancelling(200, 200, 13), *P = cancelling(200, 40, 14), *G = NULL, *T = NULL;
    hsp_csr *SP = ref_multiply(S, P, NULL);
    hsp_transpose(P, &T);
    hsp_csr *Gref = ref_multiply(T, SP, NULL);
    tap_ok(hsp_rap(dropping, NULL, S, P, HSP_RAP_R_AP, &G, NULL, NULL) == HSP_OK && is_ref_without_zeros(G, Gref),
           "hsp_rap with drop_zeros: P^T S P without its zeros");
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(ref), hsp_csr_free(kept), hsp_csr_free(dropped);
    hsp_csr_free(S), hsp_csr_free(P), hsp_csr_free(G), hsp_csr_free(T), hsp_csr_free(SP), hsp_csr_free(Gref);
    hsp_context_free(dropping);
}

/* The stats name the device in full: as long as hsp_devices describes it. */
static void test_device_name(void)
{
    _Static_assert(sizeof ((hsp_stats *)0)->device >= sizeof ((hsp_device_info *)0)->description,
                   "hsp_stats.device holds a device's description");
    hsp_csr *A = ref_random(50, 50, 1, 4, HSP_DOUBLE, 21), *C = NULL;
    hsp_stats st;
    hsp_device_info list[16];
    int n = 0;
    hsp_devices(list, 16, &n);
    const char *name = "cpu";
    for (int k = 0; k < n && k < 16; k++)
        if (!strncmp(ref_device(), list[k].name, strlen(list[k].name))) name = list[k].description;
    char model[128];
    snprintf(model, sizeof model, "%s", name);
    if (strstr(model, " (")) *strstr(model, " (") = 0; /* the model, without the platform */
    tap_ok(hsp_multiply(ctx, A, A, &C, &st) == HSP_OK && strstr(st.device, strcmp(model, "CPU threads") ? model : "cpu"),
           "stats name the device in full: '%s' holds '%s'", st.device, model);
    hsp_csr_free(A), hsp_csr_free(C);
}

/* hsp_tune's and the profiles' arguments: what is refused, and the file a
 * context reads by default. */
static void test_tune_edges(void)
{
    hsp_tune_options t;
    hsp_tune_options_init(&t);
    tap_ok(hsp_tune(NULL, &t) == HSP_ERR_ARG && strstr(hsp_errmsg(), "ctx is NULL"), "hsp_tune(NULL) is refused");
    hsp_options o;
    hsp_options_init(&o);
    o.device = "cpu";
    hsp_context *cpu = NULL;
    hsp_status s = hsp_context_create(&o, &cpu);
    tap_ok(s == HSP_OK && hsp_tune(cpu, NULL) == HSP_ERR_UNSUPPORTED && strstr(hsp_errmsg(), "tune a GPU device"),
           "hsp_tune refuses the cpu device: %s", hsp_errmsg());
    t.nmatrices = 2;
    tap_ok(hsp_tune(cpu, &t) == HSP_ERR_ARG && strstr(hsp_errmsg(), "matrices NULL"), "two matrices, none given: %s",
           hsp_errmsg());
    t.nmatrices = 0, t.runs = -1;
    tap_ok(hsp_tune(cpu, &t) == HSP_ERR_ARG && strstr(hsp_errmsg(), "runs = -1"), "runs = -1: %s", hsp_errmsg());
    hsp_context_free(cpu);
    o.profile = "/nonexistent/profile";
    tap_ok(hsp_context_create(&o, &cpu) == HSP_ERR_IO && !cpu && strstr(hsp_errmsg(), "/nonexistent/profile"),
           "a context with a profile that is not there is refused: %s", hsp_errmsg());
    char path[256], tiny[8];
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    tap_ok(hsp_profile_path(NULL, path, sizeof path) && !strcmp(path, "/cfg/hspgemm/profile"),
           "the user's profile: $XDG_CONFIG_HOME/hspgemm/profile");
    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "/home/u", 1);
    tap_ok(hsp_profile_path(NULL, path, sizeof path) && !strcmp(path, "/home/u/.config/hspgemm/profile"),
           "else ~/.config/hspgemm/profile");
    tap_ok(!hsp_profile_path("none", path, sizeof path) && !hsp_profile_path(NULL, tiny, sizeof tiny),
           "\"none\" names no file; nor does a path too long for the buffer");
}

int main(void)
{
    if (!tap_ok((ctx = ref_context()) != NULL, "a context on %s", ref_device())) return tap_done();
    test_null_and_range();
    test_copies_check();
    test_rap_messages();
    test_amg_messages();
    test_plan_patterns();
    test_plan_empty();
    test_drop_zeros();
    test_device_name();
    test_tune_edges();
    hsp_context_free(ctx);
    return tap_done();
}
