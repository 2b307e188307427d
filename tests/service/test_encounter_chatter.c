/* Less chatter (issue 18): create with combatants and initiative in one call, Prefer:
 * return=minimal on writes, the list with names, rounds and whose turn it is, paged by URL,
 * and turn_of, the combatant whose turn it is, in every state served. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(chatter);

static json_t *call(struct enc *e, const char *method, const char *suffix, const char *extra,
                    const char *body, int status)
{
    return enc_call(&srv, e, method, suffix, extra, body, status);
}

#define FIGHTER TB_FIGHTER(5, 5, ",\"facing\":6,\"name\":\"Kroh\"")
#define GOBLIN  TB_GOBLIN(2, 5, "")
/* 004 Initiative Check: a d20 and a coin each, in the order combatants were added. The goblin
 * (d20 14 + Dex 13's +1 = 15) and the fighter (14 + 1 = 15) tie; the higher Dexterity, the
 * goblin's 13, goes first. */
#define INITIATIVE "{\"results\":[14,1,14,2]}"
#define MAP        "\"map\":{\"width\":10,\"height\":10}"

/* A state without what differs between two encounters made alike: the seed's salt, drawn at
 * random, and the commitment made with it. */
static json_t *comparable(json_t *state)
{
    json_t *c = json_deep_copy(state);
    json_object_del(c, "seed_salt");
    json_object_del(c, "seed_commitment");
    return c;
}

/* One call logs the separate calls' events: created (its input without the combatants),
 * combatant_added twice, initiative, with the same dice; verify, state?at, the event log,
 * export and import read it as they read the other. */
Test(chatter, create_with_combatants_logs_what_the_separate_calls_would)
{
    struct enc one, apart;
    json_t *made =
        http_post_json(&srv, "/v1/encounters",
                       "{\"name\":\"Ambush\"," MAP ",\"seed\":42,\"combatants\":[" FIGHTER
                       "," GOBLIN "],\"initiative\":" INITIATIVE "}",
                       201);
    cr_assert_eq(tb_num(made, "version"), 4);
    snprintf(one.id, sizeof one.id, "%s", tb_text(made, "id"));
    snprintf(one.token, sizeof one.token, "%s", tb_text(made, "token"));
    one.version = 4;
    json_t *events = json_object_get(made, "events");
    cr_assert_eq(json_array_size(events), 3);
    json_t *init = json_array_get(events, 2);
    cr_assert_eq(tb_num(init, "seq"), 4);
    cr_assert_str_eq(tb_text(init, "kind"), "initiative");
    cr_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(json_object_get(init, "result"), "order"), 0)),
                     "goblin");
    cr_assert_str_eq(
        tb_text(init, "explain"),
        "Initiative: goblin 15 (1d20 (14) + 1), Kroh 15 (1d20 (14) + 1). goblin goes first.");
    cr_assert_str_eq(tb_text(json_array_get(events, 0), "explain"),
                     "Kroh joins the party side at (5, 5) with 20 hp.");

    enc_create(&srv, &apart, "{\"name\":\"Ambush\"," MAP ",\"seed\":42}");
    json_decref(call(&apart, "POST", "/combatants", NULL, FIGHTER, 201));
    json_decref(call(&apart, "POST", "/combatants", NULL, GOBLIN, 201));
    json_t *last = call(&apart, "POST", "/initiative", NULL, INITIATIVE, 200);
    json_t *a = comparable(json_object_get(made, "state")),
           *b = comparable(json_object_get(last, "state"));
    cr_assert(json_equal(a, b), "%s\n%s", json_dumps(a, 0), json_dumps(b, 0));
    json_decref(a);
    json_decref(b);
    json_decref(last);

    /* The logs hold the same events, the created one without combatants or initiative. */
    json_t *l1 = call(&one, "GET", "/events", NULL, NULL, 200);
    json_t *l2 = call(&apart, "GET", "/events", NULL, NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(l1, "events")), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *e1 = json_array_get(json_object_get(l1, "events"), i);
        json_t *e2 = json_array_get(json_object_get(l2, "events"), i);
        cr_assert_str_eq(tb_text(e1, "kind"), tb_text(e2, "kind"));
        cr_assert_str_eq(tb_text(e1, "explain"), tb_text(e2, "explain"));
        json_t *p1 = json_object_get(e1, "payload"), *p2 = json_object_get(e2, "payload");
        cr_assert(json_equal(json_object_get(p1, "input"), json_object_get(p2, "input")), "%zu", i);
        if (i > 0)
            cr_assert(json_equal(p1, p2), "%zu", i);
    }
    json_decref(l1);
    json_decref(l2);

    json_t *v = call(&one, "POST", "/verify", NULL, NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")));
    cr_assert_eq(tb_num(v, "events_checked"), 4);
    json_decref(v);
    json_t *at = call(&one, "GET", "/state?at=2", NULL, NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(json_object_get(at, "state"), "combatants")), 1);
    json_decref(at);
    json_t *exported = call(&one, "GET", "/export", NULL, NULL, 200);
    char *text = json_dumps(exported, JSON_COMPACT);
    json_t *imported = http_post_json(&srv, "/v1/encounters/import", text, 201);
    cr_assert_eq(tb_num(imported, "version"), 5); /* the 4 events and the copy's own */
    free(text);
    json_decref(imported);
    json_decref(exported);
    /* And play goes on from it: the goblin's turn. */
    json_t *next = call(&one, "POST", "/next-turn", NULL, NULL, 200);
    cr_assert_eq(tb_num(next, "version"), 5);
    cr_assert_str_eq(tb_text(json_object_get(next, "state"), "turn_of"), "goblin");
    json_decref(next);
    json_decref(made);
}

