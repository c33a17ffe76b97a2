/* cmd_amg.c: `hspgemm amg-setup A`: a smoothed-aggregation hierarchy, its
 * table of levels and times, optionally a values-only re-setup and each
 * level's A and P written to a directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

static const char usage_amg[] =
    "usage: hspgemm amg-setup A [OPTIONS]\n"
    "Builds an AMG hierarchy of A (square, nonzero diagonal; smoothed aggregation, or classical\n"
    "by --coarsening), A a Matrix Market file or --gen=KIND:ARG, e.g. --gen=poisson3d27:101, and\n"
    "prints per level the rows, entries, aggregates (C points) and the time of each step; the\n"
    "products run on the device.\n\n"
    "  --strength=classical|symmetric\n"
    "                        classical (default): a_ij is strong when |a_ij| >= theta times\n"
    "                        the largest |a_ik| off the diagonal of row i and of row j (PyAMG's\n"
    "                        classical measure both ways; a zero never); symmetric: when |a_ij|\n"
    "                        >= theta sqrt(|a_ii a_jj|), PyAMG's default for smoothed\n"
    "                        aggregation, over A's stored entries, explicit zeros too\n"
    "  --theta=X             the strength's threshold (default 0.25 classical, 0 symmetric:\n"
    "                        every stored entry; a coarse level's exact zeros are none)\n"
    "  --coarsening=aggregation|classical\n"
    "                        aggregation (default): smoothed aggregation, the options here;\n"
    "                        classical: Ruge-Stueben AMG as hypre's BoomerAMG (-a_ij >= theta\n"
    "                        max_k -a_ik strong, theta 0.25 by default, first-pass C/F\n"
    "                        splitting, extended+i interpolation of at most 4 entries a row;\n"
    "                        --strength, --omega, --aggregation unused; scalar problems only,\n"
    "                        not with --resident on a device with memory of its own)\n"
    "  --aggregation=auto|greedy|parallel\n"
    "                        the roots of the aggregates: greedy in the rows' order (PyAMG's),\n"
    "                        or parallel, in a hashed order that a GPU finds in a few rounds\n"
    "                        (the same aggregates on the CPU threads); auto (default): greedy,\n"
    "                        but parallel where --resident aggregates on a GPU\n"
    "  --omega=X             Jacobi weight of the smoothed prolongator, over a bound of\n"
    "                        rho(D^-1 A) (default 4/3)\n"
    "  --levels=N            at most N levels, the finest included (default 10)\n"
    "  --coarse=N            stop at a level of at most N rows (default 1000)\n"
    "  --order=r-ap|ra-p     the Galerkin products as R*(A*P) (default) or (R*A)*P\n"
    "  --nullspace=B.mtx     near-nullspace candidates (PyAMG's B): a Matrix Market array\n"
    "                        file of A's rows and 1 to 16 columns; none: the constant vector.\n"
    "                        Default: the constant vector, but for --gen=elasticity2d:N the\n"
    "                        3 rigid-body modes of its grid (as PyAMG's linear_elasticity),\n"
    "                        2 rows a node.  With --resident on a GPU its aggregates and T are\n"
    "                        made on the host, the products on the GPU\n"
    "  --block=K             K rows a node (PyAMG's BSR block size; must divide A's rows;\n"
    "                        default 1, 2 for elasticity2d's rigid-body modes)\n"
    "  --float-levels=yes|no yes: where A is double, make the levels from a float copy of its\n"
    "                        values: P, R and the coarse levels float, the products and\n"
    "                        amg-solve's cycles read half the bytes of values (A itself and\n"
    "                        the solve's residuals stay double; not with --resident on a\n"
    "                        GPU); default no\n"
    "  --resetup             then rebuild with the same patterns and new values (A's, each\n"
    "                        times 1.01), computing values only, and print both times\n"
    "  --write-levels=DIR    write A0.mtx, P0.mtx, A1.mtx, ... into DIR (made, with its\n"
    "                        parents, if missing)\n"
    "  --resident            place A on the device first and keep every level there\n"
    "                        (hsp_amg_setup_resident); on a device with memory of its own\n"
    "                        it also aggregates, in the CPU's order by chunks of rows.\n"
    "                        Placing A and bringing the levels home are timed apart;\n"
    "                        with --resetup the re-setup runs there too, values only\n"
    "  --precision=float|double, --seed=N, --quiet   as for 'hspgemm multiply'\n";

static const char allowed[] = "strength,theta,omega,levels,coarse,order,nullspace,block,float-levels,aggregation,"
                              "coarsening,"
                              "resetup,write-levels,device,threads,precision,"
                              "methods,profile,grow,seed,quiet,gen,small-nnz,device-timeout,mem-limit,resident,deterministic";

/* The table of levels; order says where R = P^T was formed. */
static void print_levels(const hsp_amg *amg, hsp_rap_order order, const char *title)
{
    double products = 0, cpu = 0, transpose = 0, device = 0, host = 0, wait = 0;
    printf("%s\n%5s %10s %11s %7s %10s %9s %9s %9s %9s %9s %9s %9s %9s\n", title, "level", "rows", "nnz", "nnz/row",
           "aggregates", "aggr ms", "A*T ms", "P^T ms", "RAP1 ms", "RAP2 ms", "device ms", "beside ms", "wait ms");
    for (int l = 0; l < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        int32_t rows = v->A ? v->A->nrows : 0;
        int64_t nnz = v->A ? v->A->nnz : 0;
        if (!v->A) hsp_resident_shape(v->rA, &rows, NULL, &nnz); /* resident, not home */
        printf("%5d %10d %11lld %7.1f", l, rows, (long long)nnz, rows ? (double)nnz / rows : 0.0);
        if (l + 1 < amg->nlevels)
            printf(" %10d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f", v->naggregates, v->ms_aggregate,
                   v->ms_smooth, v->ms_transpose, v->ms_rap[0], v->ms_rap[1], v->ms_device, v->ms_host, v->ms_wait);
        printf("\n");
        products += v->ms_smooth + v->ms_rap[0] + v->ms_rap[1];
        cpu += v->ms_aggregate, transpose += v->ms_transpose;
        device += v->ms_device, host += v->ms_host, wait += v->ms_wait;
    }
    int on_device = !amg->level[0].A; /* resident, every step on the device */
    printf("total %.2f ms: products (with forming P) %.2f ms, aggregation %.2f ms, ", amg->ms_total, products, cpu);
    if (order == HSP_RAP_R_AP && !on_device) printf("P^T on a thread beside A*P (waited for: %.2f ms)\n", wait);
    else printf("P^T %.2f ms %s\n", transpose, on_device ? "on the device" : "before R*A");
    if (amg->nlevels > 1)
        printf("%s: %.2f ms of the products' stage 3; the CPU threads on bins 0-1 beside it: %.2f ms\n", amg->device,
               device, host);
}

