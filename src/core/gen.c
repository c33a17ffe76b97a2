/* gen.c: generated test matrices, deterministic for a seed: Poisson stencils
 * on 2D and 3D grids, PyAMG's rotated anisotropic diffusion and 2D linear
 * elasticity (Q1 elements), R-MAT graphs, uniformly random rows and bands. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"

enum { MAX_ARGS = 2 };

/* splitmix64: small, fast and good enough for test matrices. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double uniform(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * 0x1.0p-53;
}

/* Check that rows x per_row entries fit, and allocate. */
static hsp_status make_matrix(int64_t rows, int64_t cols, int64_t max_nnz, hsp_precision p,
                              hsp_csr **out)
{
    if (rows > INT32_MAX || cols > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "%lld x %lld is over the 2^31-1 rows or columns of hsp_csr",
                        (long long)rows, (long long)cols);
    return hsp_csr_create((int32_t)rows, (int32_t)cols, max_nnz, p, out);
}

/* The 2D or 3D grid Laplacian: 5/9-point (dim 2) or 7/27-point (dim 3); full
 * takes all neighbours of the 3^dim box, else only the face neighbours. */
static hsp_status stencil(int dim, int full, const int64_t *arg, uint64_t seed, hsp_precision p,
                          hsp_csr **out)
{
    int64_t n = arg[0], n3 = dim == 3 ? n : 1, rows = n * n * n3;
    int per_row = full ? (dim == 3 ? 27 : 9) : 2 * dim + 1;
    (void)seed;
    if (n > 50000 || rows > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "a grid of side %lld has too many rows", (long long)n);
    hsp_status s = make_matrix(rows, rows, rows * per_row, p, out);
    if (s != HSP_OK) return s;
    hsp_csr *A = *out;
    int64_t k = 0;
    for (int64_t z = 0; z < n3; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                for (int64_t dz = -(dim == 3); dz <= (dim == 3); dz++)
                    for (int64_t dy = -1; dy <= 1; dy++)
                        for (int64_t dx = -1; dx <= 1; dx++) {
                            int64_t X = x + dx, Y = y + dy, Z = z + dz;
                            int far = (dx != 0) + (dy != 0) + (dz != 0);
                            if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n3) continue;
                            if (!full && far > 1) continue;
                            A->colidx[k] = (int32_t)((Z * n + Y) * n + X);
                            hsp_csr_set_value(A, k++, far ? -1.0 : per_row - 1.0);
                        }
                A->rowptr[(z * n + y) * n + x + 1] = k;
            }
    A->nnz = k;
    return HSP_OK;
}

static hsp_status poisson2d5(const int64_t *a, uint64_t s, hsp_precision p, hsp_csr **o)
{
    return stencil(2, 0, a, s, p, o);
}
static hsp_status poisson2d9(const int64_t *a, uint64_t s, hsp_precision p, hsp_csr **o)
{
    return stencil(2, 1, a, s, p, o);
}
static hsp_status poisson3d7(const int64_t *a, uint64_t s, hsp_precision p, hsp_csr **o)
{
    return stencil(3, 0, a, s, p, o);
}
static hsp_status poisson3d27(const int64_t *a, uint64_t s, hsp_precision p, hsp_csr **o)
{
    return stencil(3, 1, a, s, p, o);
}

/* Q1 (bilinear) elements on the unit-spaced grid: G[a][b] = the sum over the
 * elements holding node P = (0, 0) and node Q = (dx, dy) of the integral of
 * d_a phi_P * d_b phi_Q (a, b: 0 for x, 1 for y).  phi is a product of 1D hats
 * L0 = 1 - t, L1 = t, whose integrals over [0, 1] are: L_i' L_j' = +-1 (same,
 * other), L_i L_j = 1/3 or 1/6, L_i' L_j = (i ? 1 : -1) / 2. */
