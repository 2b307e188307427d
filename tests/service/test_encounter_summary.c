/* What the encounter's reads tell a human (issue 31): the summary of GET .../state and of the
 * next-turn answer in the shape of Avrae's `!init list` (its header "Current initiative: 16
 * (round 1)" underlined, "# " before the combatant whose turn it is, "16: Kroh <20/20 HP>"), and
 * the `explain` of /state, /threats, /flanking and /verify. The figures are the supplied dice
 * against the combatants' numbers: 004's initiative (d20 + Dex modifier), the d20 3.5 SRD's
 * hit point states (dying from -1), 004's threatened area and flat-footed combatants, 004's
 * flanking (+2, an ally directly opposite). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_summary);

static const char *text(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    cr_assert_not_null(s, "no %s", k);
    return s;
}

/* Adds a combatant: id, name (NULL: none), side, square, max_hp, dex. */
static void add(struct enc *e, const char *id, const char *name, const char *side, int x, int y,
                int max_hp, int dex)
{
    char body[768], named[256] = "";
    if (name != NULL)
        snprintf(named, sizeof named, "\"name\":\"%s\",", name);
    snprintf(body, sizeof body,
             "{\"id\":\"%s\",%s\"side\":\"%s\",\"x\":%d,\"y\":%d,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":2},\"max_hp\":%d,\"dex\":%d,\"attacks\":[{\"name\":\"club\","
             "\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
             id, named, side, x, y, max_hp, dex);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
}

/* 30 monsters c0..c29, each named by 90 characters, on rows 2 to 4: about 110 characters a
 * line of the summary, 3,400 in all. */
static void add_thirty_long_names(struct enc *e)
{
    char name[91];
    memset(name, 'n', 90);
    name[90] = '\0';
    for (int i = 0; i < 30; i++) {
        char id[16];
        snprintf(id, sizeof id, "c%d", i);
        add(e, id, name, "monsters", 1 + i % 10, 2 + i / 10, 7, 10);
    }
}

/* "Ambush": Kroh (party, 5,5, 20 hp, dex 14: +2), the goblin (monsters, 6,5, 9 hp, dex 10: +0)
 * and orc (no name, monsters, 4,5, 15 hp, dex 10): the goblin and orc stand on either side of
 * him. Initiative d20s 14, 8, 3: Kroh 16, the goblin 8, orc 3. */
static void ambush(struct enc *e)
{
    enc_create(&srv, e, "{\"name\":\"Ambush\",\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    add(e, "kroh", "Kroh", "party", 5, 5, 20, 14);
    add(e, "goblin", "the goblin", "monsters", 6, 5, 9, 10);
    add(e, "orc", NULL, "monsters", 4, 5, 15, 10);
}

/* The summary before initiative, then after it, turn by turn; the next-turn answer carries the
 * summary of the state it leaves, as GET .../state does. */
Test(encounter_summary, the_state_and_next_turn_carry_an_init_list)
{
    struct enc e;
    ambush(&e);
    json_t *doc = suite_call(&e, "GET", "/state", NULL, 200);
    cr_assert_str_eq(text(doc, "summary"), "Ambush: not rolled yet\n"
                                           "======================\n"
                                           "  --: Kroh <20/20 HP>\n"
                                           "  --: the goblin <9/9 HP>\n"
                                           "  --: orc <15/15 HP>");
    cr_assert_str_eq(text(doc, "explain"), "Initiative is not rolled yet: 3 combatants.");
    json_decref(doc);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[14,1,8,1,3,1]}");
    /* Every combatant is flat-footed until its first turn (004 Flat-Footed). */
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    cr_assert_str_eq(text(doc, "summary"), "Ambush: 16 (round 1)\n"
                                           "====================\n"
                                           "# 16: Kroh <20/20 HP>\n"
                                           "   8: the goblin <9/9 HP> (flat-footed)\n"
                                           "   3: orc <15/15 HP> (flat-footed)");
    cr_assert_str_eq(text(doc, "summary_markdown"), "```md\n"
                                                    "Ambush: 16 (round 1)\n"
                                                    "====================\n"
                                                    "# 16: Kroh <20/20 HP>\n"
                                                    "   8: the goblin <9/9 HP> (flat-footed)\n"
                                                    "   3: orc <15/15 HP> (flat-footed)```");
    json_decref(doc);
    /* The goblin at -3: dying (d20 3.5 SRD: -1 to -9); orc prone for 1 round, from round 1's
     * initiative count 16: it ends as round 2's turn at that count begins (004). */
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"goblin\",\"set\":-3}");
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"condition\",\"actor\":\"kroh\",\"target\":\"orc\",\"condition\":"
                "\"prone\",\"rounds\":1}");
    /* The dying goblin's turn is passed over (its dying round: d% 50, not stable, -4): orc's. */
    static const char *const orcs_turn = "Ambush: 3 (round 1)\n"
                                         "===================\n"
                                         "  16: Kroh <20/20 HP>\n"
                                         "   8: the goblin <-4/9 HP> (dying, flat-footed)\n"
                                         "#  3: orc <15/15 HP> (prone [ends round 2])";
    doc = suite_call(&e, "POST", "/next-turn", "{\"results\":[50]}", 200);
    cr_assert_str_eq(text(doc, "summary"), orcs_turn);
    json_decref(doc);
    doc = suite_call(&e, "GET", "/state", NULL, 200);
    tb_explain_is(doc, "Round 1: orc's turn.", "Round 1: `orc`'s turn.");
    cr_assert_str_eq(text(doc, "summary"), orcs_turn); /* the same, read again */
    json_decref(doc);
    /* The state at an earlier event says so. */
    doc = suite_call(&e, "GET", "/state?at=5", NULL, 200);
    cr_assert_str_eq(text(doc, "explain"),
                     "The state after event 5 of 9. Initiative is rolled; no turn has begun.");
    cr_assert_str_eq(text(doc, "summary"), "Ambush: rolled, no turn yet\n"
                                           "===========================\n"
                                           "  16: Kroh <20/20 HP> (flat-footed)\n"
                                           "   8: the goblin <9/9 HP> (flat-footed)\n"
                                           "   3: orc <15/15 HP> (flat-footed)");
    json_decref(doc);
}

