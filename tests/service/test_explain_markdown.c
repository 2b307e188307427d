/* svc_write_explains: a plain sentence and its Discord markdown (issue 18), for the answers
 * whose sentence is written as plain text (the movement endpoints). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "service/explain/explain.h"
#include "service/json/writer.h"

static json_t *written(const char *plain)
{
    struct jw w;
    jw_init(&w, 256);
    jw_object_begin(&w);
    svc_write_explains(&w, plain);
    jw_object_end(&w);
    size_t len = 0;
    char *text = jw_finish(&w, &len);
    json_t *doc = json_loadb(text, len, 0, NULL);
    free(text);
    cr_assert_not_null(doc);
    return doc;
}

static void told(const char *plain, const char *markdown)
{
    json_t *doc = written(plain);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")), plain);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain_markdown")), markdown);
    json_decref(doc);
}

Test(explain_markdown, figures_in_bold_and_markdown_escaped)
{
    told("Legal: 15 ft, provokes nothing.", "**Legal**: **15 ft**, provokes nothing.");
    told("Illegal at step 2: no speed (001 Walk).",
         "**Illegal** at step **2**: no speed (**001** Walk).");
    told("Odds: 55% to be hit, 1.8 damage expected.",
         "Odds: **55%** to be hit, **1.8** damage expected.");
    /* Dice stay whole; a figure inside a word (x2, v3) is no figure; markdown's own characters
     * are escaped, so an id like cover_creature is shown as written. */
    told("2d6 from ogre_2 at x2 (a*b).", "**2d6** from ogre\\_2 at x2 (a\\*b).");
    told("the goblin is at -3 hp.", "the goblin is at **-3** hp.");
    told("", "");
}

/* User text escaped for Discord markdown: a backslash before each character its markdown reads
 * as markup (Discord's parser takes "\" before any punctuation as that character, so the text
 * shows as written), and before a list marker that opens a line. */
static void escaped(const char *text, const char *markdown)
{
    char out[256];
    size_t n = svc_md_escape(text, out, sizeof out);
    cr_assert_str_eq(out, markdown, "%s\n got: %s", text, out);
    cr_assert_eq(n, strlen(markdown));
}

Test(explain_markdown, user_text_escapes_every_markup_character)
{
    /* Bold, italics, underline, strikethrough and spoilers. */
    escaped("*_evil|| ~~x~~_*", "\\*\\_evil\\|\\| \\~\\~x\\~\\~\\_\\*");
    /* Inline code, a masked link, the escape itself. */
    escaped("`code` [x](http://e) a\\b", "\\`code\\` \\[x\\]\\(http\\://e\\) a\\\\b");
    /* Mentions and the like. */
    escaped("@everyone <@123>", "\\@everyone \\<\\@123\\>");
    /* Quotes, headings and lists at a line's start; the same characters inside a line, other
     * than > and #, are no markup. */
    escaped("> hi", "\\> hi");
    escaped("# Big", "\\# Big");
    escaped("- item", "\\- item");
    escaped("  + item", "  \\+ item");
    escaped("12. item", "12\\. item");
    escaped("half-orc 1.5 x-2", "half-orc 1.5 x-2");
    escaped("a\n- b\n3. c", "a\n\\- b\n3\\. c");
    /* Plain words are left as they are. */
    escaped("Kroh the gnoll's bane", "Kroh the gnoll's bane");
    escaped("", "");
}

Test(explain_markdown, an_escape_is_never_cut_from_its_character)
{
    char out[3];
    cr_assert_eq(svc_md_escape("a*b", out, sizeof out), 1);
    cr_assert_str_eq(out, "a");
    cr_assert_eq(svc_md_escape("ab*", out, sizeof out), 2);
    cr_assert_str_eq(out, "ab");
}
