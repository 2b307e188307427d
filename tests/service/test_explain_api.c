/* Every stateless answer told for a human (issue #18): `explain`, plain text with no markup,
 * and `explain_markdown` (Discord markdown: totals bold, dice Avrae style). One case of each
 * kind, with the exact sentence; the figures are the documents' (each case says which). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "tests/service/harness.h"

SERVER_TEST_SUITE(explain_api);

static void told(const char *path, const char *body, const char *plain, const char *markdown)
{
    json_t *doc = http_post_json(&srv, path, body, 200);
    const char *p = json_string_value(json_object_get(doc, "explain"));
    const char *m = json_string_value(json_object_get(doc, "explain_markdown"));
    cr_assert_not_null(p, "%s: no explain", path);
    cr_assert_not_null(m, "%s: no explain_markdown", path);
    cr_assert_str_eq(p, plain, "%s\n got: %s", path, p);
    cr_assert_null(strpbrk(p, "*~`"), "markup in the plain text: %s", p);
    if (markdown != NULL)
        cr_assert_str_eq(m, markdown, "%s\n got: %s", path, m);
    json_decref(doc);
}

/* Keep the highest 3 of 4d6 (4, 4, 6, 3): 14, + 2 = 16; the 3 is dropped, the 6 the top face. */
Test(explain_api, a_dice_roll)
{
    told("/v1/dice/roll", "{\"expression\":\"4d6kh3+2\",\"results\":[4,4,6,3]}",
         "Rolled 4d6kh3 (4, 4, 6, 3 not counted) + 2 = 16.",
         "Rolled 4d6kh3 (4, 4, **6**, ~~3~~) + 2 = **16**.");
}

/* 2d6: 6 of 36 totals are 7. */
Test(explain_api, dice_odds)
{
    told("/v1/dice/odds", "{\"expression\":\"2d6\"}",
         "2d6: 2 to 12, mean 7.00, sd 2.42; the likeliest total is 7 (16.7%).",
         "2d6: 2 to 12, mean **7.00**, sd 2.42; the likeliest total is **7** (16.7%).");
}

/* 000: every other diagonal counts double: 5 + 10 for two diagonals, 5 for the straight step. */
Test(explain_api, a_distance)
{
    told("/v1/geometry/distance", "{\"from\":{\"x\":0,\"y\":0},\"to\":{\"x\":3,\"y\":2}}",
         "The two are 20 ft apart (4 squares: 1 straight and 2 diagonal steps; 000 Hex Grid: the "
         "standard \"every other square counts double\" rule).",
         "The two are **20 ft** apart (4 squares: 1 straight and 2 diagonal steps; 000 Hex Grid: "
         "the standard \"every other square counts double\" rule).");
}

/* Names, not ids (issue 18): the creatures' names, when the request gives them, in the
 * sentence; the figures as above. */
Test(explain_api, names_in_distance_and_flanking)
{
    told("/v1/geometry/distance",
         "{\"from\":{\"x\":0,\"y\":0,\"name\":\"Kroh\"},\"to\":{\"x\":3,\"y\":2,"
         "\"name\":\"the gnoll\"}}",
         "Kroh and the gnoll are 20 ft apart (4 squares: 1 straight and 2 diagonal steps; 000 Hex "
         "Grid: the standard \"every other square counts double\" rule).",
         NULL);
    told("/v1/geometry/flanking",
         "{\"attacker\":{\"x\":5,\"y\":4,\"name\":\"Kroh\"},\"target\":{\"x\":5,\"y\":5,"
         "\"name\":\"The gnoll\"},\"allies\":[{\"x\":5,\"y\":6,\"name\":\"Mira\"}]}",
         "The gnoll is flanked by Mira (opposite sides): +2 on Kroh's melee attack (004 "
         "Flanking).",
         "The gnoll is flanked by Mira (opposite sides): **+2** on Kroh's melee attack (004 "
         "Flanking).");
}

/* 004 Flanking: an ally directly opposite, +2; none opposite, none. The old field stays. */
Test(explain_api, flanking_or_not)
{
    told("/v1/geometry/flanking",
         "{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},\"allies\":[{\"x\":5,"
         "\"y\":6}]}",
         "The target is flanked by ally 0 (opposite sides): +2 on the attacker's melee attack "
         "(004 Flanking).",
         "The target is flanked by ally 0 (opposite sides): **+2** on the attacker's melee attack "
         "(004 Flanking).");
    told("/v1/geometry/flanking",
         "{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},\"allies\":[{\"x\":6,"
         "\"y\":6}]}",
         "The target is not flanked: allies threaten the target, but none is opposite the "
         "attacker (004 Flanking).",
         NULL);
    json_t *doc = http_post_json(&srv, "/v1/geometry/flanking",
                                 "{\"attacker\":{\"x\":5,\"y\":4},\"target\":{\"x\":5,\"y\":5},"
                                 "\"allies\":[{\"x\":6,\"y\":6}]}",
                                 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explanation")),
                     "allies threaten the target, but none is opposite the attacker");
    json_decref(doc);
}

