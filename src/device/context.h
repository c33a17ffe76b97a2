/* context.h: what a context holds (private to the library). */
#ifndef HSP_CONTEXT_H
#define HSP_CONTEXT_H

#include <pthread.h>
#include "device/device.h"
#include "core/pool.h"

/* The devices "auto" tries, in order (src/open/device.c). */
enum { HSP_AUTO_NONE, HSP_AUTO_HSA, HSP_AUTO_OPENCL, HSP_AUTO_CPU };

struct hsp_context {
    pthread_mutex_t lock;                 /* recursive: one call at a time on the context, its
                                             resident matrices and plans: every public call
                                             on them holds it */
    hsp_options options;
    hsp_pool *pool;
    hsp_device *device;
    struct hsp_engine *engine;            /* the products' state for the device
                                             (spgemm/engine.h), made with it by src/open */
    char *profile_option;                 /* a copy of options.profile, which points to it */
    int auto_next;                        /* "auto" chose the device, which has done no work
                                             yet: the candidate (HSP_AUTO_*) to hand over to
                                             when it fails, else HSP_AUTO_NONE */
    hsp_status (*hand_over)(hsp_context *ctx); /* close the failed device of "auto" and open
                                             the next candidate (src/open/open.c, which
                                             made the context) */
    struct hsp_scratch *scratch;          /* one per thread */
    double cache_bytes;                   /* the last-level cache of the CPU that made the
                                             context, at most a share a thread
                                             (context.c: cache_share) */
};

/* A context of options o (checked) and device timeout, its thread pool and
 * workspaces made, no device yet (open/open.c opens it). */
hsp_status hsp_context_new(const hsp_options *o, double timeout, hsp_context **out);
/* What hsp_context_new made freed (threads, workspaces, lock) and ctx; the
 * device and engine are freed first by hsp_context_free (src/open). */
void hsp_context_release(hsp_context *ctx);
/* Take and give back ctx's lock: every public call on a context (or on a
 * resident matrix, plan or hierarchy of it) holds it, so that threads
 * sharing a context take turns.  Recursive: a call may make others. */
void hsp_context_lock(hsp_context *ctx);
void hsp_context_unlock(hsp_context *ctx);
/* Free arrays ctx's device holds (its drop, under the lock); NULL: none. */
void hsp_context_drop(hsp_context *ctx, void *held);

#endif
