/* The stateless rulings called directly (service/ruling.h), as a stored encounter calls them:
 * with the body already parsed and no request or response built. For each ruling the encounter
 * uses (path, forced, falling, attack, and the queries' reach, route and flanking), the direct
 * answer must be the bytes POST answers for the same body, and a refusal must carry what the
 * encounter reports of it: the same status, the same field errors (pointer and message, in
 * order) or, without field errors, the problem's detail, and Retry-After for a busy gate. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "service/api/api.h"
#include "service/codec/answer.h"
#include "service/codec/map.h"
#include "service/codec/move.h"
#include "service/codec/ruling.h"
#include "service/http/config.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/writer.h"

enum kind { PATH, REACH, ROUTE, FORCED, FALLING, FLANKING, ATTACK };

static const struct {
    svc_handler handler;
    const char *path;
} endpoints[] = {
    [PATH] = {svc_handle_move_path, "/v1/movement/path"},
    [REACH] = {svc_handle_move_reach, "/v1/movement/reach"},
    [ROUTE] = {svc_handle_move_route, "/v1/movement/route"},
    [FORCED] = {svc_handle_move_forced, "/v1/movement/forced"},
    [FALLING] = {svc_handle_falling, "/v1/falling"},
    [FLANKING] = {svc_handle_flanking, "/v1/geometry/flanking"},
    [ATTACK] = {svc_handle_attack_resolve, "/v1/attacks/resolve"},
};

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

static struct svc_config cfg;
static struct svc_context ctx;

static void setup(void)
{
    char *argv[] = {"tacticsd", NULL};
    char err[256];
    cr_assert_eq(svc_config_parse(1, argv, no_env, &cfg, err, sizeof err), SVC_CONFIG_RUN);
    ctx = (struct svc_context){.config = &cfg};
}

/* The direct ruling of kind on body (map: pre-decoded, or NULL). */
static void rule(enum kind k, json_t *body, const struct rules_map *map, struct svc_answer *a)
{
    switch (k) {
    case PATH:
        svc_rule_move_path(body, &cfg, map, a);
        break;
    case REACH:
        svc_rule_move_reach(body, &cfg, map, a);
        break;
    case ROUTE:
        svc_rule_move_route(body, &cfg, map, a);
        break;
    case FORCED:
        svc_rule_move_forced(body, &cfg, map, a);
        break;
    case FALLING:
        svc_rule_falling(body, a);
        break;
    case FLANKING:
        svc_rule_flanking(body, a);
        break;
    case ATTACK:
        svc_rule_attack(body, a);
        break;
    }
}

/* What the handler answers when body is POSTed (the caller clears res). */
static void post(enum kind k, const char *text, struct svc_response *res)
{
    struct svc_request req = {.method = "POST",
                              .path = endpoints[k].path,
                              .body = text,
                              .body_len = strlen(text),
                              .ctx = &ctx};
    memset(res, 0, sizeof *res);
    endpoints[k].handler(&req, res);
}

static const char *header(const struct svc_response *res, const char *name)
{
    for (int i = 0; i < res->header_count; i++)
        if (strcmp(res->headers[i].name, name) == 0)
            return res->headers[i].value;
    return NULL;
}

/* Rules text both ways and checks that they agree; the status must be want. map: also rules it
 * with body.map decoded beforehand, as an encounter shares its map, which must change nothing. */
