/* Encounters: the turn machinery's events, ruled by rules/encounter.h on the typed state
 * (enc_typed) and encoded here: initiative, next_turn, a combatant's removal
 * (the order closing up around it) and the hp event. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/dice/dice.h"
#include "rules/encounter/apply.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/event.h"
#include "rules/encounter/hp.h"
#include "rules/encounter/turn.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"

static void open_dice(struct resolve_ctx *x, json_t *in, struct rules_dice *d, int *buf, size_t cap)
{
    json_t *results = json_object_get(in, "results");
    if (results == NULL) {
        rules_dice_from_seed(d, (uint64_t)enc_event_seed(x->state, x->seq));
        return;
    }
    size_t n = 0;
    for (; n < json_array_size(results) && n < cap; n++)
        buf[n] = (int)json_integer_value(json_array_get(results, n));
    rules_dice_from_supplied(d, buf, n);
}

/* 004 Initiative Check, the surprise round (Step One) and flat-footed: ruled by
 * rules_encounter_initiative; here the ids and the effects. */
json_t *enc_resolve_initiative(struct resolve_ctx *x, json_t *in)
{
    json_t *aware = json_object_get(in, "aware");
    const struct rules_encounter *te = enc_typed(x);
    struct rules_initiative_roll *rolls = NULL;
    int rc = RULES_ENC_OK;
    if (te == NULL || (rolls = calloc((size_t)te->count + 1, sizeof *rolls)) == NULL) {
        svc_errors_add(x->e, "", "out of memory");
        return NULL;
    }
    if (te->started)
        rc = RULES_ENC_STARTED;
    else if (te->count == 0)
        rc = RULES_ENC_NO_COMBATANTS;
    size_t i;
    json_t *a;
    json_array_foreach(aware, i, a)
    {
        if (rc == RULES_ENC_OK && enc_find(x->state, json_string_value(a), NULL) == NULL) {
            char p[48];
            snprintf(p, sizeof p, "/aware/%zu", i);
            svc_errors_add(x->e, p, "names no combatant");
        }
    }
    bool surprise = false;
    if (rc == RULES_ENC_OK && !svc_errors_any(x->e)) {
        int buf[2 * MAX_COMBATANTS];
        struct rules_dice d;
        open_dice(x, in, &d, buf, sizeof buf / sizeof buf[0]);
        rc = rules_encounter_initiative(te, (int)json_array_size(aware), &d, rolls, &surprise);
    }
    static const char *const why[] = {
        [-RULES_ENC_STARTED] = "initiative has been rolled already",
        [-RULES_ENC_NO_COMBATANTS] = "add combatants first",
        [-RULES_ENC_DICE] = "too few results, or one outside 1..20 (a d20) or 1..2 (a coin)",
        [-RULES_ENC_EXTRA_DICE] = "more results than dice (a d20 and a coin each)",
    };
    if (rc == RULES_ENC_DICE || rc == RULES_ENC_EXTRA_DICE)
        svc_errors_add(x->e, "/results", "%s", why[-rc]);
    else if (rc != RULES_ENC_OK)
        svc_errors_add(x->e, "", "%s", why[-rc]);
    if (svc_errors_any(x->e)) {
        free(rolls);
        return NULL;
    }
    size_t n = (size_t)te->count;
    json_t *order = json_array(), *list = json_array(), *effects = json_array();
    for (i = 0; i < n; i++) {
        const struct rules_initiative_roll *r = &rolls[i];
        json_t *c = json_array_get(enc_combatants(x->state), (size_t)r->combatant);
        const char *id = enc_str(c, "id");
        json_array_append_new(order, json_string(id));
        json_array_append_new(list, json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "id", id, "d20",
                                              r->d20, "modifier", r->modifier, "total", r->total,
                                              "dex", r->dex, "coin", r->coin));
        /* 004: "At the start of a battle each combatant is flat-footed." */
        json_array_append_new(
            effects, enc_effect_set(id, json_pack("{s:o, s:i, s:o}", "conditions",
                                                  enc_conditions_with(c, "flat_footed", true),
                                                  "initiative", r->total, "turn", json_object())));
    }
    json_t *aware_ids = json_array();
    json_array_foreach(aware, i, a)
    {
        json_array_append(aware_ids, a);
    }
    json_array_append_new(
        effects,
        enc_effect_set("encounter", json_pack("{s:b, s:i, s:n, s:O, s:b, s:o}", "started", 1,
                                              "round", surprise ? 0 : 1, "turn", "order", order,
                                              "surprise", surprise, "aware", aware_ids)));
    free(rolls);
    return enc_outcome(
        json_pack("{s:o, s:o, s:b, s:s}", "rolls", list, "order", order, "surprise", surprise,
                  "rule",
                  "004 Initiative Check: a Dexterity check; ties by Dexterity, then a "
                  "coin. Surprise round only when some but not all are aware."),
        effects);
}