int cli_amg_check_matrix(const hsp_csr *A, const char *command)
{
    if (!A->nrows) {
        fprintf(stderr, "hspgemm: %s: A is 0 x 0: there is no hierarchy to build\n", command);
        return 1;
    }
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t k = A->rowptr[i];
        while (k < A->rowptr[i + 1] && !(A->colidx[k] == i && hsp_csr_value(A, k) != 0)) k++;
        if (k == A->rowptr[i + 1]) {
            fprintf(stderr, "hspgemm: %s: row %d of A (counted from 1, as in a Matrix Market file) has no "
                    "nonzero diagonal entry: AMG needs one in every row\n", command, i + 1);
            return 1;
        }
    }
    return 0;
}

/* Make dir and those of its parents that are missing, as mkdir -p does. */
static int make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return errno = ENAMETOOLONG, -1;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
}

/* The folder of --write-levels made (with its parents) and writable,
 * before the set-up: else says why and returns 2. */
static int level_dir(const char *dir)
{
    if (make_dirs(dir) == 0 && access(dir, W_OK | X_OK) == 0) return 0;
    fprintf(stderr, "hspgemm: amg-setup: --write-levels=%s: %s\n", dir, strerror(errno));
    return 2;
}

/* A0.mtx, P0.mtx, ... into dir (level_dir made it). */
static int write_levels(const hsp_amg *amg, const char *dir)
{
    char path[4096];
    for (int l = 0; l < amg->nlevels; l++) {
        const hsp_csr *M[2] = {amg->level[l].A, amg->level[l].P};
        for (int k = 0; k < 2 && M[k]; k++) {
            snprintf(path, sizeof path, "%s/%c%d.mtx", dir, k ? 'P' : 'A', l);
            hsp_status s = hsp_mm_write(path, M[k]);
            if (s != HSP_OK) return cli_error(path, s);
        }
    }
    printf("wrote the levels' A and P to %s\n", dir);
    return 0;
}

/* Set-up again with A's values times 1.01, values only. */
/* Set-up again with A's values times 1.01, values only; with --resident
 * (M: A placed), of that matrix placed, and the levels brought home after. */
