/* POST /v1/attacks/modifiers and /v1/attacks/resolve against the real server. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

#define JSON_CT "Content-Type: application/json\r\n"

SERVER_TEST_SUITE(attack_api);

static json_t *post(const char *path, const char *body, int status)
{
    return http_post_json(&srv, path, body, status);
}

/* Rogue B behind the gnoll (000): +4, sneak attack; the d20, then 1d6+1 and 2d6. */
#define ROGUE_B                                                                                    \
    "{\"rules\":{\"preset\":\"d20-3.5-facing\"},"                                                  \
    "\"attacker\":{\"x\":5,\"y\":6,\"facing\":0,\"attack_bonus\":5,\"sneak_attack_dice\":2,"       \
    "\"damage\":\"1d6+1\"},"                                                                       \
    "\"defender\":{\"x\":5,\"y\":5,\"facing\":0,\"defense\":{\"armor\":4,\"dex\":2},"              \
    "\"damage_reduction\":2}"

Test(attack_api, resolve_rolls_hit_and_sneak_attack_damage)
{
    json_t *doc = post("/v1/attacks/resolve", ROGUE_B ",\"results\":[12,3,4,5]}", 200);
    cr_assert_eq(tb_num(doc, "attack_total"), 9);
    cr_assert_eq(tb_num(doc, "target_number"), 16);
    cr_assert_eq(tb_num(doc, "roll_total"), 21);
    cr_assert(json_is_true(json_object_get(doc, "hit")));
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert_eq(tb_num(dmg, "total"), 3 + 1 + 4 + 5);
    cr_assert_eq(tb_num(dmg, "dealt"), 13 - 2);
    cr_assert(json_is_true(json_object_get(json_object_get(doc, "sneak_attack"), "eligible")));
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "Hit"));
    json_decref(doc);
    doc = post("/v1/attacks/resolve", ROGUE_B ",\"results\":[6]}", 200); /* 15 < 16: miss */
    cr_assert(json_is_false(json_object_get(doc, "hit")));
    cr_assert(json_is_null(json_object_get(doc, "damage")));
    json_decref(doc);
}

Test(attack_api, same_seed_same_bytes)
{
    const char *body = ROGUE_B ",\"seed\":31337}";
    tb_same_answer_twice(&srv, "/v1/attacks/resolve", body);
}

Test(attack_api, modifiers_itemise_with_sources_and_roll_nothing)
{
    json_t *doc = post("/v1/attacks/modifiers", ROGUE_B "}", 200);
    json_t *mods = json_object_get(doc, "modifiers");
    bool found = false;
    size_t i;
    json_t *m;
    json_array_foreach(mods, i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "source")), "000 Opponent Facing") == 0)
            found = tb_num(m, "value") == 4;
    }
    cr_assert(found, "the +4 from the rear is itemised with its source");
    cr_assert_null(json_object_get(doc, "d20"));
    json_decref(doc);
    doc = post("/v1/attacks/modifiers", ROGUE_B ",\"seed\":1}", 422);
    json_decref(doc);
}

/* 002: concealment is rolled after a hit; the highest applies. */
Test(attack_api, concealment_can_turn_a_hit_into_a_miss)
{
    json_t *doc = post("/v1/attacks/resolve",
                       "{\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5},"
                       "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":2}},"
                       "\"concealment\":[\"quarter\",\"half\"],\"results\":[15,20]}",
                       200);
    json_t *c = json_object_get(doc, "concealment");
    cr_assert_eq(tb_num(c, "miss_chance"), 20);
    cr_assert_str_eq(json_string_value(json_object_get(c, "used")), "half");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(c, "dropped"), 0)),
                     "quarter");
    cr_assert(json_is_true(json_object_get(c, "missed")));
    cr_assert(json_is_false(json_object_get(doc, "hit")));
    json_decref(doc);
}

/* 002 Striking the Cover: a miss that would have hit without cover strikes the cover; a
 * covering creature takes it if the roll beats its Defense, unless its Dex or dodge kept it
 * from being hit, in which case the target is hit after all. */
