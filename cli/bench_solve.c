/* bench_solve.c: `hspgemm bench --suite=solve`: time to solution.  hspgemm's
 * smoothed-aggregation set-up and CG solve (hsp_amg_setup, or with --resident
 * hsp_amg_setup_resident, then hsp_amg_solve: b = ones, x0 = 0, to --tol) against
 * the solve peers (PyAMG's default solver and PyAMG with our options, hypre
 * BoomerAMG, PETSc GAMG) on the same A: the setup, solve and total medians,
 * iterations and the true relative residual of each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char *const suite_solve[] = {"poisson2d5:1024", "poisson2d9:1024", "poisson3d7:101", "poisson3d27:101",
                                          "aniso2d:1024",    "elasticity2d:512", NULL};
static const char *const suite_solve_quick[] = {"poisson2d5:128", "poisson2d9:128", "poisson3d7:24", "poisson3d27:24",
                                                "aniso2d:128",    "elasticity2d:64", NULL};

/* The programs of a row: ours, then the peers' (PyAMG twice: its two variants). */
enum { OURS, PYAMG, PYAMG_OURS, HYPRE, GAMG, PROGRAMS };
static const char *const program_name[PROGRAMS] = {"hspgemm", "pyamg", "pyamg-ours", "hypre", "gamg"};
static const int program_peer[PROGRAMS] = {-1, CLI_PYAMG, CLI_PYAMG, CLI_HYPRE, CLI_GAMG};

/* One program's figures on one problem; runs 0 (in total) where it did not run. */
typedef struct {
    cli_times setup, solve, total;
    int iterations, converged, levels;
    double relres, complexity;
    char why[400]; /* why it failed, "" when it ran */
} solve_figures;

typedef struct {
    const char *name;
    int32_t rows;
    int64_t nnz;
    char note[CLI_MSG]; /* the near-nullspace */
    char device[sizeof ((hsp_amg *)0)->device];
    hsp_smoother smoother; /* ours ran (auto resolved) */
    solve_figures f[PROGRAMS];
} solve_row;

/* |b - A x| / |b| by a plain product on the host (b, x double). */
static double true_relres(const hsp_csr *A, const double *b, const double *x)
{
    double rr = 0, bb = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double r = b[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) r -= hsp_csr_value(A, k) * x[A->colidx[k]];
        rr += r * r, bb += b[i] * b[i];
    }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

/* The operator complexity of amg: its levels' entries over A's (a resident
 * level's from its shape where it is not home). */
static double complexity(const hsp_amg *amg)
{
    double sum = 0, first = 0;
    for (int l = 0; l < amg->nlevels; l++) {
        int64_t nnz = amg->level[l].A ? amg->level[l].A->nnz : 0;
        if (!amg->level[l].A) hsp_resident_shape(amg->level[l].rA, NULL, NULL, &nnz);
        sum += (double)nnz, first = l ? first : (double)nnz;
    }
    return first > 0 ? sum / first : 0;
}

/* One set-up and solve of ours (M: A placed, with --resident), timed into
 * *setup_ms and *solve_ms; x the solution, info the solve's. */
static hsp_status run_ours(hsp_context *ctx, const hsp_csr *A, const hsp_resident *M, const hsp_amg_options *o,
                           const cli_args *a, const double *b, double *x, hsp_amg_solve_info *info, solve_row *row,
                           double *setup_ms, double *solve_ms)
{
    hsp_amg *amg = NULL;
    double t0 = cli_now_ms();
    hsp_status s = M ? hsp_amg_setup_resident(ctx, M, o, &amg) : hsp_amg_setup(ctx, A, o, &amg);
    double t1 = cli_now_ms();
    memset(x, 0, (size_t)A->nrows * sizeof *x);
    if (s == HSP_OK) s = hsp_amg_solve(ctx, amg, b, x, &a->solve, info);
    *setup_ms = t1 - t0, *solve_ms = cli_now_ms() - t1;
    if (s == HSP_OK) {
        row->f[OURS].levels = amg->nlevels, row->f[OURS].complexity = complexity(amg);
        memcpy(row->device, amg->device, sizeof row->device);
    }
    hsp_amg_free(amg);
    return s;
}

