/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_EXPLORE_MODEL_H
#define SBX_EXPLORE_MODEL_H
/* An executable model of the contract's observable state below one
 * workspace: the tree (names, types, sizes, modes, contents) and the process
 * table (slots: live, ended, failed; ids; what stdin received). For every
 * operation it decides whether the runtime's answer is one the contract
 * allows, and then takes the effect that answer shows. Where the contract
 * leaves the outcome open (its "Not fixed" section), any answer is allowed
 * and what the operation touched becomes unknown: the model stops
 * predicting it instead of guessing. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explore_answer.h"
#include "explore_op.h"

enum xnode_type { XN_FILE, XN_DIR, XN_LINK, XN_FIFO, XN_UNKNOWN };

struct xnode {
    char *path; /* workspace-relative, canonical ("" is the workspace) */
    enum xnode_type type;
    uint8_t *data; /* XN_FILE */
    size_t size;
    unsigned mode;
    char *target; /* XN_LINK: canonical workspace path it points to */
};

enum xslot_state { XS_NONE, XS_LIVE, XS_ENDED, XS_FAILED };

struct xslot {
    enum xslot_state st;
    bool pty;
    int32_t pid;
    uint8_t *input; /* bytes written to its stdin */
    size_t input_len;
};

struct xmodel {
    struct xnode *nodes;
    size_t n_nodes, cap_nodes;
    struct xslot *slots;
    size_t n_slots;
};

struct xfinding {
    char clause[24]; /* "F10", "P12", ... */
    char *expected;
    char *observed;
};

void xmodel_init(struct xmodel *m);
void xmodel_free(struct xmodel *m);
void xfinding_free(struct xfinding *f);

/* Judges a's answer to op: 0 when the contract allows it, 1 with f filled
 * (malloc'd texts). Either way the model then takes the effect the answer
 * shows (an allowed refusal changes nothing). */
int xmodel_step(struct xmodel *m, const struct xop *op, const struct xans *a, struct xfinding *f);

/* The link text ln -s gets for op (relative to the link's directory as the
 * path spells it). Writes into buf. */
void xmodel_link_text(const struct xop *op, char *buf, size_t len);

#endif