Test(attack_api, striking_a_covering_creature)
{
    const char *base = "{\"attacker\":{\"x\":5,\"y\":2,\"attack\":\"ranged\",\"attack_bonus\":0,"
                       "\"damage\":\"1d8\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{}},"
                       "\"cover\":\"half\",\"cover_creature\":{\"ac\":12,\"dex_and_dodge\":2}";
    char body[512];
    snprintf(body, sizeof body, "%s,\"results\":[13,5]}", base); /* 13: < 14, >= 10, >= 12 */
    json_t *doc = post("/v1/attacks/resolve", body, 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "struck")), "cover_creature");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "damage"), "to")),
                     "cover_creature");
    json_decref(doc);
    snprintf(body, sizeof body, "%s,\"results\":[11,5]}", base); /* dodged: the target is hit */
    doc = post("/v1/attacks/resolve", body, 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "struck")), "defender");
    cr_assert(json_is_true(json_object_get(doc, "hit")));
    json_decref(doc);
}

Test(attack_api, contradictions_are_422_naming_the_field)
{
    static const struct tb_refusal cases[] = {
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":101},\"defender\":{\"x\":1,\"y\":0,"
         "\"defense\":{}}}",
         "/attacker/attack_bonus"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0,"
         "\"defense\":{}},\"cover\":\"total\"}",
         "/cover"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0,"
         "\"faceless\":true,\"facing\":2,\"defense\":{}}}",
         "/defender/facing"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0,"
         "\"defense\":{\"armor\":4,\"size\":0,\"total\":15}}}",
         "/defender/defense/total"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0,"
         "\"defense\":{},\"conditions\":[\"sleepy\"]}}",
         "/defender/conditions/0"},
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":0,\"y\":0,\"facing\":2,"
         "\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0,\"defense\":{}}}",
         "/defender/facing"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1,\"features\":[\"mounted_combat\"]},"
         "\"defender\":{\"x\":1,\"y\":0,\"defense\":{}}}",
         "/attacker/steed"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1,\"damage\":\"2d0\"},"
         "\"defender\":{\"x\":1,\"y\":0,\"defense\":{}}}",
         "/attacker/damage"},
        {"{\"attacker\":{\"x\":0,\"y\":0,\"attack_bonus\":1},\"defender\":{\"x\":1,\"y\":0}}",
         "/defender/defense"},
        {"{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":5,"
         "\"facing\":0,\"attack\":\"spell\",\"attack_bonus\":1},\"defender\":{\"x\":5,"
         "\"y\":7,\"facing\":0,\"defense\":{}}}",
         "/defender"},
    };
    TB_EACH_REFUSED(&srv, "/v1/attacks/resolve", cases);
}

/* 002 Table: Cover: nine-tenths is "+10 | +4 1", footnote 1: "Half damage if save is failed;
 * no damage if successful." The answer reports it on the cover and on its modifier row. */
Test(attack_api, nine_tenths_cover_reports_its_reflex_footnote)
{
    const char *body = "{\"attacker\":{\"x\":5,\"y\":2,\"attack\":\"ranged\",\"attack_bonus\":0},"
                       "\"defender\":{\"x\":5,\"y\":5,\"defense\":{}},\"cover\":\"nine_tenths\"}";
    json_t *doc = post("/v1/attacks/modifiers", body, 200);
    json_t *cover = json_object_get(doc, "cover");
    cr_assert_eq(tb_num(cover, "bonus"), 10);
    cr_assert_eq(tb_num(cover, "reflex_bonus"), 4);
    cr_assert_str_eq(json_string_value(json_object_get(cover, "reflex_footnote")),
                     "Half damage if save is failed; no damage if successful.");
    cr_assert_str_eq(json_string_value(json_object_get(cover, "reflex_footnote_source")),
                     "002 Table: Cover, footnote 1");
    bool row = false;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "modifiers"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "source")),
                   "002 Table: Cover, footnote 1") == 0)
            row = tb_num(m, "value") == 10 &&
                  strstr(json_string_value(json_object_get(m, "reason")), "half damage") != NULL;
    }
    cr_assert(row, "the +10 row carries the footnote");
    json_decref(doc);
    /* Other degrees have no footnote. */
    doc = post("/v1/attacks/modifiers",
               "{\"attacker\":{\"x\":5,\"y\":2,\"attack\":\"ranged\",\"attack_bonus\":0},"
               "\"defender\":{\"x\":5,\"y\":5,\"defense\":{}},\"cover\":\"three_quarters\"}",
               200);
    cr_assert_null(json_object_get(json_object_get(doc, "cover"), "reflex_footnote"));
    json_decref(doc);
}

