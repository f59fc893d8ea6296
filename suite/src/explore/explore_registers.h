/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_REGISTERS_H
#define SBX_EXPLORE_REGISTERS_H
/* The history of contended operations of concurrent jobs (--jobs): whole-file
 * PUTs of unique versions and GETs of a few shared files, each with its
 * start and end time, and its check as a register history: a read must
 * return a complete version that some order of the overlapping operations
 * explains (C1), a file's final content one of the last versions (C2).
 * Each read is judged against the writes it overlaps and the last write
 * completed before it began; the order between reads is not checked, so a
 * history the check cannot decide passes, never fails. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XREG_COUNT 2
/* Bigger than the pieces a runtime writes a body in (a 32 KiB copy buffer,
 * sandboxd-ref's 256 KiB gathering): a version spans several writes, so a
 * runtime that writes in place leaves a torn read a window to land in. */
#define XREG_SIZE (640u * 1024u)
#define XREG_TORN UINT64_MAX

struct xreg_event {
    int job;
    int reg;
    bool write;
    uint64_t version; /* write: the version put; read: the version read, 0 = absent
                         (404), XREG_TORN = no complete version */
    long status;
    double t0, t1; /* monotonic seconds: request sent, answer complete */
};

struct xreg_history {
    pthread_mutex_t lock;
    struct xreg_event *ev;
    size_t n, cap;
};

void xreg_init(struct xreg_history *h);
void xreg_free(struct xreg_history *h);
void xreg_record(struct xreg_history *h, const struct xreg_event *e);

/* The body of a version: its id in the first bytes, the rest derived from it. */
uint8_t *xreg_body(uint64_t version, size_t *len);
/* Which version a body is: its id when the whole body matches, XREG_TORN
 * otherwise. */
uint64_t xreg_identify(const uint8_t *body, size_t len);

/* Checks the history; 0 when every read is explained, 1 with the clause,
 * what was expected and what was seen (malloc'd) for the first that is not.
 * final[reg] is the version a GET read after every job ended (0 = absent,
 * XREG_TORN, or untested when final_known[reg] is false). */
int xreg_check(const struct xreg_history *h, const uint64_t *final, const bool *final_known,
               char clause[24], char **expected, char **observed);

#endif
