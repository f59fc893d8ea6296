/* SPDX-License-Identifier: Apache-2.0 */
/* Lookup and rendering of the contract's clauses. The table itself is
 * clause_table.c, generated from cases/contract/contract.yaml. */
#include "clauses.h"

#include <string.h>

const struct clause *clause_find(const char *id)
{
    for (size_t i = 0; i < clause_count; i++)
        if (strcmp(clause_table[i].id, id) == 0) return &clause_table[i];
    return NULL;
}

const char *clause_group_title(char letter)
{
    for (size_t i = 0; i < clause_group_count; i++)
        if (clause_groups[i].letter == letter) return clause_groups[i].title;
    return "Other";
}

void clause_write_wrapped(FILE *f, const char *text, int indent, int width)
{
    int col = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if (e == p) break;
        int len = (int)(e - p);
        if (col > indent && col + 1 + len > width) {
            fputc('\n', f);
            col = 0;
        }
        if (col == 0) {
            fprintf(f, "%*s", indent, "");
            col = indent;
        } else {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, (size_t)len, f);
        col += len;
        p = e;
    }
    if (col > 0) fputc('\n', f);
}
