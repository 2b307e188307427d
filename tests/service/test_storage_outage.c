/* tacticsd on PostgreSQL while PostgreSQL goes down and comes back: writes are answered 503
 * problem+json and /readyz is 503 while it is down, and both come back by themselves once it
 * is up, with no restart of tacticsd. Runs in a PostgreSQL of its own (scripts/pg), so the
 * other tests never see it go down; skipped on SQLite. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/service/harness.h"

static void pg_script(const char *cmd, const char *where)
{
    char line[512];
    snprintf(line, sizeof line, "%s/pg %s '%s' >/dev/null", SCRIPTS_DIR, cmd, where);
    cr_assert_eq(system(line), 0, "%s", line);
}

static int status_of(const struct server *s, const char *method, const char *path,
                     const char *headers, const char *body, char *content_type, size_t len)
{
    struct http_response r;
    http_request(s, method, path, headers, body, &r);
    int status = r.status;
    if (content_type != NULL && !http_header(&r, "Content-Type", content_type, len))
        content_type[0] = '\0';
    http_response_free(&r);
    return status;
}

TestSuite(encounter_outage, .timeout = 120);

Test(encounter_outage, writes_and_readyz_are_503_while_postgres_is_down_then_recover)
{
    if (!server_on_postgres())
        return; /* not on this backend (no cr_skip_test: it leaks in Criterion 2.4.1's runner) */
    char own[64], url[160];
    snprintf(own, sizeof own, "/tmp/tactics-pgo-%d", (int)getpid());
    pg_script("start", own);
    snprintf(url, sizeof url, "postgresql:///tactics?host=%s", own);
    struct server s;
    const char *const args[] = {"--db", url, NULL};
    server_start(&s, args);
    json_t *doc = http_post_json(&s, "/v1/encounters", "{\"map\":{\"width\":5,\"height\":5}}", 201);
    char id[64], token[80], headers[256], path[128];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(doc, "id")));
    snprintf(token, sizeof token, "%s", json_string_value(json_object_get(doc, "token")));
#define AT_VERSION(v)                                                                              \
    snprintf(                                                                                      \
        headers, sizeof headers,                                                                   \
        "Authorization: Bearer %s\r\nIf-Match: \"v%d\"\r\nContent-Type: application/json\r\n",     \
        token, v)
    AT_VERSION(1);
    json_decref(doc);
    snprintf(path, sizeof path, "/v1/encounters/%s/combatants", id);
#define BODY                                                                                       \
    "{\"id\":\"c%d\",\"side\":\"a\",\"x\":%d,\"y\":1,\"speeds\":{\"walk\":30},"                    \
    "\"defense\":{\"armor\":1},\"max_hp\":5,\"dex\":10}"
    char one[256];
    snprintf(one, sizeof one, BODY, 1, 1);
    cr_assert_eq(status_of(&s, "POST", path, headers, one, NULL, 0), 201);

    pg_script("kill", own);
    AT_VERSION(2);
    char ct[64];
    snprintf(one, sizeof one, BODY, 2, 2);
    cr_assert_eq(status_of(&s, "POST", path, headers, one, ct, sizeof ct), 503);
    cr_assert_str_eq(ct, "application/problem+json");
    cr_assert_eq(status_of(&s, "GET", "/readyz", NULL, NULL, ct, sizeof ct), 503);
    cr_assert_str_eq(ct, "application/problem+json");

    pg_script("restart", own);
    cr_assert_eq(status_of(&s, "GET", "/readyz", NULL, NULL, NULL, 0), 200);
    cr_assert_eq(status_of(&s, "POST", path, headers, one, NULL, 0), 201);
    snprintf(path, sizeof path, "/v1/encounters/%s", id);
    doc = NULL;
    struct http_response r;
    http_request(&s, "GET", path, headers, NULL, &r);
    cr_assert_eq(r.status, 200);
    doc = json_loads(r.body, 0, NULL);
    http_response_free(&r);
    cr_assert_eq(json_integer_value(json_object_get(doc, "version")), 3);
    json_decref(doc);
    server_stop(&s);
    pg_script("stop", own);
}
