/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_WORKER_EVENT_H
#define SBX_WORKER_EVENT_H
/* What a case's worker process tells the scheduler, one event per line on
 * its report pipe. The line is a compact JSON object, {"ev": KIND, ...};
 * this module is the only code that writes or reads that format, so the
 * two ends cannot drift apart.
 *
 *   start, done             the case began / returned (done: not killed)
 *   fail                    expected, observed, request (optional)
 *   note, doc_finding       text
 *   skip                    text: the reason
 *   error                   text: the message
 *   unreachable             text: what could not be reached
 *   track, untrack          pid: a runtime process id to clean up at the end
 *
 * Text is sent as given; the sender bounds its length. */
#include <stddef.h>
#include <stdint.h>

enum worker_event_kind {
    WEV_START,
    WEV_DONE,
    WEV_FAIL,
    WEV_NOTE,
    WEV_DOC_FINDING,
    WEV_SKIP,
    WEV_ERROR,
    WEV_UNREACHABLE,
    WEV_TRACK,
    WEV_UNTRACK,
};

struct worker_event {
    enum worker_event_kind kind;
    const char *text;     /* fail: observed; note, doc_finding, skip, error, unreachable */
    const char *expected; /* fail */
    const char *request;  /* fail: the request that showed it, or NULL */
    int32_t pid;          /* track, untrack */
};

/* The event as one line ending in '\n' (malloc'd, length in *len), or NULL
 * when out of memory. */
char *worker_event_encode(const struct worker_event *ev, size_t *len);

/* Parses one line (without its '\n'). Returns 0 and fills ev, whose strings
 * live until worker_event_release(holder); -1 for a line that is not an
 * event (nothing to release). Never NULL strings except request. */
int worker_event_decode(const char *line, struct worker_event *ev, void **holder);
void worker_event_release(void *holder);

#endif