/* Ours on A with options o: a warm-up, then a->repeat timed runs. */
static hsp_status time_ours(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, const cli_args *a,
                            solve_row *row)
{
    solve_figures *f = &row->f[OURS];
    int n = a->repeat;
    double *b = malloc((size_t)A->nrows * sizeof *b), *x = malloc((size_t)A->nrows * sizeof *x);
    double *ms = malloc((size_t)n * 3 * sizeof *ms), *setup = ms, *solve = ms ? ms + n : NULL;
    double *total = ms ? ms + 2 * n : NULL;
    hsp_resident *M = NULL;
    hsp_amg_solve_info info = {0};
    hsp_status s = b && x && ms ? HSP_OK : HSP_ERR_NOMEM;
    for (int32_t i = 0; s == HSP_OK && i < A->nrows; i++) b[i] = 1;
    if (s == HSP_OK && a->resident) s = hsp_place(ctx, A, &M);
    for (int k = 0; s == HSP_OK && k <= n; k++) { /* run 0 is the warm-up */
        double set, sol;
        s = run_ours(ctx, A, M, o, a, b, x, &info, row, &set, &sol);
        if (k) setup[k - 1] = set, solve[k - 1] = sol, total[k - 1] = set + sol;
    }
    if (s == HSP_OK) {
        f->iterations = info.iterations, f->converged = info.converged, f->relres = true_relres(A, b, x);
        row->smoother = info.smoother;
        f->setup = cli_times_of(setup, n), f->solve = cli_times_of(solve, n), f->total = cli_times_of(total, n);
    }
    hsp_resident_free(M);
    free(b), free(x), free(ms);
    return s;
}

/* A peer's figures from its JSON line; 0, or -1 when the line lacks them. */
static int read_peer(const char *line, solve_figures *f)
{
    f->setup = cli_json_times(line, "setup_ms");
    f->solve = cli_json_times(line, "solve_ms");
    f->total = cli_json_times(line, "total_ms");
    f->iterations = (int)cli_json_number(line, "iterations");
    f->relres = cli_json_number(line, "relres");
    f->levels = (int)cli_json_number(line, "levels");
    f->complexity = cli_json_number(line, "complexity");
    f->converged = strstr(line, "\"converged\":true") != NULL;
    return f->total.runs > 0 && f->setup.runs > 0 && f->solve.runs > 0 ? 0 : -1;
}

/* files, the peers' arguments, without --nullspace: hypre's nodal AMG is
 * faster on its blocks alone (bench/README.md). */
static const char *without_nullspace(const char *files, char *out, size_t len)
{
    const char *at = strstr(files, "--nullspace=");
    const char *end = at ? strstr(at, "' ") : NULL;
    if (!end) return files;
    snprintf(out, len, "%.*s%s", (int)(at - files), files, end + 2);
    return out;
}

/* Each peer that runs, on A (and o's near-nullspace) written once;
 * pyamg-ours with Gauss-Seidel's sweeps as ours (sweep), and classical where o is. */
static void time_peers(const cli_peers *p, const hsp_csr *A, const hsp_amg_options *o, hsp_sweep sweep,
                       solve_row *row)
{
    char dir[CLI_TEMP_DIR], files[256], blocks[256], line[4096], *cmd = NULL;
    if (!cli_peers_any(p) || cli_peer_files(row->name, A, o, dir, files, sizeof files)) return;
    char ours[96];
    snprintf(ours, sizeof ours, " --variant=ours --sweep=%s%s",
             sweep == HSP_SWEEP_SYMMETRIC ? "symmetric" : "forward-backward",
             o->coarsening == HSP_COARSEN_CLASSICAL ? " --coarsening=classical" : "");
    for (int g = PYAMG; g < PROGRAMS; g++) {
        const char *base = p->cmd[program_peer[g]], *variant = g == PYAMG ? " --variant=default"
                                                               : g == PYAMG_OURS ? ours : "";
        const char *args = g == HYPRE ? without_nullspace(files, blocks, sizeof blocks) : files;
        if (!base[0] || asprintf(&cmd, "%s%s %s", base, variant, args) < 0) continue;
        cli_status_line("bench: %s: %s", row->name, program_name[g]);
        if (cli_peer_line(cmd, line, sizeof line) != 0 || read_peer(line, &row->f[g]) != 0) {
            memset(&row->f[g], 0, sizeof row->f[g]);
            snprintf(row->f[g].why, sizeof row->f[g].why, "failed (its error above)");
            fprintf(stderr, "hspgemm: bench: %s failed on %s\n", program_name[g], row->name);
        }
        free(cmd);
    }
    cli_peer_files_remove(dir);
}

/* One problem into row: A generated, its near-nullspace, ours, the peers; 0,
 * else 1 after saying why (row->f[OURS].why). */
