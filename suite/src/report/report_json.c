/* SPDX-License-Identifier: Apache-2.0 */
/* JSON results (schema version 1, documented in reports/README.md and
 * reports/results-schema.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "clauses.h"
#include "report.h"
#include "text_util.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Comma-separated list -> JSON array of trimmed items. */
static json_t *list_array(const char *list)
{
    json_t *a = json_array();
    const char *cur = list, *item;
    for (size_t n; (n = text_list_next(&cur, &item)) != 0;)
        json_array_append_new(a, json_stringn(item, n));
    return a;
}

static json_t *needs_array(unsigned needs)
{
    char buf[128];
    case_needs_text(needs, buf, sizeof buf);
    return strcmp(buf, "-") == 0 ? json_array() : list_array(buf);
}

static json_t *case_json(const struct case_result *r)
{
    const struct case_def *d = r->def;
    json_t *c = json_object();
    char group[2] = {text_clause_group(d->clauses), 0};
    json_object_set_new(c, "id", json_string(d->id));
    json_object_set_new(c, "title", json_string(d->title));
    json_object_set_new(c, "clauses", list_array(d->clauses));
    json_object_set_new(c, "group", json_string(group));
    json_object_set_new(c, "level", json_string(case_level_name(d->level)));
    json_object_set_new(c, "tags", list_array(d->tags));
    json_object_set_new(c, "needs", needs_array(d->needs));
    json_object_set_new(c, "timeout_seconds", json_integer(case_timeout_s(d)));
    json_object_set_new(c, "selected", json_boolean(r->selected));
    json_object_set_new(c, "outcome", json_string(outcome_name(r->outcome)));
    json_object_set_new(c, "status", json_string(result_status(r)));
    json_object_set_new(c, "reason", str_or_null(r->reason));
    json_object_set_new(c, "duration_seconds", json_real(r->seconds));
    char seed[24];
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)r->seed);
    json_object_set_new(c, "seed", r->seed ? json_string(seed) : json_null());
    json_t *fails = json_array();
    for (size_t i = 0; i < r->n_failures; i++) {
        json_t *f = json_object();
        json_object_set_new(f, "expected", json_string(r->failures[i].expected));
        json_object_set_new(f, "observed", json_string(r->failures[i].observed));
        json_object_set_new(f, "request", str_or_null(r->failures[i].request));
        json_array_append_new(fails, f);
    }
    json_object_set_new(c, "failures", fails);
    json_object_set_new(c, "failures_total", json_integer(r->failures_total));
    json_t *notes = json_array();
    for (size_t i = 0; i < r->n_notes; i++)
        json_array_append_new(notes, json_string(r->notes[i]));
    json_object_set_new(c, "notes", notes);
    json_t *findings = json_array();
    for (size_t i = 0; i < r->n_doc_findings; i++)
        json_array_append_new(findings, json_string(r->doc_findings[i]));
    json_object_set_new(c, "document_findings", findings);
    if (r->in_baseline) {
        json_t *b = json_object();
        json_object_set_new(b, "reason", str_or_null(r->baseline_reason));
        json_object_set_new(b, "link", str_or_null(r->baseline_link));
        json_object_set_new(c, "baseline", b);
    } else {
        json_object_set_new(c, "baseline", json_null());
    }
    char *out = r->output ? text_sanitize(r->output, strlen(r->output), 16384, true) : NULL;
    json_object_set_new(c, "output", str_or_null(out));
    free(out);
    json_object_set_new(c, "output_bytes", json_integer((json_int_t)r->output_total));
    return c;
}

static json_t *tally_json(const struct level_tally *t)
{
    return json_pack("{s:i,s:i,s:i,s:i}", "total", (int)t->total, "passed", (int)t->passed,
                     "failed", (int)t->failed, "missing", (int)t->missing);
}

/* "A,B,C" -> ["A","B","C"]. */
static json_t *id_list(const char *list)
{
    json_t *ids = json_array();
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        json_array_append_new(ids, json_stringn(p, n));
        p += n;
        if (*p == ',') p++;
    }
    return ids;
}

/* One surface's transport: TLS or not and what the handshake agreed on;
 * the names of the headers the user had sent, when there were any. */
