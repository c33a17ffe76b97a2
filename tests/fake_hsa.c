/* fake_hsa.c: the stand-in runtime of fake_hsa.h.  Agents, pools, signals
 * and symbols are small integers or plain memory; only what the hsa device
 * calls exists, and the calls that can fail fail when the test says. */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fake_hsa.h"
#include "device/hsa/kernel_layout.h"

fake_hsa_state fake_hsa;

enum { HANDLERS_MAX = 8, ALLOCS_MAX = 256 };

static struct {
    hsa_queue_t queue;
    uint64_t write, read;
    void (*callback)(hsa_status_t, hsa_queue_t *, void *);
    void *data;
} fake_queue;

static char symbol_names[1024][80];

static struct {
    hsa_amd_system_event_callback_t callback;
    void *data;
} handler[HANDLERS_MAX];

static struct {
    void *ptr;
    uint64_t pool;
} allocs[ALLOCS_MAX]; /* live allocations, by pool */

/* Count a call that can fail; does it fail? */
static int failing(void)
{
    return ++fake_hsa.calls == fake_hsa.fail_at;
}

void fake_hsa_reset(void)
{
    int inits = fake_hsa.inits, handlers = fake_hsa.handlers; /* the runtime lives on */
    memset(&fake_hsa, 0, sizeof fake_hsa);
    memset(allocs, 0, sizeof allocs);
    fake_hsa.inits = inits, fake_hsa.handlers = handlers;
    fake_hsa.queue_max = 4096;
}

/* ---- the runtime and its system events ----------------------------------------- */

hsa_status_t hsa_init(void)
{
    int inits = fake_hsa.inits;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    sched_yield(); /* a start takes time: callers that race show it */
    fake_hsa.inits = inits + 1;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_shut_down(void)
{
    if (!fake_hsa.inits) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    if (--fake_hsa.inits == 0) memset(handler, 0, sizeof handler), fake_hsa.handlers = 0;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback, void *data)
{
    if (!fake_hsa.inits) return HSA_STATUS_ERROR_NOT_INITIALIZED;
    if (fake_hsa.handlers == HANDLERS_MAX || failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    handler[fake_hsa.handlers].callback = callback, handler[fake_hsa.handlers++].data = data;
    return HSA_STATUS_SUCCESS;
}

int fake_hsa_memory_fault(uint64_t agent, uint64_t address, uint32_t reason)
{
    hsa_amd_event_t event = {.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT};
    int claimed = 0;
    event.memory_fault.agent.handle = agent;
    event.memory_fault.virtual_address = address;
    event.memory_fault.fault_reason_mask = reason;
    for (int k = 0; k < fake_hsa.handlers; k++)
        claimed |= handler[k].callback(&event, handler[k].data) == HSA_STATUS_SUCCESS;
    fake_hsa.aborts += !claimed;
    fake_hsa.hang = 1;
    return claimed;
}

void fake_hsa_fail_queue(hsa_status_t status)
{
    fake_queue.callback(status, &fake_queue.queue, fake_queue.data);
}

int fake_hsa_pending(void)
{
    return (int)(fake_queue.write - fake_queue.read);
}

/* ---- the packet processor ------------------------------------------------------- */

/* The kernel-argument bytes of the kernel whose descriptor is object. */
static size_t kernarg_bytes(uint64_t object)
{
    const hsp_kernel_info *k = hsp_kernel_find(fake_hsa.co, symbol_names[object - 0x10001]);
    size_t n = k ? k->kernarg_size : 0;
    return n < FAKE_KERNARG_MAX ? n : FAKE_KERNARG_MAX;
}

/* Process the next packet if one is published; returns whether it did. */
static int process_one(void)
{
    hsa_kernel_dispatch_packet_t *p =
        (hsa_kernel_dispatch_packet_t *)fake_queue.queue.base_address + fake_queue.read % fake_queue.queue.size;
    uint16_t header = atomic_load((_Atomic uint16_t *)&p->header);
    if (fake_hsa.hang || fake_queue.read == fake_queue.write || (header & 0xff) == HSA_PACKET_TYPE_INVALID) return 0;
    if (fake_hsa.nlog < FAKE_LOG_MAX) {
        int n = fake_hsa.nlog++;
        fake_hsa.log[n] = *p, fake_hsa.header[n] = header;
        if ((header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH)
            memcpy(fake_hsa.kernarg[n], p->kernarg_address, kernarg_bytes(p->kernel_object));
    }
    atomic_store((_Atomic uint16_t *)&p->header, (uint16_t)HSA_PACKET_TYPE_INVALID);
    fake_queue.read++;
    if (p->completion_signal.handle) --*(int64_t *)p->completion_signal.handle;
    return 1;
}

hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                              void (*callback)(hsa_status_t, hsa_queue_t *, void *), void *data,
                              uint32_t private_size, uint32_t group_size, hsa_queue_t **queue)
{
    (void)agent, (void)type, (void)private_size, (void)group_size;
    if (size > fake_hsa.queue_max || (size & (size - 1))) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    memset(&fake_queue, 0, sizeof fake_queue);
    hsa_kernel_dispatch_packet_t *ring = calloc(size, sizeof *ring);
    for (uint32_t k = 0; k < size; k++) ring[k].header = HSA_PACKET_TYPE_INVALID;
    fake_queue.queue.base_address = ring, fake_queue.queue.size = size;
    fake_queue.callback = callback, fake_queue.data = data;
    fake_hsa.queues++, fake_hsa.live++;
    *queue = &fake_queue.queue;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *queue)
{
    free(queue->base_address);
    queue->base_address = NULL;
    fake_hsa.queues--, fake_hsa.live--;
    return HSA_STATUS_SUCCESS;
}

uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t *queue, uint64_t value)
{
    (void)queue;
    uint64_t old = fake_queue.write;
    fake_queue.write += value;
    return old;
}

uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *queue)
{
    (void)queue;
    if (fake_queue.write - fake_queue.read > fake_queue.queue.size) process_one(); /* full: the GPU moves on */
    return fake_queue.read;
}

