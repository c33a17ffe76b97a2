/* options.c: parsing the command line shared by the subcommands, loading
 * operands, and small helpers. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

/* Bytes of hsp_multiply's row arrays a row of A: C's row pointers, the
 * bounds, the offsets (8 each) and the bins (4), refused before they are
 * allocated where they pass the memory limit (hspgemm.h, mem_limit). */
enum { PRODUCT_ROW_BYTES = 28 };

/* A whole decimal number in [lo, hi] from text; 0 on success. */
static int parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* A byte count from 1 up from text: a whole number, with K, M, G or T for
 * 2^10, 2^20, 2^30 or 2^40 of them (1G, 512m); 0 on success. */
static int parse_bytes(const char *text, int64_t *out)
{
    static const char units[] = "KMGT";
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    int shift = unit ? 10 * (int)(unit - units + 1) : 0;
    if (errno || end == text || v < 1 || (*end && (!unit || end[1])) || v > INT64_MAX >> shift) return -1;
    *out = (int64_t)v << shift;
    return 0;
}

/* A finite number in [lo, hi] from text; 0 on success. */
static int parse_double(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

const char *cli_order_name(hsp_rap_order order)
{
    return order == HSP_RAP_RA_P ? "ra-p" : "r-ap";
}

/* --aggregation's values, by hsp_aggregation's numbers. */
static const char *const aggregation_names[] = {"auto", "greedy", "parallel"};

const char *cli_aggregation_name(hsp_aggregation aggregation)
{
    return aggregation_names[aggregation]; /* the CLI's: parsed, so in range */
}

int cli_solve_float_levels(const cli_args *a)
{
    return a->float_levels_given ? a->amg.float_levels : !a->resident;
}

const char *cli_coarsening_name(hsp_amg_coarsening coarsening)
{
    return coarsening == HSP_COARSEN_CLASSICAL ? "classical" : "aggregation";
}

const char *cli_coarsening_text(hsp_amg_coarsening coarsening)
{
    return coarsening == HSP_COARSEN_CLASSICAL ? "classical AMG" : "smoothed aggregation";
}

const char *cli_strength_name(hsp_strength_measure strength)
{
    return strength == HSP_STRENGTH_SYMMETRIC ? "symmetric" : "classical";
}

const char *const cli_smoother_names[5] = {"gs", "jacobi", "l1-jacobi", "chebyshev", "auto"};

const char *cli_smoother_text(hsp_smoother smoother, hsp_sweep sweep)
{
    if (smoother != HSP_SMOOTHER_GAUSS_SEIDEL) return cli_smoother_names[smoother];
    return sweep == HSP_SWEEP_SYMMETRIC ? "gs symmetric" : "gs forward-backward";
}

/* The options of amg-solve's solve; returns an error message, NULL when
 * applied, or "" when name is none of them. */
static const char *apply_solve_option(cli_args *a, const char *name, const char *v)
{
    hsp_amg_solve_options *o = &a->solve;
    int64_t n;
    double x;
    if (!strcmp(name, "rhs")) a->rhs = v;
    else if (!strcmp(name, "tol")) {
        if (parse_double(v, 0, DBL_MAX, &o->tol)) return "--tol takes a number >= 0";
    } else if (!strcmp(name, "maxiter")) {
        if (parse_int(v, 0, 1000000000, &n)) return "--maxiter takes a count from 0";
        o->maxiter = (int)n, a->maxiter_given = 1;
    } else if (!strcmp(name, "accel")) {
        if (strcmp(v, "cg") && strcmp(v, "none")) return "--accel takes cg or none";
        o->accel = strcmp(v, "cg") ? HSP_ACCEL_NONE : HSP_ACCEL_CG;
    } else if (!strcmp(name, "cycle")) {
        if (strcmp(v, "V") && strcmp(v, "W") && strcmp(v, "v") && strcmp(v, "w")) return "--cycle takes V or W";
        o->cycle = *v == 'W' || *v == 'w' ? HSP_CYCLE_W : HSP_CYCLE_V;
    } else if (!strcmp(name, "smoother")) {
        int k = 0;
        while (k < 5 && strcmp(v, cli_smoother_names[k])) k++;
        if (k == 5) return "--smoother takes auto, gs, jacobi, l1-jacobi or chebyshev";
        o->smoother = (hsp_smoother)k;
    } else if (!strcmp(name, "sweep")) {
        if (strcmp(v, "symmetric") && strcmp(v, "forward-backward"))
            return "--sweep takes symmetric or forward-backward";
        o->sweep = strcmp(v, "symmetric") ? HSP_SWEEP_FORWARD_BACKWARD : HSP_SWEEP_SYMMETRIC;
    } else if (!strcmp(name, "pre") || !strcmp(name, "post")) {
        if (parse_int(v, 0, 100, &n)) return "--pre and --post take 0 to 100 sweeps";
        *(name[1] == 'r' ? &o->pre : &o->post) = (int)n;
    } else if (!strcmp(name, "jacobi-omega")) {
        if (parse_double(v, 0, 2, &x) || !(x > 0 && x < 2)) return "--jacobi-omega takes a number in (0, 2)";
        o->jacobi_omega = x;
    } else if (!strcmp(name, "degree")) {
        if (parse_int(v, 1, 16, &n)) return "--degree takes 1 to 16";
        o->chebyshev_degree = (int)n;
    } else if (!strcmp(name, "chebyshev-lower")) {
        if (parse_double(v, 0, 1.1, &x) || !(x > 0 && x < 1.1)) return "--chebyshev-lower takes a number in (0, 1.1)";
        o->chebyshev_lower = x;
    } else return "";
    return NULL;
}

/* The options of rap and amg-setup; returns an error message, NULL when
 * applied, or "" when name is none of them. */
static const char *apply_amg_option(cli_args *a, const char *name, const char *v)
{
    int64_t n;
    if (!strcmp(name, "write-levels")) a->write_levels = v;
    else if (!strcmp(name, "resetup")) a->resetup = 1;
    else if (!strcmp(name, "float-levels")) {
        if (strcmp(v, "yes") && strcmp(v, "no")) return "--float-levels takes yes or no";
        a->amg.float_levels = !strcmp(v, "yes"), a->float_levels_given = 1;
    }
    else if (!strcmp(name, "order")) {
        if (strcmp(v, "r-ap") && strcmp(v, "ra-p")) return "--order takes r-ap (R*(A*P)) or ra-p ((R*A)*P)";
        a->amg.order = strcmp(v, "ra-p") ? HSP_RAP_R_AP : HSP_RAP_RA_P;
    } else if (!strcmp(name, "strength")) {
        if (strcmp(v, "classical") && strcmp(v, "symmetric")) return "--strength takes classical or symmetric";
        a->amg.strength = strcmp(v, "classical") ? HSP_STRENGTH_SYMMETRIC : HSP_STRENGTH_CLASSICAL;
    } else if (!strcmp(name, "coarsening")) {
        if (strcmp(v, "aggregation") && strcmp(v, "classical")) return "--coarsening takes aggregation or classical";
        a->amg.coarsening = strcmp(v, "classical") ? HSP_COARSEN_AGGREGATION : HSP_COARSEN_CLASSICAL;
    } else if (!strcmp(name, "aggregation")) {
        int k = HSP_AGGREGATION_PARALLEL;
        while (k >= 0 && strcmp(v, aggregation_names[k])) k--;
        if (k < 0) return "--aggregation takes auto, greedy or parallel";
        a->amg.aggregation = (hsp_aggregation)k;
    } else if (!strcmp(name, "theta")) {
        if (parse_double(v, 0, 1e300, &a->amg.theta)) return "--theta takes a number >= 0";
        a->theta_given = 1;
    } else if (!strcmp(name, "omega")) {
        if (parse_double(v, 1e-300, 1e300, &a->amg.omega)) return "--omega takes a number > 0";
    } else if (!strcmp(name, "levels")) {
        if (parse_int(v, 1, HSP_AMG_MAX_LEVELS, &n)) return "--levels takes 1 to 32";
        a->amg.max_levels = (int)n;
    } else if (!strcmp(name, "nullspace")) a->nullspace = v;
    else if (!strcmp(name, "block")) {
        if (parse_int(v, 1, HSP_AMG_MAX_NULLSPACE, &n)) return "--block takes 1 to 16 rows a node";
        a->block = (int32_t)n;
    } else if (!strcmp(name, "coarse")) {
        if (parse_int(v, 1, INT32_MAX, &n)) return "--coarse takes a row count from 1";
        a->amg.coarse_size = (int32_t)n;
    } else return apply_solve_option(a, name, v);
    return NULL;
}

/* A method name, or -1. */
static int parse_method(const char *name, size_t len)
{
    for (int m = HSP_METHOD_DEFAULT; m < HSP_NMETHODS; m++)
        if (strlen(hsp_method_name((hsp_method)m)) == len &&
            !strncmp(name, hsp_method_name((hsp_method)m), len))
            return m;
    return -1;
}

/* --methods=default | paper | SHORT,MEDIUM,LONG. */
static int parse_methods(const char *v, hsp_method *method)
{
    static const hsp_method paper[HSP_NMETHODGROUPS] = {HSP_METHOD_HEAP, HSP_METHOD_ESC,
                                                         HSP_METHOD_MERGE};
    if (!strcmp(v, "paper")) return memcpy(method, paper, sizeof paper), 0;
    if (!strcmp(v, "default")) return memset(method, 0, sizeof paper), 0;
    for (int g = 0; g < HSP_NMETHODGROUPS; g++) {
        const char *end = strchr(v, ',');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        int m = parse_method(v, len);
        if (m < 0 || (g < HSP_NMETHODGROUPS - 1 && !end) || (g == HSP_NMETHODGROUPS - 1 && end))
            return -1;
        method[g] = (hsp_method)m;
        v = end ? end + 1 : v;
    }
    return 0;
}

/* Is name in the comma-separated list? */
static int allowed_option(const char *allowed, const char *name, size_t len)
{
    for (const char *p = allowed; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, name, len)) return 1;
        p = end ? end + 1 : p + n;
    }
    return 0;
}