/* Each combatant is checked as POST .../combatants checks it, its errors under
 * /combatants/N; the initiative as POST .../initiative, under /initiative; nothing is stored. */
Test(chatter, create_with_combatants_names_each_bad_field)
{
    char headers[256];
    struct http_response r;
    http_request(&srv, "POST", "/v1/encounters",
                 tb_json_as(headers, sizeof headers, "0123456789abcdef0123456789abcdef"),
                 "{" MAP ",\"combatants\":[" FIGHTER ",{\"id\":\"fighter\",\"side\":\"party\","
                 "\"x\":99,\"y\":1,\"speeds\":{\"walk\":30},\"defense\":{},\"max_hp\":5,"
                 "\"dex\":10},3]}",
                 &r);
    cr_assert_eq(r.status, 422);
    json_t *doc = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    char *all = json_dumps(json_object_get(doc, "errors"), 0);
    cr_assert_not_null(strstr(all, "\"/combatants/1/id\""), "%s", all);
    cr_assert_not_null(strstr(all, "\"/combatants/2\""), "%s", all);
    cr_assert_null(strstr(all, "\"/combatants/0"), "%s", all);
    free(all);
    json_decref(doc);
    http_request(&srv, "POST", "/v1/encounters", headers,
                 "{" MAP ",\"combatants\":[" FIGHTER "],\"initiative\":{\"aware\":[\"nobody\"]}}",
                 &r);
    cr_assert_eq(r.status, 422);
    doc = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(doc, "errors"), 0), "pointer"),
                     "/initiative/aware/0");
    json_decref(doc);
    http_request(&srv, "POST", "/v1/encounters", headers,
                 "{" MAP ",\"combatants\":{},\"initiative\":[]}", &r);
    cr_assert_eq(r.status, 422);
    cr_assert_not_null(strstr(r.body, "\"/combatants\""));
    cr_assert_not_null(strstr(r.body, "\"/initiative\""));
    http_response_free(&r);
    /* Initiative with nobody to roll for is refused as POST .../initiative refuses it. */
    http_request(&srv, "POST", "/v1/encounters", headers, "{" MAP ",\"initiative\":{}}", &r);
    cr_assert_eq(r.status, 422);
    cr_assert_not_null(strstr(r.body, "add combatants first"));
    http_response_free(&r);
    http_request(&srv, "GET", "/v1/encounters", TB_BEARER("0123456789abcdef0123456789abcdef"), NULL,
                 &r);
    cr_assert_eq(r.status, 200);
    cr_assert_not_null(strstr(r.body, "\"encounters\":[]"), "%s", r.body);
    http_response_free(&r);
}

/* A create with combatants retried with its key gets its first answer, events included, and
 * stores nothing more; a retry asking return=minimal gets it without the state. */
