/* peers.c: running the peer programs of bench/ (GraphBLAS, scipy, cuSPARSE,
 * oneMKL, PyAMG, hypre BoomerAMG, PETSc GAMG) for the bench commands: finding them, asking each whether it
 * can run here, their command lines, writing the operands to a temporary
 * directory, and reading the JSON line each prints. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

const char *const cli_peer_name[CLI_NPEERS] = {"graphblas", "scipy", "cusparse", "mkl", "pyamg", "hypre", "gamg"};
static const char *const peer_file[CLI_NPEERS] = {"peer_graphblas", "peer_scipy.py", "peer_cusparse", "peer_mkl",
                                                  "peer_pyamg.py", "peer_hypre", "peer_gamg"};
/* The module a Python peer needs. */
static const char *const peer_module[CLI_NPEERS] = {NULL, "scipy", NULL, NULL, "pyamg", NULL, NULL};

void cli_status_line(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO)) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* The directory of this executable, or "." */
static void exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, len, ".");
}

int cli_find_peer(const char *file, char *path, size_t len)
{
    char dir[PATH_MAX];
    const char *env = getenv("HSPGEMM_PEER_DIR");
    exe_dir(dir, sizeof dir);
    const char *fmt[] = {"%s/%s", "%s/bench/%s", "%s/../bench/%s", "%s/%s"};
    const char *base[] = {env, dir, dir, HSP_PKGLIBEXECDIR};
    for (int k = 0; k < 4; k++) {
        if (!base[k]) continue;
        snprintf(path, len, fmt[k], base[k], file);
        if (access(path, X_OK) == 0 || (strstr(file, ".py") && access(path, R_OK) == 0)) return 1;
    }
    return 0;
}

const char *cli_find_python(const char *module)
{
    static const char *candidates[] = {NULL, CLI_PEER_PYTHON, "python3", "/usr/bin/python3"};
    static char chosen[256];
    candidates[0] = getenv("HSPGEMM_PYTHON");
    for (int k = 0; k < 4; k++) {
        char cmd[400];
        if (!candidates[k]) continue;
        snprintf(cmd, sizeof cmd, "%s -c 'import %s' >/dev/null 2>&1", candidates[k], module);
        if (system(cmd) == 0) return snprintf(chosen, sizeof chosen, "%s", candidates[k]), chosen;
    }
    return NULL;
}

double cli_json_number(const char *line, const char *key)
{
    char pattern[64];
    if (snprintf(pattern, sizeof pattern, "\"%s\":", key) >= (int)sizeof pattern) return -1.0; /* no key so long */
    const char *p = strstr(line, pattern);
    return p ? strtod(p + strlen(pattern), NULL) : -1.0;
}

/* The string after "key": in a JSON line into out ("" when absent). */
static void json_text(const char *line, const char *key, char *out, size_t len)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = strstr(line, pattern);
    size_t n = p ? strcspn(p + strlen(pattern), "\"") : 0;
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p ? p + strlen(pattern) : "");
}

cli_times cli_json_times(const char *line, const char *key)
{
    int runs = (int)cli_json_number(line, "runs");
    char name[64];
    cli_times t = {0, 0, 0, 0, 0, 0};
    snprintf(name, sizeof name, "%s_median", key);
    if ((t.median = cli_json_number(line, name)) < 0) return (cli_times){0, 0, 0, 0, 0, 0};
    snprintf(name, sizeof name, "%s_min", key), t.min = cli_json_number(line, name);
    snprintf(name, sizeof name, "%s_max", key), t.max = cli_json_number(line, name);
    snprintf(name, sizeof name, "%s_q1", key), t.q1 = cli_json_number(line, name);
    snprintf(name, sizeof name, "%s_q3", key), t.q3 = cli_json_number(line, name);
    t.runs = runs;
    return t;
}

/* Run a command; its first line of output into line, stderr's first line
 * (when err is not NULL) into err; its exit status, -1 when it did not run. */
