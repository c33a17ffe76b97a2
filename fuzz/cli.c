/* fuzz/cli.c: the command-line tool's option parsing (cli_parse) on any
 * arguments: the bytes split at newlines, every option of every command
 * allowed.  It must return 0, 1 (--help) or 2 (an error, printed), and what
 * it fills must be in range.  Its messages go to stderr, as the tool's. */
#include <string.h>
#include "fuzz.h"
#include "cli.h"

enum { MAX_ARGS = 64 };

static const char allowed[] = "o,output,device,threads,grow,precision,methods,stats,repeat,seed,wavefront,local-mem,"
                              "grow-start,mem-limit,small-nnz,device-timeout,quiet,gen,resident,order,theta,omega,"
                              "levels,coarse,resetup,write-levels,suite,peers,csv";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) quiet = freopen("/dev/null", "w", stdout) != NULL; /* --help's usage */
    char *text = malloc(size + 1), *argv[MAX_ARGS + 1] = {"hspgemm"};
    int argc = 1;
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    for (char *p = text; argc < MAX_ARGS && p; argc++) {
        argv[argc] = p;
        if ((p = strchr(p, '\n'))) *p++ = 0;
    }
    argv[argc] = NULL;
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, "usage\n", &a);
    if (rc < 0 || rc > 2) fuzz_fail("cli_parse returned %d", rc);
    if (rc == 0 && (a.noperands > CLI_MAX_OPERANDS || a.lib.threads < 0 || a.lib.mem_limit < 0 || a.repeat < 0))
        fuzz_fail("cli_parse filled values out of range");
    free(text);
    return 0;
}
