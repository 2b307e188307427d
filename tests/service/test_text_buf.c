/* text_buf (text/buf.h): the growing text the summary and the metrics are written in. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/buf.h"
#include "text/decimal.h"

Test(text_buf, grows_and_stays_terminated)
{
    struct text_buf b = {0};
    for (int i = 0; i < 1000; i++)
        text_buf_put(&b, "abcdefgh", 8);
    cr_assert(!b.failed);
    cr_assert_eq(b.n, 8000);
    cr_assert_eq(strlen(b.s), 8000);
    cr_assert_eq(memcmp(b.s + 7992, "abcdefgh", 8), 0);
    free(b.s);
}

Test(text_buf, printf_of_any_length)
{
    char word[1001];
    memset(word, 'w', 1000);
    word[1000] = '\0';
    struct text_buf b = {0};
    text_buf_printf(&b, "%d:", 42);
    text_buf_printf(&b, "<%s>", word); /* past the short path's 256 bytes */
    text_buf_printf(&b, "%s", "!");
    cr_assert(!b.failed);
    cr_assert_eq(b.n, 3 + 1002 + 1);
    cr_assert_eq(strncmp(b.s, "42:<www", 7), 0);
    cr_assert_str_eq(b.s + b.n - 3, "w>!");
    free(b.s);
}

Test(text_buf, a_length_that_would_wrap_fails_and_stops_it)
{
    struct text_buf b = {0};
    text_buf_put(&b, "ok", 2);
    text_buf_put(&b, "x", SIZE_MAX - 1);
    cr_assert(b.failed);
    text_buf_printf(&b, "%s", "more");
    cr_assert_eq(b.n, 2, "nothing appended after a failure");
    cr_assert_str_eq(b.s, "ok");
    free(b.s);
}

/* text_decimal writes what printf's "%lld" and "%+lld" write, to the ends of the range. */
Test(text_decimal, as_printf_writes_it)
{
    const long long vs[] = {0, 7, -7, 10, 1234567890123LL, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        for (int plus = 0; plus < 2; plus++) {
            char num[TEXT_DECIMAL_MAX], want[32];
            snprintf(want, sizeof want, plus ? "%+lld" : "%lld", vs[i]);
            size_t n;
            const char *p = text_decimal(num, vs[i], plus, &n);
            cr_assert_eq(n, strlen(want));
            cr_assert_eq(memcmp(p, want, n), 0, "%lld: %.*s, not %s", vs[i], (int)n, p, want);
        }
    }
}
