/* The stored encounter state read into the typed encounter (encounter_state.h). A stored state
 * was validated member by member when each event made it, so reading it cannot fail but for
 * memory or a forged state: a member of the wrong type reads as its zero. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/roll.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/hp.h"
#include "service/codec/creature.h"
#include "service/codec/encounter_state.h"
#include "service/codec/map.h"
#include "service/codec/move_req.h"
#include "service/json/errors.h"

static const char *str_of(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int int_of(json_t *o, const char *k)
{
    long long v = json_integer_value(json_object_get(o, k));
    return v < -1000000 ? -1000000 : v > 1000000 ? 1000000 : (int)v;
}

static bool flag_of(json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

void svc_enc_turn_decode(json_t *turn, struct rules_turn *t)
{
    /* An engine 1 turn's "attacked" counts as its standard action. */
    *t = (struct rules_turn){.standard = flag_of(turn, "standard") || flag_of(turn, "attacked"),
                             .move = flag_of(turn, "move"),
                             .full_round = flag_of(turn, "full_round"),
                             .moved = flag_of(turn, "moved"),
                             .ran = flag_of(turn, "ran"),
                             .stepped = flag_of(turn, "stepped"),
                             .free_facing = flag_of(turn, "free_facing"),
                             .charged = flag_of(turn, "charged"),
                             .charge_attacked = flag_of(turn, "charge_attacked")};
}

/* The condition sources an engine 4 event stored ({"prone": {"event", "involuntary",
 * "had_turn"}}); none before it. */
static void sources_decode(json_t *all, struct rules_condition_source *out)
{
    const char *name;
    json_t *v;
    json_object_foreach(all, name, v)
    {
        int k = rules_condition_of(name);
        if (k < 0)
            continue;
        assert(k < RULES_CONDITION_COUNT); /* out holds one per condition */
        out[k] = (struct rules_condition_source){
            .event = json_integer_value(json_object_get(v, "event")),
            .involuntary = flag_of(v, "involuntary"),
            .had_turn = flag_of(v, "had_turn")};
    }
}

