/* The service tests' shared request bodies and answer checks (builders.h). */
#include "tests/service/builders.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* o's member k, asserted to be there and of type (a failure names k and what it found). */
static json_t *member_of(json_t *o, const char *k, json_type type)
{
    cr_assert(json_is_object(o), "no object to read the member \"%s\" of", k);
    json_t *v = json_object_get(o, k);
    cr_assert_not_null(v, "the member \"%s\" is absent", k);
    cr_assert(json_typeof(v) == type, "the member \"%s\" is %s, not %s", k,
              json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT),
              type == JSON_INTEGER ? "an integer" : "a string");
    return v;
}

long long tb_num(json_t *o, const char *k)
{
    return json_integer_value(member_of(o, k, JSON_INTEGER));
}

const char *tb_text(json_t *o, const char *k)
{
    return json_string_value(member_of(o, k, JSON_STRING));
}

long long tb_num_or(json_t *o, const char *k, long long absent)
{
    return json_object_get(o, k) == NULL ? absent : tb_num(o, k);
}

const char *tb_text_or(json_t *o, const char *k, const char *absent)
{
    return json_object_get(o, k) == NULL ? absent : tb_text(o, k);
}

const char *tb_first_pointer(json_t *problem)
{
    return tb_text_or(json_array_get(json_object_get(problem, "errors"), 0), "pointer", "");
}

long long tb_metric(const struct server *s, const char *name)
{
    struct http_response r;
    http_request(s, "GET", "/metrics", NULL, NULL, &r);
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = r.body != NULL ? strstr(r.body, key) : NULL;
    long long v = at != NULL ? atoll(at + strlen(key)) : -1;
    http_response_free(&r);
    return v;
}

json_t *tb_get_json(const struct server *s, const char *path, int status)
{
    struct http_response r;
    http_request(s, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, status, "GET %s: %d %s", path, r.status, r.body);
    json_t *doc = json_loadb(r.body, r.body_len, 0, NULL);
    http_response_free(&r);
    return doc;
}

json_t *tb_find_by(json_t *array, const char *key, const char *value)
{
    size_t i;
    json_t *item;
    json_array_foreach(array, i, item)
    {
        const char *v = json_string_value(json_object_get(item, key));
        if (v != NULL && strcmp(v, value) == 0)
            return item;
    }
    return NULL;
}

void tb_each_refused(const struct server *s, const char *path, const struct tb_refusal *cases,
                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *doc = http_post_json(s, path, cases[i].body, 422);
        cr_assert_str_eq(tb_first_pointer(doc), cases[i].pointer, "%s", cases[i].body);
        json_decref(doc);
    }
}

void tb_same_answer_twice(const struct server *s, const char *path, const char *body)
{
    struct http_response a, b;
    http_request(s, "POST", path, "Content-Type: application/json\r\n", body, &a);
    http_request(s, "POST", path, "Content-Type: application/json\r\n", body, &b);
    cr_assert_eq(a.status, 200, "%s: %d %s", path, a.status, a.body);
    cr_assert_eq(b.status, 200, "%s: %d %s", path, b.status, b.body);
    cr_assert_eq(a.body_len, b.body_len);
    cr_assert_eq(memcmp(a.body, b.body, a.body_len), 0, "%s: %s\n%s", path, a.body, b.body);
    http_response_free(&a);
    http_response_free(&b);
}

void tb_confirmed_critical(json_t *critical_hit, int threat_range, int multiplier, int d20)
{
    cr_assert_not_null(critical_hit, "no critical_hit");
    cr_assert_eq(tb_num(critical_hit, "threat_range"), threat_range);
    cr_assert_eq(tb_num(critical_hit, "multiplier"), multiplier);
    cr_assert(json_is_true(json_object_get(critical_hit, "threat")));
    cr_assert(json_is_true(json_object_get(critical_hit, "confirmed")));
    cr_assert_eq(tb_num(json_object_get(critical_hit, "confirmation"), "d20"), d20);
}

const char *tb_json_as(char *buf, size_t n, const char *token)
{
    snprintf(buf, n, "Content-Type: application/json\r\nAuthorization: Bearer %s\r\n", token);
    return buf;
}

