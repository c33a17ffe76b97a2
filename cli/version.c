/* version.c: the version and commit of this build, for `hspgemm --version`
 * and the description of a bench run. */
#include <stdio.h>
#include "cli.h"
#include "cli/commit.h" /* HSP_COMMIT, written by build-aux/commit.sh at each build */

const char *cli_commit(void)
{
    return HSP_COMMIT;
}

const char *cli_version(void)
{
    static char text[128];
    snprintf(text, sizeof text, "hspgemm %s (commit %s)", PACKAGE_VERSION, HSP_COMMIT[0] ? HSP_COMMIT : "unknown");
    return text;
}
