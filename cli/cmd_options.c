/* cmd_options.c: `hspgemm options`: the library's options (options.def) as a
 * command line sets them. */
#include <string.h>
#include "cli.h"

static const char usage_options[] =
    "usage: hspgemm options [OPTIONS]\n"
    "Lists the library's options (hsp_options, src/options.def), one a line: the member, its\n"
    "value as a command line of these options gives it to the library, its default (the same\n"
    "in the library, the commands, the Python package; NULL: none), the flag that sets it, the\n"
    "keyword of the Python package's Context and the PETSc plugin's option (-: none).  The\n"
    "commands take --mem-limit as the memory available when they start, and spmm (as the\n"
    "PETSc plugin) --device as cpu, where none is given.\n";

/* The value of option t in o, as the listing writes it. */
static void print_value(const hsp_option_info *t, const hsp_options *o)
{
    const void *p = (const char *)o + t->offset;
    switch (t->kind) {
    case HSP_OPTION_TEXT: fputs(*(const char *const *)p ? *(const char *const *)p : "NULL", stdout); break;
    case HSP_OPTION_INT:
    case HSP_OPTION_FLAG: printf("%d", *(const int *)p); break;
    case HSP_OPTION_INT64:
    case HSP_OPTION_BYTES: printf("%lld", (long long)*(const int64_t *)p); break;
    case HSP_OPTION_REAL: printf("%g", *(const double *)p); break;
    case HSP_OPTION_GROW: fputs(hsp_grow_name(o->grow), stdout); break;
    case HSP_OPTION_METHODS:
        printf("%s,%s,%s", hsp_method_name(o->method[0]), hsp_method_name(o->method[1]),
               hsp_method_name(o->method[2]));
        break;
    }
}

int cmd_options(int argc, char **argv)
{
    int n;
    const hsp_option_info *t = hsp_option_table(&n);
    char allowed[512] = "quiet";
    for (int k = 0; k < n; k++)
        if (t[k].flag)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), ",%.*s",
                     (int)strcspn(t[k].flag, "="), t[k].flag);
    cli_args a;
    int rc = cli_parse(argc, argv, allowed, usage_options, &a);
    if (rc) return rc == 1 ? 0 : rc;
    if (a.noperands) return cli_usage_error(a.name, "takes no matrices");
    hsp_options defaults;
    hsp_options_init(&defaults);
    for (int k = 0; k < n; k++) {
        printf("%s\t", t[k].name);
        print_value(&t[k], &a.lib);
        putchar('\t');
        print_value(&t[k], &defaults);
        printf("\t%s%.*s\t%s\t%s\n", t[k].flag ? "--" : "-", t[k].flag ? (int)strcspn(t[k].flag, "=") : 0,
               t[k].flag ? t[k].flag : "", t[k].python ? t[k].python : "-", t[k].petsc ? t[k].petsc : "-");
    }
    return 0;
}