static json_t *tls_json(const struct tls_peer *p, const char *header_names)
{
    json_t *o = json_pack("{s:b}", "enabled", p->tls);
    if (p->tls) {
        json_object_set_new(o, "verified", json_boolean(p->verified));
        json_object_set_new(o, "version", json_string(p->version));
        json_object_set_new(o, "cipher", json_string(p->cipher));
        json_object_set_new(o, "alpn", json_string(p->alpn));
        json_object_set_new(o, "peer_subject", json_string(p->subject));
        json_object_set_new(o, "peer_not_after", json_string(p->not_after));
        json_object_set_new(o, "client_certificate", json_boolean(p->client_cert));
    }
    if (header_names && *header_names)
        json_object_set_new(o, "header_names", json_string(header_names));
    return o;
}

json_t *report_json_build(const struct run_results *res)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(RESULTS_SCHEMA_VERSION));
    json_object_set_new(doc, "suite",
                        json_pack("{s:s,s:s,s:s}", "name", "sandboxd-conformance", "version",
                                  SBX_VERSION, "commit", SBX_GIT_COMMIT));
    json_object_set_new(doc, "started_at", json_string(res->started_at));
    json_object_set_new(doc, "finished_at", json_string(res->finished_at));
    json_object_set_new(doc, "duration_seconds", json_real(res->seconds));
    json_object_set_new(doc, "host", json_string(res->hostname));
    json_object_set_new(doc, "interrupted", json_boolean(res->interrupted));
    /* Why the run ended early, if it did: null, or {why, detail}. */
    const char *why = res->unreachable    ? "unreachable"
                      : res->unresponsive ? "unresponsive"
                      : res->interrupted  ? "interrupted"
                                          : NULL;
    const char *detail = res->unreachable    ? res->unreachable
                         : res->unresponsive ? res->unresponsive
                                             : "SIGTERM or SIGINT";
    json_object_set_new(doc, "stopped",
                        why ? json_pack("{s:s,s:s}", "why", why, "detail", detail) : json_null());

    const struct runtime_identity *ri = &res->runtime;
    json_t *rt = json_object();
    json_object_set_new(rt, "mode", json_string(ri->mode ? ri->mode : "attach"));
    json_object_set_new(rt, "grpc", str_or_null(ri->grpc_addr));
    json_object_set_new(rt, "rest", str_or_null(ri->rest_addr));
    json_t *tls = json_object();
    json_object_set_new(tls, "grpc", tls_json(&ri->grpc_tls, ri->grpc_header_names));
    json_object_set_new(tls, "rest", tls_json(&ri->rest_tls, ri->rest_header_names));
    json_object_set_new(rt, "tls", tls);
    json_object_set_new(rt, "command", str_or_null(ri->command));
    json_object_set_new(rt, "version", str_or_null(ri->version));
    json_object_set_new(rt, "root", str_or_null(ri->root_path));
    json_t *health = ri->health_json ? json_loads(ri->health_json, 0, NULL) : NULL;
    if (!health && ri->health_json) health = json_string(ri->health_json);
    json_object_set_new(rt, "health", health ? health : json_null());
    json_t *meta = ri->metadata_json ? json_loads(ri->metadata_json, 0, NULL) : NULL;
    if (!meta && ri->metadata_json) meta = json_string(ri->metadata_json);
    json_object_set_new(rt, "metadata", meta ? meta : json_null());
    if (ri->probed)
        json_object_set_new(rt, "capabilities",
                            json_pack("{s:b,s:b}", "procfs", ri->procfs, "pty", ri->pty));
    else
        json_object_set_new(rt, "capabilities", json_null());
    if (ri->exit_known)
        json_object_set_new(rt, "exit",
                            json_pack("{s:s,s:i,s:f}", "description", ri->exit_text, "wait_status",
                                      ri->exit_status, "stop_seconds", ri->stop_seconds));
    else
        json_object_set_new(rt, "exit", json_null());
    json_object_set_new(doc, "runtime", rt);

    const struct run_params *p = &res->params;
    json_t *params = json_object();
    json_object_set_new(params, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(params, "jobs", json_integer(p->jobs));
    json_object_set_new(params, "level", json_string(p->level ? p->level : "full"));
    json_object_set_new(params, "profiles",
                        p->transport_profile ? json_pack("[s]", "transport") : json_array());
    json_object_set_new(params, "focus", str_or_null(p->focus));
    json_object_set_new(params, "skip", str_or_null(p->skip));
    json_object_set_new(params, "tags", str_or_null(p->tags));
    json_object_set_new(params, "baseline", str_or_null(p->baseline_path));
    json_object_set_new(params, "rerun_failed", str_or_null(p->rerun_path));
    json_object_set_new(params, "timeout_scale", json_real(p->timeout_scale));
    json_object_set_new(params, "require_complete", json_boolean(p->require_complete));
    json_object_set_new(params, "workspace_prefix", str_or_null(p->prefix));
    json_object_set_new(params, "openapi", str_or_null(p->openapi));
    json_t *argv = json_array();
    for (int i = 0; i < p->argc && p->argv; i++)
        json_array_append_new(argv, json_string(p->argv[i]));
    json_object_set_new(params, "argv", argv);
    json_object_set_new(doc, "parameters", params);

    struct result_counts n;
    results_count(res, &n);
    json_object_set_new(doc, "summary",
                        json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "total",
                                  (int)n.total, "selected", (int)n.selected, "pass", (int)n.pass,
                                  "fail", (int)n.fail, "timeout", (int)n.timeout, "skip",
                                  (int)n.skip, "error", (int)n.error, "expected_fail",
                                  (int)n.expected_fail, "unexpected_pass", (int)n.unexpected_pass,
                                  "not_run", (int)n.not_run));

    const struct verdict_info *v = &res->verdict;
    json_t *reasons = json_array();
    for (int i = 0; i < v->n_reasons; i++)
        json_array_append_new(reasons, json_string(v->reasons[i]));
    json_t *verdict = json_object();
    json_object_set_new(verdict, "result", json_string(verdict_slug(v->verdict)));
    json_object_set_new(verdict, "text", json_string(verdict_name(v->verdict)));
    json_object_set_new(verdict, "complete", json_boolean(v->complete));
    json_object_set_new(verdict, "exit_code", json_integer(v->exit_code));
    json_object_set_new(verdict, "must", tally_json(&v->must));
    json_object_set_new(verdict, "should", tally_json(&v->should));
    json_object_set_new(verdict, "reasons", reasons);
    json_object_set_new(doc, "verdict", verdict);

    /* What the document does not describe (judged by the contract). */
    struct doc_finding_row *rows;
    size_t nrows = report_doc_findings(res, &rows);
    json_t *findings = json_array();
    for (size_t i = 0; i < nrows; i++) {
        json_t *ids = id_list(rows[i].cases);
        json_array_append_new(findings, json_pack("{s:s,s:o}", "text", rows[i].text, "cases", ids));
    }
    report_doc_findings_free(rows, nrows);
    json_object_set_new(doc, "document",
                        json_pack("{s:o,s:b,s:o}", "path", str_or_null(p->openapi), "contract",
                                  p->openapi_is_contract, "findings", findings));

    json_t *clauses = json_array();
    for (size_t i = 0; i < clause_count; i++) {
        const struct clause *cl = &clause_table[i];
        struct clause_rollup ru;
        report_clause_rollup(res, cl->id, &ru);
        json_t *ids = json_array();
        for (size_t k = 0; k < res->count; k++)
            if (text_list_has(res->cases[k].def->clauses, cl->id))
                json_array_append_new(ids, json_string(res->cases[k].def->id));
        json_t *c = json_object();
        json_object_set_new(c, "id", json_string(cl->id));
        json_object_set_new(c, "level", json_string(case_level_name(cl->level)));
        json_object_set_new(c, "launch", json_boolean(cl->launch));
        json_object_set_new(c, "text", json_string(cl->text));
        json_object_set_new(c, "status", json_string(ru.status));
        json_object_set_new(c, "cases", ids);
        json_object_set_new(c, "counts",
                            json_pack("{s:i,s:i,s:i,s:i,s:i}", "pass", (int)ru.pass, "fail",
                                      (int)ru.fail, "skip", (int)ru.skip, "expected_fail",
                                      (int)ru.expected_fail, "not_run", (int)ru.not_run));
        json_array_append_new(clauses, c);
    }
    json_object_set_new(doc, "clauses", clauses);

    json_t *cases = json_array();
    for (size_t i = 0; i < res->count; i++)
        json_array_append_new(cases, case_json(&res->cases[i]));
    json_object_set_new(doc, "cases", cases);
    return doc;
}

static int write_json(FILE *f, const struct run_results *res)
{
    json_t *doc = report_json_build(res);
    if (!doc) return -1;
    int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', f);
    json_decref(doc);
    return rc == 0 ? 0 : -1;
}

int report_json_write(const struct run_results *res, const char *path)
{
    return report_write_file(path, write_json, res);
}
