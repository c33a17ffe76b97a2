/* engine.c: the products' state of a context (engine.h): freed, and the bin
 * layout users read (hsp_context_bins). */
#include <stdlib.h>
#include "spgemm/engine.h"
#include "spgemm/spgemm_device.h"

void hsp_engine_free(hsp_engine *e, int lost)
{
    if (!e) return;
    for (int k = 0; k < WS_COUNT && !lost; k++) free(e->ws.block[k]);
    if (e->cpu) e->cpu->destroy(e->cpu);
    free(e);
}

const hsp_bins *hsp_context_bins(const hsp_context *ctx)
{
    return ctx && ctx->engine ? &ctx->engine->bins : NULL;
}