/* 000: a Medium creature has 3 front, 2 flank (1 each side) and 3 rear squares. */
Test(explain_api, facing_areas)
{
    told("/v1/geometry/areas",
         "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"creature\":{\"x\":5,\"y\":5,\"facing\":0},"
         "\"radius_ft\":5}",
         "Within 5 ft: 9 squares (1 self, 3 front, 2 flank, 3 rear), 9 threatened; 000 Combat "
         "Facing.",
         "Within 5 ft: **9** squares (1 self, 3 front, 2 flank, 3 rear), 9 threatened; 000 Combat "
         "Facing.");
}

/* 001 Falling: 1d6 per 10 feet, 3d6 for 30 feet, and prone; Collisions: 1d6 per 10 feet of
 * speed; Thrown or Dropped Objects: 2d6 for 20 feet plus Large's 5d6, dense +1 a die, and one
 * d20 per target (10 + 3 - 4 for the third range increment). */
Test(explain_api, falling_collisions_and_dropped_objects)
{
    told("/v1/falling", "{\"height_ft\":30,\"results\":[6,1,2]}",
         "A fall of 30 ft onto ground: 9 damage (3d6 (6, 1, 2) = 9); the faller lands prone (001 "
         "Falling: 1d6 points of damage per 10 feet fallen).",
         "A fall of 30 ft onto ground: **9** damage (3d6 (**6**, **1**, 2) = **9**); the faller "
         "lands prone (001 Falling: 1d6 points of damage per 10 feet fallen).");
    told("/v1/collisions", "{\"speed_ft\":20,\"motion\":\"run\",\"results\":[3,4]}",
         "A run collision at 20 ft: 7 damage (2d6 (3, 4) = 7) (001 Collisions: 1d6 of damage per "
         "ten feet of speed at the moment of the collision).",
         NULL);
    told("/v1/objects/dropped",
         "{\"size\":\"large\",\"distance_ft\":20,\"material\":\"dense\",\"attack_bonus\":3,"
         "\"range_ft\":45,\"range_penalty_per_increment\":2,\"targets\":[{\"touch_ac\":12},{"
         "\"touch_ac\":15,\"damage_reduction\":5}],\"results\":[1,1,1,1,1,1,1,10,12]}",
         "A large dense object dropped 20 ft: 14 damage (7d6{+1} (1, 1, 1, 1, 1, 1, 1) = 14); "
         "target 0: d20 10, total 9 vs touch AC 12, miss; target 1: d20 12, total 11 vs touch AC "
         "15, miss (001 Thrown or Dropped Objects: damage based on their size and the distance "
         "they have fallen (1d6 per 10 feet fallen, as for a character, plus the size table's "
         "dice)).",
         NULL);
}

/* 001 Overland Travel: speed 20 goes 2 miles an hour; 12 miles take 6 hours. */
Test(explain_api, travel)
{
    told("/v1/travel",
         "{\"legs\":[{\"miles\":12,\"terrain\":\"plains\",\"way\":\"highway\"}],\"party\":{"
         "\"members\":[{\"speed_ft\":30},{\"speed_ft\":20}]}}",
         "12.0 miles in 1 day of travel (6.0 hours on the move, 6.0 elapsed), at 2.00 miles an "
         "hour (001 Overland Travel: Table: Movement and Distance, Table: Terrain and Overland "
         "Movement, Hustle, Forced March).",
         "**12.0 miles** in 1 day of travel (6.0 hours on the move, 6.0 elapsed), at 2.00 miles "
         "an hour (001 Overland Travel: Table: Movement and Distance, Table: Terrain and Overland "
         "Movement, Hustle, Forced March).");
}

/* AC 10 + 4 armor; +5 needs 9; d20 12 + 5 = 17 hits; 1d6+1 = 3 + 1. Odds: 12 faces of 20 land;
 * 4.5 average, and 1 in 20 of the hits a confirmed critical (d20 3.5 SRD) doubles it: 4.7. */
