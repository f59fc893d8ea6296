/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_OP_H
#define SBX_EXPLORE_OP_H
/* One generated operation of `explore`: what to send, never what came back.
 * Paths are relative to the sequence's workspace, decoded, '/'-separated;
 * process operations name a slot (the n-th Start of the sequence), so an
 * operation keeps its meaning when the shrinker removes others. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XOP_PATH_MAX 320
#define XOP_INPUT_MAX 96

enum xop_kind {
    XOP_PUT,      /* REST PUT, octet-stream or multipart, optional mode */
    XOP_GET,      /* REST GET of a file (whole or ranged) or a directory */
    XOP_HEAD,     /* REST HEAD */
    XOP_DELETE,   /* REST DELETE, optional recursive=... */
    XOP_LIST,     /* REST GET of a directory */
    XOP_MKDIR,    /* Execute mkdir -p */
    XOP_SYMLINK,  /* Execute ln -s (target inside the workspace) */
    XOP_MKFIFO,   /* Execute mkfifo */
    XOP_CAT,      /* Execute cat, optionally with cwd = the parent */
    XOP_STAT,     /* Execute stat -L -c %a */
    XOP_ENV,      /* Execute printf of an env var the request sets */
    XOP_BADCMD,   /* Execute of a missing command or an empty argv */
    XOP_START,    /* Start cat, optional cwd and PTY */
    XOP_WRITE,    /* WriteStdin input or eof (eof drains the stream) */
    XOP_SIGNAL,   /* SendSignal (a delivered signal drains the stream) */
    XOP_RESIZE,   /* ResizeTTY */
    XOP_HEALTH,   /* GET /v1/health */
    XOP_METADATA, /* GET /v1/metadata */
    XOP__COUNT
};

/* How a path is written into the request-target. */
enum xop_enc {
    XENC_ALL = 0,     /* every byte but unreserved and '/' percent-encoded */
    XENC_RAW_SUB = 1, /* sub-delimiters (+ = ; , ! $ & ' ( ) * : @) sent raw */
    XENC_SLASH = 2,   /* '/' sent as %2F */
};

enum xop_recursive { XREC_NONE = 0, XREC_TRUE, XREC_FALSE, XREC_BANANA };

struct xop {
    enum xop_kind kind;
    char path[XOP_PATH_MAX];
    char target[XOP_PATH_MAX]; /* SYMLINK: workspace path the link points to */
    uint8_t enc;               /* enum xop_enc */
    bool trailing_slash;       /* "name/" */
    bool nul;                  /* "%00x" appended to the last component */
    /* PUT */
    bool multipart;
    bool mp_nofile; /* multipart without a "file" part */
    bool has_mode;
    char mode[8]; /* "0644", "" (empty mode=), "0999", ... */
    uint32_t size;
    uint64_t content_seed;
    /* GET */
    bool ranged;
    int64_t ra, rb; /* bytes=ra-rb; rb < 0: "ra-"; ra < 0: suffix "-rb" */
    /* DELETE */
    uint8_t recursive; /* enum xop_recursive */
    /* CAT, START */
    bool in_parent; /* CAT: cwd = the parent, argument = the last component */
    bool has_cwd;   /* START: cwd = path */
    /* process slots: -1 = an id no Start handed out */
    int slot;
    bool pty;
    bool eof;
    int sig;                   /* SendSignal enum value (2, 9, 15; 0 and 7 are invalid) */
    uint32_t cols, rows;       /* ResizeTTY */
    char input[XOP_INPUT_MAX]; /* WRITE: bytes (text); ENV: value */
    bool empty_argv;           /* BADCMD: empty command instead of a missing one */
};

const char *xop_kind_name(enum xop_kind k);
/* -1 when the name is unknown. */
int xop_kind_from_name(const char *name);

/* The PUT body of op: size bytes derived from content_seed (binary, NULs
 * included). malloc'd (at least one byte); *len = op->size. */
uint8_t *xop_content(const struct xop *op, size_t *len);

/* "Range: bytes=..." of a ranged GET. */
void xop_range_header(const struct xop *op, char *buf, size_t len);

/* One-line rendering for reports, malloc'd. */
char *xop_render(const struct xop *op);

#endif
