/* A growing text (buf.h). */
#include "text/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; false (and failed) when there is none to be had. */
static bool room(struct text_buf *b, size_t n)
{
    if (b->failed)
        return false;
    /* A length that would wrap the size is a failure, never a short buffer. */
    if (n > SIZE_MAX / 2 - 1 - b->n) {
        b->failed = true;
        return false;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *grown = realloc(b->s, cap);
        if (grown == NULL) {
            b->failed = true;
            return false;
        }
        b->s = grown, b->cap = cap;
    }
    return true;
}

void text_buf_put(struct text_buf *b, const char *s, size_t n)
{
    if (!room(b, n))
        return;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void text_buf_printf(struct text_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        b->failed = true;
    else if ((size_t)n < sizeof small)
        text_buf_put(b, small, (size_t)n);
    else if (room(b, (size_t)n)) {
        va_start(ap, fmt);
        vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        b->n += (size_t)n;
    }
}
