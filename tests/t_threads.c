/* t_threads.c: contexts opened at once by several threads, as the first
 * calls of the process into the device under test ($HSPGEMM_TEST_DEVICE):
 * each must find its device.  On PoCL alone, the first concurrent
 * clGetDeviceIDs calls failed ("no OpenCL device found") or crashed before
 * the library listed the devices once per process. */
#include <pthread.h>
#include <stdlib.h>
#include "hspgemm.h"
#include "tap.h"

enum { OPENERS = 8 };

/* One thread: a context on the device; its status in *arg. */
static void *open_one(void *arg)
{
    hsp_status *s = arg;
    const char *device = getenv("HSPGEMM_TEST_DEVICE");
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = device && *device ? device : "cpu", o.threads = 1;
    *s = hsp_context_create(&o, &ctx);
    hsp_context_free(ctx);
    return NULL;
}

int main(void)
{
    pthread_t t[OPENERS];
    hsp_status s[OPENERS];
    int opened = 0;
    for (int k = 0; k < OPENERS; k++) pthread_create(&t[k], NULL, open_one, &s[k]);
    for (int k = 0; k < OPENERS; k++) pthread_join(t[k], NULL), opened += s[k] == HSP_OK;
    tap_ok(opened == OPENERS, "%d threads open %s at once: %d opened", OPENERS,
           getenv("HSPGEMM_TEST_DEVICE") ? getenv("HSPGEMM_TEST_DEVICE") : "cpu", opened);
    return tap_done();
}