/* A copy of conditions with cond removed: a new array. */
static json_t *conditions_without(json_t *conds, const char *cond)
{
    json_t *tmp = json_pack("{s:O}", "conditions", conds);
    json_t *out = enc_conditions_with(tmp, cond, false);
    json_decref(tmp);
    return out;
}

/* The stored state as the typed encounter te reads it. te is x->state's own decode, or a copy on
 * which one combatant has left (rules_encounter_leave) while x->state still holds it: then te's
 * combatant i is the stored one at i, or i + 1 from the one that left (gone), and te's slot s
 * the stored order's s, or s + 1 from its slot (gone_slot). */
struct turn_view {
    const struct rules_encounter *te;
    int gone, gone_slot; /* -1: none */
};

static json_t *view_combatant(json_t *state, const struct turn_view *v, int i)
{
    assert(i >= 0 && i < v->te->count);
    int at = v->gone >= 0 && i >= v->gone ? i + 1 : i;
    return json_array_get(enc_combatants(state), (size_t)at);
}

static const char *view_slot_id(json_t *state, const struct turn_view *v, int s)
{
    assert(s >= 0 && s < v->te->slots);
    int at = v->gone_slot >= 0 && s >= v->gone_slot ? s + 1 : s;
    return json_string_value(json_array_get(json_object_get(state, "order"), (size_t)at));
}

/* Stored timed effect tm as the typed one t says it now is: tm itself (a new reference) when its
 * end is the same, else a copy with t's end_turn (the order closed up around a leaver). */
static json_t *timed_as(json_t *tm, const struct rules_enc_timed *t)
{
    if (enc_num(tm, "ends_turn") == t->end_turn)
        return json_incref(tm);
    json_t *copy = json_copy(tm);
    json_object_set_new(copy, "ends_turn", json_integer(t->end_turn));
    return copy;
}

/* Why rules_encounter_next_turn (rc, not RULES_ENC_OK) refused, in words. */
static void next_turn_refused(struct resolve_ctx *x, int rc)
{
    assert(rc != RULES_ENC_OK);
    if (rc == RULES_ENC_NOT_STARTED)
        svc_errors_add(x->e, "", "roll initiative first");
    else if (rc == RULES_ENC_NO_COMBATANTS)
        svc_errors_add(x->e, "", "nobody is left in the initiative order");
    else
        svc_errors_add(x->e, "", "no combatant can act: every one is dying or dead (%s)",
                       RULES_HP_SOURCE);
}

/* Each combatant the turn passes over, into skipped, and (rules_encounter_bleeds) a dying one's
 * round, into bled as an effect: the d% of the event's dice, or of the table's results, in turn
 * order. False after adding errors to x->e (too few results, or more than the dice rolled). */