static int bench_problem(hsp_context *ctx, const cli_args *a, const cli_peers *p, const char *spec, solve_row *row)
{
    hsp_csr *A = NULL;
    hsp_amg_options o = a->amg;
    double *B = NULL;
    memset(row, 0, sizeof *row);
    row->name = spec;
    cli_status_line("bench: %s: generating", spec);
    hsp_status s = hsp_generate(spec, a->seed, HSP_DOUBLE, &A);
    int rc = s == HSP_OK ? cli_nullspace(a, spec, A, "bench", &o, &B, row->note, sizeof row->note) : 1;
    if (s == HSP_OK && !rc) {
        row->rows = A->nrows, row->nnz = A->nnz;
        cli_status_line("bench: %s: hspgemm", spec);
        s = time_ours(ctx, A, &o, a, row);
    }
    if (s != HSP_OK) {
        snprintf(row->f[OURS].why, sizeof row->f[OURS].why, "%s: %s", hsp_strerror(s), hsp_errmsg());
        fprintf(stderr, "\nhspgemm: bench: %s: %s\n", spec, row->f[OURS].why);
    } else if (rc) snprintf(row->f[OURS].why, sizeof row->f[OURS].why, "its near-nullspace (see above)");
    if (A && !rc) time_peers(p, A, &o, a->solve.sweep, row); /* also where ours failed: the row says both */
    free(B), hsp_csr_free(A);
    return s != HSP_OK || rc;
}

/* A peer's total over ours, 0 where either did not run. */
static double ratio(const solve_row *r, int g)
{
    const cli_times *t = &r->f[g].total, *ours = &r->f[OURS].total;
    return t->runs > 0 && ours->runs > 0 && ours->median > 0 ? t->median / ours->median : 0;
}

/* One program's line of the table. */
static void print_program(const solve_row *r, int g, int *flagged)
{
    const solve_figures *f = &r->f[g];
    char its[16] = "-", x[16] = "";
    if (f->total.runs <= 0 && !f->why[0]) return; /* the peer did not run */
    printf("%-18s %-11s", g == OURS ? r->name : "", program_name[g]);
    if (f->total.runs <= 0) {
        printf(" %s\n", f->why);
        return;
    }
    double spread = cli_spread(&f->total);
    *flagged += spread > CLI_SPREAD_BOUND;
    snprintf(its, sizeof its, "%d", f->iterations);
    if (g != OURS && ratio(r, g) > 0) snprintf(x, sizeof x, "%.2fx", ratio(r, g));
    printf(" %5s %10.1f %10.1f %10.1f %5.0f%%%c %7s  relres %.2e%s, %d levels\n", its, f->setup.median,
           f->solve.median, f->total.median, 100 * spread, spread > CLI_SPREAD_BOUND ? '!' : ' ', x, f->relres,
           f->converged ? "" : " NOT converged", f->levels);
}

/* The table, then the geometric mean of each peer's total over ours. */
static void print_rows(const solve_row *rows, int n)
{
    int flagged = 0;
    printf("%-18s %-11s %5s %10s %10s %10s %7s %7s\n", "problem", "program", "its", "setup ms", "solve ms", "total ms",
           "spread", "x");
    for (int r = 0; r < n; r++) {
        for (int g = 0; g < PROGRAMS; g++) print_program(&rows[r], g, &flagged);
        if (strstr(rows[r].note, "rigid") || strstr(rows[r].note, "from")) printf("%18s %s\n", "", rows[r].note);
    }
    for (int g = PYAMG; g < PROGRAMS; g++) {
        double logsum = 0;
        int counted = 0;
        for (int r = 0; r < n; r++)
            if (ratio(&rows[r], g) > 0) logsum += log(ratio(&rows[r], g)), counted++;
        if (counted)
            printf("geomean speedup over %s (time to solution): %.2fx (%d problems)\n", program_name[g],
                   exp(logsum / counted), counted);
    }
    if (flagged)
        printf("%d total%s spread more than %.0f%% (marked !): run again or raise --repeat\n", flagged,
               flagged > 1 ? "s" : "", 100 * CLI_SPREAD_BOUND);
}

/* A CSV field of text, quoted, its quotes doubled. */
static void csv_text(FILE *f, const char *s)
{
    fputs(",\"", f);
    for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
    fputc('"', f);
}

