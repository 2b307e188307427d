/* Text as people read it. Names, ids and labels come in any script, so they are cut and counted
 * by character, never by byte: a character here is an extended grapheme cluster (Unicode
 * Standard Annex #29): a base with its combining marks, an emoji with its modifiers, variation
 * selectors and zero-width-joined parts, or a flag's pair of regional indicators. The cluster
 * boundaries are libunistring's (u8_grapheme_breaks; Debian 12's libunistring 1.0 follows
 * Unicode 14), not a table of our own.
 *
 * Every function takes UTF-8; a byte that is not part of a well-formed sequence counts as a
 * character of its own, so a cut never lands inside a well-formed one. */
#ifndef TACTICS_TEXT_H
#define TACTICS_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether the n bytes at s are well-formed UTF-8 (no overlong forms, no surrogates). */
bool text_utf8_valid(const char *s, size_t n);

/* The length of the longest prefix of the n bytes at s that is well-formed UTF-8 (n when all
 * of it is). */
size_t text_valid_prefix(const char *s, size_t n);

/* The length in bytes of the longest prefix of the n bytes at s that holds at most
 * max_chars characters and at most max_bytes bytes and ends where a character ends. 0 when
 * not even the first character fits. */
size_t text_prefix(const char *s, size_t n, size_t max_chars, size_t max_bytes);

/* The number of characters in the n bytes at s. */
size_t text_chars(const char *s, size_t n);

/* The number of characters before byte offset `at` of s (at most n). */
size_t text_chars_before(const char *s, size_t n, size_t at);

/* Copies the longest prefix of src that fits in out (cap bytes, cap > 0, with its NUL) and
 * holds at most max_chars characters (SIZE_MAX: any number), ending where a character ends.
 * Returns the bytes copied (out is always a string). */
size_t text_copy(char *out, size_t cap, const char *src, size_t max_chars);

/* How many columns the text takes in a monospaced layout: 2 for a wide character (CJK, most
 * emoji), 0 for a combining mark, else 1 (libunistring's u8_width). An estimate of width that
 * needs no font. */
size_t text_columns(const char *s, size_t n);

/* The first code point of the n bytes at s as *cp, and its length in bytes; 0 when s does not
 * start with a well-formed sequence (or n is 0). */
size_t text_next_code_point(const char *s, size_t n, unsigned *cp);

/* The character starts of the n bytes at s: p[i] (n flags) is 1 where a character starts,
 * else 0 (p[0] is 1). */
void text_char_starts(const char *s, size_t n, char *p);

/* Upper-cases the code point at s in place ("дракон" -> "Дракон", "the" -> "The") when its
 * capital takes as many bytes; true when it changed. */
bool text_upcase_first(char *s, size_t n);

/* Whether the n and m bytes at a and b are the same text ignoring case: Unicode full case
 * folding after canonical composition (libunistring's u8_casecmp with NFC), so "KROH" is
 * "kroh", "Дракон" is "дракон" and "Straße" is "STRASSE". Text that is not well-formed UTF-8 is
 * compared byte for byte. */
bool text_same_ignoring_case(const char *a, size_t n, const char *b, size_t m);

/* Whether the n bytes at p begin the m bytes at s ignoring case (both case-folded with NFC as
 * text_same_ignoring_case, then compared as bytes): "gob" begins "Goblin". An empty p begins
 * everything. */
bool text_begins_ignoring_case(const char *p, size_t n, const char *s, size_t m);

/* fmt's text in out (cap bytes, cap > 0), cut where a character ends when it does not fit
 * (messages quote names, and a JSON string must be whole UTF-8). */
void text_vformat(char *out, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void text_format(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