static bool pass_over(struct resolve_ctx *x, json_t *in, const struct turn_view *v,
                      const struct rules_next_turn *next, json_t *skipped, json_t *bled)
{
    const struct rules_encounter *te = v->te;
    struct rules_dice d;
    int buf[2 * MAX_COMBATANTS];
    bool opened = false;
    for (int k = 0; k < next->skipped_count; k++) {
        int ci = next->skipped[k].combatant;
        json_t *c = ci >= 0 ? view_combatant(x->state, v, ci) : NULL;
        json_t *item = json_pack("{s:s, s:s}", "id", enc_str(c, "id"), "hp_state",
                                 rules_hp_state_name(next->skipped[k].state));
        if (ci >= 0 && rules_encounter_bleeds(te, ci)) {
            if (!opened)
                open_dice(x, in, &d, buf, sizeof buf / sizeof buf[0]), opened = true;
            int roll = 0;
            if (rules_dice_draw(&d, 100, &roll) != RULES_DICE_OK) {
                svc_errors_add(x->e, "/results",
                               "too few results, or one outside 1..100: a d%% for each dying "
                               "combatant whose turn comes up (%s)",
                               RULES_HP_DYING_SOURCE);
                json_decref(item);
                break;
            }
            bool stable = false;
            long long hp = 0;
            enum rules_hp_state now = RULES_HP_DYING;
            rules_hp_dying_round(te->rules, enc_num(c, "hp"), roll, &stable, &hp, &now);
            json_object_set_new(item, "dying",
                                json_pack("{s:i, s:b, s:I, s:s, s:s}", "d100", roll, "stable",
                                          stable, "hp", (json_int_t)hp, "hp_state",
                                          rules_hp_state_name(now), "rule", RULES_HP_DYING_SOURCE));
            json_array_append_new(
                bled,
                enc_effect_set(enc_str(c, "id"), json_pack("{s:I, s:s}", "hp", (json_int_t)hp,
                                                           "hp_state", rules_hp_state_name(now))));
        }
        json_array_append_new(skipped, item);
    }
    if (!opened && json_object_get(in, "results") != NULL)
        svc_errors_add(x->e, "/results",
                       "more results than dice: no dying combatant's turn "
                       "comes up, so nothing is rolled");
    else if (opened && !svc_errors_any(x->e) && !rules_dice_all_used(&d))
        svc_errors_add(x->e, "/results",
                       "more results than dice: one d%% for each dying "
                       "combatant whose turn comes up");
    return !svc_errors_any(x->e);
}

/* The fields of c (typed: was), whose turn begins, into fields, as rules_enc_combatant_begin_turn
 * rules it: no longer flat-footed (out of *conds), a fresh turn (action_economy), and the
 * conditions forced on it marked as having had its turn. */
static void begin_turn(struct resolve_ctx *x, json_t *c, const struct rules_enc_combatant *was,
                       const struct rules_next_turn *next, json_t **conds, json_t *fields)
{
    struct rules_enc_combatant now = *was;
    rules_enc_combatant_begin_turn(x->engine, &now);
    if (!(now.conditions & (1u << RULES_CONDITION_FLAT_FOOTED))) {
        json_t *fewer = conditions_without(*conds, "flat_footed");
        json_decref(*conds);
        *conds = fewer;
    }
    struct rules_turn fresh = now.turn;
    json_object_set_new(fields, "turn",
                        rules_encounter_turn_has_budget(x->engine)
                            ? enc_turn_fields(&fresh, &next->limits)
                            : json_object());
    /* A condition forced on it: its turn is the opportunity to act on it (001 Forced Movement:
     * "until it has had an opportunity to stand up"). Every key is a condition's name
     * (enc_gain_condition writes them). */
    json_t *sources = json_object_get(c, "condition_sources");
    if (json_is_object(sources)) {
        json_t *changed = NULL;
        const char *name;
        json_t *src;
        json_object_foreach(sources, name, src)
        {
            int k = rules_condition_of(name);
            if (k < 0 || !now.sources[k].had_turn || json_is_true(json_object_get(src, "had_turn")))
                continue;
            if (changed == NULL)
                changed = json_deep_copy(sources);
            json_object_set_new(json_object_get(changed, name), "had_turn", json_true());
        }
        if (changed != NULL)
            json_object_set_new(fields, "condition_sources", changed);
    }
}