/* A retry of a next-turn (its Idempotency-Key) answers as the first did, summary and all. */
Test(encounter_summary, a_replayed_next_turn_carries_the_same_summary)
{
    struct enc e;
    ambush(&e);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[14,1,8,1,3,1]}");
    json_t *first =
        enc_call(&srv, &e, "POST", "/next-turn", "Idempotency-Key: turn-1\r\n", NULL, 200);
    e.version--;
    json_t *again =
        enc_call(&srv, &e, "POST", "/next-turn", "Idempotency-Key: turn-1\r\n", NULL, 200);
    cr_assert_str_eq(text(again, "summary"), text(first, "summary"));
    cr_assert_str_eq(text(again, "summary_markdown"), text(first, "summary_markdown"));
    json_decref(first);
    json_decref(again);
}

/* Names show as written in the code block, but one cannot close it (a zero-width space breaks
 * a run of backticks) or start a line of its own (a line break shows as a space); the markdown
 * fits one Discord message (2,000 characters), the lines left out counted. */
Test(encounter_summary, the_summary_stays_one_block_and_one_message)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    add(&e, "a", "x```y\\n# z", "party", 0, 0, 10, 10);
    json_t *doc = suite_call(&e, "GET", "/state", NULL, 200);
    cr_assert_str_eq(text(doc, "summary"), "Current initiative: not rolled yet\n"
                                           "==================================\n"
                                           "  --: x```y # z <10/10 HP>");
    cr_assert_str_eq(text(doc, "summary_markdown"),
                     "```md\nCurrent initiative: not rolled yet\n"
                     "==================================\n"
                     "  --: x`\xe2\x80\x8b`\xe2\x80\x8b`y # z <10/10 HP>```");
    json_decref(doc);
    /* 30 more, each with a name of 90 characters: about 110 a line, 3,400 in all. */
    add_thirty_long_names(&e);
    doc = suite_call(&e, "GET", "/state", NULL, 200);
    const char *md = text(doc, "summary_markdown"), *plain = text(doc, "summary");
    cr_assert_leq(strlen(md), 2000, "%zu", strlen(md)); /* ASCII and two 3-byte spaces */
    const char *more = strstr(md, "\n  ... and ");
    cr_assert_not_null(more, "%s", md);
    int left = 0;
    cr_assert_eq(sscanf(more, "\n  ... and %d more```", &left), 1);
    int lines = 0;
    for (const char *p = plain; *p; p++)
        lines += *p == '\n';
    /* Header, underline, the lines shown, the one that counts the rest. */
    cr_assert_eq(lines - 2 + left, 31, "%d lines, %d left out", lines, left);
    cr_assert_gt(left, 0);
    json_decref(doc);
}

/* The length Discord counts: UTF-16 code units (a 4-byte UTF-8 character counts 2). */
static size_t discord_length(const char *s)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        k += (size_t)((*p & 0xc0) != 0x80) + (size_t)(*p >= 0xf0);
    return k;
}

/* The encounter's name is the header, so it is broken in the code block as a combatant's is:
 * a name of 200 backticks (the longest a name may be) gains 199 zero-width spaces there, and
 * the message still fits Discord's 2,000 characters with the lines left out counted. */
