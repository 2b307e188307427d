/* Tokens and ids for encounters: random from the kernel (getrandom), tokens stored only as
 * their SHA-256 (libsodium's), compared in constant time (sodium_memcmp). */
#ifndef TACTICS_SVC_AUTH_H
#define TACTICS_SVC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_HASH_LEN  32
#define AUTH_TOKEN_LEN 64 /* hex characters of 32 random bytes */
#define AUTH_ID_LEN    32 /* hex characters of 16 random bytes */

void auth_sha256(const void *data, size_t len, unsigned char out[AUTH_HASH_LEN]);

/* Fills buf with random bytes; false when the kernel gives none. */
bool auth_random(void *buf, size_t len);

/* Writes len bytes as lowercase hex plus a NUL into out (2 * len + 1). */
void auth_hex(const unsigned char *bytes, size_t len, char *out);

/* A new token (AUTH_TOKEN_LEN + 1) or id (AUTH_ID_LEN + 1). */
bool auth_new_token(char out[AUTH_TOKEN_LEN + 1]);
bool auth_new_id(char out[AUTH_ID_LEN + 1]);

/* The token of an "Authorization: Bearer <token>" header, or NULL. A token is 1 to 128
 * characters of A-Za-z0-9._~-. */
const char *auth_bearer(const char *header, size_t *len);

/* Equal in time independent of where they differ. */
/* An estimate of the bits a client-chosen token of n characters can hold: n times the bits of
 * the smallest usual alphabet its characters come from (digits, hex, one-case alphanumerics,
 * alphanumerics, or all of A-Za-z0-9._~-); 0 when one character makes up over half of it. */
int auth_token_bits(const char *t, size_t n);

bool auth_equal(const unsigned char *a, const unsigned char *b, size_t len);

#endif
