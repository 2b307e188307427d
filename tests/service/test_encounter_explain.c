/* Every encounter event told for a human (issue #18): one case of each kind, with the exact
 * sentence. The figures are the supplied dice against the combatants' own numbers (004's
 * initiative, AC 10 + armor, 1d8+3 plus 2d6 sneak attack, 001's 1d6 per 10 feet fallen, the d20
 * 3.5 SRD's dying from -1 hp); the sentence is the same in the write's answer, in the event log
 * and in the export, and old logs (the v1 fixture) get one too. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_explain);

/* Writes, expects the status, and checks the event's explain; returns the markdown (caller
 * frees). */
static char *told(struct enc *e, const char *method, const char *suffix, const char *body,
                  int status, const char *expected)
{
    json_t *doc = suite_call(e, method, suffix, body, status);
    json_t *ev = json_object_get(doc, "event");
    const char *plain = json_string_value(json_object_get(ev, "explain"));
    cr_assert_not_null(plain, "%s %s: no explain", method, suffix);
    cr_assert_str_eq(plain, expected, "%s %s %s\n got: %s", method, suffix, body ? body : "",
                     plain);
    cr_assert_null(strpbrk(plain, "*~`_"), "markup in the plain text: %s", plain);
    char *markdown = strdup(json_string_value(json_object_get(ev, "explain_markdown")));
    json_decref(doc);
    return markdown;
}

static void say(struct enc *e, const char *method, const char *suffix, const char *body, int status,
                const char *expected)
{
    free(told(e, method, suffix, body, status, expected));
}

