/* The stored encounter state read into the typed encounter (encounter_state.h). A stored state
 * was validated member by member when each event made it, so reading it cannot fail but for
 * memory or a forged state: a member of the wrong type reads as its zero. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rules/attack/roll.h"
#include "rules/encounter/apply.h"
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
    /* A turn stored without action_economy: its "attacked" counts as its standard action. */
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

/* The condition sources an event with condition_sources stored ({"prone": {"event", "involuntary",
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

/* The parts of a stored combatant each member belongs to: a part is decoded whole from the
 * members it reads, so that a change to some members (a set effect) is read again by decoding
 * only their parts (svc_enc_typed_refresh), with the same code as the whole decode. */
enum combatant_part {
    PART_IDS = 1u << 0,     /* id, name, side, owner */
    PART_PLACE = 1u << 1,   /* the placing members */
    PART_BURDENS = 1u << 2, /* speeds, armor, load, constitution, runner, darkvision */
    PART_MISC = 1u << 3,    /* player_character, base_attack_bonus, damage_reduction, ... */
    PART_DEFENSE = 1u << 4,
    PART_HP = 1u << 5,         /* hp, max_hp, hp_state */
    PART_INITIATIVE = 1u << 6, /* dex, initiative_modifier, initiative */
    PART_CONDITIONS = 1u << 7, /* conditions, condition_sources */
    PART_TURN = 1u << 8,
    PART_AOO = 1u << 9, /* aoo_round, aoo_made */
    PART_ALL = (1u << 10) - 1,
};

/* The placing members: the geometry decoder's own reading of them is the combatant's place. */
static const char *const placing[] = {
    "x", "y", "z", "size", "facing", "faceless", "reach_ft", "reach_weapon", NULL};

/* The part member key belongs to; PART_ALL for a member no part reads by that name (every part
 * is read again: nothing is assumed about a member this table does not list). */
static unsigned part_of(const char *key)
{
    static const struct {
        const char *key;
        unsigned part;
    } parts[] = {{"id", PART_IDS},
                 {"name", PART_IDS},
                 {"side", PART_IDS},
                 {"owner", PART_IDS},
                 {"speeds", PART_BURDENS},
                 {"armor", PART_BURDENS},
                 {"load", PART_BURDENS},
                 {"constitution", PART_BURDENS},
                 {"runner", PART_BURDENS},
                 {"darkvision", PART_BURDENS},
                 {"player_character", PART_MISC},
                 {"base_attack_bonus", PART_MISC},
                 {"damage_reduction", PART_MISC},
                 {"aoo_policy", PART_MISC},
                 {"combat_reflexes", PART_MISC},
                 {"defense", PART_DEFENSE},
                 {"hp", PART_HP},
                 {"max_hp", PART_HP},
                 {"hp_state", PART_HP},
                 {"dex", PART_INITIATIVE},
                 {"initiative_modifier", PART_INITIATIVE},
                 {"initiative", PART_INITIATIVE},
                 {"conditions", PART_CONDITIONS},
                 {"condition_sources", PART_CONDITIONS},
                 {"turn", PART_TURN},
                 {"aoo_round", PART_AOO},
                 {"aoo_made", PART_AOO}};
    /* The first byte before strcmp: a refresh asks for every member an effect sets (an
     * attack's "hp" and "turn" went through 40 calls to strcmp). */
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].key[0] == key[0] && strcmp(key, parts[i].key) == 0)
            return parts[i].part;
    for (int i = 0; placing[i] != NULL; i++)
        if (placing[i][0] == key[0] && strcmp(key, placing[i]) == 0)
            return PART_PLACE;
    return PART_ALL;
}

/* Decodes the parts of c in mask into out (each part sets every member it owns), then what is
 * derived from them. */