/* The length of t's flag name (before "=WHAT"). */
static size_t flag_len(const hsp_option_info *t)
{
    return strcspn(t->flag, "=");
}

/* The option of the table whose flag is name, or NULL. */
static const hsp_option_info *table_option(const char *name)
{
    int n;
    const hsp_option_info *t = hsp_option_table(&n);
    for (int k = 0; k < n; k++)
        if (t[k].flag && strlen(name) == flag_len(&t[k]) && !strncmp(name, t[k].flag, flag_len(&t[k]))) return &t[k];
    return NULL;
}

/* A number of t's kind in its flag's range from text into p; 0 on success. */
static int parse_number(const hsp_option_info *t, const char *text, void *p)
{
    int64_t n;
    double x;
    if (t->kind == HSP_OPTION_REAL) return parse_double(text, t->flag_lo, t->flag_hi, p);
    if (t->kind == HSP_OPTION_BYTES ? parse_bytes(text, &n) : parse_int(text, INT64_MIN, INT64_MAX, &n)) return -1;
    if ((x = (double)n) < t->flag_lo || x > t->flag_hi) return -1;
    if (t->kind == HSP_OPTION_INT) *(int *)p = (int)n;
    else *(int64_t *)p = n;
    return 0;
}

/* Apply option t of the table (options.def) to a's library options: 0, or
 * -1 where v is not what it takes. */
