/* svc_write_explains: a plain sentence and its Discord markdown (issue 18), for the answers
 * whose sentence is written as plain text (the movement endpoints). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>

#include "jsonw.h"
#include "svc.h"

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