/* ---- signals: a handle is the address of its value ---------------------------- */

hsa_status_t hsa_signal_create(hsa_signal_value_t initial, uint32_t num_consumers, const hsa_agent_t *consumers,
                               hsa_signal_t *signal)
{
    (void)num_consumers, (void)consumers;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    int64_t *value = malloc(sizeof *value);
    *value = initial;
    fake_hsa.live++;
    signal->handle = (uint64_t)(uintptr_t)value;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t signal)
{
    fake_hsa.freed_under_queue += fake_hsa.queues > 0;
    fake_hsa.live--;
    free((void *)(uintptr_t)signal.handle);
    return HSA_STATUS_SUCCESS;
}

void hsa_signal_add_screlease(hsa_signal_t signal, hsa_signal_value_t value)
{
    *(int64_t *)(uintptr_t)signal.handle += value;
}

void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value)
{
    (void)signal, (void)value; /* the doorbell */
    fake_hsa.doorbells++;
}

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare, uint64_t timeout, hsa_wait_state_t state)
{
    (void)condition, (void)compare, (void)timeout, (void)state;
    int done = 0;
    if (failing()) { /* a kernel faulted: the queue stops and says so */
        fake_hsa.hang = 1;
        fake_hsa_fail_queue(HSA_STATUS_ERROR_EXCEPTION);
    }
    while (process_one()) done++;
    if (!done && *(int64_t *)(uintptr_t)signal.handle) nanosleep(&(struct timespec){0, 1000000}, NULL);
    return *(int64_t *)(uintptr_t)signal.handle;
}

/* ---- system, agents and memory ---------------------------------------------- */

hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void *value)
{
    if (attribute != HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *(uint64_t *)value = 1000000000;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value)
{
    (void)agent;
    if (attribute == HSA_AGENT_INFO_QUEUE_MAX_SIZE) *(uint32_t *)value = fake_hsa.queue_max;
    else if (attribute == HSA_AGENT_INFO_PROFILE) *(hsa_profile_t *)value = HSA_PROFILE_BASE;
    else return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                hsa_status_t (*callback)(hsa_amd_memory_pool_t, void *), void *data)
{
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    if (agent.handle == FAKE_GPU_AGENT) return callback((hsa_amd_memory_pool_t){FAKE_POOL_GPU_COARSE}, data);
    if (fake_hsa.dgpu) callback((hsa_amd_memory_pool_t){FAKE_POOL_CPU_COARSE}, data);
    callback((hsa_amd_memory_pool_t){FAKE_POOL_FINE}, data);
    if (!fake_hsa.no_kernarg_pool) callback((hsa_amd_memory_pool_t){FAKE_POOL_KERNARG}, data);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute,
                                          void *value)
{
    if (attribute == HSA_AMD_MEMORY_POOL_INFO_SEGMENT) *(hsa_amd_segment_t *)value = HSA_AMD_SEGMENT_GLOBAL;
    else if (attribute == HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED) *(bool *)value = true;
    else if (attribute == HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS)
        *(uint32_t *)value = pool.handle == FAKE_POOL_FINE      ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                             : pool.handle == FAKE_POOL_KERNARG ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                                                      HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                                                : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
    else return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void **ptr)
{
    (void)flags;
    int k = 0;
    while (k < ALLOCS_MAX && allocs[k].ptr) k++;
    *ptr = k < ALLOCS_MAX && !failing() ? aligned_alloc(4096, (size + 4095) / 4096 * 4096) : NULL;
    if (!*ptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    memset(*ptr, 0, size);
    fake_hsa.live++;
    allocs[k].ptr = *ptr, allocs[k].pool = pool.handle;
    fake_hsa.last_pool = pool.handle;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_free(void *ptr)
{
    for (int k = 0; k < ALLOCS_MAX; k++)
        if (allocs[k].ptr == ptr) {
            fake_hsa.freed_under_queue += allocs[k].pool == FAKE_POOL_KERNARG && fake_hsa.queues > 0;
            allocs[k].ptr = NULL;
            fake_hsa.live--;
        }
    fake_hsa.pool_frees++;
    free(ptr);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t *agents, const uint32_t *flags,
                                         const void *ptr)
{
    (void)agents, (void)flags;
    fake_hsa.last_access_agents = (int)num_agents;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    return num_agents && ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_svm_attributes_set(void *ptr, size_t size, hsa_amd_svm_attribute_pair_t *list, size_t count)
{
    fake_hsa.svm_calls++;
    fake_hsa.svm_ptr = ptr, fake_hsa.svm_bytes = size;
    fake_hsa.svm_nattrs = count < FAKE_ATTRS_MAX ? (int)count : FAKE_ATTRS_MAX;
    memcpy(fake_hsa.svm_attrs, list, (size_t)fake_hsa.svm_nattrs * sizeof *list);
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    return fake_hsa.svm_fails ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_status_string(hsa_status_t status, const char **text)
{
    *text = status == HSA_STATUS_ERROR_EXCEPTION ? "HSA_STATUS_ERROR_EXCEPTION: a kernel faulted (fake)"
            : status == HSA_STATUS_ERROR_OUT_OF_RESOURCES ? "HSA_STATUS_ERROR_OUT_OF_RESOURCES (fake)"
                                                          : NULL;
    return *text ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* ---- code objects and executables ---------------------------------------------- */

hsa_status_t hsa_code_object_reader_create_from_memory(const void *code_object, size_t size,
                                                       hsa_code_object_reader_t *reader)
{
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    reader->handle = code_object && size ? 1 : 0;
    fake_hsa.live += reader->handle != 0;
    return reader->handle ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader)
{
    (void)reader;
    fake_hsa.live--;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(hsa_profile_t profile, hsa_default_float_rounding_mode_t mode,
                                       const char *options, hsa_executable_t *executable)
{
    (void)profile, (void)mode, (void)options;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    executable->handle = 1;
    fake_hsa.live++;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                   hsa_code_object_reader_t reader, const char *options,
                                                   hsa_loaded_code_object_t *loaded)
{
    (void)executable, (void)agent, (void)options, (void)loaded;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    return reader.handle ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
}

hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char *options)
{
    (void)executable, (void)options;
    return failing() ? HSA_STATUS_ERROR_OUT_OF_RESOURCES : HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_destroy(hsa_executable_t executable)
{
    (void)executable;
    fake_hsa.live--;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char *name,
                                               const hsa_agent_t *agent, hsa_executable_symbol_t *symbol)
{
    size_t len = strlen(name);
    (void)executable, (void)agent;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    if (len < 4 || strcmp(name + len - 3, ".kd") || len >= 80) {
        fake_hsa.bad_symbol_names++;
        return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    }
    int n = fake_hsa.symbols++ % 1024;
    memcpy(symbol_names[n], name, len - 3);
    symbol_names[n][len - 3] = '\0';
    symbol->handle = (uint64_t)n + 1;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t attribute,
                                            void *value)
{
    const char *name = symbol_names[symbol.handle - 1];
    const hsp_kernel_info *k = hsp_kernel_find(fake_hsa.co, name);
    if (!k) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    if (failing()) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    if (attribute == HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT) *(uint64_t *)value = 0x10000 + symbol.handle;
    else if (attribute == HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE)
        *(uint32_t *)value = k->kernarg_size + (fake_hsa.misreport && !strcmp(name, fake_hsa.misreport) ? 8 : 0);
    else return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}
