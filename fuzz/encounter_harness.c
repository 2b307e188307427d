/* The encounter fuzz targets' shared context (encounter_harness.h). */
#include "fuzz/encounter_harness.h"

#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "service/encounter/encounter.h"
#include "service/encounter/state_cache.h"

static struct svc_config cfg = {.max_map_side = 64,
                                .max_body = 1 << 20,
                                .budget_scale = 1,
                                .budget_divisor = FUZZ_BUDGET_DIVISOR};
struct svc_context fuzz_ctx = {.config = &cfg};
char fuzz_id[64], fuzz_auth[128], fuzz_if_match[64];
static const char *folder;

/* The database's folder goes when the fuzzer exits. */
static void cleanup(void)
{
    db_close(fuzz_ctx.db);
    svc_state_cache_free(fuzz_ctx.states);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", folder);
}

void fuzz_open(char *dir_template)
{
    assert(dir_template != NULL && strlen(dir_template) < 80);
    char path[96];
    if (mkdtemp(dir_template) == NULL)
        abort();
    folder = dir_template;
    atexit(cleanup);
    snprintf(path, sizeof path, "%s/f.db", dir_template);
    if (db_open(path, &fuzz_ctx.db) != DB_OK || (fuzz_ctx.states = svc_state_cache_new()) == NULL)
        abort();
}

const char *fuzz_header(void *cookie, const char *name)
{
    (void)cookie;
    if (strcasecmp(name, "Authorization") == 0)
        return fuzz_auth[0] ? fuzz_auth : NULL;
    if (strcasecmp(name, "If-Match") == 0)
        return fuzz_if_match;
    return NULL;
}

unsigned fuzz_post(svc_handler h, const char *param0, const char *param1, const char *body,
                   size_t len, char **out)
{
    assert(h != NULL && (body != NULL || len == 0));
    struct svc_request req = {.method = "POST",
                              .path = "/v1/encounters",
                              .body = body ? body : "",
                              .body_len = len,
                              .header = fuzz_header,
                              .ctx = &fuzz_ctx};
    req.params[0] = param0;
    req.params[1] = param1;
    struct svc_response res;
    memset(&res, 0, sizeof res);
    h(&req, &res);
    unsigned status = res.status;
    if (out != NULL)
        *out = res.body ? strndup(res.body, res.body_len) : NULL;
    svc_response_clear(&res);
    return status;
}

void fuzz_create_encounter(const char *extra)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"map\":{\"width\":12,\"height\":12,\"rows\":[\"............\",\"..d.........\","
             "\"..#o........\",\"....h.......\",\"....w.......\",\"............\","
             "\"............\",\"............\",\"............\",\"............\","
             "\"............\",\"............\"]},\"seed\":7%s}",
             extra);
    char *answer = NULL;
    if (fuzz_post(svc_handle_encounter_create, NULL, NULL, body, strlen(body), &answer) != 201)
        abort();
    json_t *doc = json_loads(answer, 0, NULL);
    free(answer);
    const char *id = json_string_value(json_object_get(doc, "id"));
    const char *token = json_string_value(json_object_get(doc, "token"));
    if (id == NULL || token == NULL)
        abort();
    snprintf(fuzz_id, sizeof fuzz_id, "%s", id);
    snprintf(fuzz_auth, sizeof fuzz_auth, "Bearer %s", token);
    snprintf(fuzz_if_match, sizeof fuzz_if_match, "\"v1\"");
    json_decref(doc);
}