Test(encounter_summary, a_name_of_backticks_still_fits_one_message)
{
    struct enc e;
    char body[512], title[201];
    memset(title, '`', 200);
    title[200] = '\0';
    snprintf(body, sizeof body,
             "{\"name\":\"%s\",\"map\":{\"width\":12,\"height\":12},"
             "\"seed\":5}",
             title);
    enc_create(&srv, &e, body);
    add_thirty_long_names(&e);
    json_t *doc = suite_call(&e, "GET", "/state", NULL, 200);
    const char *md = text(doc, "summary_markdown");
    cr_assert_leq(discord_length(md), 2000, "%zu: %s", discord_length(md), md);
    /* The header keeps its backticks, each pair split, and the block is closed once. */
    cr_assert_eq(strncmp(md, "```md\n`\xe2\x80\x8b`", 11), 0, "%s", md);
    cr_assert_not_null(strstr(md, "\n  ... and "), "%s", md);
    cr_assert_str_eq(md + strlen(md) - 3, "```");
    json_decref(doc);
}

/* /threats: whom each threatens (004 Threatened Area: the adjacent squares), and that a
 * flat-footed one can make no attack of opportunity (004 Flat-Footed), before their first
 * turns. */
Test(encounter_summary, threats_are_told)
{
    struct enc e;
    ambush(&e);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[14,1,8,1,3,1]}");
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    json_t *doc = suite_call(&e, "GET", "/threats", NULL, 200);
    tb_explain_is(doc,
                  "Kroh threatens the goblin and orc; the goblin threatens Kroh but can make no "
                  "attack of opportunity now; orc threatens Kroh but can make no attack of "
                  "opportunity now (004 Threatened Area; 001 Reach; 004 Flat-Footed).",
                  "Kroh threatens the goblin and `orc`; the goblin threatens Kroh but can make "
                  "no attack of opportunity now; `orc` threatens Kroh but can make no attack of "
                  "opportunity now (004 Threatened Area; 001 Reach; 004 Flat-Footed).");
    json_decref(doc);
}

/* /flanking: the goblin and orc stand on opposite sides of Kroh, so each flanks him with the
 * other (004 Flanking: +2); each attacker names the ally that flanks by id, with the ids of the
 * allies its answer's indices count. */
Test(encounter_summary, flanking_names_the_ally_by_id_and_is_told)
{
    struct enc e;
    ambush(&e);
    add(&e, "hyena", "the hyena", "monsters", 9, 9, 8, 10);
    json_t *doc = suite_call(&e, "GET", "/flanking?target=kroh", NULL, 200);
    json_t *list = json_object_get(doc, "attackers");
    cr_assert_eq(json_array_size(list), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *a = json_array_get(list, i);
        const char *who = text(a, "attacker");
        json_t *allies = json_object_get(a, "allies");
        json_t *by = json_object_get(json_object_get(a, "flanking"), "by");
        if (strcmp(who, "hyena") == 0) {
            cr_assert(json_is_null(json_object_get(a, "flanked_by")));
            continue;
        }
        const char *other = strcmp(who, "goblin") == 0 ? "orc" : "goblin";
        cr_assert_str_eq(text(a, "flanked_by"), other);
        cr_assert_str_eq(json_string_value(json_array_get(allies, (size_t)json_integer_value(by))),
                         other);
    }
    cr_assert_str_eq(text(doc, "explain"),
                     "The goblin (with orc) and orc (with the goblin) flank Kroh: +2 on their "
                     "melee attacks (004 Flanking). The hyena does not.");
    json_decref(doc);
    doc = suite_call(&e, "GET", "/flanking?target=kroh&attacker=hyena", NULL, 200);
    cr_assert_str_eq(text(doc, "explain"), "Kroh is not flanked against the hyena.");
    json_decref(doc);
}

/* /verify: what it checked, and a second verify's shortcut (only the events since). */
Test(encounter_summary, verify_is_told)
{
    struct enc e;
    ambush(&e);
    json_t *doc = suite_call(&e, "POST", "/verify", NULL, 200);
    tb_explain_is(doc,
                  "The log verifies: its 4 events, each ruled again from the state before it "
                  "with its own dice, give the stored rulings and effects, and fold to the "
                  "stored state.",
                  "The log verifies: its **4** events, each ruled again from the state before "
                  "it with its own dice, give the stored rulings and effects, and fold to the "
                  "stored state.");
    json_decref(doc);
    enc_post_ok(&srv, &e, "/initiative", "{\"results\":[14,1,8,1,3,1]}");
    doc = suite_call(&e, "POST", "/verify", NULL, 200);
    cr_assert_str_eq(text(doc, "explain"),
                     "The log verifies: its 5 events, each ruled again from the state before it "
                     "with its own dice, give the stored rulings and effects, and fold to the "
                     "stored state. This request ruled the last 1 again; the 4 before them were "
                     "verified by an earlier one.");
    json_decref(doc);
}
