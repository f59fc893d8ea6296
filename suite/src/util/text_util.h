/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TEXT_UTIL_H
#define SBX_TEXT_UTIL_H
/* Small text helpers shared by the runner and the reporters: making arbitrary
 * bytes safe to embed in JSON/XML/HTML, bounded formatting. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Printable, valid-UTF-8 rendering of bytes: valid UTF-8 (except control
 * characters) is kept, \n and \t are kept when keep_newlines, anything else
 * becomes \xNN. At most max output bytes, then "... (N bytes total)".
 * Always returns a malloc'd string (never NULL unless out of memory). */
char *text_sanitize(const void *data, size_t len, size_t max, bool keep_newlines);

/* vasprintf that never returns NULL-with-garbage: NULL on failure. */
char *text_vfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *text_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes s escaped for XML/HTML text and attribute values. */
void text_write_xml(FILE *f, const char *s);

/* Writes s escaped for a Markdown table cell (pipes, newlines). */
void text_write_md_cell(FILE *f, const char *s);

/* Iterates a comma-separated list ("a, b,c"): the next item, trimmed of
 * blanks, in *item with its length returned; 0 at the end. Advances *cursor
 * (start it at the list; NULL counts as empty). */
size_t text_list_next(const char **cursor, const char **item);

/* True when item is in the comma-separated list (exact item match). */
bool text_list_has(const char *list, const char *item);

/* First clause group letter of a case's clause list ("P1,P2" -> 'P'). */
char text_clause_group(const char *clauses);

#endif
