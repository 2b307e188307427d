/* Sixteen bytes of a JSON string tested at once (SSE2, which every x86-64 has), for the writer's
 * copy of a string: 8 at a time, its test was the largest part of writing the answer of POST
 * /v1/attacks/resolve. Its test of 8 bytes is SSE2's too (half the instructions of the bit tricks).
 * Elsewhere JSON_SCAN16 is 0 and the writer keeps its 8-byte bit tricks, which give the same
 * answers. (The reader's scan of a string is not done this way: the names and
 * values of a request are mostly a few bytes, and it measured slower.) */
#ifndef TACTICS_SVC_JSON_SCAN16_H
#define TACTICS_SVC_JSON_SCAN16_H

#if defined(__SSE2__)
#include <emmintrin.h>
#include <stdbool.h>
#include <stdint.h>
#define JSON_SCAN16 1

/* A bit for each byte of x JSON must escape (bit i for byte i): a control character, the quote
 * or the backslash (bytes from 0x80 up are UTF-8, written as they are). */
static inline unsigned json_escape_bits16(__m128i x)
{
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x); /* x <= 0x1f */
    __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash)));
}

/* json_escape_bits16 of s[0..16). */
static inline unsigned json_escape_stops16(const char *s)
{
    return json_escape_bits16(_mm_loadu_si128((const __m128i *)(const void *)s));
}

/* Whether none of the 8 bytes of x needs an escape. */
static inline bool json_plain8(uint64_t x)
{
    return (json_escape_bits16(_mm_cvtsi64_si128((long long)x)) & 0xffu) == 0;
}
#else
#define JSON_SCAN16 0
#endif

#endif
