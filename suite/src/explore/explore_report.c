/* SPDX-License-Identifier: Apache-2.0 */
/* Coverage counting and the console and JSON reports of explore. */
#include "explore_report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void outcome_of(const struct xop *op, const struct xans *a, char *buf, size_t len)
{
    if (a->skipped)
        snprintf(buf, len, "not sent");
    else if (a->transport_error)
        snprintf(buf, len, "no answer");
    else if (a->status)
        snprintf(buf, len, "HTTP %ld", a->status);
    else if (op->kind == XOP_START)
        snprintf(buf, len, a->init ? "started" : "status %d", a->gcode);
    else if (a->drained)
        snprintf(buf, len, "OK, exit %s", a->stream_exit == 0 ? "0" : "non-zero");
    else if (a->gcode == 0 && op->kind >= XOP_MKDIR && op->kind <= XOP_BADCMD)
        snprintf(buf, len, "OK, exit %s", a->exit_code == 0 ? "0" : "non-zero");
    else
        snprintf(buf, len, "status %d", a->gcode);
}

void xcov_add(struct xcoverage *c, const struct xop *op, const struct xans *a)
{
    if ((unsigned)op->kind >= XOP__COUNT) return;
    char o[24];
    outcome_of(op, a, o, sizeof o);
    struct xcov_cell *row = c->cells[op->kind];
    for (size_t i = 0; i < XCOV_OUTCOMES; i++) {
        if (!row[i].outcome[0]) snprintf(row[i].outcome, sizeof row[i].outcome, "%s", o);
        if (strcmp(row[i].outcome, o) == 0) {
            row[i].count++;
            return;
        }
    }
}

void xcov_merge(struct xcoverage *dst, const struct xcoverage *src)
{
    for (int k = 0; k < XOP__COUNT; k++)
        for (size_t i = 0; i < XCOV_OUTCOMES && src->cells[k][i].outcome[0]; i++) {
            struct xcov_cell *row = dst->cells[k];
            for (size_t j = 0; j < XCOV_OUTCOMES; j++) {
                if (!row[j].outcome[0])
                    snprintf(row[j].outcome, sizeof row[j].outcome, "%s", src->cells[k][i].outcome);
                if (strcmp(row[j].outcome, src->cells[k][i].outcome) == 0) {
                    row[j].count += src->cells[k][i].count;
                    break;
                }
            }
        }
}

void xreport_free(struct xreport *r)
{
    for (size_t i = 0; i < r->n_findings; i++) {
        struct xreport_finding *f = &r->findings[i];
        free(f->expected);
        free(f->observed);
        free(f->observed_b);
        free(f->failing_op);
        free(f->minimal);
        free(f->replay_text);
        free(f->case_draft);
    }
    free(r->findings);
    r->findings = NULL;
    r->n_findings = 0;
}

