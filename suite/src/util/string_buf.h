/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_STRING_BUF_H
#define SBX_STRING_BUF_H
/* The suite's one string builder, for the runner and the cases. */
#include <stddef.h>

/* A growing NUL-terminated byte string. Allocation failure aborts, with a
 * message on stderr. */
struct sbuf {
    char *s;
    size_t len, cap;
};
void sbuf_add(struct sbuf *b, const void *data, size_t n);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the string (never NULL) and leaves the buffer empty; caller frees. */
char *sbuf_take(struct sbuf *b);
void sbuf_free(struct sbuf *b);

#endif
