/* SPDX-License-Identifier: Apache-2.0 */
/* --help and the man page's OPTIONS rows, from the daemon's table of flags
 * (daemon_options.h). */
#include "daemon_options.h"

#include <string.h>

enum { HELP_COL = 30 };

static const char help_head[] =
    "Usage: sandboxd-ref [flags]\n"
    "\n"
    "The sandboxd runtime daemon (reference implementation in C): gRPC\n"
    "process.v1.ProcessService and the REST /v1 file API over one sandbox root.\n"
    "\n"
    "Flags:\n";

static const char help_tail[] = "\n"
                                "Durations: 500ms, 10s, 2m, 1m30s. Sizes: bytes, or with a "
                                "Ki/Mi/Gi suffix.\n"
                                "With a port of 0 the bound ports are printed on stdout as\n"
                                "  grpc-port=N\n  rest-port=N\n";

void daemon_options_help(FILE *f)
{
    fputs(help_head, f);
    for (size_t i = 0; i < daemon_n_options; i++) {
        const struct daemon_option *o = &daemon_options[i];
        if (!o->help) continue;
        int used = fprintf(f, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        /* A label too wide for the column puts its text on the next line. */
        if (used < HELP_COL - 1)
            fprintf(f, "%*s", HELP_COL - used, "");
        else
            fprintf(f, "\n%*s", HELP_COL, "");
        for (const char *p = o->help; *p; p++) {
            fputc(*p, f);
            if (*p == '\n') fprintf(f, "%*s", HELP_COL, "");
        }
        fputc('\n', f);
    }
    fputs(help_tail, f);
}

/* Dashes as roff minus signs. */
static void roff(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
}

void daemon_options_man(FILE *f)
{
    for (size_t i = 0; i < daemon_n_options; i++) {
        const struct daemon_option *o = &daemon_options[i];
        if (!o->man) continue;
        fputs(".TP\n\\fB\\-\\-", f);
        roff(f, o->name);
        fputs("\\fR", f);
        if (o->arg) {
            fputs(" \\fI", f);
            roff(f, o->arg);
            fputs("\\fR", f);
        }
        fprintf(f, "\n%s\n", o->man);
    }
}

void daemon_options_dump(FILE *f)
{
    for (size_t i = 0; i < daemon_n_options; i++) {
        const struct daemon_option *o = &daemon_options[i];
        fprintf(f, "daemon\t--%s\t-\t%s\tonce\t%s\n", o->name, o->arg ? o->arg : "-",
                o->kind == DOPT_INTERNAL ? "internal" : "documented");
    }
}
