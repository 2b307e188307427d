/* Encounters over HTTP: a whole fight played, replayed and verified; auth, concurrency,
 * idempotency; export and import; and a server killed with SIGKILL mid-stream. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(encounter_api);

static json_t *call_on(const struct server *s, struct enc *e, const char *method,
                       const char *suffix, const char *body, int status)
{
    return enc_call(s, e, method, suffix, NULL, body, status);
}

static const char *const fighter = TB_FIGHTER(5, 5, ",\"facing\":6");
static const char *const goblin = TB_GOBLIN(2, 5, "");

/* Create, add combatants, roll initiative (dice rolled at the table), take turns, move,
 * attack; then rebuild the state after several events and verify the whole log. */
Test(encounter_api, a_whole_encounter_played_and_replayed)
{
    struct enc e;
    suite_create(&e,
                 "{\"name\":\"Goblin ambush\",\"map\":{\"width\":10,\"height\":10},\"seed\":42}");
    json_t *snap[16] = {0};
    json_decref(suite_call(&e, "POST", "/combatants", fighter, 201));
    json_decref(suite_call(&e, "POST", "/combatants", goblin, 201));
    /* 004: a Dexterity check each; a tie (15 and 15) goes to the higher Dexterity. */
    json_t *doc = suite_call(&e, "POST", "/initiative", "{\"results\":[14,1,14,2]}", 200);
    json_t *result = json_object_get(json_object_get(doc, "event"), "result");
    json_t *order = json_object_get(result, "order");
    cr_assert_str_eq(json_string_value(json_array_get(order, 0)), "goblin");
    cr_assert_eq(tb_num(json_array_get(json_object_get(result, "rolls"), 0), "total"), 15);
    json_t *state = json_object_get(doc, "state");
    json_t *c = enc_combatant(state, "fighter");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(c, "conditions"), 0)),
                     "flat_footed"); /* 004: "At the start of a battle each ... is flat-footed" */
    snap[4] = json_deep_copy(state);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/next-turn", NULL, 200);
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(json_object_get(doc, "event"), "result"), "turn_of")),
                     "goblin");
    cr_assert_eq(json_array_size(json_object_get(
                     enc_combatant(json_object_get(doc, "state"), "goblin"), "conditions")),
                 0); /* its first turn: no longer flat-footed */
    json_decref(doc);
    /* Out of turn: refused, nothing written. */
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"attack\",\"actor\":\"fighter\",\"target\":\"goblin\"}", 422);
    json_decref(doc);
    /* An illegal move: refused with the step and the rule, nothing written. */
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"move\",\"path\":[{\"x\":3,"
                     "\"y\":5},{\"x\":4,\"y\":5},{\"x\":5,\"y\":5}]}",
                     422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "detail")), "/path/2"));
    json_decref(doc);
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"move\",\"actor\":\"goblin\",\"mode\":\"move\",\"path\":[{\"x\":3,"
                     "\"y\":5},{\"x\":4,\"y\":5}]}",
                     200);
    c = enc_combatant(json_object_get(doc, "state"), "goblin");
    cr_assert_eq(tb_num(c, "x"), 4);
    snap[6] = json_deep_copy(json_object_get(doc, "state"));
    json_decref(doc);
    /* The attack: the fighter is flat-footed (it has not acted yet), d20 13 + 2 = 15 hits AC
     * 15 (10 + 5 armor), 1d6 rolls 4. */
    doc = suite_call(&e, "POST", "/actions", TB_ATTACK("goblin", "fighter", "[13,4]"), 200);
    result = json_object_get(json_object_get(doc, "event"), "result");
    cr_assert(json_is_true(json_object_get(result, "hit")));
    cr_assert_eq(tb_num(enc_combatant(json_object_get(doc, "state"), "fighter"), "hp"), 16);
    json_decref(doc);
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200));
    doc = suite_call(&e, "POST", "/actions",
                     "{\"type\":\"attack\",\"actor\":\"fighter\",\"target\":\"goblin\"}", 200);
    snap[9] = json_deep_copy(json_object_get(doc, "state"));
    json_decref(doc);
    cr_assert_eq(e.version, 9);

    /* The state after events 4, 6 and 9, rebuilt from the log, equals what was answered. */
    int ats[] = {4, 6, 9};
    for (int k = 0; k < 3; k++) {
        char q[32];
        snprintf(q, sizeof q, "/state?at=%d", ats[k]);
        doc = suite_call(&e, "GET", q, NULL, 200);
        cr_assert(json_equal(json_object_get(doc, "state"), snap[ats[k]]), "at %d", ats[k]);
        json_decref(doc);
        json_decref(snap[ats[k]]);
    }
    doc = suite_call(&e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(doc, "ok")));
    cr_assert_eq(tb_num(doc, "events_checked"), 9);
    cr_assert_eq(tb_num(doc, "events_reruled"), 9);
    json_decref(doc);
    /* Asked again, the instance re-rules nothing it found whole already (anyone may ask, and a
     * long log's re-ruling is seconds of CPU): only what was written since. */
    doc = suite_call(&e, "POST", "/verify", NULL, 200);
    cr_assert(json_is_true(json_object_get(doc, "ok")));
    cr_assert_eq(tb_num(doc, "events_checked"), 9);
    cr_assert_eq(tb_num(doc, "events_reruled"), 0);
    json_decref(doc);
    doc = suite_call(&e, "GET", "/events?after=2&limit=3", NULL, 200);
    cr_assert_eq(json_array_size(json_object_get(doc, "events")), 3);
    cr_assert_eq(tb_num(doc, "next_after"), 5);
    json_decref(doc);
    /* Export and import on this server: a new id, the same log and the copy's own event (a
     * copy of this encounter, with its own seed), verified. */
    doc = suite_call(&e, "GET", "/export", NULL, 200);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    json_t *imported = http_post_json(&srv, "/v1/encounters/import", text, 201);
    cr_assert_eq(tb_num(imported, "version"), 10);
    cr_assert_str_neq(json_string_value(json_object_get(imported, "id")), e.id);
    json_decref(imported);
    /* A tampered export (more damage than the dice dealt) is refused. */
    char *at = strstr(text, "\"hp\":16");
    cr_assert_not_null(at);
    memcpy(at, "\"hp\":10", 7);
    json_decref(http_post_json(&srv, "/v1/encounters/import", text, 422));
    free(text);
}

