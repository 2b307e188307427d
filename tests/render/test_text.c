/* text/: names are cut and counted by character (extended grapheme cluster), never by byte.
 * Every expectation below is what a reader sees as one character: a letter with its combining
 * marks, a family emoji joined by zero-width joiners, a flag (two regional indicators), an
 * emoji with its skin tone or variation selector, a CJK ideograph (UAX #29's examples). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "text/text.h"

#define E_ACUTE   "e\xcc\x81" /* e + COMBINING ACUTE ACCENT */
#define FAMILY    "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7"
#define FLAG_US   "\xf0\x9f\x87\xba\xf0\x9f\x87\xb8" /* U+1F1FA U+1F1F8 */
#define FLAG_FR   "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7"
#define WAVE_TONE "\xf0\x9f\x91\x8b\xf0\x9f\x8f\xbd" /* waving hand + medium skin tone */
#define SKULL_VS  "\xe2\x98\xa0\xef\xb8\x8f"         /* U+2620 + VARIATION SELECTOR-16 */

static size_t prefix(const char *s, size_t chars, size_t bytes)
{
    return text_prefix(s, strlen(s), chars, bytes);
}

Test(text, counts_characters_not_bytes)
{
    cr_assert_eq(text_chars("Дракон", strlen("Дракон")), 6);
    cr_assert_eq(text_chars("龍王の影", strlen("龍王の影")), 4);
    cr_assert_eq(text_chars(E_ACUTE "l" E_ACUTE "ve", strlen(E_ACUTE "l" E_ACUTE "ve")), 5);
    cr_assert_eq(text_chars(FAMILY, strlen(FAMILY)), 1);
    cr_assert_eq(text_chars(FLAG_US FLAG_FR, strlen(FLAG_US FLAG_FR)), 2);
    cr_assert_eq(text_chars(WAVE_TONE SKULL_VS "!", strlen(WAVE_TONE SKULL_VS "!")), 3);
    cr_assert_eq(text_chars("Orc \xe2\x98\xa0", strlen("Orc \xe2\x98\xa0")), 5);
    cr_assert_eq(text_chars("", 0), 0);
}

Test(text, a_prefix_of_n_characters_keeps_each_whole)
{
    cr_assert_eq(prefix("Дракон", 3, 100), strlen("Дра"));
    cr_assert_eq(prefix("龍王の影", 3, 100), strlen("龍王の"));
    cr_assert_eq(prefix(E_ACUTE "l" E_ACUTE "ve", 3, 100), strlen(E_ACUTE "l" E_ACUTE));
    cr_assert_eq(prefix(FAMILY "x", 1, 100), strlen(FAMILY));
    cr_assert_eq(prefix(FLAG_US FLAG_FR "x", 1, 100), strlen(FLAG_US));
    cr_assert_eq(prefix(WAVE_TONE SKULL_VS "!", 2, 100), strlen(WAVE_TONE SKULL_VS));
    cr_assert_eq(prefix("ab", 5, 100), 2);
    cr_assert_eq(prefix("abc", 0, 100), 0);
}

Test(text, a_byte_budget_ends_before_the_character_that_does_not_fit)
{
    /* "Дра" is 6 bytes: 5 bytes hold "Др" only. */
    cr_assert_eq(prefix("Дракон", 100, 5), 4);
    /* The family is 18 bytes: 17 hold nothing of it, not the man alone. */
    cr_assert_eq(prefix(FAMILY, 100, 17), 0);
    cr_assert_eq(prefix("a" FAMILY, 100, 17), 1);
    /* The combining mark belongs to the e: a budget that ends between them drops both. */
    cr_assert_eq(prefix("x" E_ACUTE, 100, 2), 1);
    cr_assert_eq(prefix("x" E_ACUTE, 100, 4), 4);
    /* The flag pair is 8 bytes: 7 or 4 bytes never split it. */
    cr_assert_eq(prefix(FLAG_US FLAG_FR, 100, 7), 0);
    cr_assert_eq(prefix(FLAG_US FLAG_FR, 100, 12), 8);
}

