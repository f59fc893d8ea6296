/* SPDX-License-Identifier: Apache-2.0 */
/* A server call's life: its memory and references, the handler
 * notifications queued for it, and sbx_grpc_server_dispatch, which delivers them
 * outside nghttp2. */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_transport.h" /* sbx_grpc_now_ms */
#include "server_call.h"

/* ---- call memory ------------------------------------------------------- */

void sbx_grpc_skv_free(struct kv *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].value);
    }
    free(a);
}

int sbx_grpc_skv_add(struct kv **a, size_t *n, const char *name, size_t nlen, const char *value,
                     size_t vlen)
{
    struct kv *p = realloc(*a, (*n + 1) * sizeof **a);
    if (!p) return -1;
    *a = p;
    p[*n].name = strndup(name, nlen);
    p[*n].value = strndup(value, vlen);
    if (!p[*n].name || !p[*n].value) {
        free(p[*n].name);
        free(p[*n].value);
        return -1;
    }
    (*n)++;
    return 0;
}

void sbx_grpc_scall_drop_queue(struct sbx_grpc_server_call *call)
{
    sbx_grpc_msg_queue_clear(&call->q, &call->srv->out_pool);
}

void sbx_grpc_scall_drop_requests(struct sbx_grpc_server_call *call)
{
    while (call->req_head) {
        struct req_msg *m = call->req_head;
        call->req_head = m->next;
        free(m->data);
        free(m);
    }
    call->req_tail = NULL;
}

void sbx_grpc_scall_unlink(struct sbx_grpc_server_call *call)
{
    struct sconn *c = call->conn;
    if (!c) return;
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    /* A listed call has conn set, so call_unref unlinks it before freeing. */
    // NOLINTNEXTLINE(clang-analyzer-unix.Malloc)
    if (call->next) call->next->prev = call->prev;
    call->prev = call->next = NULL;
    call->conn = NULL;
}

void sbx_grpc_scall_unref(struct sbx_grpc_server_call *call)
{
    if (--call->refs > 0) return;
    sbx_grpc_scall_unlink(call);
    sbx_grpc_scall_drop_queue(call);
    sbx_grpc_scall_drop_requests(call);
    sbx_grpc_deframer_free(&call->deframer);
    sbx_grpc_skv_free(call->hdrs, call->n_hdrs);
    sbx_grpc_skv_free(call->md, call->n_md);
    free(call->path);
    free(call->http_method);
    free(call->content_type);
    free(call->timeout);
    free(call->status_message);
    struct sbx_grpc_server *srv = call->srv;
    free(call);
    srv->live_calls--;
    sbx_grpc_server_call_gone(srv);
}

void sbx_grpc_scall_schedule(struct sbx_grpc_server_call *call, unsigned what)
{
    struct sbx_grpc_server *s = call->srv;
    call->pending |= what;
    if (!call->in_pending) {
        call->in_pending = true;
        call->refs++;
        call->pend_next = NULL;
        if (s->pend_tail)
            s->pend_tail->pend_next = call;
        else
            s->pend_head = call;
        s->pend_tail = call;
    }
    if (s->kick_dispatch) s->kick_dispatch(s);
}

void sbx_grpc_sconn_kick(struct sconn *c)
{
    if (c && c->want_write) c->want_write(c->io);
}

void sbx_grpc_scall_cancel(struct sbx_grpc_server_call *call, enum sbx_grpc_cancel_reason reason)
{
    if (call->cancelled || call->handler_done) return;
    call->cancelled = true;
    call->cancel_reason = reason;
    sbx_grpc_scall_drop_queue(call);
    if (call->handler_owned) sbx_grpc_scall_schedule(call, N_CANCEL);
}

void sbx_grpc_server_dispatch(struct sbx_grpc_server *s)
{
    if (s->dispatching) return;
    s->dispatching = true;
    /* Bounded: each round delivers what was pending when it started. */
    for (int rounds = 0; rounds < 64 && s->pend_head; rounds++) {
        struct sbx_grpc_server_call *list = s->pend_head;
        s->pend_head = s->pend_tail = NULL;
        while (list) {
            struct sbx_grpc_server_call *call = list;
            list = call->pend_next;
            call->in_pending = false;
            unsigned what = call->pending;
            call->pending = 0;
            const struct sbx_grpc_method *m = call->method ? &call->method->m : NULL;
            if ((what & N_REQUEST) && m && !call->cancelled && !call->rejected) {
                if (!call->handler_owned) {
                    call->handler_owned = true;
                    call->refs++;
                }
                while (call->req_head && !call->handler_done && !call->cancelled) {
                    struct req_msg *r = call->req_head;
                    call->req_head = r->next;
                    if (!call->req_head) call->req_tail = NULL;
                    m->on_request(call, r->data ? r->data : (const uint8_t *)"", r->len, m->user);
                    free(r->data);
                    free(r);
                }
            }
            if ((what & N_HALF_CLOSE) && m && !call->cancelled && !call->rejected) {
                if (!call->handler_owned) {
                    call->handler_owned = true;
                    call->refs++;
                }
                if (m->on_half_close)
                    m->on_half_close(call, m->user);
                else if (!call->handler_done)
                    sbx_grpc_server_call_finish(call, SBX_GRPC_OK, NULL);
            }
            /* The pending list's reference (taken in schedule) keeps the call
             * alive through handler_release until the call_unref below. */
            // NOLINTBEGIN(clang-analyzer-unix.Malloc)
            if ((what & N_WRITABLE) && call->handler_owned && !call->handler_done &&
                !call->cancelled && call->on_writable)
                call->on_writable(call, call->on_writable_user);
            if (call->cancelled && call->handler_owned && !call->handler_done &&
                !call->cancel_notified && call->on_cancel) {
                call->cancel_notified = true;
                call->on_cancel(call, call->on_cancel_user, call->cancel_reason);
            }
            sbx_grpc_scall_unref(call);
            // NOLINTEND(clang-analyzer-unix.Malloc)
        }
    }
    s->dispatching = false;
    if (s->pend_head && s->kick_dispatch) s->kick_dispatch(s);
}