static int apply_table_option(cli_args *a, const hsp_option_info *t, const char *v)
{
    void *p = (char *)&a->lib + t->offset;
    switch (t->kind) {
    case HSP_OPTION_TEXT: *(const char **)p = v; return 0;
    case HSP_OPTION_FLAG: *(int *)p = 1; return 0;
    case HSP_OPTION_GROW:
        if (strcmp(v, "realloc") && strcmp(v, "copy")) return -1;
        a->lib.grow = strcmp(v, "copy") ? HSP_GROW_REALLOC : HSP_GROW_COPY;
        return 0;
    case HSP_OPTION_METHODS:
        a->lib.bitmap = !strcmp(v, "bitmap");
        return a->lib.bitmap ? 0 : parse_methods(v, a->lib.method);
    default: return parse_number(t, v, p);
    }
}

/* Does text name option --flag (len characters of it), not only a longer
 * one that starts alike (--device-timeout for --device)? */
static int mentions(const char *text, const char *flag, size_t len)
{
    for (const char *at = strstr(text, "--"); at; at = strstr(at + 2, "--"))
        if (!strncmp(at + 2, flag, len) && !islower((unsigned char)at[len + 2]) && at[len + 2] != '-') return 1;
    return 0;
}

void cli_options_help(FILE *f, const char *allowed, const char *usage)
{
    int n;
    const hsp_option_info *t = hsp_option_table(&n);
    for (int k = 0; k < n; k++) {
        if (!t[k].help || !t[k].flag || !allowed_option(allowed, t[k].flag, flag_len(&t[k])) ||
            mentions(usage, t[k].flag, flag_len(&t[k])))
            continue; /* none, not the command's, or its own text says it */
        fprintf(f, "  --%-20s", t[k].flag);
        for (const char *line = t[k].help; *line;) {
            int end = (int)strcspn(line, "\n");
            fprintf(f, "%s%.*s\n", line == t[k].help ? "" : "                        ", end, line);
            line += end + (line[end] == '\n');
        }
    }
}

