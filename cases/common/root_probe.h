/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_CASES_ROOT_PROBE_H
#define SBX_CASES_ROOT_PROBE_H
/* Probe before destroy: a request that can empty or remove a directory is
 * aimed at a spelling of the sandbox root (``, `%2e`, `a/%2e%2e`, `%2F`, …)
 * only after a harmless GET of that same spelling listed exactly what the
 * case planted in the root. A runtime that maps the spelling elsewhere (the
 * host's `/`, its own working directory) lists something else, and the
 * destructive request is then never sent: the case fails with that
 * finding instead. */
#include <stdbool.h>

struct case_ctx;

enum root_probe {
    ROOT_PROBE_ROOT,      /* the spelling lists the planted root: safe to send */
    ROOT_PROBE_ELSEWHERE, /* it lists something else: failure recorded, do not send */
    ROOT_PROBE_UNCLEAR,   /* no listing (4xx, 3xx, not JSON): note recorded, do not send */
};

/* GETs spelling (a request-target such as "/v1/files/%2F", no query) on addr
 * and compares the listed names with planted (NULL-terminated; the names the
 * case put in the root, one of them a unique marker). destructive names the
 * request that depends on the answer ("DELETE /v1/files/%2F?recursive=true"),
 * for the failure or note. */
enum root_probe root_probe(struct case_ctx *ctx, const char *addr, const char *spelling,
                           const char *const *planted, const char *destructive);

#endif
