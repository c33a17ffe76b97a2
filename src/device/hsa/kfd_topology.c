/* kfd_topology.c: the KFD's topology in sysfs (nodes/<N>/properties) read to explain an empty list of HSA GPU
 * agents: which GPU nodes the driver has, what processor each is, and what would let ROCr 5.2 run it. */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/hsa/kfd_topology.h"

enum { MAX_GPU_NODES = 16, PATH_LEN = 4096, NAME_LEN = 16 };

typedef struct {
    int node;            /* its number: the directory's name under nodes/ */
    unsigned version;    /* gfx_target_version; 0 where the KFD gives none */
    char name[NAME_LEN]; /* the processor, e.g. "gfx1036"; "" without a version */
} gpu_node;

/* The GPU nodes in node order; past MAX_GPU_NODES the highest numbers are left out. */
typedef struct {
    gpu_node node[MAX_GPU_NODES];
    int count;
} gpu_list;

/* A piece of the caller's buffer still free for text. */
typedef struct {
    char *at;
    size_t left;
} text;

/* The processors of ROCr 5.2.3's ISA table (src/core/runtime/isa.cpp): the runtime drops a GPU of any other. */
static const char *const known_processors[] = {
    "gfx600",  "gfx601",  "gfx602",  "gfx700",  "gfx701",  "gfx702",  "gfx703",  "gfx704",  "gfx705",
    "gfx801",  "gfx802",  "gfx803",  "gfx805",  "gfx810",  "gfx900",  "gfx902",  "gfx904",  "gfx906",
    "gfx908",  "gfx909",  "gfx90a",  "gfx90c",  "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
};

/* The advice where the runtime knows the processor: /dev/kfd is open to the user (agents.c checks it), so the
 * render node is the usual culprit. */
static const char permission_advice[] =
    "check that this user may read and write /dev/kfd and /dev/dri/renderD* (the render group), and run rocminfo";

/* The name libhsakmt gives a processor: stepping in hex, so 9.0.12 is gfx90c. */
static const char *processor_name(unsigned major, unsigned minor, unsigned stepping, char *name, size_t len)
{
    snprintf(name, len, "gfx%u%u%x", major, minor, stepping);
    return name;
}

const char *hsp_kfd_gfx_name(unsigned version, char *name, size_t len)
{
    return processor_name(version / 10000 % 100, version / 100 % 100, version % 100, name, len);
}

/* Is name in ROCr 5.2.3's ISA table? */
static int runtime_knows(const char *name)
{
    for (size_t k = 0; k < sizeof known_processors / sizeof known_processors[0]; k++)
        if (!strcmp(name, known_processors[k])) return 1;
    return 0;
}

/* Append printf-style text to t, cut at the end of the buffer (which stays terminated). */
__attribute__((format(printf, 2, 3))) static void append(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->at, t->left, fmt, ap);
    va_end(ap);
    if (n < 0 || !t->left) return;
    size_t used = (size_t)n < t->left ? (size_t)n : t->left - 1;
    t->at += used, t->left -= used;
}

/* The node number a directory entry names, or -1 for anything else ("." and "..", other files). */
static int node_number(const char *entry)
{
    char *end;
    long number = strtol(entry, &end, 10);
    return entry[0] >= '0' && entry[0] <= '9' && !*end && number <= INT_MAX ? (int)number : -1;
}

/* Read simd_count and gfx_target_version (0 when absent) from a properties file; 0 when it cannot be opened. */
static int read_properties(const char *path, unsigned long long *simd_count, unsigned long long *version)
{
    FILE *f = fopen(path, "r");
    char line[256], key[64];
    unsigned long long value;
    if (!f) return 0;
    *simd_count = *version = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63s %llu", key, &value) == 2) {
            if (!strcmp(key, "simd_count")) *simd_count = value;
            if (!strcmp(key, "gfx_target_version")) *version = value;
        }
    fclose(f);
    return 1;
}

/* Insert a GPU node into list at its place in node order. */
static void add_gpu(gpu_list *list, int node, unsigned version)
{
    int at = list->count;
    while (at > 0 && list->node[at - 1].node > node) at--;
    if (at == MAX_GPU_NODES) return;
    int last = list->count < MAX_GPU_NODES ? list->count : MAX_GPU_NODES - 1; /* the slot the shift fills */
    memmove(&list->node[at + 1], &list->node[at], (size_t)(last - at) * sizeof list->node[0]);
    gpu_node *g = &list->node[at];
    g->node = node, g->version = version, g->name[0] = '\0';
    if (version) hsp_kfd_gfx_name(version, g->name, sizeof g->name);
    if (list->count < MAX_GPU_NODES) list->count++;
}

