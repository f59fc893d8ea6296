/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the reporters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_util.h"
#include "report.h"
#include "text_util.h"

void report_clause_rollup(const struct run_results *res, const char *clause_id,
                          struct clause_rollup *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!text_list_has(r->def->clauses, clause_id)) continue;
        out->cases++;
        if (!r->selected || r->outcome == OUT_NOT_RUN)
            out->not_run++;
        else if (r->expected_fail)
            out->expected_fail++;
        else if (result_is_bad(r))
            out->fail++;
        else if (r->outcome == OUT_PASS)
            out->pass++;
        else
            out->skip++;
    }
    if (out->cases == 0)
        out->status = "untested";
    else if (out->fail > 0)
        out->status = "fail";
    else if (out->pass == out->cases)
        out->status = "pass";
    else
        out->status = "incomplete";
}

size_t report_doc_findings(const struct run_results *res, struct doc_finding_row **rows)
{
    *rows = NULL;
    size_t n = 0;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        for (size_t k = 0; k < r->n_doc_findings; k++) {
            const char *text = r->doc_findings[k];
            size_t j = 0;
            while (j < n && strcmp((*rows)[j].text, text) != 0)
                j++;
            if (j == n) {
                struct doc_finding_row *grown = realloc(*rows, (n + 1) * sizeof *grown);
                if (!grown) return n;
                *rows = grown;
                grown[n].text = text;
                grown[n].cases = strdup(r->def->id);
                n++;
            } else if (!text_list_has((*rows)[j].cases, r->def->id)) {
                char *joined = text_fmt("%s,%s", (*rows)[j].cases, r->def->id);
                if (joined) {
                    free((*rows)[j].cases);
                    (*rows)[j].cases = joined;
                }
            }
        }
    }
    return n;
}

void report_doc_findings_free(struct doc_finding_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i].cases);
    free(rows);
}

struct report_writer {
    int (*fn)(FILE *f, const struct run_results *res);
    const struct run_results *res;
};

static int report_write(FILE *f, const void *arg)
{
    const struct report_writer *w = arg;
    return w->fn(f, w->res);
}

int report_write_file(const char *path, int (*fn)(FILE *f, const struct run_results *res),
                      const struct run_results *res)
{
    struct report_writer w = {fn, res};
    return fs_write_file_atomic(path, report_write, &w);
}

const char *report_tls_text(const struct tls_peer *p, char *buf, size_t buf_len)
{
    if (!p->tls) {
        snprintf(buf, buf_len, "cleartext");
        return buf;
    }
    snprintf(buf, buf_len, "%s %s%s%s, server certificate %s (expires %s), %s%s", p->version,
             p->cipher, p->alpn[0] ? ", ALPN " : "", p->alpn, p->subject[0] ? p->subject : "(none)",
             p->not_after[0] ? p->not_after : "?",
             p->verified ? "verified" : "NOT VERIFIED (--insecure)",
             p->client_cert ? ", client certificate sent" : "");
    return buf;
}