static void agree(enum kind k, const char *text, unsigned want, bool map)
{
    json_t *body = json_loads(text, 0, NULL);
    cr_assert_not_null(body, "%s", text);
    struct svc_response res;
    post(k, text, &res);
    cr_assert_eq(res.status, want, "%s: POST answered %u: %s", endpoints[k].path, res.status,
                 res.body ? res.body : "");
    struct svc_answer a = {0};
    rule(k, body, NULL, &a);
    cr_assert_eq(a.status, res.status, "%s: direct %u, POST %u", endpoints[k].path, a.status,
                 res.status);
    if (a.status == 200) {
        char *got =
            a.text != NULL ? strdup(a.text) : json_dumps(a.doc, JSON_COMPACT | JSON_ENSURE_ASCII);
        cr_assert_str_eq(got, res.body, "%s", endpoints[k].path);
        if (a.text != NULL)
            cr_assert_eq(a.len, res.body_len);
        free(got);
    } else {
        json_t *problem = json_loadb(res.body, res.body_len, 0, NULL);
        json_t *errors = json_object_get(problem, "errors");
        cr_assert_eq(json_array_size(a.errors), json_array_size(errors), "%s", res.body);
        for (size_t i = 0; i < json_array_size(errors); i++) {
            json_t *d = json_array_get(a.errors, i), *h = json_array_get(errors, i);
            cr_assert(json_equal(json_object_get(d, "pointer"), json_object_get(h, "pointer")));
            cr_assert(json_equal(json_object_get(d, "message"), json_object_get(h, "message")));
        }
        char detail[640];
        cr_assert_str_eq(svc_answer_detail(&a, detail, sizeof detail),
                         json_string_value(json_object_get(problem, "detail")));
        cr_assert_eq(a.retry_after, header(&res, "Retry-After") != NULL);
        json_decref(problem);
    }
    svc_answer_free(&a);
    if (k == ATTACK && want == 200) {
        /* Asked for as a value (an encounter's attack): built from the ruling's structs, no
         * text, and dumped as the encounter stores it, the bytes POST answered. */
        a.want_doc = true;
        rule(k, body, NULL, &a);
        cr_assert_eq(a.status, 200);
        cr_assert_null(a.text);
        cr_assert_not_null(a.doc);
        size_t n = 0;
        char *got = jw_dump(a.doc, &n);
        cr_assert_str_eq(got, res.body, "%s as a value", endpoints[k].path);
        free(got);
        svc_answer_free(&a);
        a.want_doc = false;
    }
    if (map) {
        struct rules_map m;
        struct svc_errors e;
        svc_errors_init(&e);
        cr_assert_eq(svc_decode_map(body, &cfg, false, &m, &e), 0);
        svc_errors_free(&e);
        rule(k, body, &m, &a);
        cr_assert_eq(a.status, 200);
        char *got = a.text != NULL ? strdup(a.text) : json_dumps(a.doc, JSON_COMPACT);
        cr_assert_str_eq(got, res.body, "%s with its map decoded beforehand", endpoints[k].path);
        free(got);
        svc_answer_free(&a);
        rules_map_free(&m);
    }
    svc_response_clear(&res);
    json_decref(body);
}

TestSuite(rulings, .init = setup);

Test(rulings, path)
{
    /* 001: moving past a threatening enemy provokes; the answer lists the attack. */
    agree(
        PATH,
        "{\"map\":{\"width\":6,\"height\":3},\"creatures\":[{\"id\":\"orc\",\"side\":\"enemy\","
        "\"x\":2,\"y\":0}],\"mover\":{\"x\":0,\"y\":1,\"speeds\":{\"walk\":30}},\"mode\":\"move\","
        "\"path\":[{\"x\":1,\"y\":1},{\"x\":2,\"y\":1},{\"x\":3,\"y\":1}],\"odds\":true}",
        200, true);
    /* Not adjacent to the step before: a field error under /path. */
    agree(PATH,
          "{\"map\":{\"width\":6,\"height\":3},\"mover\":{\"x\":0,\"y\":1,\"speeds\":{\"walk\":"
          "30}},\"mode\":\"move\",\"path\":[{\"x\":3,\"y\":1}]}",
          422, false);
    /* Not an object. */
    agree(PATH, "[1]", 422, false);
}

Test(rulings, forced)
{
    agree(
        FORCED,
        "{\"map\":{\"width\":8,\"height\":3},\"creatures\":[{\"id\":\"friend\",\"side\":\"ally\","
        "\"x\":3,\"y\":1}],\"attacker\":{\"x\":0,\"y\":1},\"target\":{\"x\":1,\"y\":1},\"kind\":"
        "\"push\",\"squares\":3,\"path\":[{\"x\":2,\"y\":1},{\"x\":3,\"y\":1},{\"x\":4,\"y\":1}]}",
        200, true);
    agree(FORCED,
          "{\"map\":{\"width\":8,\"height\":3},\"attacker\":{\"x\":0,\"y\":1},\"target\":{\"x\":1,"
          "\"y\":1},\"kind\":\"shove\",\"squares\":3,\"extra\":1}",
          422, false);
}

Test(rulings, falling)
{
    agree(FALLING, "{\"height_ft\":30,\"results\":[1,2,3]}", 200, false);
    agree(FALLING, "{\"height_ft\":30,\"surface\":\"water\",\"seed\":5}", 422, false);
}

