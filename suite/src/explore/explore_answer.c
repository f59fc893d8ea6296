/* SPDX-License-Identifier: Apache-2.0 */
/* Freeing and rendering answers. */
#include "explore_answer.h"

#include <stdlib.h>
#include <string.h>

#include "string_buf.h"
#include "text_util.h"

void xans_free(struct xans *a)
{
    free(a->ctype);
    free(a->body);
    free(a->out);
    free(a->sout);
    memset(a, 0, sizeof *a);
}

void xans_withhold_body(struct xans *a)
{
    free(a->body);
    a->body = NULL;
    a->body_len = 0;
}

char *xans_render(const struct xans *a)
{
    struct sbuf b = {0};
    if (a->skipped) {
        sbuf_printf(&b, "not sent: %s", a->why);
        return sbuf_take(&b);
    }
    if (a->transport_error) sbuf_printf(&b, "transport error: %s", a->why);
    if (a->status) {
        sbuf_printf(&b, "HTTP %ld", a->status);
        if (a->code[0]) sbuf_printf(&b, " %s", a->code);
        if (a->ctype) sbuf_printf(&b, " (%s)", a->ctype);
        char *p = text_sanitize(a->body, a->body_len, 120, false);
        if (a->body_len) sbuf_printf(&b, " body %zu bytes: %s", a->body_len, p ? p : "");
        free(p);
    } else if (!a->transport_error) {
        sbuf_printf(&b, "gRPC status %d", a->gcode);
        if (a->gcode == 0 && !a->init && !a->drained)
            sbuf_printf(&b, ", exit %d, stdout %zu bytes", (int)a->exit_code, a->out_len);
        if (a->gcode == 0 && a->out_len) {
            char *p = text_sanitize(a->out, a->out_len, 80, false);
            sbuf_printf(&b, " \"%s\"", p ? p : "");
            free(p);
        }
        if (a->init) sbuf_printf(&b, ", InitEvent id %d", (int)a->pid);
    }
    if (a->drained) {
        sbuf_printf(&b, "; stream: events %s", a->events);
        if (a->drain_timeout)
            sbuf_printf(&b, ", no end within the bound");
        else
            sbuf_printf(&b, ", ended with status %d", a->end_code);
        if (a->n_exits) sbuf_printf(&b, ", exit code %d", (int)a->stream_exit);
        char *p = text_sanitize(a->sout, a->sout_len, 80, false);
        sbuf_printf(&b, ", stdout %zu bytes \"%s\"", a->sout_len, p ? p : "");
        free(p);
    }
    return sbuf_take(&b);
}
