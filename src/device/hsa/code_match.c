/* code_match.c: the embedded code object for an HSA agent's ISA. */
#include <string.h>
#include "device/hsa/code_objects.h"

const hsp_code_object *hsp_code_object_match(const char *isa_name, int dbl)
{
    static const char prefix[] = "amdgcn-amd-amdhsa--";
    if (strncmp(isa_name, prefix, sizeof prefix - 1)) return NULL;
    const char *processor = isa_name + sizeof prefix - 1;
    size_t len = strcspn(processor, ":"); /* the target features follow */
    for (int j = 0; j < hsp_ncode_objects; j++) {
        const hsp_code_object *co = &hsp_code_objects[j];
        if (co->dbl == !!dbl && strlen(co->target) == len && !strncmp(co->target, processor, len)) return co;
    }
    return NULL;
}
