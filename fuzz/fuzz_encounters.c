/* libFuzzer target: the encounter write handlers (combatants, initiative, turns, actions,
 * import) on a real database in a temporary folder, against one encounter that the inputs keep
 * changing. The first byte picks the handler; the rest is the body. The request carries the
 * encounter's token and current version, so inputs reach the rules; whatever they are, the
 * answer is 2xx, 400, 404, 409, 412 or 422 - never a 5xx and never without an answer. The server's
 * state cache is on, and after every input the state it holds must equal the stored one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "service/encounter/encounter.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct svc_config cfg = {
    .max_map_side = 64, .max_body = 1 << 20, .budget_divisor = FUZZ_BUDGET_DIVISOR};
static struct svc_context ctx = {.config = &cfg};
static char id[64], auth[128], if_match[64];
static char dir[] = "/tmp/tactics-fuzz-XXXXXX";

/* The database's folder goes when the fuzzer exits. */
static void cleanup(void)
{
    db_close(ctx.db);
    svc_state_cache_free(ctx.states);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static const char *header(void *cookie, const char *name)
{
    (void)cookie;
    if (strcasecmp(name, "Authorization") == 0)
        return auth[0] ? auth : NULL;
    if (strcasecmp(name, "If-Match") == 0)
        return if_match;
    return NULL;
}

static unsigned call(svc_handler h, const char *cid, const char *body, size_t len, char **out)
{
    struct svc_request req = {.method = "POST",
                              .path = "/v1/encounters",
                              .body = body,
                              .body_len = len,
                              .header = header,
                              .ctx = &ctx};
    req.params[0] = id;
    req.params[1] = cid;
    struct svc_response res;
    memset(&res, 0, sizeof res);
    h(&req, &res);
    unsigned status = res.status;
    if (out != NULL)
        *out = res.body ? strndup(res.body, res.body_len) : NULL;
    svc_response_clear(&res);
    return status;
}

static char *field(const char *json, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    return strndup(p, strcspn(p, "\""));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char path[64];
    if (mkdtemp(dir) == NULL)
        abort();
    atexit(cleanup);
    snprintf(path, sizeof path, "%s/f.db", dir);
    if (db_open(path, &ctx.db) != DB_OK || (ctx.states = svc_state_cache_new()) == NULL)
        abort();
    const char *create = "{\"map\":{\"width\":12,\"height\":12,\"rows\":[\"............\","
                         "\"..d.........\",\"..#o........\",\"....h.......\",\"....w.......\","
                         "\"............\",\"............\",\"............\",\"............\","
                         "\"............\",\"............\",\"............\"]},\"seed\":7}";
    char *body = NULL;
    if (call(svc_handle_encounter_create, NULL, create, strlen(create), &body) != 201)
        abort();
    char *eid = field(body, "id"), *token = field(body, "token");
    snprintf(id, sizeof id, "%s", eid);
    snprintf(auth, sizeof auth, "Bearer %s", token);
    free(eid), free(token), free(body);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const svc_handler handlers[] = {
        svc_handle_encounter_add_combatant, svc_handle_encounter_update_combatant,
        svc_handle_encounter_initiative,    svc_handle_encounter_next_turn,
        svc_handle_encounter_action,        svc_handle_encounter_remove_combatant,
        svc_handle_encounter_import};
    struct db_encounter e;
    if (db_encounter_get(ctx.db, id, &e) != DB_OK)
        abort();
    free(e.state_json);
    snprintf(if_match, sizeof if_match, "\"v%lld\"", (long long)e.version);
    char *body = malloc(size);
    memcpy(body, data + 1, size - 1);
    body[size - 1] = '\0';
    unsigned status =
        call(handlers[data[0] % (sizeof handlers / sizeof handlers[0])], "a", body, size - 1, NULL);
    free(body);
    if (status >= 500 || status == 0)
        abort();
    /* The cached state (when there is one) is the stored state at the stored version. */
    if (db_encounter_get(ctx.db, id, &e) != DB_OK)
        abort();
    unsigned char hash[AUTH_HASH_LEN];
    size_t bytes = 0;
    json_t *cached = svc_state_cache_take(ctx.states, id, e.version, hash, &bytes);
    if (cached != NULL) {
        json_t *stored = json_loads(e.state_json, 0, NULL);
        if (!json_equal(cached, stored))
            abort();
        json_decref(stored);
        svc_state_cache_put(ctx.states, id, e.version, hash, cached, bytes);
    }
    free(e.state_json);
    return 0;
}