void xreport_console(FILE *out, const struct xreport *r)
{
    fprintf(out, "\nexplore: seed %" PRIu64 ", %u sequence%s, %zu operations in %.1f s (%.1f/s)\n",
            r->seed, r->sequences, r->sequences == 1 ? "" : "s", r->ops_run, r->seconds,
            r->seconds > 0 ? (double)r->ops_run / r->seconds : 0.0);
    fprintf(out, "runtime: %s\n", r->target_a);
    if (r->jobs > 1)
        fprintf(out, "concurrent jobs: %u, with %zu contended PUTs and GETs of shared files\n",
                r->jobs, r->contended);
    if (r->target_b[0]) {
        fprintf(out, "against: %s\n", r->target_b);
        fprintf(out, "answers that differ where the contract leaves them open: %u\n",
                r->open_disagreements);
    }
    fputs("coverage (operation: outcome x count):\n", out);
    for (int k = 0; k < XOP__COUNT; k++) {
        const struct xcov_cell *row = r->cov.cells[k];
        if (!row[0].outcome[0]) continue;
        fprintf(out, "  %-9s", xop_kind_name((enum xop_kind)k));
        for (size_t i = 0; i < XCOV_OUTCOMES && row[i].outcome[0]; i++)
            fprintf(out, "%s %s x%u", i ? "," : "", row[i].outcome, row[i].count);
        fputc('\n', out);
    }
    if (r->n_findings == 0) {
        fputs("no finding: every answer is one the contract allows\n", out);
        return;
    }
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct xreport_finding *f = &r->findings[i];
        if (f->original_len)
            fprintf(out,
                    "\nFINDING %zu: clause %s%s%s (sequence seed %" PRIu64 ", operation %zu of "
                    "%zu)\n",
                    i + 1, f->clause, f->side ? ", deviating side: " : "", f->side ? f->side : "",
                    f->seq_seed, f->op_index + 1, f->original_len);
        else
            fprintf(out, "\nFINDING %zu: clause %s%s%s (round seed %" PRIu64 ")\n", i + 1,
                    f->clause, f->side ? ", deviating side: " : "", f->side ? f->side : "",
                    f->seq_seed);
        fprintf(out, "  operation: %s\n  expected:  %s\n  observed:  %s\n", f->failing_op,
                f->expected, f->observed);
        if (f->observed_b) fprintf(out, "  other:     %s\n", f->observed_b);
        if (f->minimal && (!f->shrunk || f->runtime_lost))
            fprintf(out, "  reproduction: the first %zu operations of the sequence (not shrunk)\n",
                    f->n_minimal);
        if (f->runtime_lost)
            fputs("  the runtime stopped answering while the sequence was shrunk (it may have "
                  "crashed): the reproduction below is the sequence as far as it went\n",
                  out);
        if (f->minimal && f->shrunk && !f->runtime_lost) {
            fprintf(out, "  minimal reproduction (%zu operation%s%s, %u runs, %.1f s%s):\n",
                    f->n_minimal, f->n_minimal == 1 ? "" : "s",
                    f->confirmed ? ", confirmed by a re-run" : ", NOT confirmed by a re-run",
                    f->shrink.runs, f->shrink.seconds,
                    f->shrink.out_of_time ? ", bound reached" : "");
            for (size_t k = 0; k < f->n_minimal; k++) {
                char *t = xop_render(&f->minimal[k]);
                fprintf(out, "    %zu. %s\n", k + 1, t ? t : "?");
                free(t);
            }
        }
        if (f->concurrent)
            fprintf(out,
                    "  concurrent reproduction: %zu job%s, %zu operations of their own (from "
                    "%zu jobs, %zu operations%s%s)\n",
                    f->conc_jobs, f->conc_jobs == 1 ? "" : "s", f->conc_ops, f->conc_jobs_before,
                    f->conc_ops_before,
                    !f->shrunk     ? "; not shrunk"
                    : f->confirmed ? "; shrunk, confirmed by a re-run"
                                   : "; shrunk, NOT confirmed by a re-run",
                    f->shrink.out_of_time ? ", bound reached" : "");
        if (f->saved_replay[0])
            fprintf(out, "  replay: sandboxd-conformance explore --replay %s\n", f->saved_replay);
        if (f->saved_case[0]) fprintf(out, "  case draft: %s\n", f->saved_case);
    }
}

static json_t *ops_json(const struct xop *ops, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        char *t = xop_render(&ops[i]);
        json_array_append_new(a, json_string(t ? t : "?"));
        free(t);
    }
    return a;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