Test(encounter_api, writes_need_the_token_and_the_current_version)
{
    struct enc e, other;
    suite_create(&e, "{\"map\":{\"width\":10,\"height\":10}}");
    suite_create(&other, "{\"map\":{\"width\":10,\"height\":10}}");
    char path[128];
    snprintf(path, sizeof path, "/v1/encounters/%s/combatants", e.id);
    struct http_response r;
    http_request(&srv, "POST", path, "Content-Type: application/json\r\nIf-Match: \"v1\"\r\n",
                 fighter, &r);
    cr_assert_eq(r.status, 401);
    http_response_free(&r);
    struct enc wrong = e;
    snprintf(wrong.token, sizeof wrong.token, "%s", other.token);
    json_t *denied = suite_call(&wrong, "POST", "/combatants", fighter, 403);
    cr_assert_str_eq(json_string_value(json_object_get(denied, "detail")),
                     "this token does not own the encounter");
    json_decref(denied);
    /* A token that could never be anyone's (a character no token has) is as wrong: 403. */
    snprintf(wrong.token, sizeof wrong.token, "not*a*token");
    denied = suite_call(&wrong, "POST", "/next-turn", NULL, 403);
    cr_assert_str_eq(json_string_value(json_object_get(denied, "detail")),
                     "this token does not own the encounter");
    json_decref(denied);
    char headers[256];
    snprintf(headers, sizeof headers,
             "Content-Type: application/json\r\nAuthorization: Bearer %s\r\n", e.token);
    http_request(&srv, "POST", path, headers, fighter, &r);
    cr_assert_eq(r.status, 428);
    http_response_free(&r);
    json_decref(suite_call(&e, "POST", "/combatants", fighter, 201));
    struct enc stale = e;
    stale.version = 1;
    json_decref(suite_call(&stale, "POST", "/combatants", goblin, 412));
    /* If-Match names the version only as the ETag this service sends ("v2" in quotes), with
     * optional spaces around it: a missing quote, a space or sign inside, trailing text, a weak
     * tag, or more digits than any version has fail the check (412), and write nothing. */
    static const char *const not_v2[] = {"\"v2",
                                         "\"v 2\"",
                                         "\"v+2\"",
                                         "\"v2\"x",
                                         "W/\"v2\"",
                                         "\"v2\", \"v3\"",
                                         "\"v99999999999999999999\"",
                                         "\"v02\"",
                                         "v2"};
    for (size_t i = 0; i < sizeof not_v2 / sizeof not_v2[0]; i++) {
        snprintf(headers, sizeof headers,
                 "Content-Type: application/json\r\nAuthorization: Bearer %s\r\nIf-Match: %s\r\n",
                 e.token, not_v2[i]);
        http_request(&srv, "POST", path, headers, goblin, &r);
        cr_assert_eq(r.status, 412, "If-Match: %s: %d %s", not_v2[i], r.status, r.body);
        cr_assert(strstr(r.body, "If-Match must be one ETag of this encounter") != NULL, "%s",
                  r.body);
        http_response_free(&r);
    }
    snprintf(
        headers, sizeof headers,
        "Content-Type: application/json\r\nAuthorization: Bearer %s\r\nIf-Match: \t\"v2\" \r\n",
        e.token);
    http_request(&srv, "POST", path, headers, goblin, &r);
    cr_assert_eq(r.status, 201, "%d %s", r.status, r.body);
    http_response_free(&r);
    e.version = 3;
    /* The token's own list: this encounter alone (not `other`, created with another token), at
     * the version its two writes made, and none of the refused ones. */
    snprintf(headers, sizeof headers, "Authorization: Bearer %s\r\n", e.token);
    http_request(&srv, "GET", "/v1/encounters", headers, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *list = json_loads(r.body, 0, NULL);
    json_t *mine = json_object_get(list, "encounters");
    cr_assert_eq(json_array_size(mine), 1, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(mine, 0), "id")), e.id);
    cr_assert_eq(tb_num(json_array_get(mine, 0), "version"), 3, "%s", r.body);
    json_decref(list);
    http_response_free(&r);
    /* Reads are open to whoever has the id; the list is the token's own. */
    json_decref(suite_call(&other, "GET", "", NULL, 200));
    http_request(&srv, "GET", "/v1/encounters",
                 TB_BEARER("0123456789012345678901234567890123456789"), NULL, &r);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.body, "{\"encounters\":[],\"next\":null,\"next_after\":null}");
    http_response_free(&r);
    json_decref(suite_call(&e, "DELETE", "", NULL, 204));
    json_decref(suite_call(&e, "GET", "", NULL, 404));
}

