/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog commands: --list (the selected cases) and --explain ID. */
#include "runner_catalog.h"

#include <stdio.h>
#include <string.h>

#include "clauses.h"
#include "runner.h"
#include "text_util.h"

void runner_print_list(const struct run_results *res)
{
    printf("%-10s %-6s %-14s %-28s %-16s %5s  %-44s %s\n", "ID", "LEVEL", "CLAUSES", "TAGS",
           "NEEDS", "TIME", "SOURCE", "TITLE");
    unsigned n = 0;
    for (size_t i = 0; i < res->count; i++) {
        const struct case_result *r = &res->cases[i];
        if (!r->selected) continue;
        char needs[96];
        char source[256];
        case_source_text(r->def, source, sizeof source);
        printf("%-10s %-6s %-14s %-28s %-16s %4us  %-44s %s\n", r->def->id,
               case_level_name(r->def->level), r->def->clauses, r->def->tags ? r->def->tags : "-",
               case_needs_text(r->def->needs, needs, sizeof needs), case_timeout_s(r->def), source,
               r->def->title);
        n++;
    }
    printf("%u of %zu cases\n", n, res->count);
}

int runner_explain(const struct catalog *cat, const char *id)
{
    const struct case_def *d = catalog_find(cat, id);
    if (!d) {
        fprintf(stderr, "sandboxd-conformance: no case with ID '%s' (see --list)\n", id);
        return RUNNER_USAGE;
    }
    char needs[96];
    printf("%s  %s\n\n", d->id, d->title);
    printf("Level:    %s\n", case_level_name(d->level));
    printf("Tags:     %s\n", d->tags ? d->tags : "-");
    printf("Needs:    %s\n", case_needs_text(d->needs, needs, sizeof needs));
    printf("Timeout:  %u s\n", case_timeout_s(d));
    char source[256];
    printf("Source:   %s\n\n", case_source_text(d, source, sizeof source));
    printf("Clauses:\n");
    const char *cur = d->clauses, *item;
    for (size_t l; (l = text_list_next(&cur, &item)) != 0;) {
        char cid[16];
        if (l > sizeof cid - 1) l = sizeof cid - 1;
        memcpy(cid, item, l);
        cid[l] = '\0';
        const struct clause *cl = clause_find(cid);
        if (cl) {
            printf("  %-4s %s%s%s — %s\n", cl->id, case_level_name(cl->level),
                   cl->has_should ? " (+SHOULD)" : "", cl->launch ? " [launch]" : "", cl->text);
            clause_write_wrapped(stdout, cl->normative, 7, 79);
        }
    }
    printf("\nCatches:  %s\n", d->catches ? d->catches : "(not described)");
    printf("How:      %s\n", d->how ? d->how : "(not described)");
    return RUNNER_OK;
}
