/* t_kernels.c: the kernels of kernels/ build on every OpenCL device as a
 * context builds them: the whole source, in each precision the device has,
 * its binary asked for (which is when PoCL compiles each kernel's work-group
 * function).  Each build runs in a child process under a time limit, so that
 * a compiler that aborts (PoCL 5.0 of Ubuntu 24.04 did, on a construct of
 * kernels/bitmap.cl: issue 56) fails a test instead of killing the run.
 * Where the whole source fails, each kernel definition is built alone (the
 * bodies of the others emptied) to name the ones that fail.  The devices:
 * the arguments (opencl:N), else HSPGEMM_TEST_DEVICE where it names an
 * OpenCL device, else every OpenCL device. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hspgemm.h"
#include "tap.h"

#ifndef HSP_HAVE_OPENCL
int main(void)
{
    printf("1..0 # SKIP no OpenCL in this build\n");
    return 0;
}
#elif defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* Under a sanitizer the same builds would check the OpenCL compilers again, not
 * hspgemm's code (every device suite builds the kernels through it): this test
 * took 98 s of the sanitizer stage on the 2-core VM (48 s unsanitized), most of
 * it Intel's runtime compiling. */
int main(void)
{
    printf("1..0 # SKIP the kernels' builds are checked by the build without sanitizers\n");
    return 0;
}
#else
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

enum { WHOLE_LIMIT_S = 1200, ONE_LIMIT_S = 600, MAX_DEFS = 256, MAX_DEVICES = 32 };

extern const char hsp_kernel_source[];

/* A kernel definition in a source: its name (as written: a macro's may hold
 * ##), where it is (after #line), and its body from '{' at body to '}' at end. */
typedef struct {
    char name[64], file[64];
    int line;
    size_t body, end;
} kdef;

/* The index just past the comment, string or character literal at s + i, or i where none starts there. */
static size_t skip_literal(const char *s, size_t i)
{
    if (s[i] == '/' && s[i + 1] == '*') {
        const char *e = strstr(s + i + 2, "*/");
        return e ? (size_t)(e - s) + 2 : strlen(s);
    }
    if (s[i] == '/' && s[i + 1] == '/') return strcspn(s + i, "\n") + i;
    if (s[i] != '"' && s[i] != '\'') return i;
    size_t j = i + 1;
    for (; s[j] && s[j] != s[i]; j++)
        if (s[j] == '\\' && s[j + 1]) j++;
    return s[j] ? j + 1 : j;
}

/* The index of the character after s[i], past the literal starting at i if one does. */
static size_t step(const char *s, size_t i)
{
    size_t j = skip_literal(s, i);
    return j != i ? j : i + 1;
}

/* The line of s + at, and its file into file (64 bytes), after the last #line before it. */
static int line_of(const char *s, size_t at, char *file)
{
    int line = 0;
    snprintf(file, 64, "?");
    for (size_t i = 0; i <= at; i = strcspn(s + i, "\n") + i + 1) {
        int n, len = 0;
        char f[64];
        line++;
        if (sscanf(s + i, "#line %d \"%63[^\"]\"%n", &n, f, &len) == 2 && len > 0)
            line = n - 1, snprintf(file, 64, "%s", f);
    }
    return line;
}

/* The kernel definitions of s into defs (up to max); returns how many, or -1 where a body does not close. */
static int find_kernels(const char *s, kdef *defs, int max)
{
    int n = 0;
    for (size_t i = 0; s[i] && n < max;) {
        size_t j = skip_literal(s, i);
        if (j != i) {
            i = j;
            continue;
        }
        int after_word = i > 0 && (s[i - 1] == '_' || isalnum((unsigned char)s[i - 1]));
        if (after_word || strncmp(s + i, "__kernel", 8) != 0) {
            i++;
            continue;
        }
        kdef *d = &defs[n];
        if (sscanf(s + i, "__kernel void %63[A-Za-z0-9_#]", d->name) != 1) snprintf(d->name, sizeof d->name, "?");
        d->line = line_of(s, i, d->file);
        for (j = i; s[j] && s[j] != '{'; j = step(s, j)) {}
        int depth = 0;
        for (d->body = j; s[j]; j = step(s, j)) {
            depth += (s[j] == '{') - (s[j] == '}');
            if (!depth) break;
        }
        if (!s[j]) return -1;
        d->end = j, i = j + 1, n++;
    }
    return n;
}