static void q1_gradients(int dx, int dy, double G[2][2])
{
    memset(G, 0, 4 * sizeof G[0][0]);
    for (int ex = -1; ex <= 0; ex++)
        for (int ey = -1; ey <= 0; ey++) { /* the element's lower-left node, relative to P */
            int px = -ex, py = -ey, qx = dx - ex, qy = dy - ey; /* local corners, 0 or 1 */
            if (qx < 0 || qx > 1 || qy < 0 || qy > 1) continue;
            double stiff_x = px == qx ? 1 : -1, stiff_y = py == qy ? 1 : -1;
            double mass_x = px == qx ? 1.0 / 3 : 1.0 / 6, mass_y = py == qy ? 1.0 / 3 : 1.0 / 6;
            double slope_px = px ? 0.5 : -0.5, slope_qx = qx ? 0.5 : -0.5;
            double slope_py = py ? 0.5 : -0.5, slope_qy = qy ? 0.5 : -0.5;
            G[0][0] += stiff_x * mass_y;
            G[1][1] += mass_x * stiff_y;
            G[0][1] += slope_px * slope_qy; /* int L_px' L_qx dx * int L_py L_qy' dy */
            G[1][0] += slope_qx * slope_py;
        }
}

/* The grid of side n whose nodes each hold dofs rows (1 or 2) and couple to
 * their 3x3 neighbours by the dofs x dofs block value(dx, dy, block): every
 * block of a neighbour inside the grid is stored whole, exact zeros too (as
 * PyAMG's stencil_grid drops none of a nonzero stencil, and its BSR matrices
 * keep whole blocks); x_fast: node (x, y) is row y n + x, else x n + y. */
static hsp_status node_grid(int64_t n, int dofs, int x_fast, void (*value)(int, int, double *),
                            hsp_precision p, hsp_csr **out)
{
    int64_t rows = n * n * dofs;
    if (n > 30000) return hsp_fail(HSP_ERR_OVERFLOW, "a grid of side %lld has too many rows", (long long)n);
    hsp_status s = make_matrix(rows, rows, rows * 9 * dofs, p, out);
    if (s != HSP_OK) return s;
    hsp_csr *A = *out;
    double block[9][4];
    for (int d = 0; d < 9; d++) value(d / 3 - 1, d % 3 - 1, block[d]); /* d: (dx + 1) * 3 + dy + 1 */
    int64_t k = 0;
    for (int64_t slow = 0; slow < n; slow++)
        for (int64_t fast = 0; fast < n; fast++)
            for (int r = 0; r < dofs; r++) {
                for (int64_t ds = -1; ds <= 1; ds++)
                    for (int64_t df = -1; df <= 1; df++) {
                        if (slow + ds < 0 || slow + ds >= n || fast + df < 0 || fast + df >= n) continue;
                        int64_t dx = x_fast ? df : ds, dy = x_fast ? ds : df, node = (slow + ds) * n + fast + df;
                        for (int c = 0; c < dofs; c++) {
                            A->colidx[k] = (int32_t)(node * dofs + c);
                            hsp_csr_set_value(A, k++, block[(dx + 1) * 3 + dy + 1][r * dofs + c]);
                        }
                    }
                A->rowptr[(slow * n + fast) * dofs + r + 1] = k;
            }
    A->nnz = k;
    return HSP_OK;
}

/* PyAMG's rotated anisotropic diffusion, -div Q diag(1, eps) Q^T grad u with
 * Q the rotation by theta, by Q1 elements (diffusion_stencil_2d(epsilon, theta,
 * type='FE') on stencil_grid((N, N))): eps 0.001 and theta pi/3, the values of
 * PyAMG's examples (Examples/Diffusion/demo_anisotropic_convergence.py). */
static void aniso_value(int dx, int dy, double *v)
{
    const double eps = 0.001, c = cos(M_PI / 3), s = sin(M_PI / 3);
    double G[2][2], kxx = c * c + eps * s * s, kyy = s * s + eps * c * c, kxy = (1 - eps) * c * s;
    q1_gradients(dx, dy, G);
    v[0] = kxx * G[0][0] + kxy * (G[0][1] + G[1][0]) + kyy * G[1][1];
}
static hsp_status aniso2d(const int64_t *a, uint64_t seed, hsp_precision p, hsp_csr **o)
{
    (void)seed;
    return node_grid(a[0], 1, 0, aniso_value, p, o);
}

/* PyAMG's linear_elasticity((N, N)): plane strain by Q1 elements on the N x N
 * interior nodes of a unit grid clamped at its edges, E 1e5, nu 0.3 (its
 * defaults); 2 rows a node (u_x, u_y).  Row (node P, a), column (node Q, b):
 * the integral of lambda d_a phi_P d_b phi_Q + mu (delta_ab grad phi_P . grad
 * phi_Q + d_b phi_P d_a phi_Q). */
