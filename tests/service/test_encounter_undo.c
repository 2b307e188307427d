/* POST /v1/encounters/{id}/undo (issue 31): an event that takes back the last one still
 * standing, in an append-only log that verify, export and import understand; the dice an undone
 * event used are never rolled again. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_undo);

static const char *const fighter = TB_FIGHTER(5, 5, ",\"facing\":6");
static const char *const goblin = TB_GOBLIN(2, 5, "");
static const char *const goblin_moves =
    "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"move\",\"path\":[{\"x\":3,\"y\":5},{\"x\":"
    "4,\"y\":5}]}";

/* Events 1-5: created, two combatants, initiative (the goblin first), the goblin's turn. */
static void ambush(struct enc *e)
{
    enc_create(&srv, e, "{\"map\":{\"width\":10,\"height\":10},\"seed\":42}");
    json_decref(enc_call(&srv, e, "POST", "/combatants", NULL, fighter, 201));
    json_decref(enc_call(&srv, e, "POST", "/combatants", NULL, goblin, 201));
    json_decref(enc_call(&srv, e, "POST", "/initiative", NULL, "{\"results\":[14,1,14,2]}", 200));
    json_decref(enc_call(&srv, e, "POST", "/next-turn", NULL, NULL, 200));
}

static json_t *state_at(struct enc *e, int at)
{
    char q[32];
    snprintf(q, sizeof q, "/state?at=%d", at);
    json_t *doc = enc_call(&srv, e, "GET", q, NULL, NULL, 200);
    json_t *st = json_incref(json_object_get(doc, "state"));
    json_decref(doc);
    json_object_del(st, "turn_of");
    return st;
}

static json_t *undo(struct enc *e, long long undone, const char *kind)
{
    json_t *doc = enc_call(&srv, e, "POST", "/undo", NULL, NULL, 200);
    json_t *ev = json_object_get(doc, "event");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "kind")), "undone");
    json_t *result = json_object_get(ev, "result");
    cr_assert_eq(json_integer_value(json_object_get(result, "undone")), undone);
    cr_assert_str_eq(json_string_value(json_object_get(result, "kind")), kind);
    return doc;
}

static void verify_ok(struct enc *e, long long events)
{
    json_t *doc = enc_call(&srv, e, "POST", "/verify", NULL, NULL, 200);
    cr_assert(json_is_true(json_object_get(doc, "ok")), "%s", json_dumps(doc, 0));
    cr_assert_eq(json_integer_value(json_object_get(doc, "events_checked")), events);
    json_decref(doc);
}

Test(encounter_undo, takes_back_the_last_event_and_successive_undos_walk_back)
{
    struct enc e;
    ambush(&e);
    json_decref(enc_call(&srv, &e, "POST", "/actions", NULL, goblin_moves, 200)); /* 6 */
    json_t *doc = undo(&e, 6, "action");                                          /* 7 */
    cr_assert_eq(e.version, 7);
    json_t *st = json_object_get(doc, "state");
    json_object_del(st, "turn_of");
    json_t *five = state_at(&e, 5);
    cr_assert(json_equal(st, five), "the undo restores the state before the move");
    cr_assert_eq(json_integer_value(json_object_get(enc_combatant(st, "goblin"), "x")), 2);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(json_object_get(doc, "event"), "explain")),
               "taken back"));
    json_decref(doc);
    /* A second undo takes back the event before the one the first took back: the next turn. */
    doc = undo(&e, 5, "next_turn"); /* 8 */
    json_t *four = state_at(&e, 4);
    st = json_object_get(doc, "state");
    json_object_del(st, "turn_of");
    cr_assert(json_equal(st, four));
    json_decref(doc);
    /* The log is append-only: every event is still there, the undos after them. */
    doc = enc_call(&srv, &e, "GET", "/events", NULL, NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(doc, "events")), 8);
    json_decref(doc);
    /* Play goes on from there, and a later undo skips what was taken back already. */
    json_decref(enc_call(&srv, &e, "POST", "/next-turn", NULL, NULL, 200));       /* 9 */
    json_decref(enc_call(&srv, &e, "POST", "/actions", NULL, goblin_moves, 200)); /* 10 */
    json_decref(undo(&e, 10, "action"));                                          /* 11 */
    json_decref(undo(&e, 9, "next_turn"));                                        /* 12 */
    json_decref(undo(&e, 4, "initiative"));                                       /* 13 */
    json_t *three = state_at(&e, 3);
    json_t *now = state_at(&e, 13);
    cr_assert(json_equal(now, three));
    verify_ok(&e, 13);
    json_decref(three);
    json_decref(now);
    json_decref(four);
    json_decref(five);
}

