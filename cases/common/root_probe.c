/* SPDX-License-Identifier: Apache-2.0 */
/* Probe of a root spelling before a destructive request (root_probe.h). */
#include "common/root_probe.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_api.h"
#include "common/rest_expect.h"

enum { SHOWN_NAMES = 8 };

static bool planted_has(const char *const *planted, const char *name)
{
    for (size_t i = 0; planted[i]; i++)
        if (strcmp(planted[i], name) == 0) return true;
    return false;
}

/* True when the listing's names are exactly the planted ones; *seen gets
 * the first names listed, for the failure. */
static bool lists_planted(json_t *entries, const char *const *planted, char *seen, size_t cap)
{
    size_t n_planted = 0;
    while (planted[n_planted])
        n_planted++;
    size_t matched = 0, i;
    bool only_planted = true;
    json_t *e;
    seen[0] = '\0';
    json_array_foreach(entries, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (name && planted_has(planted, name))
            matched++;
        else
            only_planted = false;
        size_t len = strlen(seen);
        if (i < SHOWN_NAMES && len < cap)
            snprintf(seen + len, cap - len, "%s%s", i ? ", " : "", name ? name : "(no name)");
    }
    size_t listed = json_array_size(entries);
    if (listed > SHOWN_NAMES) {
        size_t len = strlen(seen);
        if (len < cap) snprintf(seen + len, cap - len, " … (%zu entries)", listed);
    }
    return only_planted && matched == n_planted && listed == n_planted;
}

enum root_probe root_probe(struct case_ctx *ctx, const char *addr, const char *spelling,
                           const char *const *planted, const char *destructive)
{
    struct http_response r;
    if (!rx_send(ctx, addr, "GET", spelling, NULL, 0, NULL, &r)) return ROOT_PROBE_UNCLEAR;
    json_t *doc = r.status == 200 && r.body ? json_loadb(r.body, r.body_len, 0, NULL) : NULL;
    json_t *entries = json_object_get(doc, "entries");
    enum root_probe verdict;
    if (!json_is_array(entries)) {
        case_note(ctx,
                  "probe GET %s answered %ld without a listing: %s was not sent (the spelling "
                  "is not checked)",
                  spelling, r.status, destructive);
        verdict = ROOT_PROBE_UNCLEAR;
    } else {
        char seen[600];
        if (lists_planted(entries, planted, seen, sizeof seen)) {
            verdict = ROOT_PROBE_ROOT;
        } else {
            char want[600] = "";
            for (size_t i = 0; planted[i]; i++) {
                size_t len = strlen(want);
                snprintf(want + len, sizeof want - len, "%s%s", i ? ", " : "", planted[i]);
            }
            case_request(ctx, "GET %s (probe before %s)", spelling, destructive);
            case_fail(ctx, "the spelling lists the sandbox root: exactly what the case planted",
                      "%s lists [%s], not the sandbox root [%s]: the destructive request %s was "
                      "not sent",
                      spelling, seen, want, destructive);
            verdict = ROOT_PROBE_ELSEWHERE;
        }
    }
    json_decref(doc);
    http_response_free(&r);
    return verdict;
}