/* A fighter at +5 with a 19-20 x2 longsword-like attack against AC 16; the rules object comes
 * before it. */
#define CRIT_ATTACK(rules)                                                                         \
    "{\"rules\":" rules ",\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5,\"damage\":\"1d8+2\","  \
    "\"crit_range\":19,\"crit_multiplier\":2},"                                                    \
    "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4,\"dex\":2},\"damage_reduction\":3}"

static json_t *roll_rule_sources(json_t *doc)
{
    json_t *list = json_object_get(doc, "roll_rules");
    cr_assert(json_is_array(list));
    return list;
}

/* d20 3.5 SRD, Combat: Critical Hits: a 19 in the threat range 19-20 that hits is a threat;
 * "another attack roll with all the same modifiers" confirms it (12 + 5 = 17 >= 16); the
 * damage is rolled twice "with all your usual bonuses" (5+2 and 6+2), and damage reduction
 * comes off the total. The confirmation d20 is drawn right after the d20. */
Test(attack_api, critical_hit_confirmed_rolls_damage_twice)
{
    json_t *doc = post("/v1/attacks/resolve",
                       CRIT_ATTACK("{\"preset\":\"d20-3.5\"}") ",\"results\":[19,12,5,6]}", 200);
    cr_assert(json_is_true(json_object_get(doc, "critical")));
    json_t *c = json_object_get(doc, "critical_hit");
    tb_confirmed_critical(c, 19, 2, 12);
    cr_assert_eq(tb_num(json_object_get(c, "confirmation"), "total"), 17);
    cr_assert_str_eq(json_string_value(json_object_get(c, "source")),
                     "d20 3.5 SRD, Combat: Critical Hits");
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert_eq(tb_num(dmg, "total"), 15);
    cr_assert_eq(tb_num(dmg, "weapon_rolls"), 2);
    cr_assert_eq(tb_num(dmg, "dealt"), 12);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(dmg, "roll"), "expression")),
                     "1d8+2+1d8+2");
    cr_assert(json_array_size(roll_rule_sources(doc)) >= 2);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "explain")), "critical hit"));
    json_decref(doc);

    /* Not confirmed (2 + 5 = 7 < 16): a normal hit, the damage rolled once. */
    doc = post("/v1/attacks/resolve",
               CRIT_ATTACK("{\"preset\":\"d20-3.5\"}") ",\"results\":[19,2,5]}", 200);
    cr_assert(json_is_false(json_object_get(doc, "critical")));
    cr_assert(json_is_false(json_object_get(json_object_get(doc, "critical_hit"), "confirmed")));
    cr_assert_eq(tb_num(json_object_get(doc, "damage"), "total"), 7);
    json_decref(doc);

    /* A threat needs its confirmation die: the problem says which die is missing. */
    doc = post("/v1/attacks/resolve", CRIT_ATTACK("{\"preset\":\"d20-3.5\"}") ",\"results\":[19]}",
               422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "confirmation"));
    json_decref(doc);
}

/* d20 3.5 SRD, Combat: Automatic Misses and Hits: "A natural 20 ... is always a hit"; with the
 * option off the same 20 against AC 60 misses. And sneak attack d6s are rolled once on a
 * critical hit (Critical Hits, Exception). */
