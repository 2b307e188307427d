/* render/fonts.c: every character is drawn in the first font fontconfig offers that has it,
 * and one no font has is drawn as U+FFFD, never dropped nor left to DejaVu's empty .notdef.
 * (The fonts are scripts/install-deps.sh's: DejaVu Sans, WenQuanYi Micro Hei, Noto Color
 * Emoji.) */
#include <criterion/criterion.h>
#include <string.h>

#include "render/render_internal.h"

__attribute__((destructor)) static void release_caches(void)
{
    render_release_caches();
}

struct runs {
    char text[8][64];
    cairo_font_face_t *face[8];
    int n;
};

static void collect(void *ud, const char *s, size_t n, cairo_font_face_t *face)
{
    struct runs *r = ud;
    cr_assert_lt(r->n, 8);
    cr_assert_lt(n, sizeof r->text[0]);
    memcpy(r->text[r->n], s, n);
    r->text[r->n][n] = '\0';
    r->face[r->n++] = face;
}

Test(fonts, each_script_is_drawn_in_a_font_that_has_it)
{
    struct runs r = {0};
    render_text_runs("Дра龍王x", false, collect, &r);
    cr_assert_eq(r.n, 3);
    cr_assert_str_eq(r.text[0], "Дра");
    cr_assert_str_eq(r.text[1], "龍王");
    cr_assert_str_eq(r.text[2], "x");
    cr_assert_neq(r.face[1], r.face[0], "CJK comes from another font than DejaVu Sans");
    cr_assert_eq(r.face[2], r.face[0]);
}

Test(fonts, a_character_no_font_has_is_drawn_as_a_replacement)
{
    struct runs r = {0};
    /* U+0378 is unassigned: no font has it. A malformed byte is replaced too; a control
     * character is not drawn. */
    render_text_runs("a\xcd\xb8"
                     "b\x01\xff",
                     true, collect, &r);
    cr_assert_eq(r.n, 4);
    cr_assert_str_eq(r.text[0], "a");
    cr_assert_str_eq(r.text[1], "\xef\xbf\xbd");
    cr_assert_str_eq(r.text[2], "b");
    cr_assert_str_eq(r.text[3], "\xef\xbf\xbd");
}

Test(fonts, an_emoji_sequence_stays_in_one_font)
{
    struct runs r = {0};
    render_text_runs("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7!",
                     false, collect, &r);
    cr_assert_eq(r.n, 2);
    cr_assert_str_eq(r.text[0],
                     "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7");
    cr_assert_neq(r.face[0], r.face[1]);
}