/* RFC 9110 section 11.1: the auth scheme name is case-insensitive. */
/* A query parameter's error names it as ?name, not as the body. */
Test(encounter_api, query_parameter_errors_name_the_parameter)
{
    struct enc e;
    suite_create(&e, "{\"map\":{\"width\":10,\"height\":10}}");
    /* A number is digits only: no space, sign, fraction or exponent, and none too long
     * (strtoll's 99999999999999999999 read as LLONG_MAX, and " 3" and "+3" as 3). */
    const char *cases[][2] = {{"/state?at=7", "?at"},
                              {"/state?at=%202", "?at"},
                              {"/state?at=+2", "?at"},
                              {"/events?after=x", "?after"},
                              {"/events?after=99999999999999999999", "?after"},
                              {"/events?after=-0", "?after"},
                              {"/events?limit=1e2", "?limit"},
                              {"/events/stream?after=+1", "?after"},
                              {"/map.png?size=%20200", "?size"},
                              {"/events?limit=0", "?limit"},
                              {"/map.png?size=1", "?size"},
                              {"/map.png?overlay=glow", "?overlay"},
                              {"/map.png?focus=nobody", "?focus"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = suite_call(&e, "GET", cases[i][0], NULL, 422);
        cr_assert_str_eq(tb_first_pointer(doc), cases[i][1], "%s", cases[i][0]);
        const char *detail = json_string_value(json_object_get(doc, "detail"));
        cr_assert_eq(strncmp(detail, cases[i][1], strlen(cases[i][1])), 0, "%s", detail);
        json_decref(doc);
    }
    struct http_response r;
    http_request(&srv, "GET", "/v1/encounters?limit=9999",
                 TB_BEARER("0123456789012345678901234567890123456789"), NULL, &r);
    cr_assert_eq(r.status, 422);
    cr_assert_not_null(strstr(r.body, "\"pointer\":\"?limit\""), "%s", r.body);
    http_response_free(&r);
}

Test(encounter_api, the_bearer_scheme_name_is_case_insensitive)
{
    struct enc e;
    suite_create(&e, "{\"map\":{\"width\":10,\"height\":10}}");
    static const char *const schemes[] = {"bearer", "BEARER", "bEaReR"};
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
        char path[160], headers[320];
        snprintf(path, sizeof path, "/v1/encounters/%s", e.id);
        snprintf(headers, sizeof headers, "Authorization: %s %s\r\nIf-Match: \"v%lld\"\r\n",
                 schemes[i], e.token, e.version);
        struct http_response r;
        http_request(&srv, "DELETE", path, headers, NULL, &r);
        /* The first succeeds; later ones find it gone: 404, never 401. */
        cr_assert_eq(r.status, i == 0 ? 204 : 404, "%s: %d %s", schemes[i], r.status, r.body);
        http_response_free(&r);
    }
}