Test(attack_api, natural_20_and_sneak_dice_not_multiplied)
{
    const char *on = "{\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5,\"damage\":\"1d6+1\","
                     "\"sneak_attack_dice\":2},\"defender\":{\"x\":5,\"y\":5,\"defense\":{"
                     "\"armor\":45},\"conditions\":[\"flat_footed\"]},\"results\":[20,20,1,2,3,4]}";
    json_t *doc = post("/v1/attacks/resolve", on, 200);
    cr_assert(json_is_true(json_object_get(doc, "hit")));
    cr_assert(json_is_true(json_object_get(doc, "critical")));
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(doc, "critical_hit"), "natural")), "hit");
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert_eq(tb_num(dmg, "weapon_rolls"), 2);
    cr_assert_eq(tb_num(dmg, "sneak_attack_dice"), 2);
    cr_assert_eq(tb_num(dmg, "total"), (1 + 1) + (2 + 1) + 3 + 4);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(dmg, "roll"), "expression")),
                     "1d6+1+1d6+1+2d6");
    json_decref(doc);

    const char *off = "{\"rules\":{\"options\":{\"critical_hits\":false}},"
                      "\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5,\"damage\":\"1d6+1\"},"
                      "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":45}},\"results\":[20]}";
    doc = post("/v1/attacks/resolve", off, 200);
    cr_assert(json_is_false(json_object_get(doc, "hit")));
    json_decref(doc);
}

/* With the option off an answer has none of the critical members, whatever the attacker's
 * crit_range says; and natural 1 at +30 still hits. With it on, a natural 1 misses. */
Test(attack_api, option_off_answers_carry_no_critical_members)
{
    json_t *doc = post("/v1/attacks/resolve",
                       CRIT_ATTACK("{\"preset\":\"epic-path\"}") ",\"results\":[19,5]}", 200);
    cr_assert(json_is_false(json_object_get(
        json_object_get(json_object_get(doc, "rules"), "options"), "critical_hits")));
    cr_assert_null(json_object_get(doc, "critical"));
    cr_assert_null(json_object_get(doc, "critical_hit"));
    cr_assert_null(json_object_get(doc, "roll_rules"));
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert_null(json_object_get(dmg, "weapon_rolls"));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(dmg, "roll"), "expression")),
                     "1d8+2");
    json_decref(doc);

    const char *high = "\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":30,\"damage\":\"1d4\"},"
                       "\"defender\":{\"x\":5,\"y\":5,\"defense\":{}}";
    char body[512];
    snprintf(body, sizeof body, "{\"rules\":{\"preset\":\"epic-path\"},%s,\"results\":[1,2]}",
             high);
    doc = post("/v1/attacks/resolve", body, 200);
    cr_assert(json_is_true(json_object_get(doc, "hit")));
    json_decref(doc);
    snprintf(body, sizeof body, "{%s,\"results\":[1]}", high);
    doc = post("/v1/attacks/resolve", body, 200);
    cr_assert(json_is_false(json_object_get(doc, "hit")));
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(doc, "explain")), "natural 1 always misses"));
    json_decref(doc);

    /* Out of bounds: 422 at the member. */
    doc = post("/v1/attacks/resolve",
               "{\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5,\"crit_range\":1},"
               "\"defender\":{\"x\":5,\"y\":5,\"defense\":{}},\"results\":[3]}",
               422);
    json_decref(doc);
}

/* Names, not ids (issue 18): with the attacker's and defender's names the sentence says who
 * hits whom. +9 against AC 16 (armor 6): d20 13 gives 22, a hit; 1d8+3 with a 4 deals 7. */
Test(attack_api, explain_names_the_attacker_and_the_defender)
{
    json_t *doc = http_post_json(
        &srv, "/v1/attacks/resolve",
        "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":9,\"damage\":\"1d8+3\",\"name\":\"Kroh\"},"
        "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":6},\"name\":\"the gnoll\"},"
        "\"results\":[13,4]}",
        200);
    tb_explain_is(doc,
                  "Kroh hits the gnoll: 1d20 (13) + 9 = 22 against AC 16. 7 damage to the "
                  "gnoll.",
                  "Kroh hits the gnoll: 1d20 (13) + 9 = **22** against AC 16. **7** damage to "
                  "the gnoll.");
    json_decref(doc);
}

/* Names are the user's text: shown as written in explain and escaped in explain_markdown (a
 * backslash before each markup character, as Discord's markdown reads it), so that a name can
 * neither format, hide, link nor mention anything. The figures as in the case above. */
