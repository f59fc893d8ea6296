/* SPDX-License-Identifier: Apache-2.0 */
/* --help, the man page's option rows and the option list, from a command's
 * option table (opt_table.h). */
#include "opt_table.h"

#include <string.h>

static void label_of(const struct opt_spec *s, char *out, size_t len)
{
    if (s->label)
        snprintf(out, len, "%s", s->label);
    else
        snprintf(out, len, "--%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "");
}

static void help_row(FILE *f, const struct opt_command *cmd, int col, const struct opt_spec *s)
{
    char label[160];
    label_of(s, label, sizeof label);
    int used = fprintf(f, "  %s", label);
    if (!*s->help) {
        fputc('\n', f);
        return;
    }
    if (used < col)
        fprintf(f, "%*s", col - used, "");
    else if (cmd->help_wrap_at && used - 2 >= cmd->help_wrap_at)
        fprintf(f, "\n%*s", col, "");
    else
        fputs("  ", f);
    for (const char *p = s->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n') fprintf(f, "%*s", col, "");
    }
    fputc('\n', f);
}

void opt_print_help(FILE *f, const struct opt_command *cmd)
{
    fputs(cmd->help_head, f);
    for (size_t g = 0; g < cmd->n_groups; g++) {
        const struct opt_group *gr = &cmd->groups[g];
        fputs(gr->heading, f);
        for (size_t i = 0; i < cmd->n_opts; i++) {
            const struct opt_spec *s = &cmd->opts[i];
            if (s->help && !(s->flags & OPT_INTERNAL) && strcmp(s->group, gr->id) == 0)
                help_row(f, cmd, gr->help_col ? gr->help_col : cmd->help_col, s);
        }
    }
    fputs(cmd->help_tail, f);
}

/* Text as roff: minus signs escaped, no line starting a request. */
static void roff_text(FILE *f, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if ((i == 0 || text[i - 1] == '\n') && (c == '.' || c == '\'')) fputs("\\&", f);
        if (c == '-')
            fputs("\\-", f);
        else if (c == '\\')
            fputs("\\e", f);
        else
            fputc(c, f);
    }
}

/* "--grpc ADDR --rest ADDR": option words bold, argument words italic. */
static void man_label(FILE *f, const struct opt_spec *s)
{
    char label[160];
    label_of(s, label, sizeof label);
    for (const char *p = label; *p;) {
        size_t n = strcspn(p, " ");
        const char *font = p[0] == '-' ? "\\fB" : p[0] == '(' ? "\\fR" : "\\fI";
        fputs(font, f);
        roff_text(f, p, n);
        fputs("\\fR", f);
        p += n;
        if (*p) fputc(*p++, f);
    }
    fputc('\n', f);
}

static void man_row(FILE *f, const struct opt_spec *s)
{
    fputs(".TP\n", f);
    man_label(f, s);
    if (s->man) {
        fprintf(f, "%s\n", s->man);
        return;
    }
    /* The help text as one paragraph. */
    for (const char *p = s->help; *p;) {
        size_t n = strcspn(p, "\n");
        while (n && p[0] == ' ')
            p++, n--;
        roff_text(f, p, n);
        fputc('\n', f);
        p += n;
        if (*p) p++;
    }
}

void opt_print_man(FILE *f, const struct opt_command *cmd, const char *group)
{
    for (size_t i = 0; i < cmd->n_opts; i++) {
        const struct opt_spec *s = &cmd->opts[i];
        if ((s->flags & (OPT_INTERNAL | OPT_ALIAS)) || (group && strcmp(s->group, group) != 0))
            continue;
        if (s->man ? !*s->man : !s->help || !*s->help) continue;
        man_row(f, s);
    }
}

void opt_print_dump(FILE *f, const struct opt_command *cmd)
{
    for (size_t i = 0; i < cmd->n_opts; i++) {
        const struct opt_spec *s = &cmd->opts[i];
        if (s->kind == OPT_TEXT) continue;
        fprintf(f, "%s\t--%s\t%s%c\t%s\t%s\t%s\n", cmd->name, s->name, s->short_name ? "-" : "",
                s->short_name ? s->short_name : '-', s->arg ? s->arg : "-",
                s->flags & OPT_REPEATABLE ? "repeatable" : "once",
                s->flags & OPT_INTERNAL ? "internal"
                : s->flags & OPT_ALIAS  ? "alias"
                                        : "documented");
    }
}