Test(encounter_explain, every_kind_of_event_is_told_with_names_dice_and_hit_points)
{
    struct enc e;
    enc_create(&srv, &e, "{\"name\":\"Ambush\",\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    say(&e, "POST", "/combatants",
        "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":14,\"base_attack_bonus\":6,"
        "\"attacks\":[{\"name\":\"rapier\",\"attack_bonus\":9,\"damage\":\"1d8+3\","
        "\"sneak_attack_dice\":2}]}",
        201, "Kroh joins the party side at (5, 5) with 20 hp.");
    say(&e, "POST", "/combatants",
        "{\"id\":\"gnoll\",\"name\":\"the gnoll\",\"side\":\"monsters\",\"x\":6,\"y\":5,"
        "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":6},\"max_hp\":9,\"dex\":10,\"attacks\":[{"
        "\"name\":\"battleaxe\",\"attack_bonus\":3,\"damage\":\"1d8+2\"}]}",
        201, "The gnoll joins the monsters side at (6, 5) with 9 hp.");
    char *md;
    /* No name: the id stands in, as written wherever it is said (never capitalised, so that
     * "aria" reads the same at a sentence's start and in "aria's turn"), in markdown as code. */
    md =
        told(&e, "POST", "/combatants",
             "{\"id\":\"aria\",\"side\":\"party\",\"x\":1,\"y\":9,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":2},\"max_hp\":12,\"dex\":12,\"attacks\":[{\"name\":\"dagger\","
             "\"attack_bonus\":2,\"damage\":\"1d4\"}]}",
             201, "aria joins the party side at (1, 9) with 12 hp.");
    cr_assert_str_eq(md, "`aria` joins the party side at (1, 9) with **12** hp.");
    free(md);
    say(&e, "POST", "/combatants",
        "{\"id\":\"hyena\",\"name\":\"the hyena\",\"side\":\"monsters\",\"x\":3,\"y\":5,"
        "\"speeds\":{\"walk\":50},\"defense\":{\"armor\":2},\"max_hp\":20,\"dex\":10,"
        "\"attacks\":[{\"name\":\"bite\",\"attack_bonus\":3,\"damage\":\"1d6+1\"}]}",
        201, "The hyena joins the monsters side at (3, 5) with 20 hp.");
    /* 004 Initiative: d20 + Dex modifier (+2 for 14, +1 for 12, +0 for 10). */
    say(&e, "POST", "/initiative", "{\"results\":[14,1,8,2,3,1,10,1]}", 200,
        "Initiative: Kroh 16 (1d20 (14) + 2), the hyena 10 (1d20 (10)), the gnoll 8 (1d20 (8)), "
        "aria 4 (1d20 (3) + 1). Kroh goes first.");
    say(&e, "POST", "/next-turn", NULL, 200, "Round 1: Kroh's turn.");
    /* The issue's own sentence: AC 10 + 6 armor, flat-footed before its first turn (000 Sneak
     * Attacks: sneak attack on a flat-footed foe), 1d8+3 = 4 + 3 and 2d6 = 3 + 2; 9 - 12 = -3,
     * dying (d20 3.5 SRD: -1 to -9). */
    md = told(&e, "POST", "/actions", TB_ATTACK("kroh", "gnoll", "[13,4,3,2]"), 200,
              "Kroh hits the gnoll: 1d20 (13) + 9 = 22 vs AC 16 (flat-footed). 12 damage "
              "(1d8+3 = 7, sneak attack 2d6 = 5); the gnoll is at -3 hp, dying.");
    cr_assert_str_eq(md,
                     "Kroh hits the gnoll: 1d20 (13) + 9 = **22** vs AC 16 (flat-footed). **12** "
                     "damage (1d8 (4) + 3 = 7, sneak attack 2d6 (3, 2) = 5); the gnoll is at "
                     "**-3** hp, dying.");
    free(md);
    say(&e, "POST", "/next-turn", NULL, 200, "Round 1: the hyena's turn.");
    /* Kroh has had his turn, so keeps his Dex to AC, derived from his stored dex 14 (+2, d20
     * 3.5 SRD Ability Modifiers), his defense having no dex part: AC 10 + 5 armor + 2 = 17. */
    /* Leaving (4, 4), which Kroh threatens, provokes (004 Provoking an Attack of Opportunity by
     * Moving). */
    say(&e, "POST", "/actions",
        "{\"type\":\"move\",\"actor\":\"hyena\",\"path\":[{\"x\":4,\"y\":4},{\"x\":4,\"y\":5}]}",
        200, "The hyena moves 10 ft to (4, 5), provoking an attack of opportunity from Kroh.");
    /* AC 10 + 2; not flat-footed (its turn began), not flanked: no sneak attack. */
    say(&e, "POST", "/actions", TB_AOO("kroh", "hyena", "[15,5]"), 200,
        "Kroh's attack of opportunity hits the hyena: 1d20 (15) + 9 = 24 vs AC 12. 8 damage (1d8+3 "
        "= 8); the hyena is at 12 hp.");
    say(&e, "POST", "/actions", TB_ATTACK("hyena", "kroh", "[2]"), 200,
        "The hyena misses Kroh: 1d20 (2) + 3 = 5 vs AC 17.");
    /* The gnoll is dying: its turn is skipped, and its dying round rolled (d20 3.5 SRD, Dying:
     * 10% to become stable, else 1 hit point lost): the table's d% is 19. */
    md =
        told(&e, "POST", "/next-turn", "{\"results\":[19]}", 200,
             "Round 1: aria's turn. The gnoll is skipped (dying): d% 19, not stable, so it loses 1 "
             "hit point and is at -4 hp.");
    cr_assert_eq(strncmp(md, "Round 1: `aria`'s turn. The gnoll is skipped", 44), 0, "%s", md);
    free(md);
    say(&e, "POST", "/actions",
        "{\"type\":\"condition\",\"actor\":\"aria\",\"target\":\"aria\",\"condition\":"
        "\"prone\",\"rounds\":1}",
        200, "aria is prone for 1 round.");
    say(&e, "POST", "/actions", "{\"type\":\"stand_up\",\"actor\":\"aria\"}", 200,
        "aria stands up.");
    /* The rest of the encounter: each write (all answered 200) and its sentence. */
    static const struct {
        const char *method, *suffix, *body, *expected;
    } rest[] = {
        {"POST", "/next-turn", NULL, "Round 2: Kroh's turn."},
        /* Base attack bonus 6: a second attack at -5 (d20 3.5 SRD, Full Attack). 1d8+3 = 3 + 3. */
        {"POST", "/actions",
         "{\"type\":\"full_attack\",\"actor\":\"kroh\",\"target\":\"hyena\",\"results\":[[18,3],"
         "[2]]}",
         "Kroh makes a full attack on the hyena (2 attacks). 1: Kroh hits the hyena: 1d20 (18) + 9 "
         "= 27 vs AC 12. 6 damage (1d8+3 = 6). 2: Kroh misses the hyena: 1d20 (2) + 4 = 6 vs AC "
         "12. "
         "The hyena is at 6 hp."},
        /* 001 Falling: 1d6 per 10 feet, so 2d6 for 20 feet, and prone. */
        {"POST", "/actions",
         "{\"type\":\"fall\",\"actor\":\"kroh\",\"height_ft\":20,\"results\":[3,4]}",
         "Kroh falls 20 ft: 7 damage (2d6 = 7); Kroh is at 13 hp; Kroh lands prone."},
        /* 001 Forced Movement: a push moves the target away from the one pushing. */
        {"POST", "/actions",
         "{\"type\":\"forced\",\"actor\":\"kroh\",\"target\":\"hyena\",\"kind\":\"push\","
         "\"squares\":1,\"path\":[{\"x\":3,\"y\":5}]}",
         "Kroh pushes the hyena 1 square to (3, 5)."},
        {"POST", "/hp", "{\"target\":\"kroh\",\"change\":2,\"reason\":\"potion\"}",
         "Kroh heals 2 hp (potion); Kroh is at 15 hp."},
        {"POST", "/hp", "{\"target\":\"hyena\",\"change\":-7,\"reason\":\"fire\"}",
         "The hyena takes 7 damage (fire); the hyena is at -1 hp, dying."},
        {"PATCH", "/combatants/aria", "{\"name\":\"Aria\"}", "aria is updated: name."},
        /* Named now: the name from here on. */
        {"POST", "/hp", "{\"target\":\"aria\",\"change\":-1}",
         "Aria takes 1 damage; Aria is at 11 hp."},
        {"DELETE", "/combatants/gnoll", NULL, "The gnoll leaves the encounter."},
        {"POST", "/reveal", NULL,
         "The seed is revealed: 5. Every roll of the encounter can now be checked, and it takes "
         "no more writes."},
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        say(&e, rest[i].method, rest[i].suffix, rest[i].body, 200, rest[i].expected);

    /* The log tells each event as its write did, on any page, and so does the export. */
    json_t *first = suite_call(&e, "GET", "/events", NULL, 200);
    json_t *events = json_object_get(first, "events");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(events, 0), "explain")),
                     "Encounter \"Ambush\" created on a 12 by 12 map.");
    json_t *page = suite_call(&e, "GET", "/events?after=7&limit=1", NULL, 200);
    json_t *eighth = json_array_get(json_object_get(page, "events"), 0);
    cr_assert_eq(json_integer_value(json_object_get(eighth, "seq")), 8);
    cr_assert_str_eq(json_string_value(json_object_get(eighth, "explain")),
                     json_string_value(json_object_get(json_array_get(events, 7), "explain")));
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(eighth, "explain")), "Kroh hits the gnoll"));
    json_t *exported = suite_call(&e, "GET", "/export", NULL, 200);
    json_t *xevents = json_object_get(exported, "events");
    cr_assert_eq(json_array_size(xevents), json_array_size(events));
    for (size_t i = 0; i < json_array_size(events); i++)
        cr_assert_str_eq(
            json_string_value(json_object_get(json_array_get(xevents, i), "explain_markdown")),
            json_string_value(json_object_get(json_array_get(events, i), "explain_markdown")));
    /* The export, sentences and all, imports; verify holds. */
    char *text = json_dumps(exported, JSON_COMPACT);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 201));
    free(text);
    tb_verify_ok(&srv, &e);
    json_decref(exported);
    json_decref(page);
    json_decref(first);
}

