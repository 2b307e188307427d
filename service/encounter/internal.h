/* Encounters: stored in SQLite, acted on, logged, replayable.
 *
 * The model. An encounter's state is a JSON document (rules, map, seed, round, turn, order,
 * combatants); every change is an event holding what was asked (`input`), the ruling
 * (`result`) and the changes it made (`effects`). Effects are merges: "set these fields of
 * the encounter or of one combatant", "add this combatant", "remove that one". The stored
 * state is the fold of every event's effects, so the state after any event is rebuilt by
 * folding the log up to it, and `verify` re-resolves every event from the state before it
 * and checks that the ruling and the effects come out the same.
 *
 * Every action is ruled as data. The stored state is read straight into the structs the
 * stateless endpoints decode their requests into (the movement request, the attack request, a
 * fall, the flanking creatures: move_req.h, attack_ruling.h, ruling.h), the action's own
 * members by those endpoints' decoders, and the rules/ function of the event rules them
 * (rules_encounter_move, rules_move_forced, rules_encounter_attack_check and
 * rules_encounter_attack, rules_fall, ...); the endpoint's own writer then encodes the answer
 * once, as the event's result, and the effects come from the ruling's structs. The queries
 * (reach, route, flanking, odds) read the state the same way. No request body is built and no
 * handler runs, so an encounter never rules differently from the API, and a refusal keeps its
 * field errors as values (enc_answer puts them under the action's pointer). Dice come from
 * the encounter's seed mixed with the event's number, or from results the caller rolled.
 *
 * This header holds what the files of the part share (libuv's *_internal.h); the rest of the
 * service sees only svc.h. The files, by what they do:
 *   state.c         small helpers over the state JSON, effects and the fold, reading the
 *                   stateless rulings' answers (the map decoded once a request), the initial
 *                   state and the seed's commitment, the public (redacted) views
 *   combatants.c    a combatant checked against the state it joins or changes
 *   dispatch.c      resolving each kind of event but the turn machinery's and the actions'
 *                   own (check_input and enc_resolve, one resolver per event kind)
 *   turns.c         initiative, next_turn, removal and the hp event, ruled by
 *                   rules/encounter on the typed state
 *   actions.c       the action kinds but moves and attacks (facing, fall, condition,
 *                   stand_up) and the dispatcher of them all
 *   move.c          a move, a 5-foot step (also one traded from a full attack) and forced
 *                   movement as data: ruled by rules/ (rules_encounter_move,
 *                   rules_move_forced), the answer encoded once
 *   attacks.c       attack and attack of opportunity, and the attack request the stored
 *                   combatants make; full_attack.c the full attack's plan
 *   reactions.c     the reactions a move opens (policies ask, always, never; settled in step
 *                   order), decline_reaction, and the checks of decisions and dice
 *   checked.c       debug builds' check of a typed work copy against the stored state folded
 *   write.c         HTTP plumbing (auth, If-Match, idempotency and replays, Prefer,
 *                   write_event) and the handlers for get, delete and the writes
 *   read.c          the log read over HTTP: the events page by page, the state ?at=
 *   collection.c    /v1/encounters itself: create (with its combatants and initiative, the
 *                   events the separate calls would log, in one transaction) and the list
 *   log.c, copy.c   the whole log at once: verify, export, import (an import is a copy)
 *   undo.c          undo, an event like any other that takes back the last one standing
 *   explain.c       each event's sentence for a human (explain, explain_markdown)
 *   told.c          what the reads tell a human: the state's summary (Avrae's !init list)
 *                   and the explain of state, threats, flanking and verify
 *   queries.c, odds.c, frames.c, stream.c, names.c  reach, route, threats, flanking; the
 *                   odds; the board's pictures; the live feed; combatants by name */
#ifndef TACTICS_SVC_ENCOUNTER_INTERNAL_H
#define TACTICS_SVC_ENCOUNTER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "db/db.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/turn.h"
#include "rules/move/move.h"
#include "rules/options.h"
#include "service/codec/answer.h"
#include "service/codec/dice.h"
#include "service/codec/encounter_state.h"
#include "service/codec/rule_options.h"
#include "service/codec/ruling.h"
#include "service/http/auth.h"
#include "service/http/http.h"
#include "service/json/errors.h"
#include "service/json/writer.h"

#define MAX_COMBATANTS 500
#define SEED_MAX       9007199254740991LL

/* ---- small helpers over the state JSON ---- */

static inline const char *enc_str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static inline long long enc_num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Members names[0..n) of object o into out[0..n) (NULL where absent), as json_object_get would
 * give them, in one walk over o's members: for a reader of many members of one object, where each
 * json_object_get hashes its name (~170 instructions; the walk costs ~30 a member). */
static inline void enc_members(json_t *o, const char *const *names, json_t **out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    for (void *it = json_object_iter(o); it != NULL; it = json_object_iter_next(o, it)) {
        const char *k = json_object_iter_key(it);
        for (size_t i = 0; i < n; i++) {
            if (out[i] == NULL && names[i][0] == k[0] && strcmp(names[i], k) == 0) {
                out[i] = json_object_iter_value(it);
                break;
            }
        }
    }
}

static inline json_t *enc_combatants(json_t *state)
{
    return json_object_get(state, "combatants");
}

static inline json_t *enc_find(json_t *state, const char *id, size_t *index)
{
    size_t i;
    json_t *c;
    json_array_foreach(enc_combatants(state), i, c)
    {
        if (strcmp(enc_str(c, "id"), id) == 0) {
            if (index)
                *index = i;
            return c;
        }
    }
    return NULL;
}