Test(chatter, an_idempotent_create_with_combatants_replays)
{
    const char *h = "Content-Type: application/json\r\nAuthorization: Bearer "
                    "0123456789abcdef0123456789abcdef\r\nIdempotency-Key: fight-1\r\n";
    const char *body =
        "{" MAP ",\"seed\":7,\"combatants\":[" FIGHTER "," GOBLIN "],\"initiative\":{}}";
    struct http_response first, again, small;
    http_request(&srv, "POST", "/v1/encounters", h, body, &first);
    cr_assert_eq(first.status, 201);
    http_request(&srv, "POST", "/v1/encounters", h, body, &again);
    cr_assert_eq(again.status, 201);
    char buf[64];
    cr_assert(http_header(&again, "Idempotent-Replayed", buf, sizeof buf));
    json_t *a = json_loads(first.body, 0, NULL), *b = json_loads(again.body, 0, NULL);
    cr_assert(json_equal(a, b), "%s\n%s", first.body, again.body);
    char minimal[256];
    snprintf(minimal, sizeof minimal, "%sPrefer: return=minimal\r\n", h);
    http_request(&srv, "POST", "/v1/encounters", minimal, body, &small);
    cr_assert_eq(small.status, 201);
    cr_assert(http_header(&small, "Preference-Applied", buf, sizeof buf));
    cr_assert_str_eq(buf, "return=minimal");
    json_t *c = json_loads(small.body, 0, NULL);
    cr_assert_null(json_object_get(c, "state"));
    cr_assert(json_equal(json_object_get(c, "events"), json_object_get(a, "events")));
    cr_assert_eq(tb_num(c, "version"), 4);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    http_response_free(&first);
    http_response_free(&again);
    http_response_free(&small);
    http_request(&srv, "GET", "/v1/encounters", TB_BEARER("0123456789abcdef0123456789abcdef"), NULL,
                 &first);
    json_t *list = json_loads(first.body, 0, NULL);
    cr_assert_eq(json_array_size(json_object_get(list, "encounters")), 1);
    json_decref(list);
    http_response_free(&first);
}

/* RFC 7240: return=minimal answers the event and the new version (ETag) without the state,
 * and says so in Preference-Applied; among other preferences, in any case, quoted or not.
 * Without it, or with return=representation, the whole state as before. */
Test(chatter, prefer_return_minimal_answers_the_event_without_the_state)
{
    struct enc e;
    enc_create(&srv, &e,
               "{" MAP ",\"seed\":3,\"combatants\":[" FIGHTER "," GOBLIN "],\"initiative\":"
               "" INITIATIVE "}");
    cr_assert_eq(e.version, 4);
    const char *asks[] = {"Prefer: return=minimal\r\n", "Prefer: respond-async, return=minimal\r\n",
                          "Prefer: RETURN = \"minimal\"; x=1\r\n"};
    for (size_t i = 0; i < 3; i++) {
        char path[128], headers[320];
        snprintf(path, sizeof path, "/v1/encounters/%s/hp", e.id);
        tb_write_headers(headers, sizeof headers, &e, e.version, asks[i]);
        struct http_response r;
        http_request(&srv, "POST", path, headers, "{\"target\":\"goblin\",\"change\":-1}", &r);
        cr_assert_eq(r.status, 200, "%s", r.body);
        char buf[64];
        cr_assert(http_header(&r, "Preference-Applied", buf, sizeof buf), "%s", asks[i]);
        cr_assert_str_eq(buf, "return=minimal");
        cr_assert(http_header(&r, "ETag", buf, sizeof buf));
        char etag[32];
        snprintf(etag, sizeof etag, "\"v%lld\"", e.version + 1);
        cr_assert_str_eq(buf, etag);
        json_t *doc = json_loads(r.body, 0, NULL);
        cr_assert_null(json_object_get(doc, "state"));
        cr_assert_eq(tb_num(doc, "version"), e.version + 1);
        json_t *ev = json_object_get(doc, "event");
        cr_assert_eq(tb_num(ev, "seq"), e.version + 1);
        cr_assert_str_eq(tb_text(ev, "kind"), "hp");
        cr_assert_eq(tb_num(json_object_get(ev, "result"), "hp"), 5 - (long long)i);
        cr_assert_neq(tb_text(ev, "explain")[0], '\0');
        cr_assert_neq(tb_text(ev, "explain_markdown")[0], '\0');
        json_decref(doc);
        http_response_free(&r);
        e.version++;
    }
    json_t *full = call(&e, "POST", "/hp", "Prefer: return=representation\r\n",
                        "{\"target\":\"goblin\",\"change\":-1}", 200);
    cr_assert_eq(tb_num(enc_combatant(full, "goblin"), "hp"), 2);
    json_decref(full);
}