static void combatant_parts(json_t *c, const struct rules_options *o, unsigned mask,
                            struct rules_enc_combatant *out)
{
    if (mask & PART_IDS) {
        out->id = str_of(c, "id");
        out->name = str_of(c, "name");
        out->side = str_of(c, "side");
        out->owner = str_of(c, "owner");
    }
    if (mask & PART_PLACE) {
        json_t *p = json_object();
        for (int i = 0; placing[i] != NULL; i++) {
            json_t *v = json_object_get(c, placing[i]);
            if (v != NULL)
                json_object_set(p, placing[i], v);
        }
        struct svc_errors scratch;
        svc_errors_init(&scratch);
        memset(&out->body, 0, sizeof out->body);
        svc_decode_creature(p, "", o, true, NULL, &out->body, &scratch);
        out->placed = !svc_errors_any(&scratch);
        svc_errors_free(&scratch);
        json_decref(p);
    }
    if (mask & PART_BURDENS) {
        /* Speeds and burdens: the movement endpoints' decoder of a mover's burdens. */
        struct move_req burdens = {0};
        struct svc_errors scratch;
        svc_errors_init(&scratch);
        move_decode_burdens(c, "", false, &burdens, &scratch);
        svc_errors_free(&scratch);
        memcpy(out->speed, burdens.mover.speed, sizeof out->speed);
        out->armor = burdens.mover.armor;
        out->load = burdens.mover.load;
        out->constitution = burdens.mover.constitution;
        out->runner = burdens.mover.runner;
        out->darkvision = burdens.mover.darkvision;
    }
    if (mask & PART_MISC) {
        out->player_character = flag_of(c, "player_character");
        out->base_attack_bonus = int_of(c, "base_attack_bonus");
        out->damage_reduction = int_of(c, "damage_reduction");
        int policy = rules_aoo_policy_from(str_of(c, "aoo_policy"));
        out->aoo_policy = policy < 0 ? RULES_AOO_POLICY_UNSET : (enum rules_aoo_policy)policy;
        out->combat_reflexes = flag_of(c, "combat_reflexes");
    }
    if (mask & PART_DEFENSE) {
        json_t *def = json_object_get(c, "defense");
        out->defense =
            (struct rules_defense){.armor = int_of(def, "armor"),
                                   .shield = int_of(def, "shield"),
                                   .shield_enhancement = int_of(def, "shield_enhancement"),
                                   .natural = int_of(def, "natural"),
                                   .dex = int_of(def, "dex"),
                                   .dodge = int_of(def, "dodge"),
                                   .deflection = int_of(def, "deflection"),
                                   .size = int_of(def, "size"),
                                   .other = int_of(def, "other"),
                                   .size_given = json_object_get(def, "size") != NULL};
        out->has_defense = json_is_object(def);
        out->defense_dex = json_object_get(def, "dex") != NULL;
    }
    if (mask & PART_HP) {
        out->hp = int_of(c, "hp");
        out->max_hp = int_of(c, "max_hp");
        int hs = rules_hp_state_from(str_of(c, "hp_state"));
        out->hp_state = hs < 0 ? RULES_HP_UP : (enum rules_hp_state)hs;
    }
    if (mask & PART_INITIATIVE) {
        out->dex = int_of(c, "dex");
        out->has_dex = json_is_integer(json_object_get(c, "dex"));
        out->initiative_modifier = int_of(c, "initiative_modifier");
        out->has_initiative = json_is_integer(json_object_get(c, "initiative"));
        out->initiative = int_of(c, "initiative");
    }
    if (mask & PART_CONDITIONS) {
        out->conditions = 0;
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(c, "conditions"), i, v)
        {
            int k = rules_condition_of(json_string_value(v));
            if (k >= 0)
                out->conditions |= 1u << k;
        }
        memset(out->sources, 0, sizeof out->sources);
        sources_decode(json_object_get(c, "condition_sources"), out->sources);
    }
    if (mask & PART_TURN) {
        svc_enc_turn_decode(json_object_get(c, "turn"), &out->turn);
        out->charge_target = -1; /* an index: set once all combatants are known */
    }
    if (mask & PART_AOO) {
        bool aoo = json_object_get(c, "aoo_round") != NULL;
        out->aoo_round = aoo ? json_integer_value(json_object_get(c, "aoo_round")) : -1;
        out->aoo_made = !aoo                                     ? 0
                        : json_object_get(c, "aoo_made") != NULL ? int_of(c, "aoo_made")
                                                                 : 1;
    }
    /* What is derived from the parts. */
    rules_enc_combatant_derive(out);
}