void svc_enc_combatant_decode(json_t *c, const struct rules_options *o,
                              struct rules_enc_combatant *out)
{
    assert(c != NULL && o != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    out->id = str_of(c, "id");
    out->name = str_of(c, "name");
    out->side = str_of(c, "side");
    out->owner = str_of(c, "owner");
    /* Its place: the geometry decoder's own reading of the placing members. */
    static const char *const placing[] = {
        "x", "y", "z", "size", "facing", "faceless", "reach_ft", "reach_weapon", NULL};
    json_t *p = json_object();
    for (int i = 0; placing[i] != NULL; i++) {
        json_t *v = json_object_get(c, placing[i]);
        if (v != NULL)
            json_object_set(p, placing[i], v);
    }
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    svc_decode_creature(p, "", o, true, NULL, &out->body, &scratch);
    out->placed = !svc_errors_any(&scratch);
    svc_errors_free(&scratch);
    json_decref(p);
    /* Speeds and burdens: the movement endpoints' decoder of a mover's burdens. */
    struct move_req burdens = {0};
    svc_errors_init(&scratch);
    move_decode_burdens(c, "", false, &burdens, &scratch);
    svc_errors_free(&scratch);
    memcpy(out->speed, burdens.mover.speed, sizeof out->speed);
    out->armor = burdens.mover.armor;
    out->load = burdens.mover.load;
    out->constitution = burdens.mover.constitution;
    out->runner = burdens.mover.runner;
    out->darkvision = burdens.mover.darkvision;
    out->player_character = flag_of(c, "player_character");
    out->base_attack_bonus = int_of(c, "base_attack_bonus");
    out->damage_reduction = int_of(c, "damage_reduction");
    int policy = rules_aoo_policy_from(str_of(c, "aoo_policy"));
    out->aoo_policy = policy < 0 ? RULES_AOO_POLICY_UNSET : (enum rules_aoo_policy)policy;
    json_t *def = json_object_get(c, "defense");
    out->defense = (struct rules_defense){.armor = int_of(def, "armor"),
                                          .shield = int_of(def, "shield"),
                                          .shield_enhancement = int_of(def, "shield_enhancement"),
                                          .natural = int_of(def, "natural"),
                                          .dex = int_of(def, "dex"),
                                          .dodge = int_of(def, "dodge"),
                                          .deflection = int_of(def, "deflection"),
                                          .size = int_of(def, "size"),
                                          .other = int_of(def, "other"),
                                          .size_given = json_object_get(def, "size") != NULL};
    out->hp = int_of(c, "hp");
    out->max_hp = int_of(c, "max_hp");
    int hs = rules_hp_state_from(str_of(c, "hp_state"));
    out->hp_state = hs < 0 ? RULES_HP_UP : (enum rules_hp_state)hs;
    out->dex = int_of(c, "dex");
    out->has_defense = json_is_object(def);
    out->defense_dex = json_object_get(def, "dex") != NULL;
    out->has_dex = json_is_integer(json_object_get(c, "dex"));
    out->initiative_modifier = int_of(c, "initiative_modifier");
    out->has_initiative = json_is_integer(json_object_get(c, "initiative"));
    out->initiative = int_of(c, "initiative");
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        int k = rules_condition_of(json_string_value(v));
        if (k >= 0)
            out->conditions |= 1u << k;
    }
    sources_decode(json_object_get(c, "condition_sources"), out->sources);
    out->prone = out->conditions & (1u << RULES_CONDITION_PRONE);
    out->flat_footed = out->conditions & (1u << RULES_CONDITION_FLAT_FOOTED);
    out->stunned = out->conditions & (1u << RULES_CONDITION_STUNNED);
    out->down = (out->conditions &
                 (1u << RULES_CONDITION_UNCONSCIOUS | 1u << RULES_CONDITION_HELPLESS)) != 0 ||
                !rules_hp_acts(out->hp_state);
    out->combat_reflexes = flag_of(c, "combat_reflexes");
    svc_enc_turn_decode(json_object_get(c, "turn"), &out->turn);
    out->charge_target = -1; /* an index: combatants_decode sets it once all are known */
    bool aoo = json_object_get(c, "aoo_round") != NULL;
    out->aoo_round = aoo ? json_integer_value(json_object_get(c, "aoo_round")) : -1;
    out->aoo_made = !aoo ? 0 : json_object_get(c, "aoo_made") != NULL ? int_of(c, "aoo_made") : 1;
}

/* Profile a of a combatant (a stored attack object). */
static void profile_decode(json_t *a, struct rules_enc_profile *out)
{
    static const char *const forms[] = {"melee", "ranged", "spell"};
    const char *form = str_of(a, "attack");
    int f = 0;
    for (int k = 0; k < 3; k++)
        if (strcmp(form, forms[k]) == 0)
            f = k;
    json_t *range = json_object_get(a, "crit_range");
    json_t *mult = json_object_get(a, "crit_multiplier");
    *out = (struct rules_enc_profile){
        .name = str_of(a, "name"),
        .attack_bonus = int_of(a, "attack_bonus"),
        .form = (enum rules_attack_form)f,
        .touch = flag_of(a, "touch"),
        .sneak_dice = int_of(a, "sneak_attack_dice"),
        .rogue_level = int_of(a, "rogue_level"),
        .crit_range = range != NULL ? int_of(a, "crit_range") : RULES_CRIT_RANGE_DEFAULT,
        .crit_multiplier =
            mult != NULL ? int_of(a, "crit_multiplier") : RULES_CRIT_MULTIPLIER_DEFAULT,
        .damage = json_string_value(json_object_get(a, "damage"))};
}

static bool in_list(json_t *list, const char *id)
{
    size_t k;
    json_t *a;
    json_array_foreach(list, k, a)
    {
        if (id != NULL && json_is_string(a) && strcmp(json_string_value(a), id) == 0)
            return true;
    }
    return false;
}

