/* main.c: the hspgemm command: dispatch to a subcommand. */
#include <errno.h>
#include <string.h>
#include "cli.h"

static const char usage[] =
    "usage: hspgemm COMMAND [OPTIONS] [ARGS]\n"
    "Sparse matrix-matrix products C = A*B in CSR on CPU threads and devices.\n\n"
    "commands:\n"
    "  multiply A B -o C   C = A*B\n"
    "  square A -o C       C = A*A\n"
    "  spmm A [B] -o C     C = A*B, B and C dense (sparse times dense)\n"
    "  gen KIND ARGS -o A  write a generated matrix\n"
    "  info A              shape, row lengths and the bins of A*A\n"
    "  rap [R] A P -o C    C = R*A*P, a Galerkin product (R = P^T when not given)\n"
    "  amg-setup A         build a smoothed-aggregation AMG hierarchy of A\n"
    "  amg-solve A         solve A x = b by CG preconditioned by that hierarchy's cycles\n"
    "  bench               time a suite of matrices against peer libraries\n"
    "  devices             the devices --device= takes\n"
    "  tune                time each bin's methods on a GPU device; write a profile\n"
    "  options             the library's options, their defaults and flags\n"
    "  help [COMMAND]      this text, or COMMAND's options (as COMMAND --help)\n"
    "  --version           the version and the commit this build is from\n\n"
    "A matrix is a Matrix Market file or --gen=KIND:ARG[,ARG], e.g. --gen=poisson3d27:101.\n"
    "'hspgemm COMMAND --help' describes a command's options.\n";

static int dispatch(int argc, char **argv);

/* `hspgemm help COMMAND`: COMMAND --help. */
static int help_of(const char *cmd)
{
    char *args[] = {"hspgemm", (char *)cmd, "--help", NULL};
    return dispatch(3, args);
}

/* The subcommand's exit status. */
static int dispatch(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "help") && strcmp(argv[2], "help")) return help_of(argv[2]);
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) return puts(cli_version()) < 0;
    const char *cmd = argv[1];
    argc -= 1, argv += 1;
    if (!strcmp(cmd, "multiply")) return cmd_multiply(argc, argv, 0);
    if (!strcmp(cmd, "square")) return cmd_multiply(argc, argv, 1);
    if (!strcmp(cmd, "gen")) return cmd_gen(argc, argv);
    if (!strcmp(cmd, "options")) return cmd_options(argc, argv);
    if (!strcmp(cmd, "info")) return cmd_info(argc, argv);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc, argv);
    if (!strcmp(cmd, "rap")) return cmd_rap(argc, argv);
    if (!strcmp(cmd, "amg-setup")) return cmd_amg_setup(argc, argv);
    if (!strcmp(cmd, "amg-solve")) return cmd_amg_solve(argc, argv);
    if (!strcmp(cmd, "devices")) return cmd_devices(argc, argv);
    if (!strcmp(cmd, "tune")) return cmd_tune(argc, argv);
    if (!strcmp(cmd, "spmm")) return cmd_spmm(argc, argv);
    char shown[CLI_SHOWN + 4];
    fprintf(stderr, "hspgemm: unknown command '%s'\n(see 'hspgemm help')\n", cli_shown(cmd, shown));
    return 2;
}

/* A GPU device's kernels built from source (seconds to minutes, once: the
 * library's build hook) said in one line on stderr at the first build of
 * the process, whichever precision it is. */
static void print_build(hsp_build_event event, const char *device, hsp_precision precision, const char *cache,
                        double seconds, void *said)
{
    (void)precision, (void)seconds;
    if (event != HSP_BUILD_START || *(int *)said) return;
    *(int *)said = 1;
    if (cache) fprintf(stderr, "hspgemm: building the OpenCL kernels for %s (once: they are cached in %s) ...\n",
                       device, cache);
    else fprintf(stderr, "hspgemm: building the OpenCL kernels for %s (not cached: HSPGEMM_CACHE_DIR=off or no "
                 "HOME) ...\n", device);
}

/* The subcommand's status, or 1 where what it printed could not be written
 * (a full disk, a closed pipe): a report lost is a failure. */
int main(int argc, char **argv)
{
    static int said;
    hsp_set_build_hook(print_build, &said); /* cli_parse takes it back under --quiet */
    int rc = dispatch(argc, argv);
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    fprintf(stderr, "hspgemm: writing the standard output: %s\n", errno ? strerror(errno) : "I/O error");
    return rc ? rc : 1;
}