/* The GPU nodes (simd_count > 0; CPU nodes have none) under root/nodes; none when it cannot be read. */
static void list_gpu_nodes(const char *root, gpu_list *list)
{
    char path[PATH_LEN];
    list->count = 0;
    if (snprintf(path, sizeof path, "%s/nodes", root) >= (int)sizeof path) return;
    DIR *dir = opendir(path);
    if (!dir) return;
    for (struct dirent *entry; (entry = readdir(dir));) {
        int node = node_number(entry->d_name);
        unsigned long long simd_count, version;
        if (node >= 0 &&
            snprintf(path, sizeof path, "%s/nodes/%s/properties", root, entry->d_name) < (int)sizeof path &&
            read_properties(path, &simd_count, &version) && simd_count > 0)
            add_gpu(list, node, (unsigned)version);
    }
    closedir(dir);
}

/* Append "GPU node N, a gfxNNNN" (or that the KFD gives no processor). */
static void append_node(text *t, const gpu_node *g)
{
    if (g->version)
        append(t, "GPU node %d, a %s", g->node, g->name);
    else
        append(t, "GPU node %d, whose processor the KFD does not name (no gfx_target_version)", g->node);
}

/* Append g with what would let ROCr 5.2 run it: the override for an RDNA2 processor its table lacks; a newer
 * runtime for RDNA3 and the others it lacks; permissions for one it knows. */
static void append_node_advice(text *t, const gpu_node *g)
{
    unsigned major = g->version / 10000 % 100, minor = g->version / 100 % 100;
    append_node(t, g);
    if (!g->version)
        append(t, ": run rocminfo");
    else if (runtime_knows(g->name))
        append(t, ", which ROCr 5.2 knows, so the runtime dropped it for another reason: %s", permission_advice);
    else if (major == 10 && minor == 3)
        append(t, ", which ROCr 5.2 does not know: set HSA_OVERRIDE_GFX_VERSION=10.3.0 to run it as a gfx1030");
    else
        append(t, ", which ROCr 5.2 does not know%s: it needs a newer ROCm runtime, and code objects built for %s "
                  "(configure --with-amdgpu-targets)", major == 11 ? ", and no target of it runs RDNA3" : "", g->name);
}

/* Append ", a gfxNNNN, which ROCr 5.2 knows" (or does not) for the processor the override value makes;
 * nonzero when the runtime knows it, so that only permissions can be in the way. */
static int append_override(text *t, const char *override)
{
    unsigned major, minor, stepping;
    char name[NAME_LEN];
    if (sscanf(override, "%u.%u.%u", &major, &minor, &stepping) != 3) {
        append(t, ", which is not major.minor.stepping");
        return 0;
    }
    int known = runtime_knows(processor_name(major, minor, stepping, name, sizeof name));
    append(t, ", a %s, which ROCr 5.2 %s", name, known ? "knows" : "does not know");
    return known;
}

/* Append each GPU node with its own advice (no override is set, or the one set cannot help). */
static void append_advice_per_node(text *t, const gpu_list *gpus)
{
    for (int k = 0; k < gpus->count; k++) {
        if (k) append(t, "; and ");
        append_node_advice(t, &gpus->node[k]);
    }
}

/* Append the GPU nodes, then the permission advice: all that is left when the processor is one the runtime knows. */
static void append_nodes_then_permissions(text *t, const gpu_list *gpus)
{
    for (int k = 0; k < gpus->count; k++) {
        if (k) append(t, "; ");
        append_node(t, &gpus->node[k]);
    }
    append(t, ": %s", permission_advice);
}

int hsp_kfd_no_agent_advice(const char *root, const char *override, char *why, size_t len)
{
    gpu_list gpus;
    text t = {why, len};
    list_gpu_nodes(root, &gpus);
    if (!gpus.count) return 0;
    if (!override) {
        append(&t, "the HSA runtime sees no GPU agent, but the KFD lists ");
        append_advice_per_node(&t, &gpus);
        return gpus.count;
    }
    append(&t, "the HSA runtime sees no GPU agent although HSA_OVERRIDE_GFX_VERSION is set to %s", override);
    int known = append_override(&t, override);
    append(&t, "; the KFD lists ");
    if (known)
        append_nodes_then_permissions(&t, &gpus);
    else
        append_advice_per_node(&t, &gpus);
    return gpus.count;
}