Test(explain_api, attacks_modifiers_resolve_and_odds)
{
#define ATTACK(extra, tail)                                                                        \
    "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5" extra "},\"defender\":{\"x\":5,"           \
    "\"y\":5,\"defense\":{\"armor\":4}}" tail "}"
    const char *body = ATTACK(",\"damage\":\"1d6+1\"", ",\"results\":[12,3]");
    told("/v1/attacks/resolve", body,
         "Hit: 1d20 (12) + 5 = 17 against AC 14. 4 damage to the target.",
         "Hit: 1d20 (12) + 5 = **17** against AC 14. **4** damage to the target.");
    body = ATTACK("", "");
    told("/v1/attacks/modifiers", body, "Needs 9 on the d20: 1d20 + 5 against AC 14.",
         "Needs **9** on the d20: 1d20 + 5 against AC 14.");
    body = ATTACK(",\"damage\":\"1d6+1\"", "");
    told("/v1/attacks/odds", body,
         "Lands 60% of the time (needs 9 on the d20: 1d20 + 5 against AC 14) for 4.7 average "
         "damage.",
         "Lands **60%** of the time (needs 9 on the d20: 1d20 + 5 against AC 14) for 4.7 average "
         "damage.");
}

/* Issue 31: the three answer families write a d20 one way, Avrae's (rules_dice_text follows
 * avrae/d20's MarkdownStringifier): "1d20 (20) + 7 = 27", the natural 20 and the total bold in
 * markdown. A dice roll of 1d20+7, an attack at +7 against AC 14 (armor 4) and its odds: the
 * attack's roll reads as the dice roll's does. */
Test(explain_api, a_d20_is_written_one_way)
{
    told("/v1/dice/roll", "{\"expression\":\"1d20+7\",\"results\":[20]}",
         "Rolled 1d20 (20) + 7 = 27.", "Rolled 1d20 (**20**) + 7 = **27**.");
    told("/v1/attacks/resolve",
         "{\"rules\":{\"options\":{\"critical_hits\":false}},\"attacker\":{\"x\":5,\"y\":6,"
         "\"attack_bonus\":7},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4}},"
         "\"results\":[20]}",
         "Hit: 1d20 (20) + 7 = 27 against AC 14.",
         "Hit: 1d20 (**20**) + 7 = **27** against AC 14.");
    /* A natural 1 is bold too, as Avrae shows a die's lowest face. */
    told("/v1/attacks/resolve",
         "{\"rules\":{\"options\":{\"critical_hits\":false}},\"attacker\":{\"x\":5,\"y\":6,"
         "\"attack_bonus\":7},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4}},"
         "\"results\":[1]}",
         "Miss: 1d20 (1) + 7 = 8 against AC 14.", "Miss: 1d20 (**1**) + 7 = **8** against AC 14.");
    told("/v1/attacks/odds",
         "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":7},\"defender\":{\"x\":5,\"y\":5,"
         "\"defense\":{\"armor\":4}}}",
         "Lands 70% of the time (needs 7 on the d20: 1d20 + 7 against AC 14).",
         "Lands **70%** of the time (needs 7 on the d20: 1d20 + 7 against AC 14).");
}

/* GET /v1/rules/sources: each document by number, with its title and sections; and a cited
 * source gains its document's title (004 Flanking is 004, "d20 Combat Terms"). */
Test(explain_api, sources_are_listed_and_cited_with_their_titles)
{
    struct http_response r;
    http_request(&srv, "GET", "/v1/rules/sources", NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    http_response_free(&r);
    json_t *docs = json_object_get(doc, "documents");
    cr_assert_eq(json_array_size(docs), 5);
    const char *numbers[] = {"000", "001", "002", "003", "004"};
    for (size_t i = 0; i < 5; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(docs, i), "number")),
                         numbers[i]);
    json_t *d004 = json_array_get(docs, 4);
    cr_assert_str_eq(json_string_value(json_object_get(d004, "title")), "d20 Combat Terms");
    cr_assert_str_eq(json_string_value(json_object_get(d004, "file")), "004_53231e86bfe67d68.txt");
    json_t *sections = json_object_get(d004, "sections");
    bool flanking = false;
    for (size_t i = 0; i < json_array_size(sections); i++)
        flanking |= strcmp(json_string_value(json_array_get(sections, i)), "Flanking") == 0;
    cr_assert(flanking);
    json_decref(doc);
    doc = http_post_json(&srv, "/v1/attacks/modifiers",
                         "{\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5},\"defender\":{\"x\":5,"
                         "\"y\":5,\"defense\":{\"armor\":4}},\"allies\":[{\"x\":5,\"y\":6}]}",
                         200);
    json_t *mods = json_object_get(doc, "modifiers");
    bool cited = false;
    for (size_t i = 0; i < json_array_size(mods); i++) {
        json_t *m = json_array_get(mods, i);
        const char *src = json_string_value(json_object_get(m, "source"));
        if (strcmp(src, "004 Flanking") == 0) {
            cr_assert_str_eq(json_string_value(json_object_get(m, "source_title")),
                             "d20 Combat Terms");
            cited = true;
        }
        if (strcmp(src, "attacker") == 0)
            cr_assert_null(json_object_get(m, "source_title"));
    }
    cr_assert(cited);
    json_decref(doc);
}