/* An encounter stored before events carried their engine, and before sentences: its log is
 * told all the same, from the stored payloads, and still verifies. */
Test(encounter_explain, an_old_log_is_told_on_read)
{
    struct enc e;
    tb_import_fixture(&srv, &e, "encounter_v1.json");
    json_t *log = suite_call(&e, "GET", "/events", NULL, 200);
    json_t *events = json_object_get(log, "events");
    cr_assert_eq(json_array_size(events), 21); /* the fixture's 20 and the copy's own */
    for (size_t i = 0; i < json_array_size(events); i++) {
        const char *s = json_string_value(json_object_get(json_array_get(events, i), "explain"));
        cr_assert_not_null(s);
        cr_assert_neq(strncmp(s, "Event ", 6), 0, "event %zu is not told: %s", i + 1, s);
    }
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(events, 10), "explain")),
                     "Kroh turns to facing 2.");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(events, 12), "explain")),
                     "rogue takes a 5-foot step to (7, 6), provoking nothing.");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(events, 19), "explain")),
                     "rogue is updated: hp.");
    /* The fixture is from before seed commitments: its copy says why it rolls anew. */
    const char *imported =
        json_string_value(json_object_get(json_array_get(events, 20), "explain"));
    cr_assert_not_null(strstr(imported, "Imported as a copy of encounter "
                                        "fd0cdc57abed1926580a66fe1a6b4867. Its seed had no "
                                        "commitment and could be worked out from its rulings"),
                       "%s", imported);
    json_decref(log);
    tb_verify_ok(&srv, &e);
}

