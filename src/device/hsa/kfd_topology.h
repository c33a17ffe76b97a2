/* kfd_topology.h: the GPU nodes that the amdgpu driver's KFD lists in sysfs, read to say why the HSA runtime
 * shows no GPU agent.  ROCr 5.2's ISA table ends at gfx1035 and the runtime drops a GPU whose processor it does
 * not know without a word, so an APU with a gfx1036 or a gfx1103 has no agent at all. */
#ifndef HSP_KFD_TOPOLOGY_H
#define HSP_KFD_TOPOLOGY_H

#include <stddef.h>

/* The KFD's topology in sysfs: nodes/<N>/properties, one "name value" line per property. */
#define HSP_KFD_TOPOLOGY_ROOT "/sys/class/kfd/kfd/topology"

/* The processor name of a KFD gfx_target_version (major * 10000 + minor * 100 + stepping, decoded as libhsakmt
 * does): "gfx" + major + minor + stepping in hex, e.g. 90012 -> "gfx90c", 100306 -> "gfx1036", 110003 ->
 * "gfx1103".  Written into name (len bytes); returns name. */
const char *hsp_kfd_gfx_name(unsigned version, char *name, size_t len);

/* Advice for when the HSA runtime reported no GPU agent, from the GPU nodes (simd_count > 0) of the KFD topology
 * under root (HSP_KFD_TOPOLOGY_ROOT, or a copy for tests), lowest node first.  override is the value of
 * HSA_OVERRIDE_GFX_VERSION, NULL when it is unset.  Returns the number of GPU nodes found (the lowest 16 at
 * most); when there are none (a CPU-only topology, or no readable tree at root) nothing is written and the caller
 * keeps its own message.
 * Otherwise why (len bytes, cut to fit) gets one line.  Without an override, per node (joined by "; and "):
 *   "the HSA runtime sees no GPU agent, but the KFD lists GPU node 1, a gfx1036, which ROCr 5.2 does not know:
 *    set HSA_OVERRIDE_GFX_VERSION=10.3.0 to run it as a gfx1030"                        (gfx103x, x > 5)
 *   "..., a gfx1103, which ROCr 5.2 does not know, and no target of it runs RDNA3: it needs a newer ROCm
 *    runtime, and code objects built for gfx1103 (configure --with-amdgpu-targets)"      (gfx11xx; other
 *    processors the runtime lacks get the same without the RDNA3 clause)
 *   "..., a gfx1035, which ROCr 5.2 knows, so the runtime dropped it for another reason: check that this user
 *    may read and write /dev/kfd and /dev/dri/renderD* (the render group), and run rocminfo"
 *   "GPU node 1, whose processor the KFD does not name (no gfx_target_version): run rocminfo"
 * With an override that makes a processor the runtime knows, the nodes (joined by "; "), then permissions:
 *   "the HSA runtime sees no GPU agent although HSA_OVERRIDE_GFX_VERSION is set to 10.3.0, a gfx1030, which
 *    ROCr 5.2 knows; the KFD lists GPU node 1, a gfx1036: check that this user may read and write ..."
 * With one that makes a processor it does not know ("..., a gfx1100, which ROCr 5.2 does not know; the KFD
 * lists ") or is no version ("... set to x, which is not major.minor.stepping; the KFD lists "), each node's
 * advice as without an override follows.  Reads only files under root; no global state, no allocation. */
int hsp_kfd_no_agent_advice(const char *root, const char *override, char *why, size_t len);

#endif