static void elasticity_value(int dx, int dy, double *v)
{
    const double E = 1e5, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 + 2 * nu);
    double G[2][2];
    q1_gradients(dx, dy, G);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            v[a * 2 + b] = lambda * G[a][b] + mu * ((a == b) * (G[0][0] + G[1][1]) + G[b][a]);
}
static hsp_status elasticity2d(const int64_t *a, uint64_t seed, hsp_precision p, hsp_csr **o)
{
    (void)seed;
    return node_grid(a[0], 2, 1, elasticity_value, p, o);
}

/* band:N,HALFWIDTH: every |i - j| <= HALFWIDTH, values in [0.5, 1.5). */
static hsp_status band(const int64_t *arg, uint64_t seed, hsp_precision p, hsp_csr **out)
{
    int64_t n = arg[0], w = arg[1] < arg[0] ? arg[1] : arg[0] - 1, nnz;
    if (hsp_mul_overflows(n, 2 * w + 1, &nnz) || nnz > ((int64_t)1 << 40))
        return hsp_fail(HSP_ERR_OVERFLOW, "band:%lld,%lld has too many entries", (long long)n,
                        (long long)arg[1]);
    hsp_status s = make_matrix(n, n, nnz, p, out);
    if (s != HSP_OK) return s;
    hsp_csr *A = *out;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = i - w < 0 ? 0 : i - w; j <= i + w && j < n; j++) {
            A->colidx[k] = (int32_t)j;
            hsp_csr_set_value(A, k++, 0.5 + uniform(&seed));
        }
        A->rowptr[i + 1] = k;
    }
    A->nnz = k;
    return HSP_OK;
}

/* Build from triplets with values in [0.5, 1.5), summing duplicates. */
static hsp_status from_triplets(int64_t n, int64_t count, int32_t *r, int32_t *c, uint64_t *seed,
                                hsp_precision p, hsp_csr **out)
{
    double *v = malloc((size_t)(count ? count : 1) * sizeof *v);
    if (!v) return hsp_fail(HSP_ERR_NOMEM, "no memory for %lld generated entries", (long long)count);
    for (int64_t k = 0; k < count; k++) v[k] = 0.5 + uniform(seed);
    hsp_status s = hsp_csr_from_double_triplets((int32_t)n, (int32_t)n, count, r, c, v, p, out);
    free(v);
    return s;
}

/* Space for count triplets. */
static hsp_status triplet_arrays(int64_t count, int32_t **r, int32_t **c)
{
    *r = malloc((size_t)(count ? count : 1) * sizeof **r);
    *c = malloc((size_t)(count ? count : 1) * sizeof **c);
    if (*r && *c) return HSP_OK;
    free(*r), free(*c);
    return hsp_fail(HSP_ERR_NOMEM, "no memory for %lld generated entries", (long long)count);
}

/* rmat:SCALE,EDGEFACTOR: R-MAT with the Graph500 probabilities. */
static hsp_status rmat(const int64_t *arg, uint64_t seed, hsp_precision p, hsp_csr **out)
{
    int64_t scale = arg[0], n = (int64_t)1 << (scale > 30 ? 30 : scale), count;
    if (scale < 1 || scale > 30 || hsp_mul_overflows(n, arg[1], &count) || count > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "rmat:%lld,%lld: SCALE must be 1..30 and the edges "
                        "fewer than 2^31", (long long)scale, (long long)arg[1]);
    int32_t *r, *c;
    hsp_status s = triplet_arrays(count, &r, &c);
    if (s != HSP_OK) return s;
    for (int64_t e = 0; e < count; e++) {
        int64_t i = 0, j = 0;
        for (int64_t bit = n >> 1; bit; bit >>= 1) {
            double x = uniform(&seed); /* a = .57, b = .19, c = .19, d = .05 */
            if (x >= 0.57 && x < 0.76) j |= bit;
            else if (x >= 0.76 && x < 0.95) i |= bit;
            else if (x >= 0.95) i |= bit, j |= bit;
        }
        r[e] = (int32_t)i, c[e] = (int32_t)j;
    }
    s = from_triplets(n, count, r, c, &seed, p, out);
    free(r), free(c);
    return s;
}