/* Counts what the arrays need, allocates them; false when out of memory. */
static bool alloc_arrays(json_t *cs, size_t slots, size_t reactions, struct svc_enc_typed *t)
{
    assert(t->combatants == NULL && t->profiles == NULL); /* allocated once */
    size_t n = json_array_size(cs), profiles = 0, timed = 0, i;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        profiles += json_array_size(json_object_get(c, "attacks"));
        timed += json_array_size(json_object_get(c, "timed"));
    }
    t->combatants = calloc(n + 1, sizeof *t->combatants);
    t->profiles = calloc(profiles + 1, sizeof *t->profiles);
    t->timed = calloc(timed + 1, sizeof *t->timed);
    t->order = calloc(slots + 1, sizeof *t->order);
    t->reactions = calloc(reactions + 1, sizeof *t->reactions);
    return t->combatants != NULL && t->profiles != NULL && t->timed != NULL && t->order != NULL &&
           t->reactions != NULL;
}

static int index_of(const struct rules_encounter *e, const char *id)
{
    assert(e != NULL);
    return id != NULL && *id != '\0' ? rules_encounter_find(e, id) : -1;
}

/* Every combatant, its profiles and its timed effects. */
static void combatants_decode(json_t *cs, struct svc_enc_typed *t)
{
    size_t i, np = 0, nt = 0;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        assert(t->combatants != NULL && t->profiles != NULL && t->timed != NULL);
        struct rules_enc_combatant *out = &t->combatants[i];
        svc_enc_combatant_decode(c, &t->rules.options, out);
        json_t *list = json_object_get(c, "attacks");
        out->attacks = t->profiles + np;
        out->attack_count = (int)json_array_size(list);
        for (size_t k = 0; k < json_array_size(list); k++)
            profile_decode(json_array_get(list, k), &t->profiles[np + k]);
        np += json_array_size(list);
        list = json_object_get(c, "timed");
        out->timed = t->timed + nt;
        out->timed_count = (int)json_array_size(list);
        for (size_t k = 0; k < json_array_size(list); k++) {
            json_t *tm = json_array_get(list, k);
            t->timed[nt + k] = (struct rules_enc_timed){
                json_integer_value(json_object_get(tm, "ends_round")),
                json_integer_value(json_object_get(tm, "ends_turn")),
                rules_condition_of(json_string_value(json_object_get(tm, "condition")))};
        }
        nt += json_array_size(list);
    }
}

json_t *svc_enc_rules_json(json_t *state)
{
    /* An encounter's rules are fixed for its life. One created before an option existed echoes
     * its rules without it, and must not take up the preset's value for it now: each option
     * added since takes the value that rules as the encounter was ruled then
     * (rules_engine_options). */
    json_t *rules = json_deep_copy(json_object_get(state, "rules"));
    json_t *options = json_object_get(rules, "options");
    for (int i = 0; json_is_object(options) && i < rules_engine_option_count; i++) {
        const struct rules_engine_option *eo = &rules_engine_options[i];
        if (json_object_get(options, eo->name) != NULL)
            continue;
        json_t *v = strcmp(eo->neutral, "true") == 0    ? json_true()
                    : strcmp(eo->neutral, "false") == 0 ? json_false()
                                                        : json_string(eo->neutral);
        json_object_set_new(options, eo->name, v);
    }
    return rules;
}

/* The rules in force (svc_enc_rules_json) decoded into out, or memo's when its echo is the
 * state's. */
static void rules_decode(json_t *state, struct svc_enc_rules_memo *memo, struct svc_rules *out)
{
    json_t *echo = json_object_get(state, "rules");
    if (memo != NULL && memo->echo != NULL && json_equal(memo->echo, echo)) {
        *out = memo->rules;
        return;
    }
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    json_t *rules = json_pack("{s:o}", "rules", svc_enc_rules_json(state));
    svc_decode_rules(rules, out, &scratch);
    json_decref(rules);
    svc_errors_free(&scratch);
    if (memo != NULL) {
        json_decref(memo->echo);
        memo->echo = json_deep_copy(echo);
        memo->rules = *out;
    }
}

void svc_enc_rules_memo_free(struct svc_enc_rules_memo *memo)
{
    json_decref(memo->echo);
    memo->echo = NULL;
}

int svc_enc_typed_decode(json_t *state, int engine, const struct svc_config *cfg,
                         const struct rules_map *map, struct svc_enc_typed *out)
{
    return svc_enc_typed_decode_memo(state, engine, cfg, map, NULL, out);
}