/* What the new turn changes on combatant i (c): the timed effects that ended
 * (next->ended[*e...], in combatant then timed order) leave its conditions and timed list and
 * are told in ended; the one whose turn begins, begin_turn. Returns its fields (a new object,
 * empty when nothing changes). */
static json_t *turn_fields(struct resolve_ctx *x, json_t *c,
                           const struct rules_enc_combatant *typed, int i,
                           const struct rules_next_turn *next, int *e, json_t *ended)
{
    json_t *fields = json_object();
    json_t *conds = json_deep_copy(json_object_get(c, "conditions"));
    json_t *timed = json_array();
    size_t k;
    json_t *tm;
    json_array_foreach(json_object_get(c, "timed"), k, tm)
    {
        if (*e < next->ended_count && next->ended[*e].combatant == i &&
            next->ended[*e].timed == (int)k) {
            (*e)++;
            json_t *fewer = conditions_without(conds, enc_str(tm, "condition"));
            json_decref(conds);
            conds = fewer;
            json_array_append_new(ended, json_pack("{s:s, s:s}", "id", enc_str(c, "id"),
                                                   "condition", enc_str(tm, "condition")));
        } else {
            assert(k < (size_t)typed->timed_count); /* the typed list is the stored one */
            json_array_append_new(timed, timed_as(tm, &typed->timed[k]));
        }
    }
    if (i == next->combatant)
        begin_turn(x, c, typed, next, &conds, fields);
    if (!json_equal(conds, json_object_get(c, "conditions")))
        json_object_set(fields, "conditions", conds);
    if (json_array_size(timed) != json_array_size(json_object_get(c, "timed")))
        json_object_set(fields, "timed", timed);
    json_decref(conds);
    json_decref(timed);
    return fields;
}

/* 004 The Combat Round, ruled by rules_encounter_next_turn: the next combatant in initiative
 * order; after the last, the highest acts again in a new round. Here the effects: its first
 * turn ends its flat-footedness, its fresh turn budget (action_economy), and effects that last a
 * number of rounds end just before the count they began on (rules_duration_ended). */
/* enc_resolve_next_turn on v's typed encounter. */
static json_t *next_turn_on(struct resolve_ctx *x, json_t *in, const struct turn_view *v)
{
    const struct rules_encounter *te = v->te;
    struct rules_next_turn next = {0};
    int timed_total = 0;
    for (int k = 0; te != NULL && k < te->count; k++)
        timed_total += te->combatants[k].timed_count;
    if (te == NULL ||
        (next.skipped = calloc((size_t)te->slots + 1, sizeof *next.skipped)) == NULL ||
        (next.ended = calloc((size_t)timed_total + 1, sizeof *next.ended)) == NULL) {
        free(next.skipped);
        svc_errors_add(x->e, "", "out of memory");
        return NULL;
    }
    int rc = rules_encounter_next_turn(te, &next);
    json_t *skipped = json_array(), *bled = json_array();
    if (rc != RULES_ENC_OK || !pass_over(x, in, v, &next, skipped, bled)) {
        if (rc != RULES_ENC_OK)
            next_turn_refused(x, rc);
        json_decref(skipped);
        json_decref(bled);
        free(next.skipped);
        free(next.ended);
        return NULL;
    }
    free(next.skipped);
    const char *id = view_slot_id(x->state, v, next.turn);
    json_t *effects = json_array();
    json_array_append_new(
        effects, enc_effect_set("encounter",
                                json_pack("{s:i, s:i}", "round", next.round, "turn", next.turn)));
    /* The ruling's effects: the timed effects that ended (rules_duration_ended) leave the
     * combatants' conditions and timed lists; the one whose turn begins is no longer
     * flat-footed, with a fresh turn (action_economy). */
    json_t *ended = json_array();
    int e = 0;
    for (int i = 0; i < te->count; i++) {
        json_t *c = view_combatant(x->state, v, i);
        json_t *fields = turn_fields(x, c, &te->combatants[i], i, &next, &e, ended);
        if (json_object_size(fields) > 0)
            json_array_append_new(effects, enc_effect_set(enc_str(c, "id"), fields));
        else
            json_decref(fields);
    }
    assert(e <= next.ended_count);
    free(next.ended);
    json_t *result = json_pack("{s:i, s:s, s:o, s:s}", "round", next.round, "turn_of", id, "ended",
                               ended, "rule",
                               "004 The Combat Round: initiative order, then the highest again; "
                               "effects end just before the count they began on; 004 Flat-Footed "
                               "ends with one's first turn");
    if (rules_encounter_lists_skipped(x->engine))
        json_object_set_new(result, "skipped", skipped);
    else
        json_decref(skipped);
    json_array_extend(effects, bled); /* the dying's rounds, after the turn's own changes */
    json_decref(bled);
    return enc_outcome(result, effects);
}

