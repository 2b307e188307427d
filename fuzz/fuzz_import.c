/* libFuzzer target, structure-aware: imports of a genuine export that the input mutates.
 *
 * At start-up a real encounter is played in process on a database in a temporary folder
 * (combatants, initiative, turns, a move, an attack, a timed condition) and exported with its
 * token. Each input is read as a list of edits to a copy of that export, three bytes each:
 * where (a walk down the document: which member or item at each level), what (delete it,
 * replace it by one of a palette of hostile values, duplicate or drop an array item, swap two
 * events) and a parameter. Random bytes would almost never make a JSON document the importer
 * reads past its first check; edits of a genuine one reach every event's re-resolution.
 *
 * Whatever the edits, the import answers 201, 400 or 422, never a 5xx or a crash; and when it
 * answers 201, the encounter it stored verifies (every ruling re-resolves the same, the state
 * is the fold of the log), so no edit can forge an encounter this server would not make. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "fuzz/encounter_harness.h"
#include "service/encounter/encounter.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/tactics-fuzz-import-XXXXXX";
static json_t *genuine;

static void free_genuine(void)
{
    json_decref(genuine);
}

/* Calls handler h on encounter param0 (combatant "fighter") with body (may be NULL); returns
 * the status and, when out, the answer parsed. */
static unsigned call(svc_handler h, const char *param0, const char *body, json_t **out)
{
    char *text = NULL;
    unsigned status =
        fuzz_post(h, param0, "fighter", body, body ? strlen(body) : 0, out ? &text : NULL);
    if (out != NULL)
        *out = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return status;
}