const char *tb_write_headers(char *buf, size_t n, const struct enc *e, long long version,
                             const char *extra)
{
    snprintf(buf, n,
             "Content-Type: application/json\r\nAuthorization: Bearer %s\r\nIf-Match: "
             "\"v%lld\"\r\n%s",
             e->token, version, extra);
    return buf;
}

void tb_get_typed(const struct server *s, const char *path, const char *type,
                  struct http_response *r)
{
    http_request(s, "GET", path, NULL, NULL, r);
    cr_assert_eq(r->status, 200, "%s: %d", path, r->status);
    char ct[128] = "";
    cr_assert(http_header(r, "Content-Type", ct, sizeof ct), "%s: no Content-Type", path);
    cr_assert_str_eq(ct, type, "%s", path);
}

json_t *suite_call(struct enc *e, const char *method, const char *suffix, const char *body,
                   int status)
{
    cr_assert_not_null(suite_server, "suite_call outside a SERVER_TEST_SUITE");
    return enc_call(suite_server, e, method, suffix, NULL, body, status);
}

void suite_create(struct enc *e, const char *body)
{
    cr_assert_not_null(suite_server, "suite_create outside a SERVER_TEST_SUITE");
    enc_create(suite_server, e, body);
}

void tb_encounter(const struct server *s, struct enc *e, const char *create_body,
                  const char *const *combatants, const char *initiative)
{
    enc_create(s, e, create_body);
    for (const char *const *c = combatants; c && *c; c++)
        json_decref(enc_call(s, e, "POST", "/combatants", NULL, *c, 201));
    if (initiative)
        enc_post_ok(s, e, "/initiative", initiative);
}

void tb_verify_ok(const struct server *s, struct enc *e)
{
    json_t *v = enc_call(s, e, "POST", "/verify", NULL, NULL, 200);
    cr_assert(json_is_true(json_object_get(v, "ok")), "the log does not verify");
    json_decref(v);
}

void tb_explain_is(json_t *doc, const char *plain, const char *markdown)
{
    cr_assert_not_null(json_string_value(json_object_get(doc, "explain")), "no explain");
    cr_assert_not_null(json_string_value(json_object_get(doc, "explain_markdown")),
                       "no explain_markdown");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain")), plain);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "explain_markdown")), markdown);
}

/* the encounter tests' reads and setups shared to fold repeated runs. */

bool tb_turn_left(json_t *combatant, const char *what)
{
    json_t *left = json_object_get(json_object_get(combatant, "turn"), "left");
    return json_is_true(json_object_get(left, what));
}

void tb_import_fixture(const struct server *s, struct enc *e, const char *name)
{
    json_t *doc = load_fixture(name);
    enc_import(s, e, doc);
    json_decref(doc);
}

const char *tb_enc_path(char *buf, size_t n, const struct enc *e, const char *suffix)
{
    snprintf(buf, n, "/v1/encounters/%s%s", e->id, suffix);
    return buf;
}

void tb_at(json_t *o, long long x, long long y)
{
    cr_assert_not_null(o, "nothing stands at %lld,%lld", x, y);
    cr_assert(tb_num(o, "x") == x && tb_num(o, "y") == y, "%s at %lld,%lld, not %lld,%lld",
              tb_text_or(o, "id", "it"), tb_num_or(o, "x", -1), tb_num_or(o, "y", -1), x, y);
}

json_t *tb_result(json_t *doc)
{
    return json_object_get(json_object_get(doc, "event"), "result");
}

const char *tb_code_of(json_t *o, const char *k)
{
    return tb_text(json_object_get(o, k), "code");
}

void tb_refused_at(struct enc *e, const char *suffix, const char *body, const char *pointer)
{
    json_t *doc = suite_call(e, "POST", suffix, body, 422);
    cr_assert_str_eq(tb_first_pointer(doc), pointer, "%s", body);
    json_decref(doc);
}

void tb_enc_request(const struct server *s, const struct enc *e, const char *method,
                    const char *suffix, const char *headers, const char *body, int status,
                    struct http_response *r)
{
    char path[256];
    http_request(s, method, tb_enc_path(path, sizeof path, e, suffix), headers, body, r);
    cr_assert_eq(r->status, status, "%s %s: %s", method, path, r->body ? r->body : "");
}