/* Apply option name=value to a; returns an error message (msg, of CLI_MSG
 * bytes, may hold it) or NULL. */
static const char *apply_option(cli_args *a, const char *name, const char *v, char *msg)
{
    int64_t n;
    const hsp_option_info *t = table_option(name);
    if (!strcmp(name, "cpu-share") && (a->cpu_share_auto = !strcmp(v, "auto"))) return NULL;
    if (t) {
        if (apply_table_option(a, t, v))
            return snprintf(msg, CLI_MSG, "--%s takes %s", name, t->takes), msg;
    } else if (!strcmp(name, "o") || !strcmp(name, "output")) a->output = v;
    else if (!strcmp(name, "csv")) a->csv = v;
    else if (!strcmp(name, "suite")) a->suite = v;
    else if (!strcmp(name, "peers")) a->peers = v;
    else if (!strcmp(name, "quiet")) a->quiet = 1;
    else if (!strcmp(name, "build")) a->build = 1;
    else if (!strcmp(name, "resident")) a->resident = 1;
    else if (!strcmp(name, "digest")) a->digest = 1;
    else if (!strcmp(name, "precision")) {
        if (strcmp(v, "float") && strcmp(v, "double")) return "--precision takes float or double";
        a->precision = strcmp(v, "float") ? HSP_DOUBLE : HSP_FLOAT;
    } else if (!strcmp(name, "stats")) {
        if (strcmp(v, "table") && strcmp(v, "json")) return "--stats takes table or json";
        a->stats = strcmp(v, "json") ? 1 : 2;
    } else if (!strcmp(name, "repeat")) {
        if (parse_int(v, 1, 1000000, &n)) return "--repeat takes a count from 1";
        a->repeat = (int)n;
    } else if (!strcmp(name, "seed")) {
        if (parse_int(v, 0, INT64_MAX, &n)) return "--seed takes a number from 0";
        a->seed = (uint64_t)n;
    } else if (!strcmp(name, "rows")) {
        if (parse_int(v, 1, 1 << 26, &n)) return "--rows takes 1 to 2^26";
        a->rows = n;
    } else if (!strcmp(name, "cols")) {
        if (parse_int(v, 1, 1 << 20, &n)) return "--cols takes 1 to 2^20";
        a->cols = (int32_t)n;
    } else if (!strcmp(name, "layout")) {
        if (strcmp(v, "row") && strcmp(v, "col") && strcmp(v, "both")) return "--layout takes row, col or both";
        a->layout = strcmp(v, "col") ? HSP_ROW_MAJOR : HSP_COL_MAJOR, a->layout_both = !strcmp(v, "both");
    } else if (!strcmp(name, "nonfinite")) {
        if (strcmp(v, "warn") && strcmp(v, "fail") && strcmp(v, "ignore"))
            return "--nonfinite takes warn, fail or ignore";
        a->nonfinite = !strcmp(v, "warn") ? CLI_NONFINITE_WARN : !strcmp(v, "fail") ? CLI_NONFINITE_FAIL
                                                                                    : CLI_NONFINITE_IGNORE;
    } else if (!strcmp(name, "format")) {
        if (strcmp(v, "csr") && strcmp(v, "ellr")) return "--format takes csr or ellr";
        a->csr = !strcmp(v, "csr");
    } else if (!strcmp(name, "gen")) {
        if (a->noperands == CLI_MAX_OPERANDS) return "too many matrices (at most 64)";
        a->operand_is_gen[a->noperands] = 1;
        a->operand[a->noperands++] = v;
    } else {
        const char *err = apply_amg_option(a, name, v);
        return err && !*err ? "unknown option" : err;
    }
    return NULL;
}