static int resetup(hsp_context *ctx, hsp_amg *amg, const hsp_csr *A, hsp_resident *M, hsp_rap_order order,
                   double first_ms)
{
    hsp_csr *B = NULL;
    hsp_resident *rB = NULL;
    hsp_status s = hsp_csr_convert(A, A->precision, &B);
    for (int64_t k = 0; s == HSP_OK && k < B->nnz; k++)
        if (B->precision == HSP_DOUBLE) ((double *)B->values)[k] *= 1.01;
        else ((float *)B->values)[k] *= 1.01f;
    if (s == HSP_OK && M) s = hsp_place(ctx, B, &rB);
    if (s == HSP_OK) s = M ? hsp_amg_resetup_resident(ctx, amg, rB) : hsp_amg_resetup(ctx, amg, B);
    if (s == HSP_OK) {
        print_levels(amg, order, "\nre-setup, values only (A's values times 1.01; RAP1 holds both products):");
        printf("re-setup %.2f ms, setup %.2f ms: %.2fx faster\n", amg->ms_total, first_ms,
               amg->ms_total > 0 ? first_ms / amg->ms_total : 0.0);
    }
    /* the hierarchy must not keep B */
    hsp_status back = M ? hsp_amg_resetup_resident(ctx, amg, M) : hsp_amg_resetup(ctx, amg, A);
    if (s == HSP_OK) s = back;
    if (s == HSP_OK && M) s = hsp_amg_home(amg);
    hsp_resident_free(rB), hsp_csr_free(B);
    return s == HSP_OK ? 0 : cli_error("re-setup", s);
}

/* The hierarchy of A with the options o; with --resident, of A placed on
 * the device (*M, the time of placing it in *ms_place). */
static hsp_status setup(hsp_context *ctx, const hsp_csr *A, const cli_args *a, const hsp_amg_options *o,
                        hsp_resident **M, hsp_amg **amg, double *ms_place)
{
    if (!a->resident) return hsp_amg_setup(ctx, A, o, amg);
    double t0 = cli_now_ms();
    hsp_status s = hsp_place(ctx, A, M);
    *ms_place = cli_now_ms() - t0;
    return s == HSP_OK ? hsp_amg_setup_resident(ctx, *M, o, amg) : s;
}

int cli_amg_hierarchy(const cli_args *a, const char *command, hsp_csr **A, hsp_context **ctx, hsp_resident **M,
                      hsp_amg **amg, double *ms_place, char *note, size_t len)
{
    int64_t rows = 0, cols;
    hsp_amg_options o = a->amg;
    double *B = NULL;
    hsp_status s;
    cli_declared_shape(a, 0, &rows, &cols);
    if (cli_check_rows(a, command, rows > a->amg.coarse_size && a->amg.max_levels > 1 ? rows : 0, 0)) return 1;
    int rc = cli_load(a, 0, A);
    if (!rc && (*A)->nrows == (*A)->ncols) rc = cli_amg_check_matrix(*A, command); /* not square: the set-up says */
    if (!rc) rc = cli_nullspace(a, a->operand_is_gen[0] ? a->operand[0] : NULL, *A, command, &o, &B, note, len);
    if (!rc) rc = cli_context(a, ctx);
    if (!rc && (s = setup(*ctx, *A, a, &o, M, amg, ms_place)) != HSP_OK) rc = cli_error(command, s);
    free(B);
    return rc;
}

/* Every level of a resident hierarchy home, timed into *ms. */
static int bring_home(hsp_amg *amg, double *ms)
{
    double t0 = cli_now_ms();
    hsp_status s = hsp_amg_home(amg);
    *ms = cli_now_ms() - t0;
    return s == HSP_OK ? 0 : cli_error("bringing the levels home", s);
}

int cmd_amg_setup(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_amg, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands != 1) return cli_usage_error(a.name, "takes one matrix, %d given", a.noperands);
    if (a.write_levels && (rc = level_dir(a.write_levels))) return rc;
    hsp_csr *A = NULL;
    hsp_context *ctx = NULL;
    hsp_amg *amg = NULL;
    hsp_resident *M = NULL;
    double ms_place = 0, ms_home = 0;
    char note[CLI_MSG];
    rc = cli_amg_hierarchy(&a, "amg-setup", &A, &ctx, &M, &amg, &ms_place, note, sizeof note);
    if (amg) {
        if (a.amg.coarsening == HSP_COARSEN_CLASSICAL)
            printf("classical AMG (Ruge-Stueben splitting, extended+i interpolation), theta %g, order %s, %s%s\n",
                   a.amg.theta, cli_order_name(a.amg.order), amg->nlevels > 1 ? amg->device : "no products",
                   a.resident ? ", resident" : "");
        else printf("smoothed aggregation, %s strength, theta %g, omega %g, order %s, %s%s\n",
               cli_strength_name(a.amg.strength), a.amg.theta, a.amg.omega,
               cli_order_name(a.amg.order), amg->nlevels > 1 ? amg->device : "no products",
               a.resident ? ", resident" : "");
        printf("%s\n", note);
        print_levels(amg, a.amg.order, "");
        double first_ms = amg->ms_total;
        if (a.resident && (rc = bring_home(amg, &ms_home)) == 0)
            printf("resident: A placed in %.2f ms, the levels brought home in %.2f ms (not in the total)\n",
                   ms_place, ms_home);
        if (!rc && a.resetup) rc = resetup(ctx, amg, A, M, a.amg.order, first_ms);
        if (!rc && a.write_levels) rc = write_levels(amg, a.write_levels);
    }
    hsp_amg_free(amg), hsp_resident_free(M), hsp_context_free(ctx), hsp_csr_free(A);
    return rc;
}