/* A retry of a write with its key honours the retry's own preference. */
Test(chatter, a_replayed_write_honours_return_minimal)
{
    struct enc e;
    enc_create(&srv, &e, "{" MAP ",\"combatants\":[" FIGHTER "]}");
    char headers[320];
    tb_write_headers(headers, sizeof headers, &e, 2, "Idempotency-Key: add-goblin\r\n");
    struct http_response first, again;
    tb_enc_request(&srv, &e, "POST", "/combatants", headers, GOBLIN, 201, &first);
    cr_assert_not_null(strstr(first.body, "\"state\""));
    strcat(headers, "Prefer: return=minimal\r\n");
    tb_enc_request(&srv, &e, "POST", "/combatants", headers, GOBLIN, 201, &again);
    char buf[64];
    cr_assert(http_header(&again, "Idempotent-Replayed", buf, sizeof buf));
    cr_assert(http_header(&again, "Preference-Applied", buf, sizeof buf));
    json_t *a = json_loads(first.body, 0, NULL), *b = json_loads(again.body, 0, NULL);
    cr_assert_null(json_object_get(b, "state"));
    cr_assert(json_equal(json_object_get(a, "event"), json_object_get(b, "event")));
    cr_assert_eq(tb_num(b, "version"), 3);
    json_decref(a);
    json_decref(b);
    http_response_free(&first);
    http_response_free(&again);
}

/* The list: each encounter's name, round, whose turn it is (id and name), combatants and
 * version; pages follow `next`, a URL, with next_after kept beside it. */
