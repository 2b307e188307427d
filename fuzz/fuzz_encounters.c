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
#include "fuzz/encounter_harness.h"
#include "service/encounter/encounter.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/tactics-fuzz-XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_open(dir);
    fuzz_create_encounter("");
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
    if (db_encounter_get(fuzz_ctx.db, fuzz_id, &e) != DB_OK)
        abort();
    free(e.state_json);
    snprintf(fuzz_if_match, sizeof fuzz_if_match, "\"v%lld\"", (long long)e.version);
    char *body = malloc(size);
    memcpy(body, data + 1, size - 1);
    body[size - 1] = '\0';
    unsigned status = fuzz_post(handlers[data[0] % (sizeof handlers / sizeof handlers[0])], fuzz_id,
                                "a", body, size - 1, NULL);
    free(body);
    if (status >= 500 || status == 0)
        abort();
    /* The cached state (when there is one) is the stored state at the stored version. */
    if (db_encounter_get(fuzz_ctx.db, fuzz_id, &e) != DB_OK)
        abort();
    unsigned char hash[AUTH_HASH_LEN];
    size_t bytes = 0;
    json_t *cached = svc_state_cache_take(fuzz_ctx.states, fuzz_id, e.version, hash, &bytes);
    if (cached != NULL) {
        json_t *stored = json_loads(e.state_json, 0, NULL);
        if (!json_equal(cached, stored))
            abort();
        json_decref(stored);
        svc_state_cache_put(fuzz_ctx.states, fuzz_id, e.version, hash, cached, bytes);
    }
    free(e.state_json);
    return 0;
}
