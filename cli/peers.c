/* peers.c: running the peer programs of bench/ (GraphBLAS, scipy, cuSPARSE, oneMKL)
 * for the bench commands: finding them, their command lines, writing the
 * operands to a temporary directory, and reading the JSON line each prints. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

const char *const cli_peer_name[CLI_NPEERS] = {"graphblas", "scipy", "cusparse", "mkl"};
static const char *const peer_file[CLI_NPEERS] = {"peer_graphblas", "peer_scipy.py", "peer_cusparse", "peer_mkl"};

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

/* The number after "key": in a JSON line, or -1. */
static double json_number(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(line, pattern);
    return p ? strtod(p + strlen(pattern), NULL) : -1.0;
}

/* Run a peer's command line; its figures into r; 0 on success. */
static int run_peer(const char *cmd, cli_peer_result *r)
{
    char line[1024] = "";
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    int got = fgets(line, sizeof line, p) != NULL;
    int rc = pclose(p);
    r->ms = json_number(line, "ms_median");
    r->nnz = (int64_t)json_number(line, "nnz_c");
    r->dev_ms = json_number(line, "ms_device_median");
    r->peak = json_number(line, "peak_device_bytes");
    return got && rc == 0 && r->ms >= 0 ? 0 : -1;
}

void cli_peer_commands(const cli_args *a, char cmd[CLI_NPEERS][CLI_CMD_LEN])
{
    for (int k = 0; k < CLI_NPEERS; k++) {
        char path[PATH_MAX];
        const char *python = NULL;
        cmd[k][0] = '\0';
        if (a->peers && (!strcmp(a->peers, "none") || !strstr(a->peers, cli_peer_name[k]))) continue;
        if (!cli_find_peer(peer_file[k], path, sizeof path)) {
            fprintf(stderr, "hspgemm: bench: peer %s not found (not built?)\n", cli_peer_name[k]);
            continue;
        }
        if (strstr(peer_file[k], ".py") && !(python = cli_find_python("scipy"))) {
            fprintf(stderr, "hspgemm: bench: peer %s skipped: no python3 with scipy\n", cli_peer_name[k]);
            continue;
        }
        snprintf(cmd[k], sizeof cmd[k], "%s%s'%s' --threads=%d --repeat=%d --precision=%s",
                 python ? python : "", python ? " " : "", path, a->lib.threads, a->repeat,
                 a->precision == HSP_DOUBLE ? "double" : "float");
    }
}

void cli_run_peers(const char *name, const hsp_csr *const *M, int n, const char *extra,
                   char cmd[CLI_NPEERS][CLI_CMD_LEN], cli_peer_result result[CLI_NPEERS])
{
    char dir[] = "/tmp/hspgemm-bench-XXXXXX", path[3][64], files[3 * 70] = "", *full;
    int any = 0, written = 0;
    memset(result, 0, CLI_NPEERS * sizeof *result);
    for (int k = 0; k < CLI_NPEERS; k++) any |= cmd[k][0] != '\0';
    if (!any || n > 3 || !mkdtemp(dir)) return;
    for (; written < n; written++) {
        snprintf(path[written], sizeof path[written], "%s/m%d.mtx", dir, written);
        cli_status_line("bench: %s: writing %s", name, path[written]);
        if (hsp_mm_write(path[written], M[written]) != HSP_OK) break;
        snprintf(files + strlen(files), sizeof files - strlen(files), " '%s'", path[written]);
    }
    for (int k = 0; k < CLI_NPEERS && written == n; k++) {
        if (!cmd[k][0]) continue;
        cli_status_line("bench: %s: %s", name, cli_peer_name[k]);
        if (asprintf(&full, "%s %s%s", cmd[k], extra, files) < 0) continue;
        if (run_peer(full, &result[k]) != 0) {
            fprintf(stderr, "\nhspgemm: bench: %s failed on %s\n", cli_peer_name[k], name);
            result[k].ms = 0;
        }
        free(full);
    }
    for (int w = 0; w < written; w++) unlink(path[w]);
    rmdir(dir);
}