Test(encounter_api, a_retry_with_its_key_returns_the_first_answer_and_appends_nothing)
{
    struct enc e;
    suite_create(&e, "{\"map\":{\"width\":10,\"height\":10}}");
    char headers[320];
    tb_write_headers(headers, sizeof headers, &e, 1, "Idempotency-Key: add-fighter-1\r\n");
    struct http_response first, again;
    tb_enc_request(&srv, &e, "POST", "/combatants", headers, fighter, 201, &first);
    tb_enc_request(&srv, &e, "POST", "/combatants", headers, fighter, 201, &again);
    cr_assert_str_eq(again.body, first.body);
    char replayed[16];
    cr_assert(http_header(&again, "Idempotent-Replayed", replayed, sizeof replayed));
    http_response_free(&first);
    http_response_free(&again);
    /* the same key with another request */
    tb_enc_request(&srv, &e, "POST", "/combatants", headers, goblin, 409, &again);
    http_response_free(&again);
    e.version = 2;
    json_t *doc = suite_call(&e, "GET", "", NULL, 200);
    cr_assert_eq(tb_num(doc, "version"), 2);
    json_decref(doc);
}

/* Every string field holding SQL comes back verbatim: SQL only through bound parameters. */
Test(encounter_api, injection_strings_are_stored_verbatim)
{
    const char *evil = "x'); DROP TABLE events; --";
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"map\":{\"width\":4,\"height\":4}}", evil);
    struct enc e;
    suite_create(&e, body);
    json_t *doc = suite_call(&e, "GET", "", NULL, 200);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "state"), "name")),
                     evil);
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

Test(encounter_api, bad_requests_name_the_field)
{
    json_decref(
        http_post_json(&srv, "/v1/encounters", "{\"map\":{\"width\":2000,\"height\":3}}", 422));
    struct enc e;
    suite_create(&e, "{\"map\":{\"width\":10,\"height\":10}}");
    json_t *doc =
        suite_call(&e, "POST", "/combatants",
                   "{\"id\":\"a\",\"side\":\"x\",\"x\":12,\"y\":0,\"speeds\":{\"walk\":30},"
                   "\"defense\":{},\"max_hp\":5,\"dex\":10}",
                   422);
    json_decref(doc);
    doc = suite_call(&e, "POST", "/combatants",
                     "{\"id\":\"a\",\"side\":\"x\",\"x\":1,\"y\":0,\"speeds\":{\"walk\":30},"
                     "\"defense\":{},\"max_hp\":5,\"dex\":10,\"attacks\":[{\"name\":\"bite\","
                     "\"attack_bonus\":1,\"damage\":\"2q6\"}]}",
                     422);
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(doc, "errors"), 0), "pointer")),
                     "/attacks/0/damage");
    json_decref(doc);
    json_decref(suite_call(&e, "GET", "/state?at=5", NULL, 422));
    json_decref(suite_call(&e, "POST", "/next-turn", NULL, 422)); /* no initiative yet */
    cr_assert_eq(e.version, 1);
}

/* 001/issue 8: an event acknowledged with a 2xx is never lost. A child streams writes and
 * reports each acknowledged version; the server is killed with SIGKILL at a random moment,
 * restarted on the same file, and every acknowledged event must be there. */