Test(rulings, attack)
{
    const char *text = "{\"attacker\":{\"x\":5,\"y\":4,\"attack_bonus\":5,\"damage\":\"1d6+1\"},"
                       "\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":2}},\"seed\":42}";
    agree(ATTACK, text, 200, false);
    /* Every part of the answer: facing, flanking, sneak attack, cover, concealment, damage
     * reduction; a confirmed critical hit with its damage roll and roll rules; names in other
     * scripts and with characters the markdown escapes. */
    agree(ATTACK,
          "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":6,"
          "\"facing\":0,\"attack_bonus\":5,\"sneak_attack_dice\":2,\"damage\":\"1d6+1\"},"
          "\"defender\":{\"x\":5,\"y\":5,\"facing\":0,\"defense\":{\"armor\":4,\"dex\":2},"
          "\"damage_reduction\":2},\"allies\":[{\"x\":4,\"y\":5}],\"cover\":\"quarter\","
          "\"concealment\":[\"quarter\"],\"seed\":7}",
          200, false);
    agree(ATTACK,
          "{\"rules\":{\"preset\":\"d20-3.5\"},\"attacker\":{\"name\":\"Кира *the* \\\"Bold\\\"\","
          "\"x\":5,\"y\":4,\"attack_bonus\":5,\"damage\":\"1d8+2\",\"crit_range\":19,"
          "\"crit_multiplier\":2,\"sneak_attack_dice\":1},\"defender\":{\"name\":\"オーク\","
          "\"x\":5,\"y\":5,\"defense\":{\"armor\":4,\"dex\":2},\"damage_reduction\":3},"
          "\"concealment\":[\"quarter\",\"half\"],\"results\":[19,12,80,5,6]}",
          200, false);
    agree(ATTACK, "{\"attacker\":{\"x\":5,\"y\":4},\"seed\":1,\"results\":[3]}", 422, false);
    /* The table's dice: 15 + 5 = 20 against AC 10 (no armor) hits; 1d6+1 with a 4 deals 5. */
    json_t *body = json_pack("{s:{s:i, s:i, s:i, s:s}, s:{s:i, s:i, s:{s:i}}, s:[i, i]}",
                             "attacker", "x", 5, "y", 4, "attack_bonus", 5, "damage", "1d6+1",
                             "defender", "x", 5, "y", 5, "defense", "armor", 0, "results", 15, 4);
    struct svc_answer a = {0};
    rule(ATTACK, body, NULL, &a);
    char *errors = json_dumps(a.errors, JSON_COMPACT);
    cr_assert_eq(a.status, 200, "%s", errors);
    free(errors);
    cr_assert_not_null(strstr(a.text, "\"dealt\":5"), "%s", a.text);
    cr_assert_not_null(strstr(a.text, "\"to\":\"defender\""), "%s", a.text);
    svc_answer_free(&a);
    json_decref(body);
}

Test(rulings, reach_and_route)
{
    agree(REACH,
          "{\"map\":{\"width\":4,\"height\":4},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
          "15}},\"mode\":\"move\",\"prefer\":\"fewest_attacks\"}",
          200, true);
    agree(REACH,
          "{\"map\":{\"width\":4,\"height\":4},\"mover\":{\"x\":0,\"y\":0},\"mode\":\"fly\"}", 422,
          false);
    agree(ROUTE,
          "{\"map\":{\"width\":5,\"height\":2,\"rows\":[\"..#..\",\".....\"]},\"mover\":{\"x\":0,"
          "\"y\":0,\"speeds\":{\"walk\":30}},\"mode\":\"move\",\"target\":{\"x\":4,\"y\":0}}",
          200, true);
    agree(
        ROUTE,
        "{\"map\":{\"width\":5,\"height\":1},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":30}},"
        "\"mode\":\"five_foot_step\",\"target\":{\"x\":9,\"y\":0}}",
        422, false);
}

/* A search past its budget: 422 too-expensive, whose detail the encounter reports. */
Test(rulings, too_expensive)
{
    cfg.budget_divisor = 4000000; /* 8,000,000 search states become 2 */
    agree(REACH,
          "{\"map\":{\"width\":20,\"height\":20},\"mover\":{\"x\":0,\"y\":0,\"speeds\":{\"walk\":"
          "60}},\"mode\":\"move\"}",
          422, false);
}

/* The searches' gate admits by predicted cost (issue 33): with its one place held by a costly
 * request, a route over a 1,000 x 1,000 map (which may set up all of it) is 503 with
 * Retry-After, both ways, while one on a 4 x 4 map, predicted cheap, is answered. */
Test(rulings, busy)
{
    cfg.threads = 1; /* one place */
    struct svc_request req = {.ctx = &ctx};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    long long held = 0;
    cr_assert(svc_search_begin(&req, NULL, &held, &res)); /* the most a request may cost */
    cr_assert_gt(held, 0);
    const char *cheap = "{\"map\":{\"width\":4,\"height\":4},\"mover\":{\"x\":0,\"y\":0,\"speeds\":"
                        "{\"walk\":15}},\"mode\":\"move\",\"target\":{\"x\":3,\"y\":3}}";
    const char *costly =
        "{\"map\":{\"width\":1000,\"height\":1000},\"mover\":{\"x\":0,\"y\":0,"
        "\"speeds\":{\"walk\":15}},\"mode\":\"move\",\"target\":{\"x\":3,\"y\":3}}";
    agree(ROUTE, cheap, 200, false);
    agree(ROUTE, costly, 503, false);
    svc_search_end(held);
    agree(ROUTE, costly, 200, false);
}

Test(rulings, flanking)
{
    agree(FLANKING,
          "{\"attacker\":{\"x\":5,\"y\":4,\"name\":\"Ana\"},\"target\":{\"x\":5,\"y\":5},"
          "\"allies\":[{\"x\":5,\"y\":6,\"name\":\"Bo\"}]}",
          200, false);
    agree(FLANKING, "{\"attacker\":{\"x\":5,\"y\":4},\"allies\":[]}", 422, false);
}
