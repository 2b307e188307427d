#include "service/http/auth.h"

#include <assert.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

/* libsodium's SHA-256 (crypto_hash_sha256, FIPS 180-4), which Discord's signatures already bring
 * in: it replaced one written here when the service had no library that offered one. Its hash
 * needs no set-up, but libsodium asks for sodium_init() before any of its functions; once per
 * process, and pthread_once costs a load after the first call. */
static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static void sodium_start(void)
{
    /* -1 only when /dev/urandom cannot be opened, which hashing and sodium_memcmp never use */
    if (sodium_init() < 0)
        return;
}

void auth_sha256(const void *data, size_t len, unsigned char out[AUTH_HASH_LEN])
{
    static_assert(AUTH_HASH_LEN == crypto_hash_sha256_BYTES, "a SHA-256 is 32 bytes");
    pthread_once(&sodium_once, sodium_start);
    crypto_hash_sha256(out, data, len);
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
    return sodium_memcmp(a, b, len) == 0; /* in time independent of where they differ */
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
