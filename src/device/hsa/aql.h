/* aql.h: AQL packets for the hsa device's queue: kernel dispatches over a
 * 1-D grid, and barrier-AND packets.  A dependent dispatch sets the packet's
 * barrier bit (it waits for every packet before it); a barrier-AND packet
 * with a system-scope release fence hands the GPU's results to the host.
 * A packet is filled with its header left invalid; the header goes in last,
 * by hsp_aql_publish, so the GPU never reads half a packet. */
#ifndef HSP_AQL_H
#define HSP_AQL_H

#include <hsa/hsa.h>
#include "device/hsa/kernel_layout.h"

/* The header of a packet of type (HSA_PACKET_TYPE_*) with its acquire and
 * release fence scopes (HSA_FENCE_SCOPE_*), and the barrier bit when it must
 * wait for the packets before it. */
uint16_t hsp_aql_header(hsa_packet_type_t type, int barrier, hsa_fence_scope_t acquire, hsa_fence_scope_t release);

/* Fill a dispatch of kernel k (its descriptor at kernel_object) over groups
 * work-groups of size work-items, kernel arguments at kernarg, group_size
 * bytes of group segment (as hsp_kernarg_pack gave), completion on done. */
void hsp_aql_dispatch(hsa_kernel_dispatch_packet_t *p, const hsp_kernel_info *k, uint64_t kernel_object,
                      void *kernarg, uint32_t groups, uint16_t size, uint32_t group_size, hsa_signal_t done);


/* Fill a barrier-AND packet with no dependencies (with the barrier bit it
 * waits for every packet before it), completion on done. */
void hsp_aql_barrier(hsa_barrier_and_packet_t *p, hsa_signal_t done);

/* Write the packet's header and setup words at once, with release order. */
void hsp_aql_publish(void *packet, uint16_t header, uint16_t setup);

#endif
