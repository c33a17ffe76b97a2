/* t_status.c: every status has a distinct name; errors leave a message. */
#include <string.h>
#include "hspgemm.h"
#include "tap.h"

int main(void)
{
    for (int s = HSP_OK; s <= HSP_ERR_UNSUPPORTED; s++) {
        const char *name = hsp_strerror((hsp_status)s);
        int distinct = 1;
        for (int t = HSP_OK; t < s; t++) distinct &= strcmp(name, hsp_strerror((hsp_status)t)) != 0;
        tap_ok(name && *name && distinct, "status %d is named '%s'", s, name ? name : "(null)");
    }
    tap_ok(!strcmp(hsp_strerror((hsp_status)99), "unknown status"), "an unknown status is named");
    hsp_csr *A = NULL;
    hsp_status s = hsp_csr_create(-1, 3, 0, HSP_DOUBLE, &A);
    tap_ok(s == HSP_ERR_ARG && A == NULL && strstr(hsp_errmsg(), "negative"),
           "a failed call leaves a message: %s", hsp_errmsg());
    tap_ok(hsp_context_create(NULL, NULL) == HSP_ERR_ARG, "NULL out is refused");
    return tap_done();
}