/* A dice label and the creatures' names are the user's text: as written in explain, escaped in
 * explain_markdown (a backslash before each character Discord's markdown reads as markup), and
 * never read as the roll's own markup: the label's "~~" strikes nothing and its "**" bolds
 * nothing. 1d20 (12) + 5 = 17. */
static void told_user_text(const char *path, const char *body, const char *plain,
                           const char *markdown)
{
    json_t *doc = http_post_json(&srv, path, body, 200);
    const char *p = json_string_value(json_object_get(doc, "explain"));
    const char *m = json_string_value(json_object_get(doc, "explain_markdown"));
    cr_assert_str_eq(p, plain, "%s\n got: %s", path, p);
    cr_assert_str_eq(m, markdown, "%s\n got: %s", path, m);
    json_decref(doc);
}

Test(explain_api, a_dice_label_is_escaped_in_markdown)
{
    told_user_text("/v1/dice/roll",
                   "{\"expression\":\"1d20+5[*_evil|| ~~x~~_* **y** `z`]\",\"results\":[12]}",
                   "Rolled 1d20 (12) + 5 [*_evil|| ~~x~~_* **y** `z`] = 17.",
                   "Rolled 1d20 (12) + 5 \\[\\*\\_evil\\|\\| \\~\\~x\\~\\~\\_\\* \\*\\*y\\*\\* "
                   "\\`z\\`\\] = **17**.");
}

Test(explain_api, a_dice_expression_is_escaped_in_the_odds_markdown)
{
    /* 1d4: 1 to 4, each 1 in 4 (the first of equals is the likeliest), mean 2.5, sd 1.118. */
    told_user_text("/v1/dice/odds", "{\"expression\":\"1d4[*fire* `x` @everyone]\"}",
                   "1d4[*fire* `x` @everyone]: 1 to 4, mean 2.50, sd 1.12; the likeliest total "
                   "is 1 (25.0%).",
                   "1d4\\[\\*fire\\* \\`x\\` \\@everyone\\]: 1 to 4, mean **2.50**, sd 1.12; the "
                   "likeliest total is **1** (25.0%).");
}

/* The figures as in names_in_distance_and_flanking. */
Test(explain_api, names_are_escaped_in_distance_and_flanking_markdown)
{
    told_user_text("/v1/geometry/distance",
                   "{\"from\":{\"x\":0,\"y\":0,\"name\":\"# Kroh\"},\"to\":{\"x\":3,\"y\":2,"
                   "\"name\":\"[x](http://e)\"}}",
                   "# Kroh and [x](http://e) are 20 ft apart (4 squares: 1 straight and 2 "
                   "diagonal steps; 000 Hex Grid: the standard \"every other square counts "
                   "double\" rule).",
                   "\\# Kroh and \\[x\\]\\(http\\://e\\) are **20 ft** apart (4 squares: 1 "
                   "straight and 2 diagonal steps; 000 Hex Grid: the standard \"every other square "
                   "counts double\" rule).");
    told_user_text("/v1/geometry/flanking",
                   "{\"attacker\":{\"x\":5,\"y\":4,\"name\":\"<@1>\"},\"target\":{\"x\":5,"
                   "\"y\":5,\"name\":\"- gnoll\"},\"allies\":[{\"x\":5,\"y\":6,\"name\":"
                   "\"||Mira||\"}]}",
                   "- gnoll is flanked by ||Mira|| (opposite sides): +2 on <@1>'s melee attack "
                   "(004 Flanking).",
                   "\\- gnoll is flanked by \\|\\|Mira\\|\\| (opposite sides): **+2** on "
                   "\\<\\@1\\>'s melee attack (004 Flanking).");
}