static inline bool enc_has_condition(json_t *c, const char *cond)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), cond) == 0)
            return true;
    }
    return false;
}

static inline bool enc_flag(json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

/* {"op": "set", "target": target, "fields": fields (stolen)}, or NULL (as json_pack gave when
 * either is missing). Built member by member: json_pack's reading of its format was most of
 * what an event's small objects cost (a verify re-builds them for every event). */
static inline json_t *enc_effect_set(const char *target, json_t *fields)
{
    json_t *t = target != NULL ? json_string(target) : NULL;
    json_t *e = t != NULL && fields != NULL ? json_object() : NULL;
    if (e == NULL) {
        json_decref(t);
        json_decref(fields);
        return NULL;
    }
    json_object_set_new_nocheck(e, "op", json_string_nocheck("set"));
    json_object_set_new_nocheck(e, "target", t);
    json_object_set_new_nocheck(e, "fields", fields);
    return e;
}

/* An event's outcome {"effects": effects (stolen), "result": result (stolen; left out when
 * NULL)}, or NULL when effects is. */
static inline json_t *enc_outcome(json_t *result, json_t *effects)
{
    json_t *o = effects != NULL ? json_object() : NULL;
    if (o == NULL) {
        json_decref(effects);
        json_decref(result);
        return NULL;
    }
    json_object_set_new_nocheck(o, "effects", effects);
    if (result != NULL)
        json_object_set_new_nocheck(o, "result", result);
    return o;
}

/* Compact JSON text (malloc'd) or NULL. */
static inline char *enc_dump(const json_t *v)
{
    size_t n;
    return jw_dump(v, &n);
}

/* ---- resolving: what a request decodes once, and the context of one event ---- */

/* What one request decodes once and reuses for every event it rules: the stored map, which no
 * event changes after creation. A write rules one event; verify and import rule the whole log,
 * and would otherwise decode the map again for every move. */
struct enc_history;
struct enc_kept;
struct enc_cache {
    struct rules_map map;
    bool map_ok, map_tried;
    struct svc_enc_rules_memo rules; /* the rules each event's typed state reads (enc_typed) */
    /* The log before the event being ruled, for an undo (undo.c); NULL where none is read. */
    struct enc_history *history;
    /* The state the caller rules event after event on and folds each into (verify's, a
     * write's), or NULL; and its typed state as it now stands, or NULL until enc_typed first
     * decodes it. The caller reports every fold of follow (enc_cache_folded), so the typed
     * state follows the events rather than being decoded again for each. */
    json_t *follow;
    struct enc_kept *kept;
    /* A write's attack action (want_result_text, set by the write): its result as text, written
     * once by the attack's writer (malloc'd; enc_cache_free frees it), for the value result_of
     * (borrowed), whose first result_kept members the writer built beside the text as values for
     * the result's readers (the sentence, the tag); the members after them (derived, strain)
     * were added to the value only. The value holds only the members its readers read
     * (attacks.c's attack_keep): its text is result_text with those members (write.c's
     * result_of). Nothing may set a kept member again after the writer: jw_dump_after writes
     * the text's members as they were written, then only the members the value gained. */
    bool want_result_text;
    char *result_text;
    size_t result_len, result_kept;
    const json_t *result_of;
};

/* A state's typed encounter kept across its events (enc_cache.kept, and beside a state in the
 * write cache): decoded once, then refreshed from each event's effects
 * (svc_enc_typed_refresh). It owns its map, decoded as enc_state_map decodes it. */
struct enc_kept {
    struct svc_enc_typed t;
    struct rules_map map;
    bool map_ok;
    bool checked; /* debug builds: compared with a fresh decode since its last refresh */
};
void enc_kept_free(void *kept);
/* The memory k holds (its arrays and its map), for the write cache's byte budget; 0 for NULL. */
size_t enc_kept_bytes(const struct enc_kept *k);

/* After effects (borrowed) were folded into c->follow (enc_fold): brings c->kept up to date,
 * or drops it when the effects are not ones a refresh reads (the next enc_typed decodes the
 * state again). */
void enc_cache_folded(struct enc_cache *c, json_t *effects);
/* The same for a kept typed state k (NULL: none) outside a cache: k brought up to date, or NULL
 * after freeing it. */
struct enc_kept *enc_kept_folded(struct enc_kept *k, json_t *effects);

/* ---- undo.c: the log an undo reads, and its resolver ---- */

/* The events of the encounter before the one being ruled, as its caller holds them: the
 * database's (a write, verify) or an import's body. events() calls fn for each event after
 * `after` up to `upto` in order, as db_events does, and returns DB_OK or a db error. An undo
 * folds the log up to the event it takes back: `folded` counts the events it folded for this
 * request, refused past ENC_UNDO_FOLD_BUDGET times --budget-scale. */
struct enc_history {
    int (*events)(void *ud, int64_t after, int64_t upto, db_event_fn fn, void *fn_ud);
    void *ud;
    long long folded;
};
#define ENC_UNDO_FOLD_BUDGET 2000000LL

/* The database's log of encounter id (h->ud must be a struct enc_db_history). */
struct enc_db_history {
    struct db *db;
    const char *id;
};
int enc_db_history_events(void *ud, int64_t after, int64_t upto, db_event_fn fn, void *fn_ud);

/* Resolves an undo (kind undone, no input members): the outcome {"result": {"undone": N,
 * "kind": K}, "effects": [{"op": "init", "state": the state before event N}]}, N the last event
 * still standing, or NULL after adding errors to x->e. */
struct resolve_ctx;
json_t *enc_resolve_undo(struct resolve_ctx *x, json_t *in);

/* ---- names.c ---- */

/* Before a new event of kind (action, hp) is ruled: each member of in that names a combatant
 * (actor, target, plan/N/attack/target, withdraw's, the keys of reactions and
 * reaction_results) is replaced by the id it names (svc_combatant_named: an id, a name in any
 * case, or the start of one). A name that fits several is an error at its pointer. */
void enc_names_to_ids(json_t *state, const char *kind, json_t *in, struct svc_errors *e);

struct resolve_ctx {
    const struct svc_request *req;
    struct enc_cache *cache;
    json_t *state;
    long long seq;
    int engine; /* ENGINE_VERSION for a new event; a stored event's own stamp on replay */
    struct svc_rules rules; /* the encounter's, decoded once (enc_rules_of, enc_svc_rules_of) */
    bool rules_ok;
    struct svc_errors *e;
    /* A full attack's attack: its place among the iterative attacks, its profile's bonus
     * rules_iterative_penalty of it lower (d20 3.5 SRD, Full Attack); 0 for any other. */
    int iterative;
    /* The actor's turn as the gate admitted the action (resolve_action), which the action may
     * spend further (a full attack's free facing change); NULL when it spends nothing. */
    struct rules_turn *turn;
    const struct rules_turn_limits *limits;
    /* The state as the typed encounter (enc_typed), decoded on first use for this event. */
    struct svc_enc_typed typed;
    bool typed_tried, typed_ok;
    /* A typed state the caller keeps step after step within the event (a full attack's attacks
     * so far, the engine's attacks after a move, a stand-up or an answer, applied on the
     * structs: rules/encounter/apply.h), or NULL. When set, enc_typed reads it instead of
     * `state`'s, and the ruling code that writes a step's effects applies the same change to it
     * (attack_effects, answer_reaction, enc_rule_traded_step, the full attack's facing change,
     * enc_action_move, place_paused, enc_open_reactions). `state` stays the stored state before
     * the event: only what no step changes (ids, profiles, the seed) is read there. */
    struct rules_encounter_work *work;
    /* enc_action_attack's own attack, as a write's event (cache->want_result_text): its answer
     * is kept as text (cache->result_text) beside a value of the members read. */
    bool result_text;
};

/* The state before the event as the typed encounter (rules/encounter/state.h), decoded on
 * first use with the request's map, under the event's engine; NULL when out of memory (after
 * adding an error to x->e). enc_resolve frees it. */
const struct rules_encounter *enc_typed(struct resolve_ctx *x);

/* A context for ruling on another state (a scratch copy folded further) within x's event: x's
 * request, event and errors, scratch's state, nothing of x's typed state. The caller releases
 * it with enc_ctx_release. */
struct resolve_ctx enc_ctx_on(const struct resolve_ctx *x, json_t *scratch);
/* Frees what a context decoded for itself (its typed state). */
void enc_ctx_release(struct resolve_ctx *x);

/* The typed combatant of stored combatant c (of x->state), and its index through *at (may be
 * NULL); NULL when the typed state could not be decoded or c is not in it. */
const struct rules_enc_combatant *enc_typed_of(struct resolve_ctx *x, json_t *c, int *at);

/* ---- encounter_rules.c: the turn budget, for the turn machinery too ---- */

/* The budget members of a turn: what was spent and what is left (a new object). */
json_t *enc_turn_fields(const struct rules_turn *t, const struct rules_turn_limits *lim);

/* ---- encounter_turns.c: initiative, next_turn, combatant_removed and hp ---- */

json_t *enc_resolve_initiative(struct resolve_ctx *x, json_t *in);
json_t *enc_resolve_next_turn(struct resolve_ctx *x, json_t *in);
json_t *enc_resolve_remove(struct resolve_ctx *x, json_t *in);
json_t *enc_resolve_hp(struct resolve_ctx *x, json_t *in);

/* ---- encounter_state.c ---- */

/* A copy of c's conditions with cond added (add) or removed: a new array the caller owns. */
json_t *enc_conditions_with(json_t *c, const char *cond, bool add);

/* The ruling seed of event seq: a splitmix64 step of state's seed and seq, in 0..SEED_MAX. */
long long enc_event_seed(json_t *state, long long seq);

/* Applies one event's effects (an array of init, set, add and remove operations; borrowed) to
 * state, in place. An effect naming a combatant that is not there changes nothing. */
void enc_fold(json_t *state, json_t *effects);

/* Debug builds: aborts unless te (a typed state that a step's effects were applied to, rules/
 * encounter/apply.h) is what decoding x->state with effects (borrowed) folded in gives. */
void enc_check_applied(struct resolve_ctx *x, json_t *effects, const struct rules_encounter *te);
/* Debug builds: aborts unless te is what decoding state (borrowed) gives. */
void enc_check_typed(struct resolve_ctx *x, json_t *state, const struct rules_encounter *te);

/* An action's dice (calloc'd, the caller frees it; NULL after an error in e): the results its
 * input gives (the table's, checked as the stateless endpoints check them, errors at /results),
 * or else the event's own seed (enc_event_seed). */
struct svc_dice_source;
struct svc_dice_source *enc_dice_source(struct resolve_ctx *x, json_t *in, struct svc_errors *e);
/* The dice of event x->seq from its seed, none supplied (malloc'd; NULL after an error in e). */
struct svc_dice_source *enc_dice_seeded(struct resolve_ctx *x, struct svc_errors *e);

/* The members of stored combatant c that place it (CombatantFields): a new object. */
json_t *enc_placement(json_t *c);

/* Every combatant of state but those with ids skip_a and skip_b (NULL: none), decoded as the
 * rules take a creature's place (*others) beside its stored object (*who, borrowed), both
 * calloc'd for the caller to free. Returns how many, or -1 (both NULL) when out of memory or
 * when a stored combatant cannot be decoded. */
int enc_others(json_t *state, const struct rules_options *o, const char *skip_a, const char *skip_b,
               struct rules_creature **others, json_t ***who);

/* Stored combatant c as the rules place a creature (its placement decoded under o); false when
 * it cannot be (a stored state is valid, so only a forged one). */
bool enc_creature_of(const struct rules_options *o, json_t *c, struct rules_creature *out);

/* What the board's queries cost at most in squares tested for a threat, wherever its
 * combatants stand: each combatant's reach box (as rules_move_threat_tests counts it) clipped to
 * the map's width and height, twice, over every combatant (any of them may be another's enemy).
 * Moves never raise it: only a combatant's size and reach do. */
long long enc_board_threat_tests(json_t *state);

/* Whether the board's queries fit the request's budgets (enc_board_threat_tests against
 * threatened_squares): false after answering 422 too-expensive. Creating an encounter and
 * adding or changing a combatant ask it of the state they would store. */
bool enc_board_within_budgets(const struct svc_request *req, json_t *state,
                              struct svc_response *res);

/* The state's map, decoded on first use for the request (x->cache); NULL when it cannot be. */
const struct rules_map *enc_state_map(struct resolve_ctx *x);

/* Frees what c decoded. c belongs to the caller, zeroed before its first use ({0}). */
void enc_cache_free(struct enc_cache *c);

/* The conditions the service tracks on a combatant, NULL-terminated. */
extern const char *const enc_defender_conditions[];

/* The rules in force as a rules object (a new reference): state's echo of them, with any
 * option added since the encounter was created set to the value it was ruled under then
 * (critical_hits false, hp_states none), so that its rules stay fixed for its life. */
json_t *enc_rules_json(json_t *state);

/* Decodes into *o the rules in force (enc_rules_json: stored at creation, so always valid: no
 * error is possible). */
void enc_state_rules(json_t *state, struct rules_options *o);

/* The same, with the preset's name, as the movement answers echo it. */
struct svc_rules;
void enc_state_svc_rules(json_t *state, struct svc_rules *out);

/* The configuration the event is ruled under (its budgets, the searches' gate). */
const struct svc_config *enc_config(const struct resolve_ctx *x);

/* The answer a of a stateless ruling (ruling.h) as a value: a new reference when it said 200
 * (its value, or its text parsed); else NULL, after adding its refusal to x->e under prefix:
 * each field error as "pointer: message", or the problem's detail when it has none (one saying
 * that the `what` could not be ruled when the answer cannot be read). Releases a. */
json_t *enc_answer(struct resolve_ctx *x, struct svc_answer *a, const char *prefix,
                   const char *what);

/* A member of an inner ruling's request that the action's input gave (inner, a pointer in the
 * request) and the pointer the input names it by (outer); lists end with {NULL, NULL}. */
struct enc_member {
    const char *inner, *outer;
};

/* enc_answer, but an error at or under one of own's members names the input's own pointer
 * ("/results/0", not "/attack" with "/results/0: ..." in its message). */
json_t *enc_answer_own(struct resolve_ctx *x, struct svc_answer *a, const char *prefix,
                       const struct enc_member *own, const char *what);

/* With action_economy: puts "type": type first in out's result. Nothing when it has a type already.
 */
void enc_tag_result(json_t *out, const char *type);

/* Validates combatant object `in` (ptr names it) against state: every member known and in
 * range. keep_id NULL: a new combatant, whose id, side, speeds, AC (whole or in parts) and
 * max_hp are required and which is also placed (size, facing, reach); dex is taken as 10 when
 * not given; else the id of the combatant whose members `in` changes (its placement is checked
 * on the merged combatant, enc_check_place). An AC given whole is stored in parts. What was
 * taken for the combatant is appended to assumed ({member, said}; NULL: not told). From engine
 * 3 two attack profiles of one name, or a condition listed twice, are refused. Returns a
 * normalized copy (a new reference) or NULL after adding errors to e. */
json_t *enc_check_combatant(json_t *state, json_t *in, const char *ptr, const char *keep_id,
                            int engine, json_t *assumed, struct svc_errors *e);

/* Whether combatant c, at its own position in x's state, may stand there (rules_place_conflict:
 * on the map, sharing its space with nobody but by 001 Stepover, and with placing out of
 * blocked terrain);
 * false after adding errors at ptr to x->e. */
bool enc_check_place(struct resolve_ctx *x, json_t *c, const char *ptr);

#define ENC_SALT_HEX 32 /* hex characters of a 128-bit salt */

/* The seed's commitment: SHA-256 of "<salt>:<seed in decimal>", in hex. Anyone holding the
 * seed and the salt can check it with `printf '%s:%s' SALT SEED | sha256sum`. A bare hash of
 * a 53-bit seed could be brute-forced; the 128-bit salt makes that hopeless. */
void enc_seed_commitment(const char *salt, long long seed, char out[2 * AUTH_HASH_LEN + 1]);
/* Whether s is a salt as create draws one: ENC_SALT_HEX lowercase hex characters. */
bool enc_salt_ok(const char *s);

/* Moves the errors of `from` into `to`, each pointer under base; `from` is left empty. */
void enc_errors_under(struct svc_errors *from, const char *base, struct svc_errors *to);

/* Create's validation of its body, and the state it starts (shared by create and import).
 * given: on import, the exported initial state, whose seed and salt are kept when the body has
 * none; else NULL. Returns the state (a new reference) or NULL after adding errors to `out`,
 * each pointer under base. */
json_t *enc_initial_state(const struct svc_request *req, json_t *body, const char *base,
                          json_t *given, struct svc_errors *out);

/* The combatant whose turn it is, order[turn] (borrowed), or NULL when no turn has begun. */
const char *enc_turn_of(json_t *state);

/* A state as it is served: the stored one with turn_of, the id of the combatant whose turn it
 * is (or null), beside `turn`, its index in order kept for compatibility. Computed on every
 * answer and never stored, so that stored states, verify's fold, export and import of older
 * logs stay as they were. enc_serve_state adds it in place; enc_served_state_text writes the
 * state's text (n bytes, an object) with it, malloc'd (NULL when out of memory). */
void enc_serve_state(json_t *state);
char *enc_served_state_text(json_t *state, const char *text, size_t n, size_t *out_len);

/* What a reader without the encounter's token sees of state: the seed and its salt are hidden
 * until revealed. A new reference (state itself when nothing is hidden). */
json_t *enc_public_state(json_t *state);

/* An event's payload as a reader without the token sees it: the seed and salt of the created
 * event and of an imported one hidden, unless revealed. A new reference (payload itself when
 * nothing is hidden). */
json_t *enc_public_payload(const char *kind, json_t *payload, bool revealed);

/* ---- copy.c: an import is a copy, with dice of its own ---- */

/* Whether id has the shape of the ids create mints (AUTH_ID_LEN lowercase hex characters). */
bool enc_id_minted_shape(const char *id);

/* The event an import appends to the log it copied (kind imported): it marks the encounter as
 * a copy of encounter copy_of, and, unless the copied log was revealed (finished), gives it a
 * new secret seed with a salt and a commitment of its own, so that no reader of the copied log
 * (whose seed its owner, or after a reveal anyone, knows; or, for a log from before
 * commitments, anyone can work out from one ruling) can predict a roll to come. Returns the
 * payload {engine, input, result, effects} (a new reference), or NULL when no randomness could
 * be drawn (error added to e). */
json_t *enc_imported_event(json_t *state, const char *copy_of, struct svc_errors *e);

/* Checks a stored or exported imported event (payload, borrowed) against the state before it:
 * input, ruling and effects as enc_imported_event makes them, the commitment that of the seed
 * and salt it sets. Returns the payload to keep (a new reference) or NULL after adding errors
 * at base. */
json_t *enc_check_imported(json_t *state, json_t *payload, const char *base, struct svc_errors *e);

/* ---- encounter_rules.c ---- */

/* The rules in force for the event x rules, decoded from its state on first use. */
const struct rules_options *enc_rules_of(struct resolve_ctx *x);
/* The same rules with the preset's name, as the stateless answers echo them. */
const struct svc_rules *enc_svc_rules_of(struct resolve_ctx *x);

/* The fields that set a combatant's hit points to hp: a new object {"hp"}, with its hp_state
 * with hp_states when the rules track hit point states. */
json_t *enc_hp_fields(struct resolve_ctx *x, long long hp);

/* Resolves an event of `kind` (input `in`, borrowed) against state, the state before it, which
 * it does not change, as event number seq ruled under engine (ENGINE_VERSION for a new event, a
 * stored event's own stamp on replay). cache (NULL for none) keeps what the request decodes
 * once; the caller frees it with enc_cache_free. The input's shape is checked first
 * (check_input). Returns the outcome {"result": ..., "effects": [...]} (a new reference) or
 * NULL after adding errors to e. */
json_t *enc_resolve(const struct svc_request *req, struct enc_cache *cache, json_t *state,
                    const char *kind, json_t *in, long long seq, int engine, struct svc_errors *e);

/* ---- encounter_queries.c ---- */

/* An error in the query parameter `name`: its pointer is "?name". */
void enc_bad_query(struct svc_errors *e, const char *name, const char *msg);

/* The combatant whose id the query parameter `name` gives, or NULL after an error in e. */
json_t *enc_combatant_query(const struct svc_request *req, json_t *state, const char *name,
                            struct svc_errors *e);

/* ---- encounter_actions.c ---- */

/* Puts condition cond on combatant c into fields (its conditions) and, with condition_sources
 * (rules_encounter_keeps_sources), where it came from: this event, and whether cause forced it
 * on the creature (condition_sources). */
void enc_gain_condition(struct resolve_ctx *x, json_t *c, const char *cond,
                        enum rules_condition_cause cause, json_t *fields);

/* Puts condition cond on combatant c into fields, with a timed effect that ends at (end_round,
 * end_turn) (rules_duration_end). */
void enc_timed_fields(json_t *c, const char *cond, long long end_round, int end_turn,
                      json_t *fields);

/* A move action's mode (rules_move_mode_names; move when absent), or -1 after adding an error
 * at /mode: five_foot_step is an action type of its own. */
int enc_move_mode(json_t *in, struct svc_errors *e);

/* The turn's gate's refusal of action act (rc and adm from rules_encounter_admit, now the id of
 * whose turn it is or NULL) as the action answers it: its pointer and sentence added to e.
 * Returns the refusal's code, as GET .../route names it (not_its_turn, down, stunned, engine,
 * not_prone, turn_spent), or NULL for RULES_ADMIT_OK. */
const char *enc_admit_refusal(const struct rules_encounter *te, const struct rules_enc_action *act,
                              int rc, const struct rules_admission *adm, const char *now,
                              struct svc_errors *e);

/* Whether the encounter awaits no asked reaction (a reactor's aoo_policy or the mover's decision
 * was ask): false after adding the error that names each, as every other event is refused while
 * one is open (004 Attacks of Opportunity). */
bool enc_awaits_no_reaction(const struct rules_encounter *te, struct svc_errors *e);

/* The action of `type` (the index of its name in resolve_action's types: attack, move,
 * five_foot_step, facing, forced, fall, condition, stand_up, full_attack, decline_reaction) by
 * actor, once its turn and budget allow it. Returns the outcome (a new reference) or NULL after
 * adding errors to x->e. */
json_t *enc_resolve_action_kind(struct resolve_ctx *x, json_t *in, json_t *actor,
                                enum rules_action_type type);

/* The shape of action `type`'s own input (types, enums, ranges: what needs no state), checked
 * before the turn's gate (resolve_action) so that a malformed body gets its field errors
 * whatever the turn. False after adding errors to e. */
bool enc_check_action_shape(json_t *in, enum rules_action_type type, int engine,
                            struct svc_errors *e);

/* ---- encounter_move.c ---- */

/* Action move (in: mode, path, end_facing, withdraw, target, reactions, reaction_results) or
 * five_foot_step (mode RULES_MODE_STEP) by actor, ruled by rules_encounter_move on the state
 * read as structs: the outcome (new ref), or NULL after adding errors to x->e. */
json_t *enc_action_move(struct resolve_ctx *x, json_t *in, json_t *actor,
                        enum rules_move_mode mode);

/* Action forced (in: target, kind, squares, path, reduction_squares, fall_prone_at,
 * voluntarily_prone) by actor, ruled by rules_move_forced on the stored board (001 Forced
 * Movement): the outcome (new ref), or NULL after adding errors to x->e. */
json_t *enc_action_forced(struct resolve_ctx *x, json_t *in, json_t *actor);

/* The movement request the stored state makes for mover moving in mode with what its turn has
 * spent (the encounter's rules and map, every other combatant as mover sees it, mover's
 * burdens), read straight into r's structs; the encounter's reach and route queries add what
 * their odds read. False when the map cannot be decoded (why gets the reasons) or memory ran
 * out; the caller frees r (move_req_free). */
struct move_req;
bool enc_move_request(struct resolve_ctx *x, json_t *mover, enum rules_move_mode mode,
                      struct move_req *r, struct svc_errors *why);

/* Rules a 5-foot step traded from a full attack (001 Trade Away Attacks) by mover (a combatant
 * of x->state) to square ({x, y}): the path ruling's answer when legal (a new reference;
 * *fields: where it leaves the mover, {x, y, facing?}, a new object), or NULL after adding
 * errors at ptr. */
json_t *enc_rule_traded_step(struct resolve_ctx *x, json_t *mover, json_t *square, const char *ptr,
                             json_t **fields);

/* ---- encounter_attacks.c ---- */

/* The attack profile named `name` of a combatant (its first when name is empty), or NULL. */
json_t *enc_find_attack(json_t *actor, const char *name);

/* Why a melee attack cannot reach: its refusals' reason. */
#define ENC_REACH_RULE                                                                             \
    "a melee attack reaches the squares its attacker threatens (004 Threatened Area; 001 Reach)"

/* actor's attack with profile atk on target as POST /v1/attacks/resolve rules it, read from the
 * stored combatants into r's structs (the attacker's place, the profile's bonus, form, damage,
 * threat range, sneak attack; an attack of opportunity's kind, Combat Reflexes, prone and a
 * charge's charging; the defender's place, Defense, damage reduction and conditions, the
 * unconscious, dying and dead as helpless; the allies that can flank), with the cover and
 * concealment in declares, and (derived_defense) the Dex to AC, cover and concealment the encounter
 * derives from the map (written to `derived`, a value or text, as {defense_dex?, cover?,
 * concealment?} telling where each came from; nothing under engine 1; NULL: not wanted). target_at:
 * where the attack finds target (an attack of opportunity answering a move: the square it was
 * leaving), NULL where it stands. Set up by rules_encounter_attack_setup on the typed state. What
 * the request refuses goes to e; false after a total cover refusal in x->e. The caller frees
 * r->allies. */
struct attack_request;
bool enc_attack_req(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target, json_t *atk,
                    bool aoo, bool charging, const struct rules_creature *target_at,
                    struct attack_request *r, struct svc_errors *e, struct jw *derived);

/* The attack of actor on target (in: kind, attack, results, cover, concealment, bonus; for an
 * attack of opportunity (the rule reactions), target as it stood in the square it was leaving and
 * the reaction it answers, at reaction_at of the state's reactions; else NULL): the outcome (new
 * ref) or NULL after adding errors to x->e. A full attack (full_attack.c) makes each of its
 * attacks so. */
json_t *enc_attack_on(struct resolve_ctx *x, json_t *in, json_t *actor, json_t *target,
                      const struct rules_enc_reaction *reaction, size_t reaction_at);

/* Action attack (in: target, kind, attack, ...) by actor: the outcome (new ref) or NULL after
 * adding errors to x->e; with the rule reactions an attack of opportunity answers an open reaction.
 */
json_t *enc_action_attack(struct resolve_ctx *x, json_t *in, json_t *actor);

/* The attack of opportunity the engine makes itself for open reaction `at` of x->state (the
 * reactor's policy always, or the mover's decision take), with the table's dice `results`
 * (borrowed; NULL: the seed of event x->seq): ruled by rules_encounter_opportunity on the typed
 * state, encoded as an attack action's outcome {result, effects} (a new reference); NULL after
 * adding why it was not made to x->e (nothing when its reactor has left). */
json_t *enc_opportunity(struct resolve_ctx *x, size_t at, json_t *results);

/* Checks a full attack's plan's shape (decode_plan); false after adding errors at /plan. */
bool enc_check_plan(json_t *in, int engine, struct svc_errors *e);

/* Action full_attack by actor (action_economy): the iterative attacks on one target, as one outcome
 * (new ref), or NULL after adding errors to x->e. */
json_t *enc_action_full_attack(struct resolve_ctx *x, json_t *in, json_t *actor);

/* ---- encounter_reactions.c ---- */

/* The reaction open to `by`'s attack of opportunity on `mover` (ids) in x's typed state
 * (rules_encounter_reaction_of), or NULL; *at gets its index. */
const struct rules_enc_reaction *enc_open_reaction(struct resolve_ctx *x, const char *mover,
                                                   const char *by, size_t *at);

/* Open reaction i of te as the state stores it ({mover, by, step, x, y, facing, policy?}): a new
 * object, encoded from the typed state. */
json_t *enc_reaction_json(const struct rules_encounter *te, int i);

/* The effect leaving `list` (stolen) as the open reactions of te's state, awaiting_reactions set
 * to `awaiting` when that changes it (the caller decides it on the typed reactions). */
json_t *enc_reactions_effect(const struct rules_encounter *te, json_t *list, bool awaiting);

/* False, after adding an error to x->e, while an asked reaction at an earlier step comes before
 * reaction `at` of x's state (rules_reactions_may_settle on its typed state). */
bool enc_settles_in_order(struct resolve_ctx *x, size_t at);

/* After a reaction is answered or declined, makes the engine's attacks that waited for it, on w:
 * the typed state the event's effects so far leave (a work copy, taken over and freed). */
struct rules_encounter_work;
void enc_settle_waiting(struct resolve_ctx *x, struct rules_encounter_work *w, const char *mover,
                        json_t *results, json_t *effects, json_t *result);

/* Action decline_reaction by actor: closes its open reaction; outcome (new ref) or NULL. */
json_t *enc_action_decline(struct resolve_ctx *x, json_t *in, json_t *actor);

/* One attack of opportunity an action provoked (a move's ruling, or standing up). */
struct enc_provoked {
    const char *by;   /* the reactor's id (x->state's) */
    int step;         /* the step that leaves the threatened square (0: standing up) */
    int x, y, facing; /* the square being left, and the mover's facing there (-1: none) */
};
/* Where the reactions an action opened leave its actor once the engine's attacks are made: its
 * move paused for an asked reaction (paused_move is its), or dropped by one of them. */
struct enc_reactions_left {
    bool paused, dropped;
};
/* What an action's own effects (already in effects) leave before the reactions it opens: w, the
 * typed state they leave (a work copy of x's, each effect applied to it where it was written;
 * taken over and freed), and whether its actor then has a stored facing (a move's end facing
 * gives it one), which a paused move keeps. */
struct enc_acted {
    struct rules_encounter_work *w;
    bool faced;
};
/* Opens the reactions the n provoked attacks of opportunity of actor's action give,
 * appending their effects to effects and, when any was decided, what became of each to
 * result's "reactions"; the engine's attacks among them are ruled on acted.w. *left (when not
 * NULL) gets where they leave the actor. */
void enc_open_reactions(struct resolve_ctx *x, struct enc_acted acted, json_t *in, json_t *actor,
                        const struct enc_provoked *provoked, int n, json_t *result, json_t *effects,
                        struct enc_reactions_left *left);

/* Checks in's reaction_results (dice by reactor); false after adding errors to e. */
bool enc_check_reaction_results(json_t *in, struct svc_errors *e);

/* Checks a move's decisions (in's reactions) and reaction_results, adding errors to e. */
void enc_check_decisions(json_t *state, json_t *in, struct svc_errors *e);

/* ---- encounter_explain.c ---- */

#define ENC_EXPLAIN_MAX 4096

/* An event told for a human: the same sentence plain (no markup) and in Discord markdown. */
struct enc_explain {
    char plain[ENC_EXPLAIN_MAX];
    char markdown[ENC_EXPLAIN_MAX];
};

/* Tells event `kind` with stored payload {input, result, effects} (borrowed) from before, the
 * state before it (borrowed, unchanged): names for ids, the dice, hit points after. The same
 * text at write time and on every later read, for any engine's events; never fails (a payload
 * it does not know gives a plainer sentence; a text too long is cut). */
void enc_explain_event(json_t *before, const char *kind, json_t *payload, struct enc_explain *out);
/* The same from the payload's members (each borrowed; NULL where the payload has none). */
void enc_explain_parts(json_t *before, const char *kind, json_t *in, json_t *result,
                       json_t *effects, struct enc_explain *out);

/* A combatant as every encounter text calls it: its name as written (capitalised when it opens
 * a sentence), or, when it has none (name NULL or ""), its id as written, never capitalised, in
 * markdown as code (`kroh`). */
struct svc_told;
void enc_say_named(struct svc_told *t, const char *name, const char *id);

/* ---- told.c: what the encounter's reads tell a human ---- */

/* The state's summary in the shape of Avrae's `!init list`: the initiative order, whose turn
 * it is (marked "# "), each combatant's hit points, hit point state and conditions; `plain`
 * without markup, `markdown` in a ```md code block, fitting one Discord message (new strings:
 * enc_summary_free). */
struct enc_summary {
    char *plain, *markdown;
};
/* e's summary under title (the encounter's name; NULL or "": "Current initiative"); false when
 * memory ran out. */
bool enc_summary_of(const struct rules_encounter *e, const char *title, struct enc_summary *out);
/* The summary of a stored state (borrowed), read as every view reads it (svc_enc_typed_decode
 * within cfg's budgets); false when it could not be read. */
bool enc_state_summary(json_t *state, const struct svc_config *cfg, struct enc_summary *out);
void enc_summary_free(struct enc_summary *s);

/* Each sets `explain` and `explain_markdown` on the answer doc its read built: */
/* GET .../state's: whose turn it is, what the encounter awaits, where a paused move's mover
 * waits, whether its seed is revealed (the state after event at, of version). */
void enc_told_state(const struct rules_encounter *e, int64_t at, int64_t version, json_t *doc);
/* /threats's: whom each combatant threatens, and who of them can make no attack of
 * opportunity now; source: the rules cited. */
void enc_told_threats(const struct rules_encounter *e, json_t *doc, const char *source);
/* /flanking's, from its attackers list (each with flanked_by): against whom combatant target
 * is flanked, and by whom. */
void enc_told_flanking(const struct rules_encounter *e, int target, json_t *doc);
/* /verify's, from its members. */
void enc_told_verify(json_t *doc);

/* ---- encounter_api.c ---- */

struct events_acc {
    json_t *list;
    json_t *state; /* folding: the state so far; with list, each item gets its explain too */
    int64_t last;
    int64_t list_after; /* list only the events after this one (those before are folded) */
    bool full;          /* list the created event as it is (the owner, or the seed revealed) */
};

/* The bearer token's hash; false after answering 401 when it is absent or malformed. */
bool enc_bearer(const struct svc_request *req, struct svc_response *res,
                unsigned char hash[AUTH_HASH_LEN]);

/* Whether id could name an encounter (1 to 64 of a-z0-9). */
bool enc_id_ok(const char *id);

/* The ETag of a version: "vN". */
void enc_etag_of(int64_t version, char *out, size_t n);

/* ?limit (1..500, default 100), its error added to e. */
int enc_page_limit(const struct svc_request *req, struct svc_errors *e);

/* Adds Preference-Applied: return=minimal to res when the request asked it. */
void enc_preference_applied(const struct svc_request *req, struct svc_response *res);

/* An event as a write answers it: {seq, kind, result, explain, explain_markdown} (new ref). */
json_t *enc_event_answer(int64_t seq, const char *kind, json_t *result,
                         const struct enc_explain *told);

/* Reads Idempotency-Key into r (scope: the token's hash). Returns false after answering (a
 * replay, as create answers when create, a bad key, or a database failure); *use says whether
 * a key was given. */
bool enc_idempotency(const struct svc_request *req, struct svc_response *res,
                     const unsigned char scope[AUTH_HASH_LEN], struct db_replay *r, bool *use,
                     bool create);

/* Answers a retry from its record r (or 409 when the key came with another request). */
bool enc_replayed(const struct svc_request *req, struct svc_response *res, struct db_replay *r,
                  bool create);

/* The hash of a token the client chose for a new encounter (create, import); false after
 * answering 401 (absent or malformed) or 422 (weaker than 128 bits, auth_token_bits). */
bool enc_client_token(const struct svc_request *req, struct svc_response *res,
                      unsigned char hash[AUTH_HASH_LEN]);

/* A new encounter's id, and with token (not NULL) a minted write token and its hash into
 * hash; false after answering 500 (no randomness). */
bool enc_new_identity(struct svc_response *res, char id[AUTH_ID_LEN + 1],
                      char token[AUTH_TOKEN_LEN + 1], unsigned char hash[AUTH_HASH_LEN]);

/* Whether the request carries the loaded encounter's own token (reads answer more to it). */
bool enc_is_owner(const struct svc_request *req, const struct db_encounter *enc);

/* False when rc is DB_OK; else true, after answering 404 (no such encounter) or 503. */
bool enc_db_failed(struct svc_response *res, int rc);

/* Loads the encounter named by the path (req->params[0]) into enc, its state parsed into
 * *state (a new reference; enc->state_json is freed) and, unless text_len is NULL, the length
 * of the state's text there. False after answering (404, 503 or 500). */
bool enc_load(const struct svc_request *req, struct svc_response *res, struct db_encounter *enc,
              json_t **state, size_t *text_len);

/* Answers doc (stolen) with status and the ETag of version. */
void enc_respond_with_etag(struct svc_response *res, unsigned status, json_t *doc, int64_t version);

/* A copy of the latest fold checkpoint of id at or before upto in either of ctx's fold caches
 * (*from gets its version), or NULL. */
json_t *enc_fold_checkpoint(struct svc_context *ctx, const char *id, int64_t upto, int64_t *from);

/* A db_events callback over a struct events_acc (ud): folds each event into ->state and lists
 * it in ->list as its reader may see it (either may be NULL), and notes its number in ->last. */
int enc_event_item(void *ud, int64_t seq, const char *kind, const char *payload,
                   const char *created_at);

#endif