json_t *enc_resolve_next_turn(struct resolve_ctx *x, json_t *in)
{
    struct turn_view v = {enc_typed(x), -1, -1};
    return next_turn_on(x, in, &v);
}

/* The effects that give each combatant of te (before) but the one that left (gone) its timed
 * effects as w (after rules_encounter_leave) has them, where they changed: appended to effects. */
static void timed_moved(json_t *state, const struct rules_encounter *te, int gone,
                        const struct rules_encounter_work *w, json_t *effects)
{
    for (int i = 0; i < te->count; i++) {
        if (i == gone)
            continue;
        const struct rules_enc_combatant *after = &w->combatants[i > gone ? i - 1 : i];
        assert(after->timed_count == te->combatants[i].timed_count);
        bool moved = false;
        for (int n = 0; n < after->timed_count; n++)
            moved |= after->timed[n].end_turn != te->combatants[i].timed[n].end_turn;
        if (!moved)
            continue;
        json_t *c = json_array_get(enc_combatants(state), (size_t)i);
        json_t *list = json_array();
        size_t n;
        json_t *tm;
        json_array_foreach(json_object_get(c, "timed"), n, tm)
        {
            json_array_append_new(list, timed_as(tm, &after->timed[n]));
        }
        json_array_append_new(effects,
                              enc_effect_set(enc_str(c, "id"), json_pack("{s:o}", "timed", list)));
    }
}

/* The rule leaving: a combatant leaving a fight under way, ruled by rules_encounter_leave on a copy
 * of the typed state: the initiative order closes up around its place (the fold takes its id out
 * of order), the turn stays with the combatant whose turn it is, and timed effects still end
 * before the count they began on. If it leaves on its own turn, the turn passes on, as next_turn
 * would pass it (the result's next_turn), ruled on that copy, so that the one after it begins a
 * proper turn: not flat-footed, a fresh budget, ended effects. False after adding an error. */
static bool remove_from_order(struct resolve_ctx *x, const char *id, json_t *effects,
                              json_t *result)
{
    const struct rules_encounter *te = enc_typed(x);
    int gone = te != NULL ? rules_encounter_find(te, id) : -1;
    struct rules_encounter_work w;
    if (te == NULL || gone < 0 || !rules_encounter_work_copy(te, &w)) {
        if (!svc_errors_any(x->e))
            svc_errors_add(x->e, "", "out of memory");
        return false;
    }
    struct rules_enc_left left;
    rules_encounter_leave(&w, gone, true, &left);
    if (left.slot >= 0) {
        timed_moved(x->state, te, gone, &w, effects);
        if (w.e.turn != te->turn)
            json_array_append_new(
                effects,
                enc_effect_set("encounter", w.e.turn >= 0 ? json_pack("{s:i}", "turn", w.e.turn)
                                                          : json_pack("{s:n}", "turn")));
    }
    enc_check_applied(x, effects, &w.e);
    if (!left.passes) {
        rules_encounter_work_free(&w);
        return true;
    }
    /* Its own turn: the next turn on the state without it. */
    struct svc_errors none, *was = x->e;
    svc_errors_init(&none);
    x->e = &none;
    struct turn_view v = {&w.e, gone, left.slot};
    json_t *next = next_turn_on(x, NULL, &v);
    x->e = was;
    if (next != NULL) {
        size_t n;
        json_t *ef;
        json_array_foreach(json_object_get(next, "effects"), n, ef)
        {
            json_array_append(effects, ef);
        }
        json_object_set(result, "next_turn", json_object_get(next, "result"));
    } else /* nobody else can act (every one dying or dead, or nobody left): nobody's turn; the
            * round is over, so the next turn begins the next one. */
        json_array_append_new(
            effects, enc_effect_set("encounter", json_pack("{s:I, s:n}", "round",
                                                           (json_int_t)te->round + 1, "turn")));
    json_decref(next);
    svc_errors_free(&none);
    rules_encounter_work_free(&w);
    return true;
}