/* Names, sides and reasons are the user's text: as written in explain, escaped in
 * explain_markdown (a backslash before each character Discord's markdown reads as markup). */
Test(encounter_explain, user_text_is_escaped_in_markdown)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    json_t *doc =
        suite_call(&e, "POST", "/combatants",
                   "{\"id\":\"kroh\",\"name\":\"*Kroh* [x](http://e)\",\"side\":"
                   "\"||party||\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},\"defense\":{"
                   "\"armor\":5},\"max_hp\":20,\"dex\":14,\"attacks\":[{\"name\":\"rapier\","
                   "\"attack_bonus\":9,\"damage\":\"1d8+3\"}]}",
                   201);
    json_t *ev = json_object_get(doc, "event");
    tb_explain_is(ev, "*Kroh* [x](http://e) joins the ||party|| side at (5, 5) with 20 hp.",
                  "\\*Kroh\\* \\[x\\]\\(http\\://e\\) joins the \\|\\|party\\|\\| side at "
                  "(5, 5) with **20** hp.");
    json_decref(doc);
}

/* Whether s ends with tail. */
static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* Kroh (party, 5,5: AC 10 + armor 5 + Dex +2 from dex 14, 20 hp, rapier +9 1d8+3) and the
 * goblin (monsters, at gx,5: AC 10 + armor 2, 9 hp, morningstar +2 1d6), initiative rolled with
 * the given results ({"results":[kroh d20, tie, goblin d20, tie]}) and the first turn begun. */
static void duel(struct enc *e, int gx, const char *initiative)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    json_decref(
        suite_call(e, "POST", "/combatants",
                   "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,"
                   "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":14,"
                   "\"attacks\":[{\"name\":\"rapier\",\"attack_bonus\":9,\"damage\":\"1d8+3\"}]}",
                   201));
    char body[512];
    snprintf(body, sizeof body,
             "{\"id\":\"goblin\",\"name\":\"the goblin\",\"side\":\"monsters\",\"x\":%d,\"y\":5,"
             "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2},\"max_hp\":9,\"dex\":10,"
             "\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}",
             gx);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    enc_post_ok(&srv, e, "/initiative", initiative);
    enc_post_ok(&srv, e, "/next-turn", NULL);
}

/* Issue 31: a disabled attacker's strain is told. Kroh at 0 hp is disabled (d20 3.5 SRD,
 * Disabled: "If he performs any strenuous action, he takes 1 point of damage after completing
 * the act"); his attack (13 + 9 = 22 hits AC 12; 1d8+3 = 4 + 3 = 7, the goblin 9 - 7 = 2) takes
 * him to -1: dying (-1 to -9). */
