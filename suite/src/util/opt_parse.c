/* SPDX-License-Identifier: Apache-2.0 */
/* The suite's table-driven option parser (opt_table.h): exact names read in
 * order, or getopt_long over a struct option[] built from the table. */
#include "opt_table.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_NAME = 64, LONG_BASE = 256 };

const struct opt_spec *opt_find(const struct opt_command *cmd, const char *word, size_t len)
{
    for (size_t i = 0; i < cmd->n_opts; i++) {
        const struct opt_spec *s = &cmd->opts[i];
        if (s->kind == OPT_TEXT) continue;
        if (len > 2 && word[0] == '-' && word[1] == '-' && strlen(s->name) == len - 2 &&
            memcmp(s->name, word + 2, len - 2) == 0)
            return s;
        if (len == 2 && word[0] == '-' && s->short_name && word[1] == s->short_name) return s;
    }
    return NULL;
}

/* The command's message with word in place of its "%s". */
static int fail(char *err, size_t err_len, const char *msg, const char *word)
{
    const char *at = strstr(msg, "%s");
    if (!at) at = msg + strlen(msg);
    snprintf(err, err_len, "%.*s%s%s", (int)(at - msg), msg, word, *at ? at + 2 : "");
    return -1;
}

static int apply(const struct opt_spec *s, void *target, const char *val, char *err, size_t err_len)
{
    char *at = (char *)target + s->offset;
    switch (s->kind) {
    case OPT_SET_STR:
        memcpy(at, &val, sizeof val);
        return 0;
    case OPT_SET_TRUE:
        *(bool *)(void *)at = true;
        return 0;
    case OPT_CALL:
        return s->set(target, s, val, err, err_len);
    case OPT_TEXT:
        break;
    }
    return 0;
}

static int parse_exact(const struct opt_command *cmd, void *target, int argc, char **argv,
                       struct opt_result *res, char *err, size_t err_len)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        bool optlike = cmd->double_dash ? strncmp(a, "--", 2) == 0 : a[0] == '-';
        if (!optlike && (cmd->stop_at_word || !cmd->msg_positional)) break;
        if (!optlike) return fail(err, err_len, cmd->msg_positional, a);
        char name[MAX_NAME];
        const char *val = NULL;
        const char *eq = cmd->allow_eq && strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        const struct opt_spec *s = opt_find(cmd, name, strlen(name));
        if (!s) return fail(err, err_len, cmd->msg_unknown, name);
        if (!s->arg && val) return fail(err, err_len, cmd->msg_no_value, name);
        if (s->arg && !val) {
            if (i + 1 >= argc) return fail(err, err_len, cmd->msg_needs_value, name);
            val = argv[++i];
        }
        if (apply(s, target, val, err, err_len) != 0) return -1;
        if (s->flags & OPT_STOPS) {
            i = argc;
            break;
        }
    }
    res->first = i;
    res->n_words = argc - i;
    return 0;
}

static int parse_getopt(const struct opt_command *cmd, void *target, int argc, char **argv,
                        struct opt_result *res, char *err, size_t err_len)
{
    struct option *longs = calloc(cmd->n_opts + 1, sizeof *longs);
    char shorts[2 + 2 * 16] = ":";
    size_t ns = 1;
    if (!longs) return fail(err, err_len, "%s", "out of memory");
    size_t nl = 0;
    for (size_t i = 0; i < cmd->n_opts; i++) {
        const struct opt_spec *s = &cmd->opts[i];
        if (s->kind == OPT_TEXT) continue;
        longs[nl++] = (struct option){s->name, s->arg ? required_argument : no_argument, NULL,
                                      LONG_BASE + (int)i};
        if (s->short_name && ns + 3 < sizeof shorts) {
            shorts[ns++] = s->short_name;
            if (s->arg) shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    optind = 1;
    opterr = 0;
    int ch, rc = 0;
    bool stopped = false;
    while (!stopped && rc == 0 && (ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const struct opt_spec *s = NULL;
        if (ch >= LONG_BASE)
            s = &cmd->opts[ch - LONG_BASE];
        else if (ch != ':' && ch != '?')
            s = opt_find(cmd, (char[]){'-', (char)ch, '\0'}, 2);
        if (ch == ':')
            rc = fail(err, err_len, cmd->msg_needs_value, argv[optind - 1]);
        else if (!s)
            rc = fail(err, err_len, cmd->msg_unknown, argv[optind - 1]);
        else
            rc = apply(s, target, optarg, err, err_len);
        stopped = s && (s->flags & OPT_STOPS);
    }
    free(longs);
    if (rc != 0) return rc;
    res->first = stopped ? argc : optind;
    res->n_words = argc - res->first;
    if (res->n_words && cmd->msg_positional)
        return fail(err, err_len, cmd->msg_positional, argv[res->first]);
    return 0;
}

int opt_parse(const struct opt_command *cmd, void *target, int argc, char **argv,
              struct opt_result *res, char *err, size_t err_len)
{
    struct opt_result ignored;
    if (!res) res = &ignored;
    if (cmd->style == OPT_STYLE_GETOPT)
        return parse_getopt(cmd, target, argc, argv, res, err, err_len);
    return parse_exact(cmd, target, argc, argv, res, err, err_len);
}