static int run_command(const char *cmd, char *line, size_t len, char *err, size_t errlen)
{
    char *full = NULL, path[] = "/tmp/hspgemm-peer-XXXXXX";
    int fd = err ? mkstemp(path) : -1;
    line[0] = '\0';
    if (err) err[0] = '\0';
    if (asprintf(&full, "%s 2>%s", cmd, fd >= 0 ? path : "/dev/null") < 0) return -1;
    FILE *p = popen(full, "r");
    free(full);
    if (!p) return -1;
    if (!fgets(line, (int)len, p)) line[0] = '\0';
    while (fgetc(p) != EOF) continue;
    int rc = pclose(p);
    if (fd >= 0) {
        FILE *e = fdopen(fd, "r");
        if (e && !fgets(err, (int)errlen, e)) err[0] = '\0';
        err[strcspn(err, "\n")] = '\0';
        e ? fclose(e) : close(fd);
        unlink(path);
    }
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* Peer k's command line, without the options of a run, into cmd: "" and the
 * reason in why when it is missing or cannot run here (its --version fails). */
static void peer_command(int k, char *cmd, char *version, size_t vlen, char *why, size_t wlen)
{
    char path[PATH_MAX], ask[CLI_CMD_LEN + 16], line[512], err[200];
    const char *python = NULL;
    cmd[0] = '\0';
    if (!cli_find_peer(peer_file[k], path, sizeof path)) {
        snprintf(why, wlen, "not built (bench/%s missing)", peer_file[k]);
        return;
    }
    if (peer_module[k] && !(python = cli_find_python(peer_module[k]))) {
        snprintf(why, wlen, "no python3 with %s (build-aux/install-peer-python.sh)", peer_module[k]);
        return;
    }
    snprintf(cmd, CLI_CMD_LEN, "%s%s'%s'", python ? python : "", python ? " " : "", path);
    snprintf(ask, sizeof ask, "%s --version", cmd);
    if (run_command(ask, line, sizeof line, err, sizeof err) != 0) {
        snprintf(why, wlen, "%s", err[0] ? err : "its --version failed");
        cmd[0] = '\0';
        return;
    }
    json_text(line, "version", version, vlen);
}

/* Is name (len bytes) a peer, and which?  -1 if not. */
static int peer_index(const char *name, size_t len)
{
    for (int k = 0; k < CLI_NPEERS; k++)
        if (strlen(cli_peer_name[k]) == len && !strncmp(name, cli_peer_name[k], len)) return k;
    return -1;
}

/* The peers --peers names, as a mask of 1 << k, and whether it says auto
 * (or nothing); -1 after an error message. */
static long peers_named(const char *list, unsigned allowed, int *automatic)
{
    unsigned named = 0;
    *automatic = !list || !strcmp(list, "auto");
    if (*automatic || !strcmp(list, "none")) return *automatic ? (long)allowed : 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int k = peer_index(p, len);
        if (k < 0 || !(allowed & 1u << k)) {
            fprintf(stderr, "hspgemm: bench: --peers: '%.*s' is %s; this suite takes", (int)len, p,
                    k < 0 ? "no peer" : "not a peer of this suite");
            for (int j = 0; j < CLI_NPEERS; j++)
                if (allowed & 1u << j) fprintf(stderr, " %s,", cli_peer_name[j]);
            fprintf(stderr, " auto or none\n");
            return -1;
        }
        named |= 1u << k;
        p += len + (p[len] == ',');
    }
    return named;
}

int cli_peers_choose(const cli_args *a, unsigned allowed, cli_peers *p)
{
    int automatic, bad = 0;
    long named = peers_named(a->peers, allowed, &automatic);
    memset(p, 0, sizeof *p);
    if (named < 0) return 2;
    for (int k = 0; k < CLI_NPEERS; k++) {
        char why[200] = "";
        if (!(allowed & 1u << k)) continue;
        snprintf(p->status[k], sizeof p->status[k], "not asked");
        if (!(named & 1L << k)) continue;
        cli_status_line("bench: asking peer %s", cli_peer_name[k]);
        peer_command(k, p->cmd[k], p->version[k], sizeof p->version[k], why, sizeof why);
        if (!p->cmd[k][0]) snprintf(p->status[k], sizeof p->status[k], "not available: %s", why);
        else snprintf(p->status[k], sizeof p->status[k], "ran");
        if (!p->cmd[k][0] && !automatic)
            fprintf(stderr, "hspgemm: bench: peer %s cannot run here: %s (--peers=auto runs those that can)\n",
                    cli_peer_name[k], why), bad = 1;
        if (p->cmd[k][0] && allowed == CLI_SOLVE_PEERS) /* the solve suite */
            snprintf(p->cmd[k] + strlen(p->cmd[k]), CLI_CMD_LEN - strlen(p->cmd[k]),
                     " --solve --tol=%.17g --maxiter=%d --threads=%d --repeat=%d", a->solve.tol, a->solve.maxiter,
                     a->lib.threads, a->repeat);
        if (p->cmd[k][0] && k == CLI_PYAMG)
            snprintf(p->cmd[k] + strlen(p->cmd[k]), CLI_CMD_LEN - strlen(p->cmd[k]),
                     " --strength=%s --theta=%.17g --omega=%.17g --levels=%d --coarse=%d --repeat=%d",
                     cli_strength_name(a->amg.strength), a->amg.theta, a->amg.omega,
                     a->amg.max_levels, a->amg.coarse_size, a->repeat);
        else if (p->cmd[k][0] && k < CLI_PYAMG)
            snprintf(p->cmd[k] + strlen(p->cmd[k]), CLI_CMD_LEN - strlen(p->cmd[k]),
                     " --threads=%d --repeat=%d --precision=%s", a->lib.threads, a->repeat,
                     a->precision == HSP_DOUBLE ? "double" : "float");
    }
    cli_status_line("%s", "");
    return bad ? 2 : 0;
}

