/* SPDX-License-Identifier: Apache-2.0 */
/* Sampling the runtime's resident set from /proc. */
#include "bench_text.h"
#include "bench_memory.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The kB figure of a "Key:   123 kB" line of /proc/PID/status. */
static bool status_kb(const char *line, const char *key, uint64_t *bytes)
{
    size_t klen = strlen(key);
    if (strncmp(line, key, klen) != 0) return false;
    char *end;
    errno = 0;
    unsigned long long kb = strtoull(line + klen, &end, 10);
    if (end == line + klen || errno == ERANGE || kb > UINT64_MAX / 1024) return false;
    *bytes = kb * 1024u;
    return true;
}

int bench_mem_read(int pid, uint64_t *rss, uint64_t *hwm)
{
    char path[64], line[256];
    bench_fmt(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (status_kb(line, "VmRSS:", rss))
            found |= 1;
        else if (status_kb(line, "VmHWM:", hwm))
            found |= 2;
    }
    fclose(f);
    return found == 3 ? 0 : -1;
}

struct bench_mem {
    int pid;
    unsigned interval_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stop;
    uint64_t last, peak, window_peak, samples;
};

static void sample(struct bench_mem *m)
{
    uint64_t rss = 0, hwm = 0;
    if (bench_mem_read(m->pid, &rss, &hwm) != 0) return;
    m->last = rss;
    m->samples++;
    if (rss > m->peak) m->peak = rss;
    if (rss > m->window_peak) m->window_peak = rss;
}

static void *sampler(void *arg)
{
    struct bench_mem *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->stop) {
        sample(m);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)m->interval_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (!m->stop && pthread_cond_timedwait(&m->cond, &m->lock, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

struct bench_mem *bench_mem_start(int pid, unsigned interval_ms)
{
    uint64_t rss, hwm;
    if (pid <= 0 || bench_mem_read(pid, &rss, &hwm) != 0) return NULL;
    struct bench_mem *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->pid = pid;
    m->interval_ms = interval_ms ? interval_ms : 10;
    m->last = m->peak = m->window_peak = rss;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->cond, NULL);
    if (pthread_create(&m->thread, NULL, sampler, m) != 0) {
        pthread_mutex_destroy(&m->lock);
        pthread_cond_destroy(&m->cond);
        free(m);
        return NULL;
    }
    return m;
}

void bench_mem_window_begin(struct bench_mem *m)
{
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    sample(m);
    m->window_peak = m->last;
    pthread_mutex_unlock(&m->lock);
}

uint64_t bench_mem_window_peak(struct bench_mem *m)
{
    if (!m) return 0;
    pthread_mutex_lock(&m->lock);
    sample(m);
    uint64_t v = m->window_peak;
    pthread_mutex_unlock(&m->lock);
    return v;
}

uint64_t bench_mem_peak(struct bench_mem *m, uint64_t *samples)
{
    if (!m) return 0;
    pthread_mutex_lock(&m->lock);
    sample(m);
    uint64_t v = m->peak;
    if (samples) *samples = m->samples;
    pthread_mutex_unlock(&m->lock);
    return v;
}

void bench_mem_stop(struct bench_mem *m)
{
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    m->stop = true;
    pthread_cond_signal(&m->cond);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->cond);
    free(m);
}