Test(encounter_explain, a_disabled_attackers_strain_is_told)
{
    struct enc e;
    duel(&e, 6, "{\"results\":[14,1,8,1]}");
    enc_post_ok(&srv, &e, "/hp", "{\"target\":\"kroh\",\"set\":0}");
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("kroh", "goblin", "[13,4]"), 200);
    json_t *ev = json_object_get(doc, "event");
    const char *plain = json_string_value(json_object_get(ev, "explain"));
    const char *md = json_string_value(json_object_get(ev, "explain_markdown"));
    cr_assert_eq(json_integer_value(json_object_get(enc_combatant(doc, "kroh"), "hp")), -1);
    cr_assert_not_null(strstr(plain, "the goblin is at 2 hp."), "%s", plain);
    cr_assert(ends_with(plain, " Kroh was disabled, and an attack is a strenuous action: 1 damage; "
                               "Kroh is at -1 hp, dying."),
              "%s", plain);
    cr_assert(ends_with(md, " Kroh was disabled, and an attack is a strenuous action: **1** "
                            "damage; Kroh is at **-1** hp, dying."),
              "%s", md);
    json_decref(doc);
}

/* Issue 31: a charge names its opponent. The goblin, 3 squares off, charges Kroh straight in
 * (d20 3.5 SRD, Charge: at least 10 feet, directly toward the designated opponent): 2 squares,
 * 10 ft, to the closest space from which it can attack. */
Test(encounter_explain, a_charge_says_whom_it_charges)
{
    struct enc e;
    duel(&e, 8, "{\"results\":[2,1,18,1]}");
    say(&e, "POST", "/actions",
        "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"charge\",\"target\":\"kroh\","
        "\"path\":[{\"x\":7,\"y\":5},{\"x\":6,\"y\":5}]}",
        200, "The goblin charges Kroh: 10 ft to (6, 5), provoking nothing.");
}

/* Kroh (party, 5,5, 20 hp, AC 10 + armor 5 + Dex +1 from dex 12) walks 5,6 -> 4,7 -> 4,8 -> 5,9,
 * leaving 5,6 beside the goblin and 4,8 beside the orc (004 Provoking an Attack of Opportunity
 * by Moving); the two have no names, and the policies given. Round 2 has begun with Kroh's turn,
 * so neither is flat-footed (004 Flat-Footed). */
#define WALK                                                                                       \
    "{\"type\":\"move\",\"actor\":\"kroh\",\"path\":[{\"x\":5,\"y\":6},{\"x\":4,\"y\":7},{\"x\":"  \
    "4,"                                                                                           \
    "\"y\":8},{\"x\":5,\"y\":9}]"

static void ambush(struct enc *e, const char *goblin_policy, const char *orc_policy, int kroh_hp)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":11}");
    json_decref(
        suite_call(e, "POST", "/combatants",
                   "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,"
                   "\"speeds\":{\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,"
                   "\"attacks\":[{\"name\":\"longsword\",\"attack_bonus\":6,\"damage\":"
                   "\"1d8+3\"}]}",
                   201));
    char body[512];
    snprintf(body, sizeof body,
             "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":2},\"max_hp\":6,\"dex\":13,\"attacks\":[{\"name\":"
             "\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}],\"aoo_policy\":\"%s\"}",
             goblin_policy);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    snprintf(body, sizeof body,
             "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":3,\"y\":9,\"speeds\":{\"walk\":30},"
             "\"defense\":{\"armor\":3},\"max_hp\":15,\"dex\":10,\"attacks\":[{\"name\":"
             "\"falchion\",\"attack_bonus\":5,\"damage\":\"2d4+4\"}],\"aoo_policy\":\"%s\"}",
             orc_policy);
    json_decref(suite_call(e, "POST", "/combatants", body, 201));
    enc_post_ok(&srv, e, "/initiative", "{\"results\":[20,1,14,1,10,1]}");
    for (int i = 0; i < 4; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL); /* kroh, goblin, orc; round 2: kroh */
    if (kroh_hp < 20) {
        char hp[64];
        snprintf(hp, sizeof hp, "{\"target\":\"kroh\",\"set\":%d}", kroh_hp);
        enc_post_ok(&srv, e, "/hp", hp);
    }
}

