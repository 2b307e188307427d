/* What the service tests share beyond the harness: the request bodies they send again and
 * again (the fighter and the goblin of the encounter tests, an encounter set up for a fight),
 * and the reads and checks of the answers (a field, a log that verifies, a ruling's prose). */
#ifndef TACTICS_TEST_BUILDERS_H
#define TACTICS_TEST_BUILDERS_H

#include <jansson.h>
#include <stdbool.h>

#include "tests/service/harness.h"

/* Member k of object o: an integer, a string. Each asserts that o is an object holding k of
 * that type (a failure names k), so a check against 0 or "" never passes on a missing member. */
long long tb_num(json_t *o, const char *k);
const char *tb_text(json_t *o, const char *k);
/* The same for an optional member: `absent` when o (an object, or NULL) has no member k; a
 * member of another type still fails. */
long long tb_num_or(json_t *o, const char *k, long long absent);
const char *tb_text_or(json_t *o, const char *k, const char *absent);

/* The pointer of a problem's first error ("" when it has none). */
const char *tb_first_pointer(json_t *problem);

/* The value of the counter `name` in GET /metrics (Prometheus text), or -1 when absent. */
long long tb_metric(const struct server *s, const char *name);

/* GETs path with no extra header: asserts status and returns the body parsed (the caller
 * decrefs; NULL when it is not JSON). */
json_t *tb_get_json(const struct server *s, const char *path, int status);

/* The first object of array whose string member key is value, or NULL. */
json_t *tb_find_by(json_t *array, const char *key, const char *value);

/* A request refused: its body, and the pointer of the first error its 422 names. */
struct tb_refusal {
    const char *body, *pointer;
};

/* POSTs each of cases[0..n) to path: asserts a 422 whose first error is at its pointer. */
void tb_each_refused(const struct server *s, const char *path, const struct tb_refusal *cases,
                     size_t n);
#define TB_EACH_REFUSED(s, path, cases)                                                            \
    tb_each_refused((s), (path), (cases), sizeof(cases) / sizeof(cases)[0])

/* POSTs body (application/json) to path twice: asserts two 200 answers, byte for byte the
 * same. */
void tb_same_answer_twice(const struct server *s, const char *path, const char *body);

/* The Authorization line of a bearer token given as a string literal. */
#define TB_BEARER(token) "Authorization: Bearer " token "\r\n"

/* Asserts a ruling's critical_hit: its threat range and multiplier, a threat that was
 * confirmed, and the confirmation's d20. */
void tb_confirmed_critical(json_t *critical_hit, int threat_range, int multiplier, int d20);

/* The header lines of a JSON request made with the bearer token (into buf, returned). */
const char *tb_json_as(char *buf, size_t n, const char *token);

/* The header lines of a write on encounter e as of version (its If-Match), JSON, with e's
 * token, then `extra` (more lines, or ""), into buf, returned. */
const char *tb_write_headers(char *buf, size_t n, const struct enc *e, long long version,
                             const char *extra);

/* GETs path: asserts a 200 of Content-Type type and returns the answer (free it). */
void tb_get_typed(const struct server *s, const char *path, const char *type,
                  struct http_response *r);

/* The encounter tests' fighter (armor 5, 20 hp, longsword +6 for 1d8+3) and goblin (armor 2,
 * dex 1, size 1; 6 hp; morningstar +2 for 1d6), at (x, y), with `extra` (a string literal:
 * "" or more fields, ",\"facing\":6") after their position. String literals, so a test may
 * build a longer body around them. */
#define TB_FIGHTER(x, y, extra)                                                                    \
    "{\"id\":\"fighter\",\"side\":\"party\",\"x\":" #x ",\"y\":" #y extra                          \
    ",\"speeds\":{\"walk\":30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,\"attacks\":[{"  \
    "\"name\":\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}"
#define TB_GOBLIN(x, y, extra)                                                                     \
    "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":" #x ",\"y\":" #y extra                        \
    ",\"speeds\":{\"walk\":30},\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,"       \
    "\"dex\":13,\"attacks\":[{\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}]}"

/* enc_call and enc_create on suite_server, with no extra header. */
json_t *suite_call(struct enc *e, const char *method, const char *suffix, const char *body,
                   int status);
void suite_create(struct enc *e, const char *body);

/* An attack of opportunity by actor on target with the table's dice (string literals: "goblin",
 * "fighter", "[19,6]"). */
#define TB_AOO(actor, target, results)                                                             \
    "{\"type\":\"attack\",\"kind\":\"attack_of_opportunity\",\"actor\":\"" actor                   \
    "\",\"target\":\"" target "\",\"results\":" results "}"

/* An attack by actor on target with the table's dice (string literals, as TB_AOO's). */
#define TB_ATTACK(actor, target, results)                                                          \
    "{\"type\":\"attack\",\"actor\":\"" actor "\",\"target\":\"" target "\",\"results\":" results  \
    "}"

/* Creates an encounter from create_body, adds each of the NULL-terminated combatants (201
 * each) and, when initiative is not NULL, posts it as the initiative's results (200). */
void tb_encounter(const struct server *s, struct enc *e, const char *create_body,
                  const char *const *combatants, const char *initiative);

/* POST .../verify: asserts the whole log verifies. */
void tb_verify_ok(const struct server *s, struct enc *e);

/* Asserts a ruling's prose: its "explain" and "explain_markdown". */
void tb_explain_is(json_t *doc, const char *plain, const char *markdown);

/* the encounter tests' reads and setups shared to fold repeated runs. */

/* The value of combatant's turn.left member `what` ("full_round", "five_foot_step", ...): true
 * when the turn still has it. */
bool tb_turn_left(json_t *combatant, const char *what);

/* Imports the stored fixture `name` (tests/fixtures) as encounter e. */
void tb_import_fixture(const struct server *s, struct enc *e, const char *name);

/* The path /v1/encounters/{e's id}{suffix}, into buf, returned. */
const char *tb_enc_path(char *buf, size_t n, const struct enc *e, const char *suffix);

/* Asserts that o (a combatant of a state, or a result naming a square) stands at x, y. */
void tb_at(json_t *o, long long x, long long y);

/* A write's answer's event result (doc.event.result), or NULL. */
json_t *tb_result(json_t *doc);

/* The string member "code" of object o's member k (asserted there). */
const char *tb_code_of(json_t *o, const char *k);

/* POSTs body to e's suffix on suite_server: asserts a 422 whose first error is at pointer. */
void tb_refused_at(struct enc *e, const char *suffix, const char *body, const char *pointer);

/* A request on encounter e's suffix with the header lines given: asserts its status and returns
 * the answer (free it). */
void tb_enc_request(const struct server *s, const struct enc *e, const char *method,
                    const char *suffix, const char *headers, const char *body, int status,
                    struct http_response *r);

#endif