/* One write on the encounter at its current version; aborts unless it is accepted. */
static void play(svc_handler h, const char *body)
{
    json_t *doc = NULL;
    unsigned status = call(h, fuzz_id, body, &doc);
    if (status >= 300 || doc == NULL)
        abort();
    snprintf(fuzz_if_match, sizeof fuzz_if_match, "\"v%lld\"",
             (long long)json_integer_value(json_object_get(doc, "version")));
    json_decref(doc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_open(dir);
    atexit(free_genuine);
    fuzz_create_encounter(",\"name\":\"fuzz\"");
    play(svc_handle_encounter_add_combatant,
         "{\"id\":\"fighter\",\"side\":\"party\",\"x\":5,\"y\":5,\"facing\":6,\"speeds\":{\"walk\":"
         "30},\"defense\":{\"armor\":5},\"max_hp\":20,\"dex\":12,\"attacks\":[{\"name\":"
         "\"longsword\",\"attack_bonus\":6,\"damage\":\"1d8+3\"}]}");
    play(svc_handle_encounter_add_combatant,
         "{\"id\":\"goblin\",\"side\":\"monsters\",\"x\":7,\"y\":5,\"speeds\":{\"walk\":30},"
         "\"defense\":{\"armor\":2,\"dex\":1,\"size\":1},\"max_hp\":6,\"dex\":13,\"attacks\":[{"
         "\"name\":\"morningstar\",\"attack_bonus\":2,\"damage\":\"1d6\"}],\"conditions\":[]}");
    play(svc_handle_encounter_initiative, "{\"results\":[14,1,14,2]}");
    play(svc_handle_encounter_next_turn, NULL);
    play(svc_handle_encounter_action,
         "{\"type\":\"move\",\"actor\":\"goblin\",\"path\":[{\"x\":6,\"y\":5}]}");
    play(svc_handle_encounter_action,
         "{\"type\":\"attack\",\"actor\":\"goblin\",\"target\":\"fighter\"}");
    play(svc_handle_encounter_action, "{\"type\":\"condition\",\"actor\":\"goblin\",\"target\":"
                                      "\"fighter\",\"condition\":\"prone\",\"rounds\":2}");
    play(svc_handle_encounter_next_turn, "{}");
    play(svc_handle_encounter_update_combatant, "{\"hp\":4}");
    struct svc_request req = {
        .method = "GET", .path = "/export", .body = "", .header = fuzz_header, .ctx = &fuzz_ctx};
    req.params[0] = fuzz_id;
    struct svc_response res;
    memset(&res, 0, sizeof res);
    svc_handle_encounter_export(&req, &res);
    genuine = res.status == 200 ? json_loadb(res.body, res.body_len, 0, NULL) : NULL;
    svc_response_clear(&res);
    if (genuine == NULL || json_array_size(json_object_get(genuine, "events")) != 10)
        abort();
    return 0;
}

/* Values an edit may put in place of another. */
static json_t *palette(uint8_t k, const char *text)
{
    switch (k % 16) {
    case 0:
        return json_null();
    case 1:
        return json_integer(0);
    case 2:
        return json_integer(-1);
    case 3:
        return json_integer(1000000000);
    case 4:
        return json_integer(7);
    case 5:
        return json_string("");
    case 6:
        return json_string(text);
    case 7:
        return json_array();
    case 8:
        return json_object();
    case 9:
        return json_pack("[i]", 1);
    case 10:
        return json_true();
    case 11:
        return json_real(1.5);
    case 12:
        return json_integer(INT64_MAX);
    case 13:
        return json_string("hex");
    case 14:
        return json_pack("[s]", "unconscious");
    default:
        return json_string("fighter");
    }
}

/* Walks from the root by `where` (a byte per level) to a container and a place in it. */
static void locate(json_t *root, const uint8_t *where, size_t depth, json_t **parent,
                   const char **key, size_t *index)
{
    json_t *at = root;
    *parent = NULL;
    *key = NULL;
    for (size_t d = 0; d < depth && (json_is_object(at) || json_is_array(at)); d++) {
        size_t n = json_is_object(at) ? json_object_size(at) : json_array_size(at);
        if (n == 0)
            break;
        size_t pick = where[d] % n;
        *parent = at;
        if (json_is_object(at)) {
            void *it = json_object_iter(at);
            for (size_t i = 0; i < pick; i++)
                it = json_object_iter_next(at, it);
            *key = json_object_iter_key(it);
            at = json_object_iter_value(it);
        } else {
            *key = NULL;
            *index = pick;
            at = json_array_get(at, pick);
        }
    }
}

/* Applies one edit: op, then a depth, then that many bytes of path, then a value byte. */
static size_t edit(json_t *doc, const uint8_t *p, size_t left)
{
    if (left < 3)
        return left;
    uint8_t op = p[0], depth = (uint8_t)(1 + p[1] % 8);
    if ((size_t)depth + 3 > left)
        return left;
    const uint8_t *where = p + 2;
    uint8_t value = p[2 + depth];
    json_t *parent;
    const char *key;
    size_t index = 0;
    locate(doc, where, depth, &parent, &key, &index);
    if (parent == NULL)
        return (size_t)depth + 3;
    char text[8];
    snprintf(text, sizeof text, "v%u", value);
    switch (op % 5) {
    case 0: /* delete */
        if (key != NULL)
            json_object_del(parent, key);
        else
            json_array_remove(parent, index);
        break;
    case 1: /* replace */
        if (key != NULL)
            json_object_set_new(parent, key, palette(value, text));
        else
            json_array_set_new(parent, index, palette(value, text));
        break;
    case 2: /* duplicate an item or add a member */
        if (key != NULL)
            json_object_set_new(parent, text, palette(value, text));
        else
            json_array_insert(parent, index, json_array_get(parent, index));
        break;
    case 3: { /* swap two events */
        json_t *events = json_object_get(doc, "events");
        size_t n = json_array_size(events);
        if (n > 1) {
            size_t a = value % n, b = where[0] % n;
            json_t *ea = json_incref(json_array_get(events, a));
            json_array_set(events, a, json_array_get(events, b));
            json_array_set_new(events, b, ea);
        }
        break;
    }
    default: /* add to a number */
        if (key != NULL && json_is_integer(json_object_get(parent, key)))
            json_object_set_new(
                parent, key,
                json_integer(json_integer_value(json_object_get(parent, key)) + (int8_t)value));
        break;
    }
    return (size_t)depth + 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_deep_copy(genuine);
    for (size_t at = 0; at < size;)
        at += edit(doc, data + at, size - at);
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (body == NULL)
        return 0;
    json_t *ans = NULL;
    unsigned status = call(svc_handle_encounter_import, "", body, &ans);
    free(body);
    if (status != 201 && status != 400 && status != 422)
        abort();
    if (status == 201) {
        /* What was stored must verify: no edit forged an encounter. */
        char new_id[64];
        snprintf(new_id, sizeof new_id, "%s", json_string_value(json_object_get(ans, "id")));
        json_t *v = NULL;
        if (call(svc_handle_encounter_verify, new_id, NULL, &v) != 200 ||
            !json_is_true(json_object_get(v, "ok")))
            abort();
        json_decref(v);
    }
    json_decref(ans);
    return 0;
}
