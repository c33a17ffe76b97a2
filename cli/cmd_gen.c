/* cmd_gen.c: `hspgemm gen KIND ARGS -o A.mtx`: write a generated matrix. */
#include <string.h>
#include "cli.h"

static const char usage_gen[] =
    "usage: hspgemm gen KIND ARG[,ARG] -o A.mtx [--seed=N] [--precision=float|double]\n"
    "       (also: hspgemm gen KIND ARG ARG -o A.mtx, or hspgemm gen KIND:ARG,ARG -o A.mtx)\n"
    "kinds:\n"
    "  poisson2d5 N, poisson2d9 N     2D Laplacian on an N x N grid (5- or 9-point)\n"
    "  poisson3d7 N, poisson3d27 N    3D Laplacian on an N^3 grid (7- or 27-point)\n"
    "  aniso2d N                      rotated anisotropic diffusion on an N x N grid, Q1 elements,\n"
    "                                 epsilon 0.001, theta pi/3: PyAMG's diffusion_stencil_2d\n"
    "                                 (type 'FE') on stencil_grid((N, N))\n"
    "  elasticity2d N                 2D linear elasticity, PyAMG's linear_elasticity((N, N)):\n"
    "                                 Q1 plane strain, E 1e5, nu 0.3; 2 N^2 rows (u_x, u_y a node)\n"
    "  rmat SCALE,EDGEFACTOR          R-MAT graph, 2^SCALE rows (Graph500 a,b,c = .57,.19,.19)\n"
    "  random N,PER_ROW               N x N, PER_ROW <= N distinct random columns a row\n"
    "  band N,HALFWIDTH               N x N band, |i-j| <= HALFWIDTH\n"
    "Values of rmat, random and band are uniform in [0.5, 1.5), from --seed (default 1).\n";

/* Join KIND and its arguments into "KIND:A,B". */
static int make_spec(const cli_args *a, char *spec, size_t len)
{
    size_t used = (size_t)snprintf(spec, len, "%s", a->operand[0]);
    for (int k = 1; k < a->noperands && used < len; k++)
        used += (size_t)snprintf(spec + used, len - used, "%s%s", k == 1 ? ":" : ",",
                                 a->operand[k]);
    return used < len;
}

int cmd_gen(int argc, char **argv)
{
    cli_args a;
    char spec[256];
    int rc = cli_parse(argc, argv, "o,output,seed,precision,quiet", usage_gen, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands < 1 || !a.output) return cli_usage_error(a.name, "needs a KIND and -o FILE");
    if (!make_spec(&a, spec, sizeof spec)) return cli_usage_error(a.name, "the generator spec is too long");
    hsp_csr *A = NULL;
    hsp_status s = hsp_generate(spec, a.seed, a.precision, &A);
    if (s != HSP_OK) return cli_gen_error(spec, s);
    s = hsp_mm_write(a.output, A);
    if (s == HSP_OK && !a.quiet)
        fprintf(a.report, "%s: %d x %d, nnz %lld -> %s\n", spec, A->nrows, A->ncols, (long long)A->nnz,
                a.output);
    hsp_csr_free(A);
    return s == HSP_OK ? 0 : cli_error(a.output, s);
}