Test(encounter_undo, nothing_before_creation_and_nothing_after_a_reveal)
{
    struct enc e;
    enc_create(&srv, &e, "{\"map\":{\"width\":10,\"height\":10}}");
    json_t *doc = enc_call(&srv, &e, "POST", "/undo", NULL, NULL, 422);
    cr_assert_not_null(
        strstr(json_string_value(json_object_get(doc, "detail")), "nothing to undo"));
    json_decref(doc);
    json_decref(enc_call(&srv, &e, "POST", "/combatants", NULL, fighter, 201));
    json_decref(undo(&e, 2, "combatant_added"));
    json_decref(enc_call(&srv, &e, "POST", "/undo", NULL, NULL, 422)); /* only creation left */
    json_decref(enc_call(&srv, &e, "POST", "/reveal", NULL, NULL, 200));
    doc = enc_call(&srv, &e, "POST", "/undo", NULL, NULL, 422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "revealed"));
    json_decref(doc);
    /* No token, no undo. */
    struct http_response r;
    char path[128];
    snprintf(path, sizeof path, "/v1/encounters/%s/undo", e.id);
    http_request(&srv, "POST", path, "If-Match: \"v4\"\r\n", NULL, &r);
    cr_assert_eq(r.status, 401);
    http_response_free(&r);
}

/* The attack after an undo is ruled with its own event's dice: the seed it rolls with is
 * another than the undone attack's, and verify re-rules both from their own numbers. */
Test(encounter_undo, the_dice_of_an_undone_event_are_never_rolled_again)
{
    struct enc e;
    ambush(&e);
    json_decref(enc_call(&srv, &e, "POST", "/actions", NULL, goblin_moves, 200)); /* 6 */
    const char *attack = "{\"type\":\"attack\",\"actor\":\"goblin\",\"target\":\"fighter\"}";
    json_t *first = enc_call(&srv, &e, "POST", "/actions", NULL, attack, 200); /* 7 */
    json_decref(undo(&e, 7, "action"));                                        /* 8 */
    json_t *again = enc_call(&srv, &e, "POST", "/actions", NULL, attack, 200); /* 9 */
    json_t *r1 = json_object_get(json_object_get(first, "event"), "result");
    json_t *r2 = json_object_get(json_object_get(again, "event"), "result");
    json_t *s1 = json_object_get(r1, "seed"), *s2 = json_object_get(r2, "seed");
    cr_assert(json_is_integer(s1) && json_is_integer(s2), "%s", json_dumps(r1, 0));
    cr_assert_neq(json_integer_value(s1), json_integer_value(s2));
    verify_ok(&e, 9);
    json_decref(first);
    json_decref(again);
}

/* Export and import carry undos; an import whose undo restores another state than the log
 * before it gives, or names another event, is refused. A reader without the token sees the
 * undo's state without the seed, as it sees the created event's. */
Test(encounter_undo, import_accepts_a_log_with_undos_and_refuses_a_forged_one)
{
    struct enc e;
    ambush(&e);
    json_decref(enc_call(&srv, &e, "POST", "/actions", NULL, goblin_moves, 200)); /* 6 */
    json_decref(undo(&e, 6, "action"));                                           /* 7 */
    json_decref(undo(&e, 5, "next_turn"));                                        /* 8 */
    json_decref(enc_call(&srv, &e, "POST", "/next-turn", NULL, NULL, 200));       /* 9 */
    json_t *exported = enc_call(&srv, &e, "GET", "/export", NULL, NULL, 200);
    struct enc copy;
    enc_import(&srv, &copy, exported);
    verify_ok(&copy, 10); /* the copy adds its own last event, imported */

    /* Forged: the first undo gives the goblin back more hit points than it had. */
    json_t *forged = json_deep_copy(exported);
    json_t *ev = json_array_get(json_object_get(forged, "events"), 6);
    json_t *st = json_object_get(
        json_array_get(json_object_get(json_object_get(ev, "payload"), "effects"), 0), "state");
    json_t *gob = enc_combatant(st, "goblin");
    cr_assert_not_null(gob);
    json_object_set_new(gob, "hp", json_integer(60));
    char *text = json_dumps(forged, 0);
    json_t *doc = http_post_json(&srv, "/v1/encounters/import", text, 422);
    free(text);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "/events/6"), "%s",
                       json_dumps(doc, 0));
    json_decref(doc);
    json_decref(forged);
    /* Forged: the second undo claims to take back the move again. */
    forged = json_deep_copy(exported);
    ev = json_array_get(json_object_get(forged, "events"), 7);
    json_object_set_new(json_object_get(json_object_get(ev, "payload"), "result"), "undone",
                        json_integer(6));
    text = json_dumps(forged, 0);
    doc = http_post_json(&srv, "/v1/encounters/import", text, 422);
    free(text);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "/events/7"));
    json_decref(doc);
    json_decref(forged);
    json_decref(exported);

    struct http_response r;
    char path[128];
    snprintf(path, sizeof path, "/v1/encounters/%s/events", e.id);
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *events = json_loads(r.body, 0, NULL);
    json_t *undo7 = json_array_get(json_object_get(events, "events"), 6);
    json_t *st7 = json_object_get(
        json_array_get(json_object_get(json_object_get(undo7, "payload"), "effects"), 0), "state");
    cr_assert(json_is_object(st7));
    cr_assert_null(json_object_get(st7, "seed"));
    cr_assert_null(json_object_get(st7, "seed_salt"));
    cr_assert_not_null(json_object_get(st7, "seed_commitment"));
    json_decref(events);
    http_response_free(&r);
}