Test(attack_api, explain_markdown_escapes_the_names)
{
    json_t *doc = http_post_json(
        &srv, "/v1/attacks/resolve",
        "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":9,\"damage\":\"1d8+3\",\"name\":"
        "\"*_evil|| ~~x~~_*\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":6},"
        "\"name\":\"[x](http://e) `@everyone`\"},\"results\":[13,4]}",
        200);
    tb_explain_is(doc,
                  "*_evil|| ~~x~~_* hits [x](http://e) `@everyone`: 1d20 (13) + 9 = 22 against "
                  "AC 16. 7 damage to [x](http://e) `@everyone`.",
                  "\\*\\_evil\\|\\| \\~\\~x\\~\\~\\_\\* hits \\[x\\]\\(http\\://e\\) "
                  "\\`\\@everyone\\`: 1d20 (13) + 9 = **22** against AC 16. **7** damage to "
                  "\\[x\\]\\(http\\://e\\) \\`\\@everyone\\`.");
    json_decref(doc);
}

/* Issue 31: the critical confirmation is an attack roll "with all the same modifiers" (d20 3.5
 * SRD, Combat: Critical Hits), so its sentence shows the bonus as the first roll's does, in
 * Avrae's form: +7 against AC 14 (armor 4), a natural 19 threatens (19-20), the confirmation d20
 * 3 + 7 = 10 misses AC 14: not confirmed, a normal hit; 1d6+1 with a 2 deals 3. */
Test(attack_api, the_confirmation_shows_its_bonus)
{
    json_t *doc =
        post("/v1/attacks/resolve",
             "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":7,\"damage\":\"1d6+1\","
             "\"crit_range\":19},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4}},"
             "\"results\":[19,3,2]}",
             200);
    tb_explain_is(doc,
                  "Hit: 1d20 (19) + 7 = 26 against AC 14. Threat (19-20): confirmation 1d20 (3) "
                  "+ 7 = 10, not confirmed: a normal hit. 3 damage to the target.",
                  "Hit: 1d20 (19) + 7 = **26** against AC 14. Threat (19-20): confirmation 1d20 "
                  "(3) + 7 = **10**, not confirmed: a normal hit. **3** damage to the target.");
    json_decref(doc);
}

/* Issue 31: the AC's reasons name the defender's conditions that made it: 002 Table: Defense
 * Modifiers' "Helpless" (+0, and the Dexterity bonus lost: footnote 2) and the SRD's Charge ("a
 * -2 penalty to your AC"). AC 10 + armor 4 (Dex +3 lost) - 2 = 12. A helpless defender is
 * helpless, not flat-footed (an encounter's dead or dying target is read as helpless). */
Test(attack_api, the_ac_reasons_name_helpless_and_charging)
{
    json_t *doc = post("/v1/attacks/modifiers",
                       "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":2},\"defender\":{\"x\":5,"
                       "\"y\":5,\"defense\":{\"armor\":4,\"dex\":3},"
                       "\"conditions\":[\"helpless\",\"charging\"]}}",
                       200);
    cr_assert_eq(tb_num(doc, "target_number"), 12);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Needs 10 on the d20: 1d20 + 2 against AC 12 (helpless, charging -2).");
    json_decref(doc);
    /* Charging alone: AC 10 + 4 + Dex 3 - 2 = 15; rolled, a 12 + 2 = 14 misses. */
    doc = post("/v1/attacks/resolve",
               "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":2},\"defender\":{\"x\":5,"
               "\"y\":5,\"defense\":{\"armor\":4,\"dex\":3},\"conditions\":[\"charging\"]},"
               "\"results\":[12]}",
               200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Miss: 1d20 (12) + 2 = 14 against AC 15 (charging -2).");
    json_decref(doc);
    /* Flat-footed is said when it is the condition: AC 10 + 4 (Dex lost) = 14. */
    doc = post("/v1/attacks/modifiers",
               "{\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":2},\"defender\":{\"x\":5,"
               "\"y\":5,\"defense\":{\"armor\":4,\"dex\":3},\"conditions\":[\"flat_footed\"]}}",
               200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Needs 12 on the d20: 1d20 + 2 against AC 14 (flat-footed).");
    json_decref(doc);
}