int svc_enc_typed_decode_memo(json_t *state, int engine, const struct svc_config *cfg,
                              const struct rules_map *map, struct svc_enc_rules_memo *memo,
                              struct svc_enc_typed *out)
{
    assert(state != NULL && cfg != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    if (!json_is_object(state))
        return SVC_ENC_TYPED_BAD;
    out->doc = json_incref(state);
    json_t *cs = json_object_get(state, "combatants"), *order = json_object_get(state, "order");
    json_t *reactions = json_object_get(state, "reactions");
    size_t slots = json_array_size(order), nr = json_array_size(reactions);
    if (!alloc_arrays(cs, slots, nr, out)) {
        svc_enc_typed_free(out);
        return SVC_ENC_TYPED_NOMEM;
    }
    /* The rules in force: the stored echo, with the options added since at the values the
     * encounter was ruled under (svc_enc_rules_json). */
    rules_decode(state, memo, &out->rules);
    struct svc_errors scratch;
    svc_errors_init(&scratch);
    out->map_ok = svc_decode_map(state, cfg, out->rules.options.grid == RULES_GRID_HEX, &out->map,
                                 &scratch) == 0;
    svc_errors_free(&scratch);
    combatants_decode(cs, out);
    json_t *turn = json_object_get(state, "turn");
    out->e = (struct rules_encounter){.engine = engine,
                                      .rules = &out->rules.options,
                                      .map = map != NULL   ? map
                                             : out->map_ok ? &out->map
                                                           : NULL,
                                      .started = flag_of(state, "started"),
                                      .surprise = flag_of(state, "surprise"),
                                      .revealed = flag_of(state, "revealed"),
                                      .round = int_of(state, "round"),
                                      .turn = json_is_integer(turn) ? int_of(state, "turn") : -1,
                                      .count = (int)json_array_size(cs),
                                      .combatants = out->combatants,
                                      .slots = (int)slots,
                                      .order = out->order,
                                      .reaction_count = (int)nr,
                                      .reactions = out->reactions,
                                      .awaiting_reactions = flag_of(state, "awaiting_reactions"),
                                      .paused = {.mover = -1}};
    for (size_t i = 0; i < json_array_size(cs); i++)
        out->combatants[i].charge_target = index_of(
            &out->e, str_of(json_object_get(json_array_get(cs, i), "turn"), "charge_target"));
    json_t *aware = json_object_get(state, "aware");
    for (size_t i = 0; i < slots; i++) {
        const char *id = json_string_value(json_array_get(order, i));
        out->order[i] = (struct rules_enc_slot){index_of(&out->e, id), in_list(aware, id)};
    }
    for (size_t i = 0; i < nr; i++) {
        json_t *r = json_array_get(reactions, i);
        json_t *facing = json_object_get(r, "facing");
        int p = rules_aoo_policy_from(str_of(r, "policy"));
        out->reactions[i] = (struct rules_enc_reaction){
            .mover = index_of(&out->e, str_of(r, "mover")),
            .by = index_of(&out->e, str_of(r, "by")),
            .step = int_of(r, "step"),
            .x = int_of(r, "x"),
            .y = int_of(r, "y"),
            .facing = json_is_integer(facing) ? int_of(r, "facing") : -1,
            .policy = p < 0 ? RULES_AOO_POLICY_UNSET : (enum rules_aoo_policy)p};
    }
    json_t *pause = json_object_get(state, "paused_move");
    if (json_is_object(pause))
        out->e.paused = (struct rules_enc_pause){
            .mover = index_of(&out->e, str_of(pause, "mover")),
            .x = int_of(pause, "x"),
            .y = int_of(pause, "y"),
            .has_facing = json_is_integer(json_object_get(pause, "facing")),
            .facing = int_of(pause, "facing"),
            .stands = flag_of(pause, "stands")};
    return SVC_ENC_TYPED_OK;
}

void svc_enc_typed_free(struct svc_enc_typed *t)
{
    if (t == NULL)
        return;
    if (t->map_ok)
        rules_map_free(&t->map);
    free(t->combatants);
    free(t->profiles);
    free(t->timed);
    free(t->order);
    free(t->reactions);
    json_decref(t->doc);
    memset(t, 0, sizeof *t);
}