int xreport_json(const char *path, const struct xreport *r, char *err, size_t err_len)
{
    json_t *doc = json_object();
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    json_object_set_new(doc, "tool", json_string("sandboxd-conformance explore"));
    json_object_set_new(doc, "version", json_string(SBX_VERSION));
    json_object_set_new(doc, "seed", json_string(seed));
    json_object_set_new(doc, "runtime", json_string(r->target_a));
    json_object_set_new(doc, "against", r->target_b[0] ? json_string(r->target_b) : json_null());
    json_object_set_new(doc, "verdict", json_string(r->n_findings ? "findings" : "no finding"));
    json_object_set_new(doc, "sequences", json_integer(r->sequences));
    json_object_set_new(doc, "operations", json_integer((json_int_t)r->ops_run));
    json_object_set_new(doc, "seconds", json_real(r->seconds));
    json_object_set_new(doc, "operations_per_second",
                        json_real(r->seconds > 0 ? (double)r->ops_run / r->seconds : 0));
    json_object_set_new(doc, "shrink_seconds", json_real(r->shrink_seconds));
    json_object_set_new(doc, "open_disagreements", json_integer(r->open_disagreements));
    json_object_set_new(doc, "jobs", json_integer(r->jobs));
    json_object_set_new(doc, "contended_operations", json_integer((json_int_t)r->contended));
    json_t *cov = json_object();
    for (int k = 0; k < XOP__COUNT; k++) {
        const struct xcov_cell *row = r->cov.cells[k];
        if (!row[0].outcome[0]) continue;
        json_t *o = json_object();
        for (size_t i = 0; i < XCOV_OUTCOMES && row[i].outcome[0]; i++)
            json_object_set_new(o, row[i].outcome, json_integer(row[i].count));
        json_object_set_new(cov, xop_kind_name((enum xop_kind)k), o);
    }
    json_object_set_new(doc, "coverage", cov);
    json_t *fs = json_array();
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct xreport_finding *f = &r->findings[i];
        json_t *o = json_object();
        snprintf(seed, sizeof seed, "%" PRIu64, f->seq_seed);
        json_object_set_new(o, "clause", json_string(f->clause));
        json_object_set_new(o, "operation", str_or_null(f->failing_op));
        json_object_set_new(o, "expected", str_or_null(f->expected));
        json_object_set_new(o, "observed", str_or_null(f->observed));
        json_object_set_new(o, "observed_other", str_or_null(f->observed_b));
        json_object_set_new(o, "deviating_side", str_or_null(f->side));
        json_object_set_new(o, "sequence_seed", json_string(seed));
        json_object_set_new(o, "operation_index", json_integer((json_int_t)f->op_index));
        json_object_set_new(o, "sequence_length", json_integer((json_int_t)f->original_len));
        if (f->concurrent) {
            json_object_set_new(o, "concurrent_jobs", json_integer((json_int_t)f->conc_jobs));
            json_object_set_new(o, "concurrent_operations", json_integer((json_int_t)f->conc_ops));
            json_object_set_new(o, "concurrent_jobs_before",
                                json_integer((json_int_t)f->conc_jobs_before));
            json_object_set_new(o, "concurrent_operations_before",
                                json_integer((json_int_t)f->conc_ops_before));
            json_object_set_new(o, "shrunk", json_boolean(f->shrunk));
            json_object_set_new(o, "confirmed", json_boolean(f->confirmed));
            json_object_set_new(o, "shrink_runs", json_integer(f->shrink.runs));
            json_object_set_new(o, "shrink_seconds", json_real(f->shrink.seconds));
            json_t *replay = f->replay_text ? json_loads(f->replay_text, 0, NULL) : NULL;
            json_object_set_new(o, "replay", replay ? replay : json_null());
        }
        if (f->minimal) {
            json_object_set_new(o, "minimal", ops_json(f->minimal, f->n_minimal));
            json_object_set_new(o, "minimal_length", json_integer((json_int_t)f->n_minimal));
            json_object_set_new(o, "confirmed", json_boolean(f->confirmed));
            json_object_set_new(o, "runtime_lost", json_boolean(f->runtime_lost));
            json_object_set_new(o, "shrink_runs", json_integer(f->shrink.runs));
            json_object_set_new(o, "shrink_seconds", json_real(f->shrink.seconds));
            json_t *replay = f->replay_text ? json_loads(f->replay_text, 0, NULL) : NULL;
            json_object_set_new(o, "replay", replay ? replay : json_null());
            json_object_set_new(o, "case_draft", str_or_null(f->case_draft));
        }
        json_array_append_new(fs, o);
    }
    json_object_set_new(doc, "findings", fs);
    int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (rc != 0) {
        snprintf(err, err_len, "cannot write %s", path);
        return -1;
    }
    return 0;
}