/* One row of the CSV: a program on a problem. */
static void csv_program(FILE *f, const cli_args *a, const solve_row *r, int g)
{
    const solve_figures *p = &r->f[g];
    const hsp_amg_solve_options *o = &a->solve;
    fprintf(f, "\"%s\",%s,%d,%lld,\"%s\",%d,%d,%g,%d,%c,%d,%d,%s,%d", r->name, program_name[g], r->rows,
            (long long)r->nnz, g == OURS ? r->device : "", g == OURS ? a->lib.threads : 1, a->resident && g == OURS,
            o->tol, o->maxiter, o->cycle == HSP_CYCLE_W ? 'W' : 'V', o->pre, o->post,
            g == OURS && p->total.runs > 0 ? cli_smoother_text(r->smoother, o->sweep) : "", p->total.runs);
    cli_csv_times(f, &p->setup), cli_csv_times(f, &p->solve), cli_csv_times(f, &p->total);
    fprintf(f, ",%.4f", cli_spread(&p->total));
    if (p->total.runs > 0) fprintf(f, ",%d,%.6e,%d,%d", p->iterations, p->relres, p->converged, p->levels);
    else fputs(",,,,", f);
    cli_csv_number(f, "%.4f", p->complexity);
    cli_csv_number(f, "%.4f", g == OURS ? 0 : ratio(r, g));
    csv_text(f, r->note), csv_text(f, p->why), fputc('\n', f);
}

static int write_csv(const char *path, const cli_args *a, const solve_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "problem,program,rows,nnz,device,threads,resident,tol,maxiter,cycle,pre,post,smoother,runs,"
               "setup_ms,setup_ms_min,setup_ms_max,solve_ms,solve_ms_min,solve_ms_max,total_ms,total_ms_min,"
               "total_ms_max,spread,iterations,relres,converged,levels,complexity,x,nullspace,error\n");
    for (int r = 0; r < n; r++)
        for (int g = 0; g < PROGRAMS; g++)
            if (rows[r].f[g].total.runs > 0 || rows[r].f[g].why[0]) csv_program(f, a, &rows[r], g);
    return fclose(f) != 0;
}

int cli_bench_solve(cli_args *a, const char *const *given, const cli_peers *p, const char *csv)
{
    const char *const *specs = given ? given : !strcmp(a->suite, "solve-quick") ? suite_solve_quick : suite_solve;
    static solve_row rows[CLI_MAX_OPERANDS];
    char why[512] = "";
    hsp_context *ctx = NULL;
    int n = 0, failed = 0;
    hsp_status s = hsp_context_create(&a->lib, &ctx);
    if (s != HSP_OK) return cli_error("context", s);
    for (; specs[n] && n < CLI_MAX_OPERANDS; n++)
        if (bench_problem(ctx, a, p, specs[n], &rows[n]) && !failed++)
            snprintf(why, sizeof why, "%s: %s", specs[n], rows[n].f[OURS].why);
    cli_status_line("%s", "");
    hsp_context_free(ctx);
    const hsp_amg_solve_options *o = &a->solve;
    const solve_row *ran = rows;
    while (ran < rows + n - 1 && !ran->device[0]) ran++; /* the first problem ours ran */
    const char *device = n && ran->device[0] ? ran->device : "-";
    printf("%s, time to solution: set-up + CG preconditioned by %c(%d,%d) cycles, smoother %s, to |b - Ax| / |b| <= %g "
           "(maxiter %d), b = ones, x0 = 0; set-up %s, %s strength, theta %g, omega %g, coarse %d, levels %d; "
           "double%s, device %s%s, %d threads (the peers: one); %d runs of each after a warm-up\n",
           cli_version(), o->cycle == HSP_CYCLE_W ? 'W' : 'V', o->pre, o->post,
           cli_smoother_text(n && ran->device[0] ? ran->smoother : o->smoother, o->sweep),
           o->tol, o->maxiter, cli_coarsening_text(a->amg.coarsening), cli_strength_name(a->amg.strength),
           a->amg.theta, a->amg.omega, a->amg.coarse_size,
           a->amg.max_levels, a->amg.float_levels ? " (ours: float levels)" : "",
           device, a->resident ? " (resident)" : "", a->lib.threads, a->repeat);
    print_rows(rows, n);
    printf("medians of the runs; spread: (q3 - q1) / median of the totals; x: the program's total / hspgemm's; relres: "
           "|b - Ax| / |b| of its last run (ours computed here by a plain product; the peers' by themselves)\n");
    cli_run_info run = {a->suite, strcmp(device, "-") ? device : "", !failed, why, NULL};
    if (write_csv(csv, a, rows, n) || cli_write_meta(csv, a, p, &run)) return 1;
    printf("wrote %s and its description beside it (.json)%s\n", csv,
           failed ? "; hspgemm failed on some problems (their rows say why)" : "");
    return failed ? 1 : 0;
}