/* Issue 31: a move paused for an asked reaction does not read as if it arrived (engine 3: the
 * mover waits in the square it was leaving, 5,6, until the goblin answers); declined, the move
 * goes on to its end. The walk is 25 ft (two diagonals, the second counting 10: 001's 1-2-1). */
Test(encounter_explain, a_paused_move_says_where_the_mover_waits_and_goes_on)
{
    struct enc e;
    ambush(&e, "ask", "never", 20);
    char *md = told(&e, "POST", "/actions", WALK "}", 200,
                    "Kroh sets out to move 25 ft to (5, 9), provoking attacks of opportunity from "
                    "goblin and orc. The encounter awaits goblin's reaction at (5, 6). orc lets it "
                    "pass. Kroh waits at (5, 6), the square it was leaving, until the reactions to "
                    "its move are settled.");
    cr_assert(strstr(md, "from `goblin` and `orc`. The encounter awaits `goblin`'s reaction") !=
                  NULL,
              "%s", md);
    free(md);
    /* The state says what it awaits, and where the mover waits. */
    json_t *doc = suite_call(&e, "GET", "/state", NULL, 200);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")),
                     "Round 2: Kroh's turn. The encounter awaits goblin's reaction to Kroh's move "
                     "at (5, 6). Kroh waits at (5, 6) until the reactions to its move are "
                     "settled.");
    json_decref(doc);
    say(&e, "POST", "/actions",
        "{\"type\":\"decline_reaction\",\"actor\":\"goblin\",\"target\":\"kroh\"}", 200,
        "goblin declines its attack of opportunity on Kroh at (5, 6). Kroh's move goes on to (5, "
        "9).");
}

/* The paused move answered with a hit (19 + 2 = 21 against AC 16): one that does not drop him
 * (1d6 = 3, 20 - 3 = 17) lets the move go on; one that does (at 2 hp, 1d6 = 6: -4, dying; d20
 * 3.5 SRD, Dying: "can take no actions") stops it in the square he was leaving. */
Test(encounter_explain, an_answered_reaction_says_whether_the_paused_move_goes_on)
{
    static const struct {
        int hp;
        const char *results, *said;
    } cases[] = {
        {20, "[19,3]",
         "goblin's attack of opportunity hits Kroh: 1d20 (19) + 2 = 21 vs AC 16. 3 damage (1d6 = "
         "3); Kroh is at 17 hp. Kroh's move goes on to (5, 9)."},
        {2, "[19,6]",
         "goblin's attack of opportunity hits Kroh: 1d20 (19) + 2 = 21 vs AC 16. 6 damage (1d6 = "
         "6); Kroh is at -4 hp, dying. Kroh drops at (5, 6): the move stops there."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct enc e;
        ambush(&e, "ask", "never", cases[i].hp);
        enc_post_ok(&srv, &e, "/actions", WALK "}");
        char body[200];
        snprintf(body, sizeof body, TB_AOO("goblin", "kroh", "%s"), cases[i].results);
        say(&e, "POST", "/actions", body, 200, cases[i].said);
    }
}

/* The engine's own attack of opportunity (policy always) drops him on the way: the move does
 * not read as if it arrived; the orc's, at a later step, never comes. */
Test(encounter_explain, a_move_stopped_by_a_drop_does_not_read_as_arrived)
{
    struct enc e;
    ambush(&e, "always", "ask", 2);
    say(&e, "POST", "/actions", WALK ",\"reaction_results\":{\"goblin\":[19,6]}}", 200,
        "Kroh sets out to move 25 ft to (5, 9), provoking attacks of opportunity from goblin and "
        "orc. goblin's attack of opportunity hits Kroh: 1d20 (19) + 2 = 21 vs AC 16. 6 damage (1d6 "
        "= "
        "6); Kroh is at -4 hp, dying. Kroh drops at (5, 6): the move stops there. orc's attack of "
        "opportunity at (4, 8) never comes: the mover did not get there.");
}

/* Issue 31: a combatant with no name is its id, as written, in every sentence: never "Kroh" at
 * a sentence's start and "kroh" in "kroh's turn"; in markdown as code. */
Test(encounter_explain, a_nameless_combatant_is_its_id_everywhere)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    char *md = told(&e, "POST", "/combatants",
                    "{\"id\":\"kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{\"walk\":30},"
                    "\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":14,\"attacks\":[{\"name\":"
                    "\"rapier\",\"attack_bonus\":9,\"damage\":\"1d8+3\"}]}",
                    201, "kroh joins the party side at (5, 5) with 20 hp.");
    cr_assert_str_eq(md, "`kroh` joins the party side at (5, 5) with **20** hp.");
    free(md);
    say(&e, "POST", "/initiative", "{\"results\":[14,1]}", 200,
        "Initiative: kroh 16 (1d20 (14) + 2). kroh goes first.");
    md = told(&e, "POST", "/next-turn", NULL, 200, "Round 1: kroh's turn.");
    cr_assert_str_eq(md, "Round 1: `kroh`'s turn.");
    free(md);
}

