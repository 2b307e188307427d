/* A growing text (buf.c): bytes appended, written and then taken whole (a summary's lines, the
 * metrics' exposition). */
#ifndef TACTICS_TEXT_BUF_H
#define TACTICS_TEXT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Start with {0}; the caller frees s. Once anything is appended s holds n bytes and a NUL.
 * A failure (out of memory, a length that would wrap the size) sets failed: later appends do
 * nothing, and what s holds is not to be sent. */
struct text_buf {
    char *s;
    size_t n, cap;
    bool failed;
};

/* Appends the n bytes at s. */
void text_buf_put(struct text_buf *b, const char *s, size_t n);

/* Appends fmt's text, of any length. */
void text_buf_printf(struct text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