/* random:N,PER_ROW: each row has PER_ROW distinct random columns of N. */
static hsp_status random_rows(const int64_t *arg, uint64_t seed, hsp_precision p, hsp_csr **out)
{
    int64_t n = arg[0], per = arg[1], count;
    if (per > n) /* it took N a row where it could not take more, without a word */
        return hsp_fail(HSP_ERR_ARG, "random:%lld,%lld: %lld distinct columns a row of %lld columns: give PER_ROW <= N",
                        (long long)n, (long long)per, (long long)per, (long long)n);
    if (hsp_mul_overflows(n, per, &count) || count > INT32_MAX || n > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "random:%lld,%lld has too many entries", (long long)n,
                        (long long)arg[1]);
    int32_t *r = NULL, *c = NULL;
    char *used = calloc((size_t)n, 1);
    hsp_status s = used ? triplet_arrays(count, &r, &c)
                        : hsp_fail(HSP_ERR_NOMEM, "no memory for %lld columns", (long long)n);
    if (s != HSP_OK) return free(used), s;
    for (int64_t i = 0, k = 0; i < n; i++) {
        int64_t first = k;
        for (int64_t t = 0; t < per; t++) {
            int64_t j = (int64_t)(next_random(&seed) % (uint64_t)n);
            while (used[j]) j = j + 1 == n ? 0 : j + 1; /* distinct */
            used[j] = 1;
            r[k] = (int32_t)i, c[k++] = (int32_t)j;
        }
        for (int64_t t = first; t < k; t++) used[c[t]] = 0;
    }
    free(used);
    s = from_triplets(n, count, r, c, &seed, p, out);
    free(r), free(c);
    return s;
}

typedef hsp_status (*builder)(const int64_t *, uint64_t, hsp_precision, hsp_csr **);

static const struct {
    const char *name;
    int nargs;
    const char *args;
    builder build;
} kinds[] = {
    {"poisson2d5", 1, "N", poisson2d5},   {"poisson2d9", 1, "N", poisson2d9},
    {"poisson3d7", 1, "N", poisson3d7},   {"poisson3d27", 1, "N", poisson3d27},
    {"aniso2d", 1, "N", aniso2d},         {"elasticity2d", 1, "N", elasticity2d},
    {"rmat", 2, "SCALE,EDGEFACTOR", rmat}, {"random", 2, "N,PER_ROW", random_rows},
    {"band", 2, "N,HALFWIDTH", band},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* Parse "A[,B]" after the colon into arg; returns the count or -1. */
static int parse_args(const char *text, int64_t *arg)
{
    int n = 0;
    while (n < MAX_ARGS) {
        char *end;
        if (!isdigit((unsigned char)*text)) return -1;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (errno || v < 1) return -1;
        arg[n++] = v;
        if (*end == '\0') return n;
        if (*end != ',') return -1;
        text = end + 1;
    }
    return -1;
}

hsp_status hsp_generate(const char *spec, uint64_t seed, hsp_precision precision, hsp_csr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_generate: out is NULL");
    *out = NULL;
    if (!spec) return hsp_fail(HSP_ERR_ARG, "hsp_generate: spec is NULL");
    if (precision != HSP_FLOAT && precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "hsp_generate: unknown precision %d", (int)precision);
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    for (int k = 0; k < NKINDS; k++) {
        if (strlen(kinds[k].name) != len || strncmp(spec, kinds[k].name, len)) continue;
        int64_t arg[MAX_ARGS];
        if (!colon || parse_args(colon + 1, arg) != kinds[k].nargs)
            return hsp_fail(HSP_ERR_ARG, "'%.*s%s': %s takes %d positive whole number%s: %s:%s", HSP_SHOWN(spec),
                            kinds[k].name, kinds[k].nargs, kinds[k].nargs > 1 ? "s" : "",
                            kinds[k].name, kinds[k].args);
        return kinds[k].build(arg, seed, precision, out);
    }
    return hsp_fail(HSP_ERR_ARG, "'%.*s%s': unknown generator (poisson2d5, poisson2d9, poisson3d7, "
                    "poisson3d27, aniso2d, elasticity2d, rmat, random, band)", HSP_SHOWN(spec));
}
