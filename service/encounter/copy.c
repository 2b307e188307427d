/* An import is a copy (internal.h, copy.c): the log it was given, then one event of its own,
 * kind imported, that names the encounter it copies and gives it dice nobody else can predict.
 *
 * Why every import, not only some: whoever imports holds the copied log's seed (an owner's
 * export carries it; after a reveal everyone's does), and a log from before seed commitments
 * has per-event seeds one splitmix64 step from its seed, which one ruling's echoed seed gives
 * away (2^11 guesses). Left as it was, a copy's rolls to come would be known to its importer,
 * to every reader of a revealed original, or to any reader of a legacy log; and two copies of
 * one log would roll the same dice, so one could be played to preview the other. So from the
 * import on, the copy rolls with a new secret seed, salt and commitment of its own (the events
 * before keep the seed they were rolled with, and verify as before). A log whose seed was
 * revealed is finished and rolls no more: its copy is marked, and keeps its seed. */
#include <stdio.h>
#include <string.h>

#include "service/encounter/internal.h"
#include "service/json/fields.h"

#define IMPORTED_RULE                                                                              \
    "an import is a copy of the encounter it names: the rolls from here on come from a new "       \
    "secret seed, whose SHA-256 of \"<seed_salt>:<seed>\" is this seed_commitment, so that no "    \
    "reader of the copied log can predict them"
#define FINISHED_RULE                                                                              \
    "an import is a copy of the encounter it names; its seed was revealed, so it rolls no more"

bool enc_id_minted_shape(const char *id)
{
    if (id == NULL || strlen(id) != AUTH_ID_LEN)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

/* The imported event for copy_of with the fields it sets (borrowed): its input, ruling and
 * effects. */
static json_t *imported_payload(const char *copy_of, json_t *fields, int engine)
{
    json_t *commitment = json_object_get(fields, "seed_commitment");
    json_t *result =
        json_pack("{s:s, s:b, s:s}", "copy_of", copy_of, "reseeded", commitment != NULL, "rule",
                  commitment != NULL ? IMPORTED_RULE : FINISHED_RULE);
    if (commitment != NULL)
        json_object_set(result, "seed_commitment", commitment);
    return json_pack("{s:i, s:{s:s}, s:o, s:[o]}", "engine", engine, "input", "copy_of", copy_of,
                     "result", result, "effects",
                     enc_effect_set("encounter", json_deep_copy(fields)));
}

json_t *enc_imported_event(json_t *state, const char *copy_of, struct svc_errors *e)
{
    json_t *fields = json_pack("{s:s}", "copy_of", copy_of);
    if (!enc_flag(state, "revealed")) {
        uint64_t r = 0;
        unsigned char b[ENC_SALT_HEX / 2];
        if (!auth_random(&r, sizeof r) || !auth_random(b, sizeof b)) {
            svc_errors_add(e, "", "no random seed could be drawn for the copy; try again");
            json_decref(fields);
            return NULL;
        }
        long long seed = (long long)(r % (uint64_t)(SEED_MAX + 1));
        char salt[ENC_SALT_HEX + 1], commitment[2 * AUTH_HASH_LEN + 1];
        auth_hex(b, sizeof b, salt);
        enc_seed_commitment(salt, seed, commitment);
        json_object_set_new(fields, "seed", json_integer(seed));
        json_object_set_new(fields, "seed_salt", json_string(salt));
        json_object_set_new(fields, "seed_commitment", json_string(commitment));
    }
    json_t *payload = imported_payload(copy_of, fields, RULES_ENGINE_VERSION);
    json_decref(fields);
    return payload;
}

json_t *enc_check_imported(json_t *state, json_t *payload, const char *base, struct svc_errors *e)
{
    size_t before = json_array_size(e->list);
    char p[CODEC_PTR_MAX];
    json_t *in = json_object_get(payload, "input");
    const char *copy_of = json_string_value(json_object_get(in, "copy_of"));
    if (!json_is_object(in) || json_object_size(in) != 1 || !enc_id_minted_shape(copy_of)) {
        snprintf(p, sizeof p, "%s/payload/input", base);
        svc_errors_add(e, p, "must be {\"copy_of\": the id of the encounter copied}");
        return NULL;
    }
    json_t *effects = json_object_get(payload, "effects");
    json_t *set = json_array_get(effects, 0);
    json_t *fields = json_object_get(set, "fields");
    bool finished = enc_flag(state, "revealed");
    snprintf(p, sizeof p, "%s/payload/effects", base);
    if (json_array_size(effects) != 1 || strcmp(enc_str(set, "op"), "set") != 0 ||
        strcmp(enc_str(set, "target"), "encounter") != 0 || json_object_size(set) != 3 ||
        !json_is_object(fields) || json_object_size(fields) != (finished ? 1 : 4) ||
        strcmp(enc_str(fields, "copy_of"), copy_of) != 0) {
        svc_errors_add(e, p, "must set only the encounter's copy_of%s",
                       finished ? " (its seed was revealed)"
                                : ", seed, seed_salt and seed_commitment");
        return NULL;
    }
    if (!finished) {
        json_t *seed = json_object_get(fields, "seed");
        const char *salt = json_string_value(json_object_get(fields, "seed_salt"));
        char commitment[2 * AUTH_HASH_LEN + 1];
        if (!json_is_integer(seed) || json_integer_value(seed) < 0 ||
            json_integer_value(seed) > SEED_MAX || !enc_salt_ok(salt))
            svc_errors_add(e, p, "must set a seed (0 to %lld) and a salt as create draws them",
                           SEED_MAX);
        else if (enc_seed_commitment(salt, json_integer_value(seed), commitment),
                 strcmp(commitment, enc_str(fields, "seed_commitment")) != 0)
            svc_errors_add(e, p, "sets a seed_commitment that is not SHA-256 of its salt and seed");
    }
    if (json_array_size(e->list) != before)
        return NULL;
    json_t *engine = json_object_get(payload, "engine");
    json_t *rebuilt = imported_payload(copy_of, fields,
                                       json_is_integer(engine) ? (int)json_integer_value(engine)
                                                               : RULES_ENGINE_VERSION);
    json_t *given = json_object_get(payload, "result");
    json_t *expected = json_object_get(rebuilt, "result");
    /* The ruling must be the one made here (the rule's wording aside: a later build may put it
     * better). */
    json_t *a = json_copy(given), *b = json_copy(expected);
    json_object_del(a, "rule");
    json_object_del(b, "rule");
    bool same = json_is_object(given) && json_equal(a, b);
    json_decref(a);
    json_decref(b);
    if (!same) {
        snprintf(p, sizeof p, "%s/payload/result", base);
        svc_errors_add(e, p, "is not the ruling of an import that sets these effects");
        json_decref(rebuilt);
        return NULL;
    }
    return rebuilt;
}
