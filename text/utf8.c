/* Character boundaries and widths through libunistring (see text.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <unictype.h>
#include <unigbrk.h>
#include <uninorm.h>
#include <unistr.h>
#include <uniwidth.h>

#include "text/text.h"

/* Break flags for the first n bytes of s: p[i] is 1 where a character starts (a cluster
 * boundary before byte i; p[0] is 1 for a non-empty text). Whether a boundary precedes byte i
 * depends on the bytes before it and the character at i only, so flags for a prefix of a text
 * are the text's own. `stack` (stack_n bytes) is used when it is large enough; otherwise the
 * flags are allocated (NULL when that fails). */
static char *breaks_of(const char *s, size_t n, char *stack, size_t stack_n)
{
    char *p = n <= stack_n ? stack : malloc(n);
    if (p == NULL || n == 0)
        return p;
    u8_grapheme_breaks((const uint8_t *)s, n, p);
    p[0] = 1;
    return p;
}

static void breaks_free(char *p, char *stack)
{
    if (p != stack)
        free(p);
}

bool text_utf8_valid(const char *s, size_t n)
{
    return u8_check((const uint8_t *)s, n) == NULL;
}

size_t text_valid_prefix(const char *s, size_t n)
{
    const uint8_t *bad = u8_check((const uint8_t *)s, n);
    return bad == NULL ? n : (size_t)(bad - (const uint8_t *)s);
}

size_t text_prefix(const char *s, size_t n, size_t max_chars, size_t max_bytes)
{
    if (n <= max_bytes && max_chars >= n)
        return n; /* never more characters than bytes */
    /* A boundary at max_bytes depends on the character that starts there: look one whole
     * character (at most 4 bytes) past it. */
    size_t look = max_bytes < n && n - max_bytes > 4 ? max_bytes + 4 : n;
    char stack[512];
    char *p = breaks_of(s, look, stack, sizeof stack);
    if (p == NULL)
        return 0; /* out of memory: cut everything rather than mid-character */
    size_t chars = 0, end = 0;
    for (size_t i = 0; i <= look && i <= max_bytes; i++) {
        bool boundary = i == look ? look == n : p[i] != 0;
        if (!boundary)
            continue;
        if (i > 0)
            chars++; /* the character that ends at i */
        if (chars > max_chars)
            break;
        end = i;
    }
    breaks_free(p, stack);
    return end;
}

size_t text_chars_before(const char *s, size_t n, size_t at)
{
    if (at > n)
        at = n;
    if (at == 0)
        return 0;
    char stack[512];
    char *p = breaks_of(s, at, stack, sizeof stack);
    if (p == NULL)
        return at;
    size_t chars = 0;
    for (size_t i = 0; i < at; i++)
        chars += p[i] != 0;
    breaks_free(p, stack);
    /* A character that spans `at` counts as before it only when it starts before it. */
    return chars;
}

size_t text_chars(const char *s, size_t n)
{
    return text_chars_before(s, n, n);
}

size_t text_copy(char *out, size_t cap, const char *src, size_t max_chars)
{
    size_t n = text_prefix(src, strlen(src), max_chars, cap - 1);
    memcpy(out, src, n);
    out[n] = '\0';
    return n;
}

void text_char_starts(const char *s, size_t n, char *p)
{
    if (n == 0)
        return;
    u8_grapheme_breaks((const uint8_t *)s, n, p);
    p[0] = 1;
}

size_t text_columns(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n;) {
        ucs4_t cp;
        int k = u8_mbtoucr(&cp, (const uint8_t *)s + i, n - i);
        if (k <= 0) { /* a malformed byte: one column, as a replacement character would take */
            cols++, i++;
            continue;
        }
        int w = uc_width(cp, "UTF-8");
        cols += w > 0 ? (size_t)w : 0;
        i += (size_t)k;
    }
    return cols;
}

size_t text_next_code_point(const char *s, size_t n, unsigned *cp)
{
    if (n == 0)
        return 0;
    ucs4_t c;
    int k = u8_mbtoucr(&c, (const uint8_t *)s, n);
    if (k <= 0)
        return 0;
    *cp = c;
    return (size_t)k;
}

bool text_upcase_first(char *s, size_t n)
{
    unsigned cp;
    size_t k = text_next_code_point(s, n, &cp);
    if (k == 0)
        return false;
    ucs4_t up = uc_toupper(cp);
    uint8_t buf[6];
    if (up == cp || u8_uctomb(buf, up, (int)sizeof buf) != (int)k)
        return false; /* no capital, or one of another length: left as it is */
    memcpy(s, buf, k);
    return true;
}

void text_vformat(char *out, size_t cap, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(out, cap, fmt, ap);
    if (n >= 0 && (size_t)n >= cap) {
        char *all = malloc((size_t)n + 1);
        if (all != NULL) {
            vsnprintf(all, (size_t)n + 1, fmt, aq);
            text_copy(out, cap, all, SIZE_MAX);
        } else {
            out[text_valid_prefix(out, strlen(out))] = '\0';
        }
        free(all);
    }
    va_end(aq);
}

void text_format(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_vformat(out, cap, fmt, ap);
    va_end(ap);
}

bool text_same_ignoring_case(const char *a, size_t n, const char *b, size_t m)
{
    int r = 0;
    if (!text_utf8_valid(a, n) || !text_utf8_valid(b, m) ||
        u8_casecmp((const uint8_t *)a, n, (const uint8_t *)b, m, NULL, UNINORM_NFC, &r) != 0)
        return n == m && memcmp(a, b, n) == 0;
    return r == 0;
}

bool text_begins_ignoring_case(const char *p, size_t n, const char *s, size_t m)
{
    if (n == 0)
        return true;
    if (!text_utf8_valid(p, n) || !text_utf8_valid(s, m))
        return n <= m && memcmp(p, s, n) == 0;
    size_t fp = 0, fs = 0;
    uint8_t *cp = u8_casefold((const uint8_t *)p, n, NULL, UNINORM_NFC, NULL, &fp);
    uint8_t *cs = u8_casefold((const uint8_t *)s, m, NULL, UNINORM_NFC, NULL, &fs);
    bool begins = cp != NULL && cs != NULL && fp <= fs && memcmp(cp, cs, fp) == 0;
    free(cp);
    free(cs);
    return begins;
}
