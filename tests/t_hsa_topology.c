/* t_hsa_topology.c: what hsp_kfd_no_agent_advice says when the HSA runtime sees no GPU agent, read from fake KFD
 * topologies under tests/data/kfd: processor names from gfx_target_version; the override for a gfx1036, a newer
 * runtime for a gfx1103, permissions for a gfx1035, a GPU node without a version; what an override already set
 * changes; several GPU nodes in node order; a message cut to the buffer; and no advice from a CPU-only topology
 * or a missing one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/hsa/kfd_topology.h"
#include "tap.h"

#define NO_AGENT "the HSA runtime sees no GPU agent"
#define OVERRIDE_SET NO_AGENT " although HSA_OVERRIDE_GFX_VERSION is set to "
#define PERMISSIONS \
    "check that this user may read and write /dev/kfd and /dev/dri/renderD* (the render group), and run rocminfo"
#define NODE_1036 \
    "GPU node 1, a gfx1036, which ROCr 5.2 does not know: set HSA_OVERRIDE_GFX_VERSION=10.3.0 to run it as a gfx1030"
#define RDNA3(node, name)                                                                                     \
    "GPU node " node ", a " name ", which ROCr 5.2 does not know, and no target of it runs RDNA3: it needs a " \
    "newer ROCm runtime, and code objects built for " name " (configure --with-amdgpu-targets)"

/* The topology tree called name under tests/data/kfd, in path (len bytes). */
static const char *tree(const char *name, char *path, size_t len)
{
    const char *top = getenv("top_srcdir");
    snprintf(path, len, "%s/tests/data/kfd/%s", top ? top : ".", name);
    return path;
}

/* The processor names of gfx_target_versions, stepping in hex. */
static void test_names(void)
{
    static const struct {
        unsigned version;
        const char *name;
    } cases[] = {{90012, "gfx90c"}, {100306, "gfx1036"}, {110003, "gfx1103"}, {100300, "gfx1030"}, {90010, "gfx90a"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char name[16] = "";
        const char *got = hsp_kfd_gfx_name(cases[k].version, name, sizeof name);
        tap_ok(got == name && !strcmp(name, cases[k].name), "name of %u: %s", cases[k].version, name);
    }
}

/* The advice for topology name with override: count GPU nodes, and exactly want. */
static void check_advice(const char *name, const char *override, int count, const char *want)
{
    char path[1024], why[1024] = "";
    int got = hsp_kfd_no_agent_advice(tree(name, path, sizeof path), override, why, sizeof why);
    if (!tap_ok(got == count && !strcmp(why, want), "%s, override %s: %d GPU node(s): %s", name,
                override ? override : "unset", got, why))
        tap_diag("expected %d: %s", count, want);
}

/* No GPU node: 0, and the caller's message untouched. */
static void check_no_advice(const char *name, const char *override)
{
    char path[1024], why[64] = "the caller's message";
    int got = hsp_kfd_no_agent_advice(tree(name, path, sizeof path), override, why, sizeof why);
    tap_ok(got == 0 && !strcmp(why, "the caller's message"), "%s, override %s: no GPU node (%d), message kept: %s",
           name, override ? override : "unset", got, why);
}

/* A gfx1036 (RDNA2 after ROCr 5.2's table): the override, unless one is set. */
static void test_1036(void)
{
    check_advice("apu1036", NULL, 1, NO_AGENT ", but the KFD lists " NODE_1036);
    check_advice("apu1036", "10.3.0", 1,
                 OVERRIDE_SET "10.3.0, a gfx1030, which ROCr 5.2 knows; the KFD lists GPU node 1, a gfx1036: "
                 PERMISSIONS);
    check_advice("apu1036", "10.3.6", 1,
                 OVERRIDE_SET "10.3.6, a gfx1036, which ROCr 5.2 does not know; the KFD lists " NODE_1036);
    check_advice("apu1036", "gfx1030", 1,
                 OVERRIDE_SET "gfx1030, which is not major.minor.stepping; the KFD lists " NODE_1036);
}

/* A gfx1103 (RDNA3): a newer runtime, with or without an override. */
static void test_1103(void)
{
    check_advice("apu1103", NULL, 1, NO_AGENT ", but the KFD lists " RDNA3("1", "gfx1103"));
    check_advice("apu1103", "11.0.0", 1,
                 OVERRIDE_SET "11.0.0, a gfx1100, which ROCr 5.2 does not know; the KFD lists " RDNA3("1", "gfx1103"));
}

/* A gfx1035, in ROCr 5.2's table: permissions, with or without an override. */
static void test_1035(void)
{
    check_advice("apu1035", NULL, 1,
                 NO_AGENT ", but the KFD lists GPU node 1, a gfx1035, which ROCr 5.2 knows, so the runtime dropped it "
                 "for another reason: " PERMISSIONS);
    check_advice("apu1035", "10.3.5", 1,
                 OVERRIDE_SET "10.3.5, a gfx1035, which ROCr 5.2 knows; the KFD lists GPU node 1, a gfx1035: "
                 PERMISSIONS);
}

/* A GPU node whose properties have no gfx_target_version (a kernel older than that property). */
static void test_no_version(void)
{
    check_advice("noversion", NULL, 1,
                 NO_AGENT ", but the KFD lists GPU node 1, whose processor the KFD does not name "
                 "(no gfx_target_version): run rocminfo");
}

/* An APU's gfx1036 and a gfx1100 card: both nodes, in node order, each with its advice. */
static void test_two_gpus(void)
{
    check_advice("twogpus", NULL, 2, NO_AGENT ", but the KFD lists " NODE_1036 "; and " RDNA3("2", "gfx1100"));
    check_advice("twogpus", "10.3.0", 2,
                 OVERRIDE_SET "10.3.0, a gfx1030, which ROCr 5.2 knows; the KFD lists GPU node 1, a gfx1036; "
                 "GPU node 2, a gfx1100: " PERMISSIONS);
}

/* A short buffer gets the message's beginning, terminated; an empty one nothing, the nodes still counted. */
static void test_short_buffer(void)
{
    char path[1024], why[24];
    memset(why, 'x', sizeof why);
    int got = hsp_kfd_no_agent_advice(tree("apu1036", path, sizeof path), NULL, why, sizeof why);
    tap_ok(got == 1 && !strcmp(why, "the HSA runtime sees no"), "a buffer of %zu bytes: %s", sizeof why, why);
    tap_ok(hsp_kfd_no_agent_advice(path, NULL, NULL, 0) == 1, "no buffer: the GPU node still counted");
}

int main(void)
{
    test_names();
    test_1036();
    test_1103();
    test_1035();
    test_no_version();
    test_two_gpus();
    test_short_buffer();
    check_no_advice("cpuonly", NULL);
    check_no_advice("cpuonly", "10.3.0");
    check_no_advice("missing", NULL);
    return tap_done();
}
