/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_OPT_TABLE_H
#define SBX_OPT_TABLE_H
/* One table of options per command of the suite (the run and each
 * subcommand): the parser, --help and the man page's option lists all come
 * from it (opt_parse.c, opt_doc.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct opt_spec;

/* Takes one option's value (NULL for a flag) into target; 0, or -1 with a
 * message in err. */
typedef int (*opt_set_fn)(void *target, const struct opt_spec *spec, const char *val, char *err,
                          size_t err_len);

enum opt_kind {
    OPT_CALL,     /* set() decides */
    OPT_SET_STR,  /* const char * at offset = the value */
    OPT_SET_TRUE, /* bool at offset = true */
    OPT_TEXT,     /* no option: a row of --help and the man page only */
};

enum opt_flag {
    OPT_REPEATABLE = 1u << 0, /* each occurrence adds; others: the last wins */
    OPT_INTERNAL = 1u << 1,   /* for the build (man page generation): not documented */
    OPT_STOPS = 1u << 2,      /* parsing ends here, the rest unread (--help) */
    OPT_ALIAS = 1u << 3,      /* another spelling of the option before it: not documented */
};

/* Man text that says "not in the man page". */
#define OPT_NO_MAN ""

struct opt_spec {
    const char *name;   /* long name without "--"; NULL for OPT_TEXT */
    char short_name;    /* 'j' for -j, or 0 */
    const char *arg;    /* argument name (FILE, N...), NULL for a flag */
    unsigned flags;     /* enum opt_flag */
    const char *group;  /* the group's id (struct opt_group) */
    enum opt_kind kind; /* what it sets: a field, or a handler */
    size_t offset;
    opt_set_fn set;
    const char *label; /* --help and man label when not "--name ARG"; */
    const char *help;  /* --help text, one string per line joined by \n; NULL: hidden (another
                          row's label names it) */
    const char *man;   /* man text (roff) when it differs from help; OPT_NO_MAN: none; a
                          row with man text and no help text is in the man page only */
};

struct opt_group {
    const char *id;      /* what the man page template names (@OPTIONS cmd id@) */
    const char *heading; /* printed verbatim before the group's rows in --help */
    int help_col;        /* column of the help text; 0: the command's */
};

/* Parsing style: how the command has always read its command line. */
enum opt_style {
    OPT_STYLE_EXACT,  /* exact names in order; positional words are errors */
    OPT_STYLE_GETOPT, /* getopt_long: unique abbreviations, options anywhere */
};

struct opt_command {
    const char *name; /* "run", "bench", ...: what --dump-options and the man page name */
    const struct opt_spec *opts;
    size_t n_opts;
    const struct opt_group *groups;
    size_t n_groups;
    enum opt_style style;
    bool allow_eq;     /* EXACT: --name=value too */
    bool double_dash;  /* EXACT: only words starting with "--" are options */
    bool stop_at_word; /* EXACT: the first word that is no option ends them (so does
                          any word when msg_positional is NULL) */
    /* Messages (one %s each): the word for unknown, positional; the name
     * (--json) for needs_value and no_value. NULL positional: words are
     * collected (opt_result.words). */
    const char *msg_unknown, *msg_needs_value, *msg_no_value, *msg_positional;
    const char *help_head, *help_tail; /* --help around the groups */
    int help_col;                      /* column of the help text */
    int help_wrap_at; /* a label this wide or wider (0: none) puts its text on the next line;
                         a shorter one too wide for the column gets two spaces after it */
};

/* Where the words that are not options begin (argv + first, n of them). */
struct opt_result {
    int first;
    int n_words;
};

/* Parses argv[1..] into target by the table. 0, or -1 with err. */
int opt_parse(const struct opt_command *cmd, void *target, int argc, char **argv,
              struct opt_result *res, char *err, size_t err_len);

/* The --help text: help_head, each group's heading and rows, help_tail. */
void opt_print_help(FILE *f, const struct opt_command *cmd);

/* The man page's rows (.TP entries) of one group, or of all when group is
 * NULL. */
void opt_print_man(FILE *f, const struct opt_command *cmd, const char *group);

/* One line per option: command, --name, -c or -, argument or -,
 * "repeatable" or "once", and "documented", "alias" or "internal". */
void opt_print_dump(FILE *f, const struct opt_command *cmd);

/* The spec named --name (or -c), NULL if none. */
const struct opt_spec *opt_find(const struct opt_command *cmd, const char *word, size_t len);

#endif