Test(chatter, the_list_shows_names_rounds_turns_and_pages_by_url)
{
    const char *auth = TB_BEARER("0123456789abcdef0123456789abcdefXY");
    char h[256];
    struct http_response r;
    http_request(&srv, "POST", "/v1/encounters",
                 tb_json_as(h, sizeof h, "0123456789abcdef0123456789abcdefXY"),
                 "{\"name\":\"Ambush\"," MAP ",\"combatants\":[" FIGHTER "," GOBLIN
                 "],\"initiative\":" INITIATIVE "}",
                 &r);
    cr_assert_eq(r.status, 201);
    json_t *made = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    struct enc e = {.version = 4};
    snprintf(e.id, sizeof e.id, "%s", tb_text(made, "id"));
    snprintf(e.token, sizeof e.token, "0123456789abcdef0123456789abcdefXY");
    json_decref(made);
    json_decref(call(&e, "POST", "/next-turn", NULL, NULL, 200)); /* the goblin's */
    json_decref(call(&e, "POST", "/next-turn", NULL, NULL, 200)); /* Kroh's */
    http_request(&srv, "POST", "/v1/encounters", h, "{\"name\":\"Empty hall\"," MAP "}", &r);
    cr_assert_eq(r.status, 201);
    http_response_free(&r);

    http_request(&srv, "GET", "/v1/encounters?limit=1", auth, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *page = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    json_t *list = json_object_get(page, "encounters");
    cr_assert_eq(json_array_size(list), 1);
    const char *first = tb_text(json_array_get(list, 0), "id");
    char next[160];
    snprintf(next, sizeof next, "/v1/encounters?limit=1&after=%s", first);
    cr_assert_str_eq(tb_text(page, "next"), next);
    cr_assert_str_eq(tb_text(page, "next_after"), first);
    http_request(&srv, "GET", next, auth, NULL, &r);
    cr_assert_eq(r.status, 200);
    json_t *page2 = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    cr_assert(json_is_null(json_object_get(page2, "next")));
    cr_assert(json_is_null(json_object_get(page2, "next_after")));
    json_t *both[2] = {json_array_get(list, 0),
                       json_array_get(json_object_get(page2, "encounters"), 0)};
    json_t *fight = strcmp(tb_text(both[0], "id"), e.id) == 0 ? both[0] : both[1];
    json_t *hall = fight == both[0] ? both[1] : both[0];
    cr_assert_str_eq(tb_text(fight, "name"), "Ambush");
    cr_assert_eq(tb_num(fight, "round"), 1);
    cr_assert_eq(tb_num(fight, "combatants"), 2);
    cr_assert_eq(tb_num(fight, "version"), 6);
    cr_assert_str_eq(tb_text(json_object_get(fight, "turn_of"), "id"), "fighter");
    cr_assert_str_eq(tb_text(json_object_get(fight, "turn_of"), "name"), "Kroh");
    cr_assert_str_eq(tb_text(hall, "name"), "Empty hall");
    cr_assert_eq(tb_num(hall, "round"), 0);
    cr_assert_eq(tb_num(hall, "combatants"), 0);
    cr_assert(json_is_null(json_object_get(hall, "turn_of")));
    json_decref(page);
    json_decref(page2);
}

/* turn_of is the id at order[turn] in every state served (write answers, the encounter, the
 * state after any event), null before the first turn; turn stays the index. */
Test(chatter, every_served_state_names_whose_turn_it_is)
{
    struct enc e;
    enc_create(&srv, &e,
               "{" MAP ",\"combatants\":[" FIGHTER "," GOBLIN "],\"initiative\":" INITIATIVE "}");
    json_t *doc = call(&e, "GET", "", NULL, NULL, 200);
    cr_assert(json_is_null(json_object_get(json_object_get(doc, "state"), "turn_of")));
    json_decref(doc);
    doc = call(&e, "POST", "/next-turn", NULL, NULL, 200);
    json_t *state = json_object_get(doc, "state");
    cr_assert_eq(tb_num(state, "turn"), 0);
    cr_assert_str_eq(tb_text(state, "turn_of"), "goblin");
    json_decref(doc);
    doc = call(&e, "POST", "/next-turn", NULL, NULL, 200);
    cr_assert_eq(tb_num(json_object_get(doc, "state"), "turn"), 1);
    cr_assert_str_eq(tb_text(json_object_get(doc, "state"), "turn_of"), "fighter");
    json_decref(doc);
    doc = call(&e, "GET", "", NULL, NULL, 200);
    cr_assert_str_eq(tb_text(json_object_get(doc, "state"), "turn_of"), "fighter");
    json_decref(doc);
    doc = call(&e, "GET", "/state?at=5", NULL, NULL, 200);
    cr_assert_str_eq(tb_text(json_object_get(doc, "state"), "turn_of"), "goblin");
    json_decref(doc);
    doc = call(&e, "GET", "/state?at=4", NULL, NULL, 200);
    cr_assert(json_is_null(json_object_get(json_object_get(doc, "state"), "turn_of")));
    json_decref(doc);
    /* Never stored: the log still verifies; the export shows it, and an import checks it. */
    doc = call(&e, "POST", "/verify", NULL, NULL, 200);
    cr_assert(json_is_true(json_object_get(doc, "ok")));
    json_decref(doc);
    doc = call(&e, "GET", "/export", NULL, NULL, 200);
    cr_assert_str_eq(tb_text(json_object_get(doc, "state"), "turn_of"), "fighter");
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 201));
    free(text);
    json_object_set_new(json_object_get(doc, "state"), "turn_of", json_string("goblin"));
    text = json_dumps(doc, JSON_COMPACT);
    json_t *refused = http_post_json(&srv, "/v1/encounters/import", text, 422);
    cr_assert_str_eq(tb_text(json_array_get(json_object_get(refused, "errors"), 0), "pointer"),
                     "/state/turn_of");
    json_decref(refused);
    free(text);
    json_decref(doc);
}

/* An encounter stored before turn_of existed (the previous build's fixture) is served with it:
 * the fixture ends on the rogue's turn. */
Test(chatter, an_older_encounter_is_served_with_turn_of)
{
    json_t *fixture = load_fixture("encounter_v1.json");
    char *text = json_dumps(fixture, JSON_COMPACT);
    json_decref(fixture);
    json_t *ans = http_post_json(&srv, "/v1/encounters/import", text, 201);
    free(text);
    cr_assert_str_eq(tb_text(json_object_get(ans, "state"), "turn_of"), "rogue");
    struct enc e = {.version = tb_num(ans, "version")};
    snprintf(e.id, sizeof e.id, "%s", tb_text(ans, "id"));
    snprintf(e.token, sizeof e.token, "%s", tb_text(ans, "token"));
    json_decref(ans);
    json_t *doc = call(&e, "GET", "", NULL, NULL, 200);
    json_t *state = json_object_get(doc, "state");
    cr_assert_str_eq(tb_text(state, "turn_of"),
                     json_string_value(json_array_get(json_object_get(state, "order"),
                                                      (size_t)tb_num(state, "turn"))));
    json_decref(doc);
}