/* Options that take no value. */
static int is_flag(const char *name)
{
    const hsp_option_info *t = table_option(name);
    return t ? t->kind == HSP_OPTION_FLAG
             : !strcmp(name, "quiet") || !strcmp(name, "stats") || !strcmp(name, "help") ||
                   !strcmp(name, "resetup") || !strcmp(name, "resident") || !strcmp(name, "digest") ||
                   !strcmp(name, "build");
}

int cli_parse(int argc, char **argv, const char *allowed, const char *usage, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->name = argv[0];
    hsp_options_init(&a->lib);
    hsp_amg_options_init(&a->amg);
    hsp_amg_solve_options_init(&a->solve);
    a->precision = HSP_DOUBLE, a->seed = 1;
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k], *value = NULL, *err = NULL;
        char name[64], msg[CLI_MSG];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return fputs(usage, stdout), cli_options_help(stdout, allowed, usage), 1;
        if (arg[0] != '-' || !arg[1]) {
            if (a->noperands == CLI_MAX_OPERANDS) err = "too many matrices (at most 64)";
            else a->operand[a->noperands++] = arg;
        } else {
            const char *n0 = arg + (arg[1] == '-' ? 2 : 1), *eq = strchr(n0, '=');
            size_t len = eq ? (size_t)(eq - n0) : strlen(n0);
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), n0);
            if (!allowed_option(allowed, n0, len)) err = "unknown option";
            else if (eq) value = eq + 1;
            else if (!strcmp(name, "stats")) value = "table";
            else if (is_flag(name)) value = "";
            else if (k + 1 < argc) value = argv[++k];
            else err = "needs a value";
            if (!err) err = apply_option(a, name, value, msg);
        }
        if (err) {
            char shown[CLI_SHOWN + 4];
            return cli_usage_error(a->name, "%s: %s", cli_shown(arg, shown), err);
        }
    }
    if (a->amg.strength == HSP_STRENGTH_SYMMETRIC && a->amg.coarsening == HSP_COARSEN_AGGREGATION && !a->theta_given)
        a->amg.theta = 0; /* PyAMG's default */
    if (a->resident && (a->lib.bitmap || a->lib.pattern))
        return cli_usage_error(a->name, "--%s: not with --resident (resident products are numeric, in CSR)",
                               a->lib.bitmap ? "methods=bitmap" : "pattern");
    if (a->resident && a->lib.drop_zeros)
        return cli_usage_error(a->name, "--drop-zeros: not with --resident (a resident C keeps its zeros)");
    if (a->lib.pattern && a->lib.drop_zeros)
        return cli_usage_error(a->name, "--pattern --drop-zeros: a pattern is where products land, whatever their "
                               "values: nothing cancels (--drop-zeros alone gives C without the zeros, values kept)");
    if (a->resident && a->lib.unsorted)
        return cli_usage_error(a->name, "--unsorted: not with --resident (a resident C's rows are sorted)");
    if (a->output && cli_check_writable(a->name, a->output)) return 2; /* before any work */
    if (a->quiet) hsp_set_build_hook(NULL, NULL);
    a->report = a->output && !strcmp(a->output, "-") ? stderr : stdout;
    a->mem_default = !a->lib.mem_limit;
    if (a->mem_default) a->lib.mem_limit = hsp_available_memory();
    return 0;
}

