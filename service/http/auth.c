#include "service/http/auth.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    assert(n > 0 && n < 32); /* a shift by 32 is undefined */
    return x >> n | x << (32 - n);
}

static void block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ w[i - 15] >> 3;
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ w[i - 2] >> 10;
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void auth_sha256(const void *data, size_t len, unsigned char out[AUTH_HASH_LEN])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t left = len;
    for (; left >= 64; p += 64, left -= 64)
        block(h, p);
    unsigned char tail[128] = {0};
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t n = left < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (size_t i = 0; i < 8; i++)
        tail[n - 1 - i] = (unsigned char)(bits >> (8 * i));
    block(h, tail);
    if (n == 128)
        block(h, tail + 64);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

bool auth_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n <= 0)
            return false;
        p += n, len -= (size_t)n;
    }
    return true;
}

void auth_hex(const unsigned char *bytes, size_t len, char *out)
{
    assert(out != NULL && (bytes != NULL || len == 0));
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++)
        out[2 * i] = digits[bytes[i] >> 4], out[2 * i + 1] = digits[bytes[i] & 15];
    out[2 * len] = '\0';
}

/* len hex digits (even, at most 64) of fresh random bytes into out. */
static bool random_hex(char *out, size_t len)
{
    unsigned char b[32];
    assert(len % 2 == 0 && len / 2 <= sizeof b);
    if (!auth_random(b, len / 2))
        return false;
    auth_hex(b, len / 2, out);
    return true;
}

bool auth_new_token(char out[AUTH_TOKEN_LEN + 1])
{
    return random_hex(out, AUTH_TOKEN_LEN);
}

bool auth_new_id(char out[AUTH_ID_LEN + 1])
{
    return random_hex(out, AUTH_ID_LEN);
}

const char *auth_bearer(const char *header, size_t *len)
{
    /* The scheme name is case-insensitive (RFC 9110 section 11.1), and one or more spaces
     * separate it from the credentials (section 11.4: 1*SP). */
    if (header == NULL || strncasecmp(header, "Bearer ", 7) != 0)
        return NULL;
    const char *t = header + 7;
    while (*t == ' ')
        t++;
    size_t n = strlen(t);
    if (n < 1 || n > 128) /* strength is checked where a token is chosen (auth_token_bits) */
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '~' || c == '-';
        if (!ok)
            return NULL;
    }
    *len = n;
    return t;
}

bool auth_equal(const unsigned char *a, const unsigned char *b, size_t len)
{
    volatile unsigned char d = 0;
    for (size_t i = 0; i < len; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

int auth_token_bits(const char *t, size_t n)
{
    /* The smallest usual alphabet holding every character, in bits per character (x100):
     * digits, hex (either case), one-case alphanumerics, alphanumerics, all 66 allowed. */
    bool digit = true, lower_hex = true, upper_hex = true, lower = true, upper = true, alnum = true;
    int count[256] = {0}, most = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        bool d = c >= '0' && c <= '9', l = c >= 'a' && c <= 'z', u = c >= 'A' && c <= 'Z';
        digit &= d;
        lower_hex &= d || (c >= 'a' && c <= 'f');
        upper_hex &= d || (c >= 'A' && c <= 'F');
        lower &= d || l;
        upper &= d || u;
        alnum &= d || l || u;
        if (++count[c] > most)
            most = count[c];
    }
    /* A token that is mostly one character was not drawn at random. */
    if (n == 0 || (size_t)most * 2 > n)
        return 0;
    int centibits = digit                    ? 332
                    : lower_hex || upper_hex ? 400
                    : lower || upper         ? 516
                    : alnum                  ? 595
                                             : 604;
    return (int)((size_t)centibits * n / 100);
}