Test(encounter_api, acknowledged_events_survive_sigkill)
{
    struct enc e;
    tb_encounter(&srv, &e, "{\"map\":{\"width\":10,\"height\":10}}",
                 (const char *const[]){fighter, NULL}, NULL);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t child = fork();
    cr_assert_neq(child, -1);
    if (child == 0) {
        close(fds[0]);
        long long v = e.version;
        /* At most 8,000 writes: their versions (6 bytes a line) then fit the pipe's 64 KB, which
         * the parent reads (past the first line) only after this child is gone, so the child never
         * blocks on it. */
        for (int k = 0; k < 8000; k++) {
            char req[768];
            char body[96];
            snprintf(body, sizeof body, "{\"type\":\"facing\",\"actor\":\"fighter\",\"facing\":%d}",
                     k % 8);
            int n = snprintf(req, sizeof req,
                             "POST /v1/encounters/%s/actions HTTP/1.1\r\nHost: x\r\nConnection: "
                             "close\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                             "%s\r\nIf-Match: \"v%lld\"\r\nContent-Length: %zu\r\n\r\n%s",
                             e.id, e.token, v, strlen(body), body);
            struct http_response r;
            if (http_raw(srv.port, req, (size_t)n, &r) != 0)
                _exit(0);
            int status = r.status;
            http_response_free(&r);
            if (status != 200)
                _exit(0);
            v++;
            char line[32];
            int m = snprintf(line, sizeof line, "%lld\n", v);
            if (write(fds[1], line, (size_t)m) != m)
                _exit(1);
        }
        _exit(0);
    }
    close(fds[1]);
    /* The kill comes once a first write is acknowledged (its line read: the child is writing, and
     * the check below has something to find however slowly the machine runs), then at a random
     * moment up to 0.4 s later. */
    char buf[1 << 16];
    ssize_t got, total = 0;
    while (memchr(buf, '\n', (size_t)total) == NULL &&
           (got = read(fds[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0)
        total += got;
    cr_assert_not_null(memchr(buf, '\n', (size_t)total), "the writer stopped before any 200");
    srand((unsigned)time(NULL));
    usleep((useconds_t)(rand() % 400000));
    cr_assert_eq(kill(srv.pid, SIGKILL), 0);
    int status;
    waitpid(srv.pid, &status, 0);
    waitpid(child, &status, 0);
    while ((got = read(fds[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0)
        total += got;
    buf[total] = '\0';
    close(fds[0]);
    long long acked = e.version;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        acked = atoll(line);
    cr_assert_gt(acked, e.version, "no write was acknowledged before the kill");
    /* Restart on the same database file. */
    char db[160];
    snprintf(db, sizeof db, "%s", srv.db_path);
    char dir[64];
    snprintf(dir, sizeof dir, "%s", srv.dir);
    const char *args[] = {"--db", db, NULL};
    server_start(&srv, args);
    e.version = acked;
    json_t *doc = suite_call(&e, "GET", "", NULL, 200);
    cr_assert_geq(tb_num(doc, "version"), acked, "acknowledged %lld, found %lld", acked,
                  tb_num(doc, "version"));
    json_decref(doc);
    tb_verify_ok(&srv, &e);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(encounter_api, combatants_are_updated_and_removed)
{
    struct enc e;
    tb_encounter(&srv, &e, "{\"map\":{\"width\":10,\"height\":10}}",
                 (const char *const[]){fighter, goblin, NULL}, NULL);
    json_t *doc = suite_call(&e, "PATCH", "/combatants/fighter",
                             "{\"hp\":7,\"conditions\":[\"prone\"],\"x\":6}", 200);
    json_t *c = enc_combatant(json_object_get(doc, "state"), "fighter");
    cr_assert_eq(tb_num(c, "hp"), 7);
    cr_assert_eq(tb_num(c, "x"), 6);
    json_decref(doc);
    /* Onto the goblin's square: refused (001 Walk), nothing written. */
    json_decref(suite_call(&e, "PATCH", "/combatants/fighter", "{\"x\":2}", 422));
    json_decref(suite_call(&e, "PATCH", "/combatants/fighter", "{\"id\":\"x\"}", 422));
    json_decref(suite_call(&e, "PATCH", "/combatants/nobody", "{\"hp\":1}", 422));
    json_decref(suite_call(&e, "POST", "/initiative", "{\"results\":[10,1,5,1]}", 200));
    doc = suite_call(&e, "DELETE", "/combatants/goblin", NULL, 200);
    json_t *state = json_object_get(doc, "state");
    cr_assert_null(enc_combatant(state, "goblin"));
    cr_assert_eq(json_array_size(json_object_get(state, "order")), 1);
    json_decref(doc);
    tb_verify_ok(&srv, &e);
}

/* Issue 9: injection strings in every free-text field come back verbatim, and no error body
 * shows SQL, a path or a stack trace. */
Test(encounter_api, injection_strings_in_every_string_field)
{
    static const char *const evil[] = {"'; DROP TABLE encounters; --", "\\\" OR 1=1 --", "x%00y",
                                       "../../etc/passwd", "$(rm -rf /)"};
    for (size_t k = 0; k < sizeof evil / sizeof evil[0]; k++) {
        char body[512];
        snprintf(body, sizeof body, "{\"name\":\"%s\",\"map\":{\"width\":6,\"height\":6}}",
                 evil[k]);
        struct enc e;
        suite_create(&e, body);
        snprintf(
            body, sizeof body,
            "{\"id\":\"c1\",\"name\":\"%s\",\"side\":\"%s\",\"x\":1,\"y\":1,\"speeds\":{"
            "\"walk\":30},\"defense\":{},\"max_hp\":5,\"dex\":10,\"attacks\":[{\"name\":\"%s\","
            "\"attack_bonus\":1}]}",
            evil[k], evil[k], evil[k]);
        json_t *doc = suite_call(&e, "POST", "/combatants", body, 201);
        json_t *c = enc_combatant(json_object_get(doc, "state"), "c1");
        json_t *expect = json_loads(body, 0, NULL);
        cr_assert_str_eq(json_string_value(json_object_get(c, "name")),
                         json_string_value(json_object_get(expect, "name")));
        cr_assert_str_eq(json_string_value(json_object_get(c, "side")),
                         json_string_value(json_object_get(expect, "side")));
        json_decref(expect);
        json_decref(doc);
        doc = suite_call(&e, "GET", "/export", NULL, 200);
        char *text = json_dumps(doc, JSON_COMPACT);
        json_decref(doc);
        if (k == 0) /* the log holds it verbatim too */
            cr_assert_not_null(strstr(text, "DROP TABLE encounters"));
        free(text);
        /* An id made of the same: refused by its pattern, not stored. */
        snprintf(body, sizeof body,
                 "{\"id\":\"%s\",\"side\":\"x\",\"x\":2,\"y\":2,\"speeds\":{\"walk\":30},"
                 "\"defense\":{},\"max_hp\":5,\"dex\":10}",
                 evil[k]);
        doc = suite_call(&e, "POST", "/combatants", body, 422);
        text = json_dumps(doc, JSON_COMPACT);
        cr_assert_null(strstr(text, "sqlite"));
        cr_assert_null(strstr(text, "SQL"));
        cr_assert_null(strstr(text, "/tmp"));
        free(text);
        json_decref(doc);
    }
    /* An id that is not one: 404, no path or SQL in the body. */
    struct http_response r;
    http_request(&srv, "GET", "/v1/encounters/'%20OR%201=1", NULL, NULL, &r);
    cr_assert_eq(r.status, 404);
    cr_assert_null(strstr(r.body, "SQL"));
    http_response_free(&r);
}

/* The stored state equals the fold of the log up to its version. */
static void assert_state_is_the_fold(struct enc *e)
{
    json_t *now = suite_call(e, "GET", "", NULL, 200);
    char suffix[64];
    snprintf(suffix, sizeof suffix, "/state?at=%lld", tb_num(now, "version"));
    json_t *folded = suite_call(e, "GET", suffix, NULL, 200);
    cr_assert(json_equal(json_object_get(now, "state"), json_object_get(folded, "state")));
    json_decref(folded);
    json_decref(now);
    tb_verify_ok(&srv, e);
}

/* The server keeps the state its last write made (service/state_cache.h); a refused write and
 * writes after it still store exactly the fold of the log. */
Test(encounter_api, writes_after_a_refusal_store_the_fold)
{
    struct enc e;
    tb_encounter(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}",
                 (const char *const[]){fighter, goblin, NULL}, NULL);
    json_decref(suite_call(&e, "POST", "/actions",
                           "{\"type\":\"facing\",\"actor\":\"fighter\",\"facing\":2}", 200));
    /* Refused: the goblin, three squares off, is out of the longsword's reach. Nothing is
     * stored, and the state the server holds is unchanged. */
    json_t *no =
        suite_call(&e, "POST", "/actions",
                   "{\"type\":\"attack\",\"actor\":\"fighter\",\"target\":\"goblin\"}", 422);
    cr_assert_not_null(strstr(json_string_value(json_object_get(no, "detail")), "out of reach"));
    json_decref(no);
    cr_assert_eq(e.version, 4);
    json_decref(suite_call(&e, "POST", "/combatants",
                           "{\"id\":\"orc\",\"side\":\"monsters\",\"x\":6,\"y\":5,\"speeds\":{"
                           "\"walk\":30},\"defense\":{\"armor\":3},\"max_hp\":15,\"dex\":10}",
                           201));
    json_t *doc = suite_call(&e, "POST", "/actions", TB_ATTACK("fighter", "orc", "[19,8]"), 200);
    cr_assert_eq(e.version, 6);
    /* 19 + 6 hits (not a threat: d20-3.5's critical hits threaten on 20 alone); 1d8+3 with 8
     * is 11; the orc had 15 hit points. */
    cr_assert_eq(tb_num(enc_combatant(json_object_get(doc, "state"), "orc"), "hp"), 15 - 11);
    cr_assert_eq(tb_num(enc_combatant(json_object_get(doc, "state"), "fighter"), "facing"), 2);
    json_decref(doc);
    assert_state_is_the_fold(&e);
}

/* Two servers on one database file: each caches the states it wrote, and neither may act on a
 * state the other has moved past. The stale version gets 412, the current one works, and a
 * write to an encounter the other deleted gets 404. */
Test(encounter_api, a_second_server_on_the_same_file_is_never_overwritten)
{
    struct server b;
    const char *const args[] = {"--db", srv.db_path, NULL};
    server_start(&b, args);
    struct enc e;
    tb_encounter(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":9}",
                 (const char *const[]){fighter, NULL}, NULL);
    json_decref(suite_call(&e, "POST", "/combatants", goblin, 201)); /* this server now holds v3 */
    json_decref(call_on(&b, &e, "POST", "/actions",
                        "{\"type\":\"facing\",\"actor\":\"fighter\",\"facing\":3}", 200));
    cr_assert_eq(e.version, 4);
    /* This server still holds v3; the client names v4, which only the file has. */
    json_t *doc = suite_call(&e, "POST", "/actions",
                             "{\"type\":\"facing\",\"actor\":\"goblin\",\"facing\":1}", 200);
    cr_assert_eq(e.version, 5);
    /* The other server's change is in the state this one wrote. */
    cr_assert_eq(tb_num(enc_combatant(json_object_get(doc, "state"), "fighter"), "facing"), 3);
    cr_assert_eq(tb_num(enc_combatant(json_object_get(doc, "state"), "goblin"), "facing"), 1);
    json_decref(doc);
    /* The other server now holds v4, which is stale. */
    char path[160], headers[320], etag[32];
    snprintf(path, sizeof path, "/v1/encounters/%s/actions", e.id);
    tb_write_headers(headers, sizeof headers, &e, 4, "");
    struct http_response r;
    http_request(&b, "POST", path, headers,
                 "{\"type\":\"facing\",\"actor\":\"goblin\",\"facing\":5}", &r);
    cr_assert_eq(r.status, 412, "%d %s", r.status, r.body);
    cr_assert(http_header(&r, "ETag", etag, sizeof etag));
    cr_assert_str_eq(etag, "\"v5\"");
    http_response_free(&r);
    assert_state_is_the_fold(&e);
    json_decref(call_on(&b, &e, "DELETE", "", NULL, 204));
    json_decref(suite_call(&e, "POST", "/actions",
                           "{\"type\":\"facing\",\"actor\":\"goblin\",\"facing\":2}", 404));
    server_stop(&b);
}

/* Encounters are played on square grids; a hex grid is refused at creation by name, rather
 * than accepted and then unable to place anyone. */
Test(encounter_api, a_hex_grid_is_refused_at_creation)
{
    json_t *doc = http_post_json(
        &srv, "/v1/encounters",
        "{\"map\":{\"width\":8,\"height\":8},\"rules\":{\"options\":{\"grid\":\"hex\"}}}", 422);
    cr_assert_str_eq(tb_first_pointer(doc), "/rules/options/grid");
    json_decref(doc);
}

/* Writes that fail for want of storage make /readyz 503 with the reason, and a write that
 * succeeds makes it ready again. The disk is made "full" with --max-db-size (PRAGMA
 * max_page_count on every connection), so SQLite answers SQLITE_FULL exactly as on a full
 * disk: the tests run as root, which chmod cannot stop, and no small filesystem is at hand. */
Test(encounter_api, readyz_is_503_while_writes_fail_for_want_of_storage_then_recovers)
{
    if (server_on_postgres())
        return; /* not on this backend (no cr_skip_test: it leaks in Criterion 2.4.1's runner) */
    struct server own;
    static const char *const args[] = {"--max-db-size", "65536", NULL};
    server_start(&own, args);
    struct http_response r;
    http_request(&own, "GET", "/readyz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    /* Encounters with long names until the file is full. */
    char body[300];
    snprintf(body, sizeof body, "{\"name\":\"%0200d\",\"map\":{\"width\":10,\"height\":10}}", 7);
    char first_id[64] = "", first_token[80] = "";
    int status = 201;
    for (int i = 0; i < 500 && status == 201; i++) {
        http_request(&own, "POST", "/v1/encounters", "Content-Type: application/json\r\n", body,
                     &r);
        status = r.status;
        if (status == 201 && first_id[0] == '\0') {
            json_t *doc = json_loads(r.body, 0, NULL);
            snprintf(first_id, sizeof first_id, "%s",
                     json_string_value(json_object_get(doc, "id")));
            snprintf(first_token, sizeof first_token, "%s",
                     json_string_value(json_object_get(doc, "token")));
            json_decref(doc);
        }
        http_response_free(&r);
    }
    cr_assert_eq(status, 503, "the database never filled up (last status %d)", status);
    http_request(&own, "GET", "/readyz", NULL, NULL, &r);
    cr_assert_eq(r.status, 503, "%s", r.body);
    cr_assert_not_null(strstr(r.body, "SQLITE_FULL"), "%s", r.body);
    http_response_free(&r);
    /* Deleting an encounter is a write that needs no new page: it succeeds, and so ready. */
    struct enc e = {.version = 1};
    snprintf(e.id, sizeof e.id, "%s", first_id);
    snprintf(e.token, sizeof e.token, "%s", first_token);
    json_decref(call_on(&own, &e, "DELETE", "", NULL, 204));
    http_request(&own, "GET", "/readyz", NULL, NULL, &r);
    cr_assert_eq(r.status, 200, "%s", r.body);
    http_response_free(&r);
    server_stop(&own);
}

/* Paging through the log starts each page's fold from the checkpoint the page before left
 * (service/state_cache.h, svc_context.folds) rather than from event 1; every page, read in
 * order, backwards or at random, lists exactly what one read of the whole log lists, with the
 * same sentences, and state?at=N in any order is the fold of the first N events. */
Test(encounter_api, pages_and_states_from_checkpoints_equal_the_whole_fold)
{
    struct enc e;
    tb_encounter(&srv, &e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":3}",
                 (const char *const[]){fighter, goblin, NULL}, "{\"results\":[10,1,14,1]}");
    for (int i = 0; i < 12; i++) {
        json_decref(suite_call(&e, "POST", "/next-turn", NULL, 200));
        char body[96];
        snprintf(body, sizeof body, "{\"target\":\"%s\",\"change\":%d}",
                 i % 2 ? "fighter" : "goblin", i % 3 ? -1 : 1);
        json_decref(suite_call(&e, "POST", "/hp", body, 200));
    }
    json_t *whole = suite_call(&e, "GET", "/events?after=0&limit=500", NULL, 200);
    json_t *all = json_object_get(whole, "events");
    size_t n = json_array_size(all);
    cr_assert_eq(n, 28);
    static const int afters[] = {0, 5, 10, 15, 20, 25, 3, 22, 7, 7, 27, 1};
    for (size_t k = 0; k < sizeof afters / sizeof afters[0]; k++) {
        char suffix[64];
        snprintf(suffix, sizeof suffix, "/events?after=%d&limit=5", afters[k]);
        json_t *page = suite_call(&e, "GET", suffix, NULL, 200);
        json_t *got = json_object_get(page, "events");
        for (size_t i = 0; i < json_array_size(got); i++)
            cr_assert(
                json_equal(json_array_get(got, i), json_array_get(all, (size_t)afters[k] + i)),
                "after %d, item %zu", afters[k], i);
        cr_assert_eq(json_array_size(got), n - (size_t)afters[k] < 5 ? n - (size_t)afters[k] : 5);
        json_decref(page);
    }
    /* The states: folded from the log read whole, against state?at in a scrambled order. */
    static const int ats[] = {28, 4, 17, 9, 9, 26, 1, 12};
    for (size_t k = 0; k < sizeof ats / sizeof ats[0]; k++) {
        char suffix[64];
        snprintf(suffix, sizeof suffix, "/state?at=%d", ats[k]);
        json_t *at = suite_call(&e, "GET", suffix, NULL, 200);
        json_t *hp = json_object_get(json_array_get(all, (size_t)ats[k] - 1), "payload");
        /* The hp the at-th event left, when it was an hp event: the state agrees. */
        if (strcmp(
                json_string_value(json_object_get(json_array_get(all, (size_t)ats[k] - 1), "kind")),
                "hp") == 0) {
            json_t *r = json_object_get(hp, "result");
            const char *target = json_string_value(json_object_get(r, "target"));
            json_t *c = enc_combatant(at, target);
            cr_assert_eq(tb_num(c, "hp"), tb_num(r, "hp"), "at %d", ats[k]);
        }
        json_decref(at);
    }
    json_decref(whole);
    assert_state_is_the_fold(&e);
}