int cli_load(const cli_args *a, int k, hsp_csr **M)
{
    *M = NULL;
    if (a->operand_is_gen[k]) {
        hsp_status s = hsp_generate(a->operand[k], a->seed + (uint64_t)k, a->precision, M);
        return s == HSP_OK ? 0 : cli_gen_error(a->operand[k], s);
    }
    hsp_status s = hsp_mm_read_limit(a->operand[k], a->precision, !a->quiet, cli_read_limit(a), M);
    return s == HSP_OK ? 0 : cli_error(a->operand[k], s);
}

int64_t cli_read_limit(const cli_args *a)
{
    return a->mem_default ? 0 : a->lib.mem_limit;
}

/* The next line of f into line (at most len - 1 bytes of it: the rest of a
 * longer line is skipped); 0 at the end of the file. */
static int read_line(FILE *f, char *line, int len)
{
    if (!fgets(line, len, f)) return 0;
    if (!strchr(line, '\n'))
        for (int c = 0; c != '\n' && c != EOF;) c = getc(f);
    return 1;
}

int cli_declared_shape(const cli_args *a, int k, int64_t *rows, int64_t *cols)
{
    struct stat st;
    char line[1024], *end;
    FILE *f;
    if (a->operand_is_gen[k] || stat(a->operand[k], &st) || !S_ISREG(st.st_mode) || !(f = fopen(a->operand[k], "r")))
        return 0;
    int known = read_line(f, line, sizeof line) && !strncasecmp(line, "%%MatrixMarket", 14);
    int numbers = known && strcasestr(line, " array") ? 2 : 3; /* ROWS COLUMNS [ENTRIES] */
    while (known && (known = read_line(f, line, sizeof line))) {
        const char *p = line + strspn(line, " \t\r\n");
        if (*p == '%' || !*p) continue; /* comments and blank lines */
        long long n[3] = {0, 0, 0};
        errno = 0;
        for (int t = 0; t < numbers; t++, p = end) n[t] = strtoll(p, &end, 10), known &= end > p;
        known &= !errno && !end[strspn(end, " \t\r\n")] && n[0] >= 0 && n[1] >= 0 && n[2] >= 0 &&
                 n[0] <= INT32_MAX && n[1] <= INT32_MAX;
        if (known) *rows = n[0], *cols = n[1];
        break; /* the size line, or what the reader will refuse */
    }
    fclose(f);
    return known ? 4 - numbers : 0;
}

