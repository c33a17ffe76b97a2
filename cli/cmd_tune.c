/* cmd_tune.c: `hspgemm tune`: time the methods of each bin on a GPU device
 * and write the fastest to a profile (hsp_tune). */
#include <stdio.h>
#include <string.h>
#include "cli.h"

static const char usage_tune[] =
    "usage: hspgemm tune [A ...] [--gen=SPEC ...] [--device=NAME] [--profile=FILE] [--rows=N]\n"
    "                    [--precision=float|double] [--repeat=N] [--threads=N] [--deterministic]\n"
    "                    [--seed=N] [--quiet]\n"
    "Times every method the device runs on each bin of short and medium rows, and on its\n"
    "long rows, against the device's own choice: whole products, one bin's method changed\n"
    "at a time, the settings taking turns run by run.  Squares the matrices given (Matrix\n"
    "Market files or --gen specs: a profile for your own kind of matrix), else generated\n"
    "matrices of about N rows each (stencils, bands, random rows, R-MAT).  Writes, as the\n"
    "device's section of a profile, the times and the methods that beat the device's own\n"
    "by more than 5% in bins where the matrices put 1024 rows or more.  Contexts then take\n"
    "those methods where --methods leaves the choice to the device.\n"
    "  --device=NAME         a GPU device: opencl[:N], hsa[:N] (default auto)\n"
    "  --profile=FILE        the profile to write (default ~/.config/hspgemm/profile, or\n"
    "                        $XDG_CONFIG_HOME/hspgemm/profile); its other sections are kept\n"
    "  --precision=P         of the products timed (default double); a section each\n"
    "  --rows=N              rows of each generated matrix, about (default 262144)\n"
    "  --repeat=N            timed runs of each product, after one untimed (default 5)\n"
    "  --deterministic       time only the methods that sum in a fixed order\n"
    "  --quiet               no progress display\n"
    "Prints the profile written.\n";

/* Print the file at path to stdout. */
static int print_file(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f) return perror(path), 1;
    while (fgets(line, sizeof line, f)) fputs(line, stdout);
    fclose(f);
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse(argc, argv, "device,profile,precision,rows,repeat,threads,deterministic,seed,gen,quiet",
                       usage_tune, &a);
    if (rc) return rc == 1 ? 0 : rc;
    hsp_tune_options t;
    hsp_tune_options_init(&t);
    t.precision = a.precision, t.rows = a.rows, t.runs = a.repeat, t.progress = !a.quiet;
    t.profile = a.lib.profile;
    a.lib.profile = "none"; /* the old profile is not read: every bin is timed afresh */
    char path[256];
    if (!hsp_profile_path(t.profile, path, sizeof path)) {
        fprintf(stderr, "hspgemm: tune: no profile to write: give --profile=FILE (of at most 255 bytes; "
                "the default needs HOME or XDG_CONFIG_HOME)\n");
        return 2;
    }
    if (cli_check_rows(&a, "tune", 0, 0)) return 1;
    hsp_csr *M[CLI_MAX_OPERANDS] = {NULL};
    for (int k = 0; k < a.noperands && !rc; k++) rc = cli_load(&a, k, &M[k]);
    t.matrices = (const hsp_csr *const *)M, t.names = a.operand, t.nmatrices = a.noperands;
    hsp_context *ctx = NULL;
    hsp_status s = HSP_OK;
    if (!rc) rc = cli_context(&a, &ctx);
    if (!rc && (s = hsp_tune(ctx, &t)) != HSP_OK) rc = cli_error("tune", s);
    hsp_context_free(ctx);
    for (int k = 0; k < a.noperands; k++) hsp_csr_free(M[k]);
    if (rc) return rc;
    printf("wrote %s:\n", path);
    return print_file(path);
}
