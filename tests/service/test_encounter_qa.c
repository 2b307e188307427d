/* Encounter bugs QA found: a side larger than the stateless rulings' bounds, attack profiles
 * without a threat range, refusals whose pointer named the wrong member, field errors hidden
 * behind the turn's budget, and inputs accepted that name nothing sensible. Each test plays
 * the body QA sent and expects the answer the contract and the rules give. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

SERVER_TEST_SUITE(qa);

static long long num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *text(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_t *call(struct enc *e, const char *method, const char *suffix, const char *body,
                    int status)
{
    return enc_call(&srv, e, method, suffix, NULL, body, status);
}

static void verifies(struct enc *e)
{
    json_t *v = call(e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")), "%s", json_dumps(v, 0));
    json_decref(v);
}

/* ---- 1. a side larger than 256 ---- */

#define HORDE 260

/* A 40x40 map: the hero at 20,20; m0, m1 and m2 at 19,20, 21,20 and 20,19, adjacent to it;
 * the other monsters in rows 0 to 6, far away. Every monster takes its attacks of opportunity
 * (aoo_policy always). No initiative: anyone may act, and nobody is flat-footed. */
static void horde(struct enc *e)
{
    json_t *list = json_array();
    json_array_append_new(
        list, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}, s:{s:i}, s:i, s:i, s:[{s:s, s:i, s:s}]}",
                        "id", "hero", "side", "party", "x", 20, "y", 20, "speeds", "walk", 30,
                        "defense", "armor", 5, "max_hp", 500, "dex", 10, "attacks", "name", "sword",
                        "attack_bonus", 5, "damage", "1d8"));
    static const int near[3][2] = {{19, 20}, {21, 20}, {20, 19}};
    for (int i = 0; i < HORDE; i++) {
        char id[16];
        snprintf(id, sizeof id, "m%d", i);
        int x = i < 3 ? near[i][0] : (i - 3) % 40, y = i < 3 ? near[i][1] : (i - 3) / 40;
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}, s:{s:i}, s:i, s:i, s:s, "
                            "s:[{s:s, s:i, s:s}]}",
                            "id", id, "side", "monsters", "x", x, "y", y, "speeds", "walk", 30,
                            "defense", "armor", 2, "max_hp", 6, "dex", 10, "aoo_policy", "always",
                            "attacks", "name", "claw", "attack_bonus", 2, "damage", "1d4"));
    }
    json_t *body = json_pack("{s:{s:i, s:i}, s:i, s:o}", "map", "width", 40, "height", 40, "seed",
                             7, "combatants", list);
    char *t = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    enc_create(&srv, e, t);
    free(t);
}

/* MAX_COMBATANTS is 500, so a side may hold 259 allies of an attacker; the attack, its odds,
 * the flanking query and the attacks of opportunity of a provoking move must all be ruled. */
Test(qa, a_side_of_more_than_256_is_ruled_everywhere, .timeout = 120)
{
    struct enc e;
    horde(&e);
    json_t *doc = call(&e, "POST", "/actions",
                       "{\"type\":\"attack\",\"actor\":\"m0\",\"target\":\"hero\",\"results\":[15,"
                       "3]}",
                       200);
    json_t *r = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert_eq(num(r, "d20"), 15);
    json_decref(doc);
    doc = call(&e, "GET", "/odds?actor=m1&target=hero", NULL, 200);
    cr_assert_not_null(json_object_get(doc, "hit"), "%s", json_dumps(doc, 0));
    json_decref(doc);
    doc = call(&e, "GET", "/flanking?target=hero", NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(doc, "attackers")), HORDE);
    json_decref(doc);
    /* The hero walks south: leaving 20,21, which m0 and m1 threaten, provokes both (004
     * Provoking an Attack of Opportunity by Moving; the square it starts in is safe under the
     * preset's start_square), and both take their attacks (always). */
    doc = call(&e, "POST", "/actions",
               "{\"type\":\"move\",\"actor\":\"hero\",\"path\":[{\"x\":20,\"y\":21},{\"x\":20,"
               "\"y\":22}]}",
               200);
    json_t *list =
        json_object_get(json_object_get(json_object_get(doc, "event"), "result"), "reactions");
    cr_assert_eq(json_array_size(list), 2);
    size_t i;
    json_t *one;
    json_array_foreach(list, i, one)
    {
        cr_assert_str_eq(text(one, "by"), i == 0 ? "m0" : "m1");
        cr_assert_str_eq(text(one, "outcome"), "made");
        cr_assert_not_null(json_object_get(json_object_get(one, "attack"), "d20"));
    }
    json_decref(doc);
    verifies(&e);
}