int cli_check_rows(const cli_args *a, const char *command, int64_t product_rows, double dense)
{
    int64_t limit = a->lib.mem_limit, rows, cols, most_rows = -1, most_cols = 0;
    double need = (product_rows > 0 ? ((double)product_rows + 1) * PRODUCT_ROW_BYTES : 0) + dense;
    int most = -1;
    char product[96] = "", dense_text[64] = "";
    for (int k = 0; k < a->noperands; k++) {
        if (cli_declared_shape(a, k, &rows, &cols) != 1) continue;
        need += ((double)rows + 1) * sizeof(int64_t);
        if (rows > most_rows) most = k, most_rows = rows, most_cols = cols;
    }
    if (most < 0 || limit <= 0 || need <= (double)limit) return 0;
    if (product_rows > 0)
        snprintf(product, sizeof product, " and %d a row of a product of %lld rows", PRODUCT_ROW_BYTES,
                 (long long)product_rows);
    if (dense > 0) snprintf(dense_text, sizeof dense_text, " and %.0f bytes of dense B and C", dense);
    fprintf(stderr, "hspgemm: %s: %s: %s declares %lld x %lld: the row arrays of %s, 8 bytes a row of each matrix "
            "read%s%s, take %.0f bytes (%.1f GiB), more than %s (%lld bytes); --mem-limit=SIZE raises the limit\n",
            command, hsp_strerror(HSP_ERR_NOMEM), a->operand[most], (long long)most_rows, (long long)most_cols,
            command, product, dense_text, need, need / (1 << 30),
            a->mem_default ? "the memory available" : "the memory limit", (long long)limit);
    return 1;
}

int cli_small_product(const char *device)
{
    return !strcmp(device, "cpu (a small product)"); /* the description src/open/open.c gives it */
}

int cli_gen_error(const char *spec, hsp_status s)
{
    return cli_error(spec, s) + (s == HSP_ERR_ARG);
}

int cli_error(const char *what, hsp_status s)
{
    char shown[CLI_SHOWN + 4];
    fprintf(stderr, "hspgemm: %s: %s: %s\n", cli_shown(what, shown), hsp_strerror(s), hsp_errmsg());
    return 1;
}

int cli_check_writable(const char *command, const char *path)
{
    char dir[4096];
    struct stat st;
    const char *slash = strrchr(path, '/');
    if (!strcmp(path, "-")) return 0;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return fprintf(stderr, "hspgemm: %s: %s is a folder, not a file\n", command, path), 2;
        if (access(path, W_OK) == 0) return 0;
        return fprintf(stderr, "hspgemm: %s: %s: %s\n", command, path, strerror(errno)), 2;
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fprintf(stderr, "hspgemm: %s: cannot write %s: no folder %s\n", command, path, dir), 2;
    if (access(dir, W_OK | X_OK) != 0)
        return fprintf(stderr, "hspgemm: %s: cannot write %s: %s: %s\n", command, path, dir, strerror(errno)), 2;
    return 0;
}

int cli_context(const cli_args *a, hsp_context **ctx)
{
    hsp_status s = hsp_context_create(&a->lib, ctx);
    if (s == HSP_OK) return 0;
    cli_error("context", s);
    if (s != HSP_ERR_ARG) return 1;
    hsp_options o = a->lib;
    hsp_context *probe = NULL;
    o.profile = "none"; /* a profile's lines, refused alike, are a file's, not the command line's */
    int usage = hsp_context_create(&o, &probe) != HSP_OK;
    hsp_context_free(probe);
    return usage ? 2 : 1;
}

int cli_check_device(const cli_args *a)
{
    hsp_context *ctx = NULL;
    int rc = cli_context(a, &ctx);
    hsp_context_free(ctx);
    return rc;
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hspgemm: %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'hspgemm %s --help')\n", command);
    va_end(ap);
    return 2;
}

const char *cli_shown(const char *s, char *buf)
{
    if (strlen(s) <= CLI_SHOWN) return s;
    snprintf(buf, CLI_SHOWN + 4, "%.*s...", (int)CLI_SHOWN, s);
    return buf;
}

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void cli_median_min_max(double *x, int n, double *median, double *min, double *max)
{
    qsort(x, (size_t)n, sizeof *x, compare_double);
    *min = x[0], *max = x[n - 1];
    *median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}