json_t *enc_resolve_remove(struct resolve_ctx *x, json_t *in)
{
    const char *id = enc_str(in, "id");
    if (enc_find(x->state, id, NULL) == NULL) {
        svc_errors_add(x->e, "", "no combatant '%s'", id);
        return NULL;
    }
    json_t *result = json_pack("{s:s}", "removed", id);
    json_t *effects = json_pack("[{s:s, s:s}]", "op", "remove", "id", id);
    if (rules_encounter_removal_leaves_order(x->engine) &&
        !remove_from_order(x, id, effects, result)) {
        json_decref(result);
        json_decref(effects);
        return NULL;
    }
    return enc_outcome(result, effects);
}

/* hp_states: damage or healing from outside the fight, posted by the owner at any time (the
 * hp event), ruled by rules_hp_after. */
json_t *enc_resolve_hp(struct resolve_ctx *x, json_t *in)
{
    if (!rules_encounter_rules_hp_event(x->engine)) {
        svc_errors_add(x->e, "", "the hp event is ruled from engine 2 on");
        return NULL;
    }
    json_t *target = enc_find(x->state, enc_str(in, "target"), NULL);
    if (target == NULL) {
        svc_errors_add(x->e, "/target", "names no combatant");
        return NULL;
    }
    long long before = enc_num(target, "hp");
    bool set = json_object_get(in, "set") != NULL, capped = false;
    /* no_healing_dead: healing does not reach the dead; set stays the owner's override. */
    int ti = -1;
    if (rules_encounter_heals_not_the_dead(x->engine) && !set && enc_num(in, "change") > 0 &&
        enc_typed_of(x, target, &ti) == NULL)
        return NULL; /* the typed state could not be read: x->e says why */
    if (ti >= 0 && !rules_hp_healable(rules_encounter_hp_state(enc_typed(x), ti))) {
        svc_errors_add(x->e, "/change",
                       "'%s' is dead at %lld hp: healing does not reach it (%s); set its hit "
                       "points to override",
                       enc_str(target, "id"), before, RULES_HP_DEAD_SOURCE);
        return NULL;
    }
    long long after = rules_hp_after(before, enc_num(target, "max_hp"), set,
                                     set ? enc_num(in, "set") : enc_num(in, "change"), &capped);
    json_t *fields = enc_hp_fields(x, after);
    json_t *result =
        json_pack("{s:s, s:I, s:I, s:b, s:s}", "target", enc_str(target, "id"), "hp_before", before,
                  "hp", after, "capped_at_max", capped, "rule",
                  "hit points changed from outside the fight by the encounter's owner; "
                  "healing stops at max_hp (d20 3.5 SRD, Healing)");
    if (json_object_get(fields, "hp_state"))
        json_object_set(result, "hp_state", json_object_get(fields, "hp_state"));
    if (json_object_get(in, "reason"))
        json_object_set(result, "reason", json_object_get(in, "reason"));
    return enc_outcome(result, json_pack("[o]", enc_effect_set(enc_str(target, "id"), fields)));
}