/* Prefer: return=minimal (RFC 7240, as the encounter's writes take it): the answer keeps the
 * totals, the roll, what the damage came to and the sentence, and leaves out the rules echo,
 * the breakdown, the critical hit's itemised rules and the damage's dice; Preference-Applied
 * says so. Rogue B's figures as in the first case: +9 against AC 16, d20 12 hits (21), 1d6+1
 * and 2d6 sneak attack roll 3 + 1 + 4 + 5 = 13, less DR 2: 11. */
Test(attack_api, prefer_return_minimal_answers_the_verdict_and_the_sentence)
{
    const char *body = ROGUE_B ",\"results\":[12,3,4,5]}";
    struct http_response r;
    http_request(&srv, "POST", "/v1/attacks/resolve",
                 JSON_CT "Prefer: handling=lenient, return=\"minimal\"\r\n", body, &r);
    cr_assert_eq(r.status, 200);
    char applied[64];
    cr_assert(http_header(&r, "Preference-Applied", applied, sizeof applied));
    cr_assert_str_eq(applied, "return=minimal");
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    http_response_free(&r);
    cr_assert_not_null(doc);
    const char *const kept[] = {"attack_total", "target_number", "ac_kind",          "d20",
                                "roll_total",   "hit",           "struck",           "critical",
                                "damage",       "explain",       "explain_markdown", "source"};
    cr_assert_eq(json_object_size(doc), sizeof kept / sizeof *kept);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        cr_assert_not_null(json_object_get(doc, kept[i]), "no %s", kept[i]);
    cr_assert_eq(tb_num(doc, "roll_total"), 21);
    json_t *dmg = json_object_get(doc, "damage");
    cr_assert_eq(tb_num(dmg, "total"), 13);
    cr_assert_eq(tb_num(dmg, "dealt"), 11);
    cr_assert_null(json_object_get(dmg, "roll"));
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Hit: 1d20 (12) + 9 = 21 against AC 16. 11 damage to the target with sneak "
                     "attack.");
    json_decref(doc);

    /* Without it (or with return=representation), the whole answer, no Preference-Applied. */
    http_request(&srv, "POST", "/v1/attacks/resolve", JSON_CT "Prefer: return=representation\r\n",
                 body, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_not(http_header(&r, "Preference-Applied", applied, sizeof applied));
    doc = json_loadb(r.body, r.body_len, 0, NULL);
    http_response_free(&r);
    cr_assert_not_null(json_object_get(doc, "modifiers"));
    cr_assert_not_null(json_object_get(json_object_get(doc, "damage"), "roll"));
    json_decref(doc);

    /* The modifiers: the totals and the sentence. */
    http_request(&srv, "POST", "/v1/attacks/modifiers", JSON_CT "Prefer: return=minimal\r\n",
                 ROGUE_B "}", &r);
    cr_assert_eq(r.status, 200);
    doc = json_loadb(r.body, r.body_len, 0, NULL);
    http_response_free(&r);
    cr_assert_eq(json_object_size(doc), 5);
    cr_assert_eq(tb_num(doc, "target_number"), 16);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Needs 7 on the d20: 1d20 + 9 against AC 16.");
    json_decref(doc);

    /* A refusal is a refusal: the problem, whatever was preferred. */
    http_request(&srv, "POST", "/v1/attacks/resolve", JSON_CT "Prefer: return=minimal\r\n",
                 "{\"attacker\":{}}", &r);
    cr_assert_eq(r.status, 422);
    cr_assert_not(http_header(&r, "Preference-Applied", applied, sizeof applied));
    http_response_free(&r);
}

/* Each ally's errors name it by its index (issue 33 writes the pointer without printf): the
 * first, the tenth and the twelfth of twelve. */
