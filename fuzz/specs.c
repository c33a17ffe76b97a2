/* fuzz/specs.c: the generator specs of hsp_generate ("poisson3d27:40") and
 * the device specs of hsp_device_spec ("opencl:1,nosvm").  The first byte
 * chooses; the rest is the spec.  Specs with a number of more than two
 * digits, or an rmat scale above 16, are not passed to hsp_generate, which
 * would build matrices of that size (up to a million rows here). */
#include <ctype.h>
#include <string.h>
#include "fuzz.h"
#include "device/device.h"

/* Has text a run of more than two digits? */
static int large(const char *text)
{
    if (!strncmp(text, "rmat:", 5) && atoi(text + 5) > 16) return 1;
    for (int run = 0; *text; text++)
        if ((run = isdigit((unsigned char)*text) ? run + 1 : 0) > 2) return 1;
    return 0;
}

static void generator(const char *spec)
{
    hsp_csr *A = NULL;
    if (large(spec)) return;
    hsp_status s = hsp_generate(spec, 1, HSP_DOUBLE, &A);
    fuzz_expect_status(s, A);
    if (s == HSP_OK && hsp_csr_check(A) != HSP_OK) fuzz_fail("'%s' generated an invalid matrix: %s", spec, hsp_errmsg());
    if (s != HSP_OK && s != HSP_ERR_ARG && s != HSP_ERR_OVERFLOW && s != HSP_ERR_NOMEM)
        fuzz_fail("'%s': %s", spec, hsp_strerror(s));
    hsp_csr_free(A);
}

static void device(const char *rest)
{
    static const char *const flags[] = {"nosvm", "nofp64", "svm"};
    char spec[300];
    int index;
    unsigned set;
    snprintf(spec, sizeof spec, "opencl%s", rest);
    hsp_status s = hsp_device_spec(spec, "opencl", flags, 3, &index, &set);
    if (s == HSP_OK && (index < -1 || index > 1000 || set > 7)) fuzz_fail("'%s' gave index %d, flags %u", spec, index, set);
    if (s != HSP_OK && (s != HSP_ERR_ARG || !strstr(hsp_errmsg(), "bad device"))) fuzz_fail("'%s': %s", spec, hsp_errmsg());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[256];
    if (size < 1 || size > sizeof text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    if (data[0] & 1) device(text);
    else generator(text);
    return 0;
}
