/* fuzz/profile.c: profile files (README: Tuning), read for a device of every
 * method (hsp_profile_load) and then rewritten with a section of its own
 * (hsp_profile_write).  A read succeeds with methods the device runs, or
 * fails with a message and no methods; a file that read succeeds rewritten,
 * and reads again. */
#include <string.h>
#include <unistd.h>
#include "fuzz.h"
#include "spgemm/bins.h"
#include "device/device.h"
#include "spgemm/profile.h"
#include "spgemm/spgemm_device.h"

/* The device the profiles are read for: every method on every group. */
static hsp_device *fuzz_device(void)
{
    static hsp_device dev;
    static hsp_spgemm_device spgemm;
    snprintf(dev.description, sizeof dev.description, "fuzz device");
    for (int g = 0; g < HSP_NMETHODGROUPS; g++) spgemm.methods[g] = spgemm.exact[g] = 0xfe;
    dev.spgemm = &spgemm;
    return &dev;
}

/* Read path for dev; abort where the result breaks the contract. */
static hsp_status read_checked(const char *path, const hsp_device *dev, const hsp_bins *bins)
{
    static const hsp_profile none;
    hsp_options o;
    hsp_profile p;
    hsp_options_init(&o);
    o.profile = path;
    hsp_status s = hsp_profile_load(&o, dev, bins, &p);
    if (s != HSP_OK && (memcmp(&p, &none, sizeof p) || !*hsp_errmsg())) fuzz_fail("a failed read left methods");
    if (s != HSP_OK && s != HSP_ERR_ARG && s != HSP_ERR_UNSUPPORTED && s != HSP_ERR_IO)
        fuzz_fail("status %s: %s", hsp_strerror(s), hsp_errmsg());
    for (int k = 0; k < 2 && s == HSP_OK; k++)
        for (int b = 0; b < HSP_MAX_BINS; b++)
            if (p.bin[k][b] < HSP_METHOD_DEFAULT || p.bin[k][b] >= HSP_NMETHODS) fuzz_fail("bin %d: method %d", b, p.bin[k][b]);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], written[256];
    hsp_bins bins;
    const hsp_device *dev = fuzz_device();
    snprintf(path, sizeof path, "/tmp/hsp_fuzz_profile_%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || hsp_bins_layout(32, 48 << 10, 2048, &bins) != HSP_OK) fuzz_fail("no file or bins for the fuzzer");
    fwrite(data, 1, size, f);
    fclose(f);
    if (read_checked(path, dev, &bins) == HSP_OK) {
        hsp_status s = hsp_profile_write(path, 1, dev->description, "rows 2 40 hash\n", written, sizeof written);
        if (s != HSP_OK) fuzz_fail("a profile that reads could not be rewritten: %s", hsp_errmsg());
        if (read_checked(path, dev, &bins) != HSP_OK) fuzz_fail("the rewritten profile does not read: %s", hsp_errmsg());
    }
    remove(path);
    return 0;
}