Test(attack_api, an_allys_error_names_its_index)
{
    char body[2048];
    size_t n = (size_t)snprintf(body, sizeof body, "%s,\"allies\":[", ROGUE_B);
    for (int i = 0; i < 12; i++)
        n += (size_t)snprintf(body + n, sizeof body - n, "%s{\"x\":%d,\"y\":9%s}", i ? "," : "", i,
                              i == 0 || i == 9 || i == 11 ? ",\"wings\":1" : "");
    snprintf(body + n, sizeof body - n, "],\"seed\":7}");
    json_t *doc = post("/v1/attacks/resolve", body, 422);
    json_t *errors = json_object_get(doc, "errors");
    cr_assert_eq(json_array_size(errors), 3);
    static const char *const want[] = {"/allies/0/wings", "/allies/9/wings", "/allies/11/wings"};
    for (size_t i = 0; i < 3; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errors, i), "pointer")),
                         want[i]);
    json_decref(doc);
}

/* ac_kind names the AC the target number is: "normal AC", or the words touch (004 Touch
 * Attack), flat-footed and shieldless (000 Shields: a shield on the left is not against an
 * attack from the rear) in that order before "AC". All eight, as the answer's words. */
Test(attack_api, ac_kind_names_each_kind_of_ac)
{
    static const struct {
        int attacker_y; /* 4: in front of the defender facing 0; 6: behind it */
        bool touch, flat_footed;
        const char *kind;
    } cases[] = {
        {4, false, false, "normal AC"},
        {4, false, true, "flat-footed AC"},
        {4, true, false, "touch AC"},
        {4, true, true, "touch flat-footed AC"},
        {6, false, false, "shieldless AC"},
        {6, false, true, "flat-footed shieldless AC"},
        {6, true, false, "touch shieldless AC"},
        {6, true, true, "touch flat-footed shieldless AC"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"rules\":{\"preset\":\"d20-3.5-facing\",\"options\":{\"shields_by_side\":"
                 "true}},\"attacker\":{\"x\":5,\"y\":%d,\"facing\":0,\"attack_bonus\":5,"
                 "\"touch\":%s},\"defender\":{\"x\":5,\"y\":5,\"facing\":0,\"shield_side\":"
                 "\"left\",\"conditions\":[%s],\"defense\":{\"armor\":4,\"shield\":2}}}",
                 cases[i].attacker_y, cases[i].touch ? "true" : "false",
                 cases[i].flat_footed ? "\"flat_footed\"" : "");
        json_t *doc = post("/v1/attacks/modifiers", body, 200);
        cr_assert_str_eq(json_string_value(json_object_get(doc, "ac_kind")), cases[i].kind, "%s",
                         body);
        json_decref(doc);
    }
}

/* The body's unknown members are each named, in the body's order and escaped as JSON pointers
 * (RFC 6901), before what is wrong inside a known one; the same past the 32 members the
 * decoder's index holds, where jansson's table is walked instead. */
Test(attack_api, unknown_members_of_the_body_are_named_in_its_order)
{
    json_t *doc = post("/v1/attacks/resolve",
                       "{\"zeta\":1,\"rules\":{},\"a~b/c\":2,\"attacker\":{\"x\":0,\"y\":0,"
                       "\"attack_bonus\":101},\"defender\":{\"x\":1,\"y\":0,\"defense\":{}},"
                       "\"seed\":7,\"Seed\":8}",
                       422);
    json_t *errors = json_object_get(doc, "errors");
    static const char *const want[] = {"/zeta", "/a~0b~1c", "/Seed", "/attacker/attack_bonus"};
    cr_assert_eq(json_array_size(errors), 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errors, i), "pointer")),
                         want[i]);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errors, 0), "message")),
                     "is not a known field");
    json_decref(doc);

    char body[4096];
    size_t n = (size_t)snprintf(body, sizeof body, "%s", ROGUE_B);
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(body + n, sizeof body - n, ",\"u%d\":%d", i, i);
    snprintf(body + n, sizeof body - n, ",\"seed\":7}");
    doc = post("/v1/attacks/resolve", body, 422);
    errors = json_object_get(doc, "errors");
    cr_assert_eq(json_array_size(errors), 40);
    for (size_t i = 0; i < 40; i++) {
        char ptr[16];
        snprintf(ptr, sizeof ptr, "/u%zu", i);
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errors, i), "pointer")),
                         ptr);
    }
    json_decref(doc);
}