void svc_enc_combatant_decode(json_t *c, const struct rules_options *o,
                              struct rules_enc_combatant *out)
{
    assert(c != NULL && o != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    combatant_parts(c, o, PART_ALL, out);
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

/* Counts what the combatants' arrays need, allocates them; false when out of memory. */
static bool alloc_arrays(json_t *cs, struct svc_enc_typed *t)
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
    return t->combatants != NULL && t->profiles != NULL && t->timed != NULL;
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

void svc_enc_rules_decode(json_t *state, struct svc_enc_rules_memo *memo, struct svc_rules *out)
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

/* The encounter's own members into out->e (whose rules, map and combatants are set): whether
 * initiative began, the round and turn, the order, the open reactions and a paused move; and
 * each combatant's charge target, an index found once all are known. order and reactions are
 * allocated here (out's are freed first). False when out of memory. */
static bool encounter_decode(json_t *state, struct svc_enc_typed *out)
{
    json_t *order = json_object_get(state, "order"),
           *reactions = json_object_get(state, "reactions");
    size_t slots = json_array_size(order), nr = json_array_size(reactions);
    free(out->order);
    free(out->reactions);
    out->order = calloc(slots + 1, sizeof *out->order);
    out->reactions = calloc(nr + 1, sizeof *out->reactions);
    if (out->order == NULL || out->reactions == NULL)
        return false;
    json_t *turn = json_object_get(state, "turn");
    out->e.started = flag_of(state, "started");
    out->e.surprise = flag_of(state, "surprise");
    out->e.revealed = flag_of(state, "revealed");
    out->e.round = int_of(state, "round");
    out->e.turn = json_is_integer(turn) ? int_of(state, "turn") : -1;
    out->e.slots = (int)slots;
    out->e.order = out->order;
    out->e.reaction_count = (int)nr;
    out->e.reactions = out->reactions;
    out->e.awaiting_reactions = flag_of(state, "awaiting_reactions");
    out->e.paused = (struct rules_enc_pause){.mover = -1};
    json_t *cs = json_object_get(state, "combatants");
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
    return true;
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
    json_t *cs = json_object_get(state, "combatants");
    if (!alloc_arrays(cs, out)) {
        svc_enc_typed_free(out);
        return SVC_ENC_TYPED_NOMEM;
    }
    /* The rules in force: the stored echo, with the options added since at the values the
     * encounter was ruled under (svc_enc_rules_json). */
    svc_enc_rules_decode(state, memo, &out->rules);
    if (map == NULL) { /* else the caller's, decoded already */
        struct svc_errors scratch;
        svc_errors_init(&scratch);
        out->map_ok = svc_decode_map(state, cfg, out->rules.options.grid == RULES_GRID_HEX,
                                     &out->map, &scratch) == 0;
        svc_errors_free(&scratch);
    }
    combatants_decode(cs, out);
    out->e = (struct rules_encounter){.engine = engine,
                                      .rules = &out->rules.options,
                                      .map = map != NULL   ? map
                                             : out->map_ok ? &out->map
                                                           : NULL,
                                      .count = (int)json_array_size(cs),
                                      .combatants = out->combatants};
    if (!encounter_decode(state, out)) {
        svc_enc_typed_free(out);
        return SVC_ENC_TYPED_NOMEM;
    }
    return SVC_ENC_TYPED_OK;
}

/* The members of the encounter itself that its typed state does not read again on a refresh:
 * the rules, the map and the combatants (a whole new list). */
static bool encounter_member_kept(const char *key)
{
    return strcmp(key, "rules") == 0 || strcmp(key, "map") == 0 || strcmp(key, "combatants") == 0;
}

bool svc_enc_typed_refresh(struct svc_enc_typed *t, json_t *effects)
{
    assert(t != NULL && t->doc != NULL);
    json_t *state = t->doc, *cs = json_object_get(state, "combatants");
    if (!json_is_array(effects) || (size_t)t->e.count != json_array_size(cs))
        return false;
    /* First, whether every effect is one a refresh reads: a set of the encounter's own
     * members, or of a combatant's members but its id (the typed state finds combatants by
     * it), its attack profiles and its timed effects (both held in arrays of their own). */
    size_t i;
    json_t *ef;
    bool encounter = false;
    json_array_foreach(effects, i, ef)
    {
        const char *op = str_of(ef, "op"), *target = str_of(ef, "target");
        json_t *fields = json_object_get(ef, "fields");
        if (strcmp(op, "set") != 0 || !json_is_object(fields))
            return false;
        bool whole = strcmp(target, "encounter") == 0;
        encounter |= whole;
        const char *key;
        json_t *v;
        json_object_foreach(fields, key, v)
        {
            if (whole ? encounter_member_kept(key)
                      : strcmp(key, "id") == 0 || strcmp(key, "attacks") == 0 ||
                            strcmp(key, "timed") == 0)
                return false;
        }
    }
    /* Then each combatant a set names, again, in the parts its members belong to (the fold
     * sets the first combatant of that id, as rules_encounter_find finds it). */
    json_array_foreach(effects, i, ef)
    {
        const char *target = str_of(ef, "target");
        if (strcmp(target, "encounter") == 0)
            continue;
        int k = rules_encounter_find(&t->e, target);
        if (k < 0)
            continue; /* the fold changed nothing */
        assert((size_t)k < json_array_size(cs));
        unsigned mask = 0;
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(ef, "fields"), key, v)
        {
            mask |= part_of(key);
        }
        struct rules_enc_combatant *c = &t->combatants[k];
        combatant_parts(json_array_get(cs, (size_t)k), &t->rules.options, mask, c);
        if (mask & PART_TURN)
            c->charge_target =
                index_of(&t->e, str_of(json_object_get(json_array_get(cs, (size_t)k), "turn"),
                                       "charge_target"));
    }
    return !encounter || encounter_decode(state, t);
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool same_creature(const struct rules_creature *a, const struct rules_creature *b)
{
    return a->body.x == b->body.x && a->body.y == b->body.y && a->body.z == b->body.z &&
           a->body.side == b->body.side && a->body.tri == b->body.tri && a->size == b->size &&
           a->reach_ft == b->reach_ft && a->reach_weapon == b->reach_weapon &&
           a->can_threaten == b->can_threaten && a->cannot_be_flanked == b->cannot_be_flanked &&
           a->faceless == b->faceless && a->facing == b->facing;
}

static bool same_defense(const struct rules_defense *a, const struct rules_defense *b)
{
    return a->armor == b->armor && a->shield == b->shield &&
           a->shield_enhancement == b->shield_enhancement && a->natural == b->natural &&
           a->dex == b->dex && a->dodge == b->dodge && a->deflection == b->deflection &&
           a->size == b->size && a->other == b->other && a->size_given == b->size_given;
}

/* Every option of the rules in force (NULL: none). */
static bool same_options(const struct rules_options *a, const struct rules_options *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return a->grid == b->grid && a->diagonals == b->diagonals && a->facing == b->facing &&
           a->flanking == b->flanking && a->run == b->run && a->size_table == b->size_table &&
           a->start_square == b->start_square && a->falling_max_dice == b->falling_max_dice &&
           a->shields_by_side == b->shields_by_side &&
           a->slow_medium_penalty_ft == b->slow_medium_penalty_ft && a->hp_states == b->hp_states &&
           a->dying == b->dying && a->critical_hits == b->critical_hits;
}

static bool same_turn(const struct rules_turn *a, const struct rules_turn *b)
{
    return a->standard == b->standard && a->move == b->move && a->full_round == b->full_round &&
           a->moved == b->moved && a->ran == b->ran && a->stepped == b->stepped &&
           a->free_facing == b->free_facing && a->charged == b->charged &&
           a->charge_attacked == b->charge_attacked;
}

static bool same_profile(const struct rules_enc_profile *a, const struct rules_enc_profile *b)
{
    return same_str(a->name, b->name) && a->attack_bonus == b->attack_bonus && a->form == b->form &&
           a->touch == b->touch && a->sneak_dice == b->sneak_dice &&
           a->rogue_level == b->rogue_level && a->crit_range == b->crit_range &&
           a->crit_multiplier == b->crit_multiplier && same_str(a->damage, b->damage);
}

/* The first member in which combatants a and b differ, or NULL. */
static const char *combatant_differs(const struct rules_enc_combatant *a,
                                     const struct rules_enc_combatant *b)
{
    if (!same_str(a->id, b->id) || !same_str(a->name, b->name) || !same_str(a->side, b->side) ||
        !same_str(a->owner, b->owner))
        return "id, name, side or owner";
    if (!same_creature(&a->body, &b->body) || a->placed != b->placed)
        return "place";
    if (memcmp(a->speed, b->speed, sizeof a->speed) != 0 || a->armor != b->armor ||
        a->load != b->load || a->constitution != b->constitution || a->runner != b->runner ||
        a->darkvision != b->darkvision)
        return "speeds or burdens";
    if (a->player_character != b->player_character ||
        a->base_attack_bonus != b->base_attack_bonus ||
        a->damage_reduction != b->damage_reduction || a->aoo_policy != b->aoo_policy ||
        a->combat_reflexes != b->combat_reflexes)
        return "base attack, damage reduction, aoo policy or combat reflexes";
    if (!same_defense(&a->defense, &b->defense) || a->has_defense != b->has_defense ||
        a->defense_dex != b->defense_dex)
        return "defense";
    if (a->hp != b->hp || a->max_hp != b->max_hp || a->hp_state != b->hp_state)
        return "hit points";
    if (a->dex != b->dex || a->has_dex != b->has_dex ||
        a->initiative_modifier != b->initiative_modifier ||
        a->has_initiative != b->has_initiative || a->initiative != b->initiative)
        return "dex or initiative";
    if (a->conditions != b->conditions)
        return "conditions";
    for (int k = 0; k < RULES_CONDITION_COUNT; k++)
        if (a->sources[k].event != b->sources[k].event ||
            a->sources[k].involuntary != b->sources[k].involuntary ||
            a->sources[k].had_turn != b->sources[k].had_turn)
            return "condition sources";
    if (a->attack_count != b->attack_count)
        return "attack profiles";
    for (int k = 0; k < a->attack_count; k++)
        if (!same_profile(&a->attacks[k], &b->attacks[k]))
            return "attack profiles";
    if (a->timed_count != b->timed_count)
        return "timed effects";
    for (int k = 0; k < a->timed_count; k++)
        if (a->timed[k].end_round != b->timed[k].end_round ||
            a->timed[k].end_turn != b->timed[k].end_turn ||
            a->timed[k].condition != b->timed[k].condition)
            return "timed effects";
    if (a->down != b->down || a->prone != b->prone || a->flat_footed != b->flat_footed ||
        a->stunned != b->stunned)
        return "down, prone, flat-footed or stunned";
    if (!same_turn(&a->turn, &b->turn) || a->charge_target != b->charge_target)
        return "turn";
    if (a->aoo_round != b->aoo_round || a->aoo_made != b->aoo_made)
        return "attacks of opportunity made";
    return NULL;
}

const char *svc_enc_typed_differs(const struct rules_encounter *a, const struct rules_encounter *b)
{
    assert(a != NULL && b != NULL);
    if (a->engine != b->engine || a->started != b->started || a->surprise != b->surprise ||
        a->revealed != b->revealed || a->round != b->round || a->turn != b->turn ||
        a->awaiting_reactions != b->awaiting_reactions)
        return "the encounter's own members";
    if (!same_options(a->rules, b->rules))
        return "rules";
    if ((a->map == NULL) != (b->map == NULL) ||
        (a->map != NULL && (a->map->width != b->map->width || a->map->height != b->map->height)))
        return "map";
    if (a->count != b->count)
        return "combatant count";
    for (int i = 0; i < a->count; i++) {
        const char *why = combatant_differs(&a->combatants[i], &b->combatants[i]);
        if (why != NULL)
            return why;
    }
    if (a->slots != b->slots)
        return "order";
    for (int i = 0; i < a->slots; i++)
        if (a->order[i].combatant != b->order[i].combatant ||
            a->order[i].aware != b->order[i].aware)
            return "order";
    if (a->reaction_count != b->reaction_count)
        return "reactions";
    for (int i = 0; i < a->reaction_count; i++) {
        const struct rules_enc_reaction *p = &a->reactions[i], *q = &b->reactions[i];
        if (p->mover != q->mover || p->by != q->by || p->step != q->step || p->x != q->x ||
            p->y != q->y || p->facing != q->facing || p->policy != q->policy)
            return "reactions";
    }
    if (a->paused.mover != b->paused.mover || a->paused.x != b->paused.x ||
        a->paused.y != b->paused.y || a->paused.stands != b->paused.stands ||
        a->paused.has_facing != b->paused.has_facing || a->paused.facing != b->paused.facing)
        return "paused move";
    return NULL;
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