Test(text, every_cut_is_valid_utf8_and_on_a_boundary)
{
    static const char *const names[] = {"Дракон Лучник 3", "龍王の影", "Orc \xe2\x98\xa0",
                                        E_ACUTE "l" E_ACUTE "ve " FAMILY " " FLAG_US FLAG_FR,
                                        WAVE_TONE SKULL_VS "!"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *s = names[k];
        size_t n = strlen(s), total = text_chars(s, n);
        for (size_t b = 0; b <= n + 1; b++) {
            size_t cut = text_prefix(s, n, SIZE_MAX, b);
            cr_assert_leq(cut, b);
            cr_assert(text_utf8_valid(s, cut), "%s cut at %zu bytes: %zu", s, b, cut);
            /* On a boundary: the characters of the prefix and of the rest add up. */
            cr_assert_eq(text_chars(s, cut) + text_chars(s + cut, n - cut), total, "%s cut at %zu",
                         s, cut);
        }
    }
}

Test(text, copy_fits_the_buffer_and_ends_the_string)
{
    char out[8];
    cr_assert_eq(text_copy(out, sizeof out, "Дракон", SIZE_MAX), 6);
    cr_assert_str_eq(out, "Дра");
    cr_assert_eq(text_copy(out, sizeof out, "Дракон", 2), 4);
    cr_assert_str_eq(out, "Др");
    cr_assert_eq(text_copy(out, sizeof out, FAMILY, SIZE_MAX), 0);
    cr_assert_str_eq(out, "");
}

Test(text, columns_and_validity)
{
    cr_assert_eq(text_columns("Дракон", strlen("Дракон")), 6);
    cr_assert_eq(text_columns("龍王", strlen("龍王")), 4);
    cr_assert_eq(text_columns(E_ACUTE, strlen(E_ACUTE)), 1);
    cr_assert(text_utf8_valid("Дракон", strlen("Дракон")));
    cr_assert_not(text_utf8_valid("\xd0", 1));         /* cut mid-character */
    cr_assert_not(text_utf8_valid("\xc0\xaf", 2));     /* overlong */
    cr_assert_not(text_utf8_valid("\xed\xa0\x80", 3)); /* a surrogate */
    cr_assert_eq(text_chars_before("Дракон", strlen("Дракон"), 4), 2);
}

Test(text, a_sentence_may_open_with_a_capital_in_any_script)
{
    char a[] = "дракон", b[] = "the gnoll", c[] = "龍", d[] = "\xc4\xb1"; /* dotless i */
    cr_assert(text_upcase_first(a, strlen(a)));
    cr_assert_str_eq(a, "Дракон");
    cr_assert(text_upcase_first(b, strlen(b)));
    cr_assert_str_eq(b, "The gnoll");
    cr_assert_not(text_upcase_first(c, strlen(c)));
    cr_assert_not(text_upcase_first(d, strlen(d))); /* its capital I is one byte: kept */
}

/* Names as players type them (issue 31): any case, in any script, and the start of one. */
Test(text, names_match_ignoring_case_in_any_script)
{
#define SAME(a, b)   text_same_ignoring_case(a, strlen(a), b, strlen(b))
#define BEGINS(p, s) text_begins_ignoring_case(p, strlen(p), s, strlen(s))
    cr_assert(SAME("KROH", "kroh"));
    cr_assert(SAME("Дракон", "ДРАКОН"));
    cr_assert(SAME("Straße", "STRASSE"));
    cr_assert(SAME("\xc3\xa9", E_ACUTE), "composed and decomposed é are one text");
    cr_assert_not(SAME("kroh", "kro"));
    cr_assert(BEGINS("gob", "Goblin"));
    cr_assert(BEGINS("дра", "Дракон"));
    cr_assert(BEGINS("", "Goblin"));
    cr_assert_not(BEGINS("goblins", "Goblin"));
    cr_assert_not(BEGINS("gno", "the gnoll"));
    cr_assert(SAME("\xff", "\xff"), "not UTF-8: byte for byte");
    cr_assert_not(SAME("\xff", "\xfe"));
#undef SAME
#undef BEGINS
}