/* s with the bodies of every definition but keep emptied (spaces; lines and a macro's line ends kept). */
static char *keep_one(const char *s, const kdef *defs, int n, int keep)
{
    char *out = strdup(s);
    for (int k = 0; out && k < n; k++)
        for (size_t i = defs[k].body + 1; k != keep && i < defs[k].end; i++)
            if (s[i] != '\n' && !(s[i] == '\\' && s[i + 1] == '\n')) out[i] = ' ';
    return out;
}

static const char *unit_source; /* what the child builds in place of the kernel source, or NULL */

/* The loader's clCreateProgramWithSource, given unit_source in place of the kernel source. */
cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings, const size_t *lengths,
                                     cl_int *err)
{
    static __typeof__(clCreateProgramWithSource) *real;
    if (!real) real = (__typeof__(clCreateProgramWithSource) *)dlsym(RTLD_NEXT, "clCreateProgramWithSource");
    if (unit_source && count == 1 && strings[0] == hsp_kernel_source) strings = &unit_source, lengths = NULL;
    return real(context, count, strings, lengths, err);
}

/* Run job(arg, fd) in a child under limit seconds, what it writes to fd into out (len bytes);
 * returns 0 where it exited 0, else why not into out. */
static int in_child(int (*job)(const void *, int), const void *arg, int limit, char *out, size_t len)
{
    int fd[2];
    out[0] = 0;
    fflush(stdout);
    if (pipe(fd) != 0) return snprintf(out, len, "no pipe"), 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm((unsigned)limit);
        _exit(job(arg, fd[1]));
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got + 1 < len && (r = read(fd[0], out + got, len - 1 - got)) > 0) got += (size_t)r;
    out[got] = 0;
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return snprintf(out, len, "no child process"), 1;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(out, len, "still building after %d s", limit);
    else if (WIFSIGNALED(status))
        snprintf(out, len, "the process died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Child: the OpenCL devices' names and descriptions, a line each, to fd. */
static int list_devices(const void *unused, int fd)
{
    hsp_device_info list[MAX_DEVICES];
    int count = 0;
    (void)unused;
    if (hsp_devices(list, MAX_DEVICES, &count) != HSP_OK) return dprintf(fd, "%s", hsp_errmsg()), 1;
    for (int k = 0; k < count && k < MAX_DEVICES; k++)
        if (!strncmp(list[k].name, "opencl:", 7)) dprintf(fd, "%s\t%s\n", list[k].name, list[k].description);
    return 0;
}

typedef struct {
    const char *device, *source; /* source: NULL for the kernel source as it is */
} build_job;

/* Remove the cache directory dir and its files. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1200];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
    if (d) closedir(d);
    rmdir(dir);
}

/* Child: a context on the job's device, which builds the kernels (into the cache directory, so that their binaries
 * are asked for); the error to fd. */
static int open_context(const void *arg, int fd)
{
    const build_job *job = arg;
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = job->device, o.threads = 1;
    unit_source = job->source;
    if (hsp_context_create(&o, &ctx) != HSP_OK) return dprintf(fd, "%s", hsp_errmsg()), 1;
    hsp_context_free(ctx);
    return 0;
}

/* Does source (NULL: the kernel source) build on device, in a fresh cache directory? why not into why. */
static int builds(const char *device, const char *source, int limit, char *why, size_t len)
{
    char dir[] = "/tmp/hsp-t-kernels-XXXXXX";
    if (!mkdtemp(dir)) return snprintf(why, len, "no temporary directory"), 0;
    setenv("HSPGEMM_CACHE_DIR", dir, 1);
    build_job job = {device, source};
    int failed = in_child(open_context, &job, limit, why, len);
    remove_dir(dir);
    return !failed;
}

/* Each definition of the kernel source built alone on device: which fail. */
static void each_alone(const char *device, const kdef *defs, int n)
{
    char why[2048];
    for (int k = 0; k < n; k++) {
        char *unit = keep_one(hsp_kernel_source, defs, n, k);
        if (!tap_ok(unit && builds(device, unit, ONE_LIMIT_S, why, sizeof why), "%s: %s (%s:%d) builds alone", device,
                    defs[k].name, defs[k].file, defs[k].line))
            tap_diag("%s", unit ? why : "out of memory");
        free(unit);
    }
}

/* The scanner on a made-up source: comments, strings, a macro's kernel. */
static void check_scanner(void)
{
    static const char s[] = "#line 1 \"a.cl\"\n"
                            "/* __kernel void no(void) { */\n"
                            "int f(int x) { return x; }\n"
                            "__kernel void one(__global int *p)\n"
                            "{ __local int t; if (p) { t = f(1); } p[0] = t + '}'; }\n"
                            "#line 1 \"b.cl\"\n"
                            "#define MAKE(N) \\\n"
                            "    __kernel void two_##N(__global int *p) { p[0] = N; /* } */ \\\n"
                            "    }\n"
                            "MAKE(2)\n";
    static const char kept[] = "#line 1 \"a.cl\"\n"
                               "/* __kernel void no(void) { */\n"
                               "int f(int x) { return x; }\n"
                               "__kernel void one(__global int *p)\n"
                               "{ __local int t; if (p) { t = f(1); } p[0] = t + '}'; }\n"
                               "#line 1 \"b.cl\"\n"
                               "#define MAKE(N) \\\n"
                               "    __kernel void two_##N(__global int *p) {                   \\\n"
                               "    }\n"
                               "MAKE(2)\n";
    kdef d[4];
    int n = find_kernels(s, d, 4);
    tap_ok(n == 2 && !strcmp(d[0].name, "one") && !strcmp(d[0].file, "a.cl") && d[0].line == 3 &&
               !strcmp(d[1].name, "two_##N") && !strcmp(d[1].file, "b.cl") && d[1].line == 2,
           "the scanner finds two kernel definitions, their names and places");
    char *unit = n == 2 ? keep_one(s, d, n, 0) : NULL;
    tap_ok(unit && !strcmp(unit, kept), "a unit keeps one definition's body, the other's emptied");
    free(unit);
}

/* The OpenCL devices to check into names (MAX_DEVICES x 32) and descriptions (x 128); how many, or -1. */
static int devices(int argc, char **argv, char names[][32], char descriptions[][128])
{
    const char *test = getenv("HSPGEMM_TEST_DEVICE");
    int n = 0;
    for (int k = 1; k < argc && n < MAX_DEVICES; k++)
        snprintf(names[n], 32, "%s", argv[k]), descriptions[n++][0] = 0;
    if (n == 0 && test && !strncmp(test, "opencl", 6)) snprintf(names[n], 32, "%s", test), descriptions[n++][0] = 0;
    if (n) return n;
    char out[MAX_DEVICES * 170], *line = out, *next;
    if (in_child(list_devices, NULL, ONE_LIMIT_S, out, sizeof out)) return tap_diag("devices: %s", out), -1;
    for (; *line && n < MAX_DEVICES; line = next + 1, n++) {
        if (!(next = strchr(line, '\n'))) break;
        *next = 0;
        sscanf(line, "%31[^\t]\t%127[^\n]", names[n], descriptions[n]);
    }
    return n;
}

int main(int argc, char **argv)
{
    static char names[MAX_DEVICES][32], descriptions[MAX_DEVICES][128];
    static kdef defs[MAX_DEFS];
    char why[2048];
    check_scanner();
    int n = find_kernels(hsp_kernel_source, defs, MAX_DEFS), named = n > 0;
    for (int k = 0; k < n; k++) named &= !strncmp(defs[k].name, "hsp_", 4) && defs[k].line > 0;
    tap_ok(n > 0 && n < MAX_DEFS && named, "the kernel source holds %d definitions, each named hsp_*", n);
    int ndev = devices(argc, argv, names, descriptions);
    tap_ok(ndev >= 0, "the OpenCL devices are listed");
    if (ndev == 0) tap_skip("no OpenCL device", "the kernels build");
    for (int k = 0; k < ndev; k++) {
        if (tap_ok(builds(names[k], NULL, WHOLE_LIMIT_S, why, sizeof why), "%s%s%s: the kernels build as a context "
                   "builds them", names[k], *descriptions[k] ? " " : "", descriptions[k]))
            continue;
        tap_diag("%s", why);
        each_alone(names[k], defs, n);
    }
    return tap_done();
}
#endif
