/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_ANSWER_H
#define SBX_EXPLORE_ANSWER_H
/* What a runtime answered to one operation, as the model judges it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xans {
    bool skipped; /* not sent (why says why) */
    bool transport_error;
    char why[256];
    /* REST */
    long status;
    char *ctype;
    uint8_t *body;
    size_t body_len;
    char code[48];    /* Error body's "code" */
    bool error_shape; /* JSON object with string "code" and "message" */
    bool head;        /* a HEAD answer: no body to judge */
    /* gRPC unary (and the status of a Start that failed) */
    int gcode; /* 0 = OK; -1 transport */
    int32_t exit_code;
    uint8_t *out;
    size_t out_len;
    /* Start: the first event */
    bool init;
    int32_t pid;
    /* A stream drained to its end (after eof or a signal) */
    bool drained;
    bool drain_timeout;
    char events[40]; /* one letter per event: I init, O stdout, E stderr, X exit, ? other */
    int end_code;    /* status the stream ended with */
    int n_exits;
    int32_t stream_exit;
    uint8_t *sout;
    size_t sout_len;
};

void xans_free(struct xans *a);
/* Drops the body (metadata answers may hold secrets: never in a report). */
void xans_withhold_body(struct xans *a);
/* Short rendering for reports, malloc'd. */
char *xans_render(const struct xans *a);

#endif
