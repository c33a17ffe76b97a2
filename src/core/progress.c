/* progress.c: a progress line on stderr for work that runs over a second,
 * and the hook that hears kernel builds. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "core/internal.h"

static struct {
    pthread_mutex_t lock;
    hsp_build_hook hook;
    void *arg;
} build = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

void hsp_set_build_hook(hsp_build_hook hook, void *arg)
{
    pthread_mutex_lock(&build.lock);
    build.hook = hook, build.arg = arg;
    pthread_mutex_unlock(&build.lock);
}

void hsp_build_heard(hsp_build_event event, const char *device, hsp_precision precision, const char *cache,
                     double seconds)
{
    pthread_mutex_lock(&build.lock);
    hsp_build_hook hook = build.hook;
    void *arg = build.arg;
    pthread_mutex_unlock(&build.lock);
    if (hook) hook(event, device, precision, cache, seconds, arg);
}

void hsp_progress_start(hsp_progress *p, const char *label, int64_t total,
                        int enabled)
{
    p->label = label;
    p->total = total;
    p->start_ms = p->last_ms = hsp_now_ms();
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->shown = 0;
}

void hsp_progress_update(hsp_progress *p, int64_t done)
{
    if (!p->enabled) return;
    double now = hsp_now_ms();
    if (now - p->start_ms < 1000.0 || now - p->last_ms < 100.0) return;
    p->last_ms = now;
    p->shown = 1;
    if (p->total > 0)
        fprintf(stderr, "\r%s: %3.0f%% (%.1f s)", p->label,
                100.0 * (double)done / (double)p->total, (now - p->start_ms) / 1e3);
    else
        fprintf(stderr, "\r%s: %lld (%.1f s)", p->label, (long long)done,
                (now - p->start_ms) / 1e3);
    fflush(stderr);
}

void hsp_progress_done(hsp_progress *p)
{
    if (p->shown) fprintf(stderr, "\r\033[K");
    p->shown = 0;
}