int cli_peers_any(const cli_peers *p)
{
    for (int k = 0; k < CLI_NPEERS; k++)
        if (p->cmd[k][0]) return 1;
    return 0;
}

/* Run a peer's command line; its figures into r; 0 on success. */
static int run_peer(const char *cmd, cli_peer_result *r)
{
    char err[200], line[1024];
    int rc = run_command(cmd, line, sizeof line, err, sizeof err);
    r->host = cli_json_times(line, "ms");
    r->device = cli_json_times(line, "ms_device");
    r->nopool = cli_json_times(line, "ms_device_nopool");
    r->sorted = cli_json_times(line, "ms_sorted");
    r->nnz = (int64_t)cli_json_number(line, "nnz_c");
    r->peak = cli_json_number(line, "peak_device_bytes");
    if (rc != 0 && err[0]) fprintf(stderr, "\n%s\n", err);
    return rc == 0 && r->host.runs > 0 ? 0 : -1;
}

void cli_run_peers(const char *name, const hsp_csr *const *M, int n, const char *extra, const cli_peers *p,
                   cli_peer_result result[CLI_NPEERS])
{
    char dir[] = "/tmp/hspgemm-bench-XXXXXX", path[3][64], files[3 * 70] = "", *full;
    int written = 0;
    memset(result, 0, CLI_NPEERS * sizeof *result);
    if (!cli_peers_any(p) || n > 3 || !mkdtemp(dir)) return;
    for (; written < n; written++) {
        snprintf(path[written], sizeof path[written], "%s/m%d.mtx", dir, written);
        cli_status_line("bench: %s: writing %s", name, path[written]);
        if (hsp_mm_write(path[written], M[written]) != HSP_OK) break;
        snprintf(files + strlen(files), sizeof files - strlen(files), " '%s'", path[written]);
    }
    for (int k = 0; k < CLI_NPEERS && written == n; k++) {
        if (!p->cmd[k][0]) continue;
        cli_status_line("bench: %s: %s", name, cli_peer_name[k]);
        if (asprintf(&full, "%s %s%s", p->cmd[k], extra, files) < 0) continue;
        if (run_peer(full, &result[k]) != 0) {
            fprintf(stderr, "\nhspgemm: bench: %s failed on %s\n", cli_peer_name[k], name);
            memset(&result[k], 0, sizeof result[k]);
            result[k].failed = 1;
        }
        free(full);
    }
    for (int w = 0; w < written; w++) unlink(path[w]);
    rmdir(dir);
}

int cli_peer_files(const char *name, const hsp_csr *A, const hsp_amg_options *o, char *dir, char *args, size_t len)
{
    char path[64];
    size_t at = 0;
    snprintf(dir, CLI_TEMP_DIR, "/tmp/hspgemm-peer-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    args[0] = '\0';
    if (o->block > 1) at += (size_t)snprintf(args, len, "--block=%d ", o->block);
    snprintf(path, sizeof path, "%s/B.mtx", dir);
    if (o->B && cli_write_nullspace(path, o, A->nrows)) return cli_peer_files_remove(dir), -1;
    if (o->B) at += (size_t)snprintf(args + at, len - at, "--nullspace='%s' ", path);
    snprintf(path, sizeof path, "%s/A.mtx", dir);
    cli_status_line("bench: %s: writing %s", name, path);
    if (hsp_mm_write(path, A) != HSP_OK) return cli_peer_files_remove(dir), -1;
    snprintf(args + at, len - at, "'%s'", path);
    return 0;
}

void cli_peer_files_remove(const char *dir)
{
    char path[64];
    const char *files[] = {"A.mtx", "B.mtx"};
    for (int k = 0; k < 2; k++) snprintf(path, sizeof path, "%s/%s", dir, files[k]), unlink(path);
    rmdir(dir);
}

int cli_peer_line(const char *cmd, char *line, size_t len)
{
    char err[200];
    int rc = run_command(cmd, line, len, err, sizeof err);
    if (rc != 0 && err[0]) fprintf(stderr, "\n%s\n", err);
    return rc;
}
