/* service/http/auth.c: the SHA-256 every stored token, request hash and dice seed goes through
 * (a change of hash would lock every existing encounter's owner out), its constant-time
 * comparison, and the bearer header's reading. */
#include <criterion/criterion.h>
#include <string.h>

#include "service/http/auth.h"

static void hex_of(const char *text, size_t len, char out[2 * AUTH_HASH_LEN + 1])
{
    unsigned char h[AUTH_HASH_LEN];
    auth_sha256(text, len, h);
    auth_hex(h, sizeof h, out);
}

/* FIPS 180-4's examples (one block, two blocks, a million 'a's) and the empty message; and
 * messages of 55, 56 and 64 bytes, where the padding's length field first spills into a second
 * block and where a block is whole (sha256sum's values). */
Test(auth, sha256_gives_the_standard_digests)
{
    char hex[2 * AUTH_HASH_LEN + 1];
    hex_of("abc", 3, hex);
    cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two, strlen(two), hex);
    cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    hex_of("", 0, hex);
    cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char a55[57];
    memset(a55, 'a', 56);
    a55[56] = '\0';
    hex_of(a55, 55, hex);
    cr_assert_str_eq(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    hex_of(a55, 56, hex);
    cr_assert_str_eq(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    /* one whole block, then FIPS 180-4's long message: a million 'a's */
    static char many[1000000];
    memset(many, 'a', sizeof many);
    hex_of(many, 64, hex);
    cr_assert_str_eq(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    hex_of(many, sizeof many, hex);
    cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(auth, equal_compares_every_byte)
{
    unsigned char a[AUTH_HASH_LEN], b[AUTH_HASH_LEN];
    memset(a, 7, sizeof a);
    memcpy(b, a, sizeof b);
    cr_assert(auth_equal(a, b, sizeof a));
    for (size_t i = 0; i < sizeof a; i++) {
        b[i] ^= 1;
        cr_assert_not(auth_equal(a, b, sizeof a), "a difference at byte %zu", i);
        b[i] ^= 1;
    }
}

Test(auth, bearer_takes_the_token_after_the_scheme)
{
    size_t n = 0;
    const char *t = auth_bearer("bearer   abc.DEF_~-9", &n);
    cr_assert_not_null(t);
    cr_assert_eq(n, 11);
    cr_assert_eq(strncmp(t, "abc.DEF_~-9", n), 0);
    cr_assert_null(auth_bearer("Basic abc", &n));
    cr_assert_null(auth_bearer("Bearer ", &n));
    cr_assert_null(auth_bearer("Bearer a b", &n));
}
