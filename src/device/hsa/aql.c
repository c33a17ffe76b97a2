/* aql.c: AQL kernel-dispatch packets (see aql.h). */
#include <stdatomic.h>
#include <string.h>
#include "device/hsa/aql.h"

uint16_t hsp_aql_header(hsa_packet_type_t type, int barrier, hsa_fence_scope_t acquire, hsa_fence_scope_t release)
{
    return (uint16_t)(type << HSA_PACKET_HEADER_TYPE | (barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER |
                      acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                      release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

void hsp_aql_dispatch(hsa_kernel_dispatch_packet_t *p, const hsp_kernel_info *k, uint64_t kernel_object,
                      void *kernarg, uint32_t groups, uint16_t size, uint32_t group_size, hsa_signal_t done)
{
    memset((unsigned char *)p + 4, 0, sizeof *p - 4); /* all but header and setup */
    p->workgroup_size_x = size, p->workgroup_size_y = 1, p->workgroup_size_z = 1;
    p->grid_size_x = groups * size, p->grid_size_y = 1, p->grid_size_z = 1;
    p->private_segment_size = k->private_fixed;
    p->group_segment_size = group_size;
    p->kernel_object = kernel_object;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
}

void hsp_aql_barrier(hsa_barrier_and_packet_t *p, hsa_signal_t done)
{
    memset((unsigned char *)p + 4, 0, sizeof *p - 4);
    p->completion_signal = done;
}

void hsp_aql_publish(void *packet, uint16_t header, uint16_t setup)
{
    atomic_store_explicit((_Atomic uint32_t *)packet, (uint32_t)header | (uint32_t)setup << 16,
                          memory_order_release);
}