/* A damage roll's dice in markdown, Avrae style (rules/dice text): a die keep/drop dropped
 * struck through, a 1 or the die's top face bold, a term subtracted with its sign; the plain
 * text gives the expression and each part's total. 4d6kh3 keeps 6, 4 and 2 of 6, 1, 4, 2; 2d6-1d4
 * deals 5 + 3 - 4 + 2. */
Test(encounter_explain, kept_dropped_and_subtracted_damage_dice)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":8,\"height\":8}}");
    say(&e, "POST", "/combatants",
        "{\"id\":\"k\",\"side\":\"party\",\"x\":3,\"y\":3,\"speeds\":{\"walk\":30},\"defense\":{"
        "\"armor\":1},\"max_hp\":40,\"attacks\":[{\"name\":\"kd\",\"attack_bonus\":5,\"damage\":"
        "\"4d6kh3+1\"},{\"name\":\"mix\",\"attack_bonus\":5,\"damage\":\"2d6-1d4+2\"}]}",
        201, "k joins the party side at (3, 3) with 40 hp.");
    say(&e, "POST", "/combatants",
        "{\"id\":\"z\",\"side\":\"monsters\",\"x\":4,\"y\":3,\"speeds\":{\"walk\":30},"
        "\"defense\":{\"armor\":0},\"max_hp\":40}",
        201, "z joins the monsters side at (4, 3) with 40 hp.");
    char *md = told(&e, "POST", "/actions",
                    "{\"type\":\"attack\",\"actor\":\"k\",\"target\":\"z\",\"attack\":\"kd\","
                    "\"results\":[15,6,1,4,2]}",
                    200,
                    "k hits z: 1d20 (15) + 5 = 20 vs AC 10. 13 damage (4d6kh3+1 = 13); z is at "
                    "27 hp.");
    cr_assert_str_eq(md, "`k` hits `z`: 1d20 (15) + 5 = **20** vs AC 10. **13** damage (4d6 "
                         "(**6**, ~~**1**~~, 4, 2) + 1 = 13); `z` is at **27** hp.");
    free(md);
    /* The subtracted term with its sign, and the sum counting it as subtracted: 5 + 3 - 4 + 2
     * = 6 (a term's stored total is signed; an earlier build subtracted it twice, "= 14"). */
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"attack\",\"actor\":\"k\",\"target\":\"z\","
                             "\"attack\":\"mix\",\"results\":[12,5,3,4]}",
                             200);
    json_t *ev = json_object_get(doc, "event");
    const char *m = json_string_value(json_object_get(ev, "explain_markdown"));
    const char *p = json_string_value(json_object_get(ev, "explain"));
    cr_assert_not_null(m);
    cr_assert_not_null(p);
    cr_assert_not_null(strstr(m, "**6** damage (2d6 (5, 3) - 1d4 (**4**) + 2 = 6)"), "%s", m);
    cr_assert_not_null(strstr(p, "6 damage (2d6-1d4+2 = 6)"), "%s", p);
    json_decref(doc);
}
