/* An attack as the encounter's state makes it (rules_encounter_attack_setup), and the attack of
 * opportunity the engine makes for an open reaction (rules_encounter_opportunity), on the typed
 * state. Pure: the caller gives every array. */
#include "rules/encounter/opportunity.h"

#include <assert.h>
#include <string.h>

#include "rules/attack/ability.h"
#include "rules/board/cover.h"
#include "rules/encounter/engine.h"

/* With derived_defense: the cover and concealment of ask's target from its attacker, by the SRD's
 * corner-to-corner lines on 002's table (rules_sight_between), every other combatant a creature
 * the lines may cross. */
static void sight(const struct rules_encounter *e, const struct rules_enc_attack_ask *ask,
                  const struct rules_creature *target, bool melee,
                  const struct rules_enc_attack_room *room, struct rules_enc_attack_setup *out)
{
    const struct rules_enc_combatant *ca = &e->combatants[ask->a], *ct = &e->combatants[ask->t];
    out->sighted = true;
    bool placed = ca->placed && ct->placed;
    int k = 0;
    for (int i = 0; i < e->count; i++) {
        if (i == ask->a || i == ask->t)
            continue;
        placed &= e->combatants[i].placed;
        room->others[k] = e->combatants[i].body;
        room->index[k++] = i;
    }
    out->other_count = k;
    out->sight_rc = !placed ? RULES_COVER_ERR_BOUNDS
                            : rules_sight_between(e->rules, e->map, &ca->body, target, room->others,
                                                  k, melee, ca->darkvision, &out->sight);
    if (out->sight_rc != RULES_COVER_OK)
        return;
    if (!ask->cover_declared)
        out->cover = out->sight.cover;
    if (!ask->concealment_declared)
        out->concealment = out->sight.concealment;
}

int rules_encounter_attack_setup(const struct rules_encounter *e,
                                 const struct rules_enc_attack_ask *ask,
                                 const struct rules_enc_attack_room *room,
                                 struct rules_enc_attack_setup *out)
{
    assert(e != NULL && ask != NULL && room != NULL && out != NULL);
    assert(ask->a >= 0 && ask->a < e->count && ask->t >= 0 && ask->t < e->count);
    const struct rules_enc_combatant *ca = &e->combatants[ask->a], *ct = &e->combatants[ask->t];
    assert(ask->p >= 0 && ask->p < ca->attack_count);
    const struct rules_enc_profile *p = &ca->attacks[ask->p];
    memset(out, 0, sizeof *out);
    rules_encounter_attack_sides(e, ask->a, ask->t, ask->target_at, &out->attacker, &out->defender,
                                 room->allies, &out->ally_count);
    /* The profile's own members (its bonus may be an iterative attack's, 5 lower each). */
    struct rules_attacker *a = &out->attacker;
    a->attack_bonus = p->attack_bonus + rules_iterative_penalty(ask->iterative);
    a->ranged = p->form != RULES_FORM_MELEE;
    a->spell = p->form == RULES_FORM_SPELL;
    a->touch = p->touch;
    a->kind = ask->aoo ? RULES_ATTACK_OF_OPPORTUNITY : RULES_ATTACK_NORMAL;
    a->sneak_dice = p->sneak_dice;
    a->rogue_level = p->rogue_level;
    a->charging = ask->charging;
    out->damage = p->damage;
    out->damage_rc = RULES_DICE_OK;
    if (p->damage != NULL) {
        out->damage_rc = rules_dice_parse(p->damage, &out->damage_expr, &out->damage_at);
        if (out->damage_rc != RULES_DICE_OK)
            out->damage = NULL;
    }
    out->params = (struct rules_attack_roll_params){.critical_hits = e->rules->critical_hits,
                                                    .crit_range = p->crit_range,
                                                    .crit_multiplier = p->crit_multiplier,
                                                    .sneak_dice = p->sneak_dice,
                                                    .damage_reduction = ct->damage_reduction};
    if (!rules_engine_has(e->engine, RULES_ENGINE_DERIVED_DEFENSE))
        return RULES_ENC_ATTACK_OK;
    /* d20 3.5 SRD Ability Modifiers: the Dexterity part of a Defense stored without one. */
    if (ct->has_defense && !ct->defense_dex && ct->has_dex) {
        out->derived_dex = true;
        out->dex_score = ct->dex;
        out->dex = rules_ability_modifier(ct->dex);
        out->defender.ac.dex = out->dex;
    }
    if (e->map == NULL)
        return RULES_ENC_ATTACK_OK;
    sight(e, ask, ask->target_at != NULL ? ask->target_at : &ct->body, p->form == RULES_FORM_MELEE,
          room, out);
    if (out->sight_rc == RULES_COVER_OK && out->sight.cover == RULES_COVER_TOTAL &&
        !ask->cover_declared)
        return RULES_ENC_ATTACK_TOTAL_COVER;
    return RULES_ENC_ATTACK_OK;
}

int rules_encounter_opportunity(const struct rules_encounter *e, int r, struct rules_dice *d,
                                const struct rules_enc_attack_room *room,
                                struct rules_enc_opportunity *out)
{
    assert(e != NULL && r >= 0 && r < e->reaction_count && room != NULL && out != NULL);
    const struct rules_enc_reaction *re = &e->reactions[r];
    out->by = re->by;
    out->mover = re->mover;
    out->profile = -1;
    out->rolled = false;
    out->gate = (struct rules_enc_attack_gate){0};
    out->ruling.after = (struct rules_attack_after){0};
    if (re->by < 0)
        return RULES_ENC_ATTACK_GONE;
    if (re->mover < 0)
        return RULES_ENC_ATTACK_NO_TARGET;
    out->profile = rules_encounter_aoo_profile_of(e, re->by);
    if (out->profile < 0)
        return RULES_ENC_ATTACK_NO_PROFILE;
    /* 004: the attack finds the mover in the square it was leaving, facing as it faced there. */
    out->target_at = e->combatants[re->mover].body;
    out->target_at.body.x = re->x;
    out->target_at.body.y = re->y;
    if (re->facing >= 0)
        out->target_at.facing = re->facing;
    int rc = rules_encounter_attack_gate(e, re->by, re->mover, out->profile, true, &out->target_at,
                                         &out->gate);
    if (rc != RULES_ENC_ATTACK_OK)
        return rc;
    struct rules_enc_attack_ask ask = {.a = re->by,
                                       .t = re->mover,
                                       .p = out->profile,
                                       .aoo = true,
                                       .target_at = &out->target_at,
                                       .charging = out->gate.charge_attack};
    rc = rules_encounter_attack_setup(e, &ask, room, &out->setup);
    if (rc != RULES_ENC_ATTACK_OK)
        return rc;
    if (out->setup.damage_rc != RULES_DICE_OK)
        return RULES_ENC_ATTACK_DAMAGE;
    if (d == NULL)
        return RULES_ENC_ATTACK_OK;
    const struct rules_enc_attack_setup *s = &out->setup;
    struct rules_enc_attack_roll roll = {.attacker = &s->attacker,
                                         .defender = &s->defender,
                                         .allies = room->allies,
                                         .ally_count = s->ally_count,
                                         .cover = s->cover,
                                         .concealments = &s->concealment,
                                         .concealment_count =
                                             s->concealment != RULES_CONCEAL_NONE ? 1 : 0,
                                         .params = &s->params,
                                         .damage = s->damage != NULL ? &s->damage_expr : NULL};
    out->rolled = true;
    return rules_encounter_attack(e, &e->combatants[re->by], &e->combatants[re->mover], true,
                                  &out->gate, &roll, d, &out->ruling);
}

int rules_encounter_reaction_of(const struct rules_encounter *e, int mover, int by)
{
    assert(e != NULL);
    if (mover < 0 || by < 0)
        return -1;
    for (int i = 0; i < e->reaction_count; i++)
        if (e->reactions[i].mover == mover && e->reactions[i].by == by)
            return i;
    return -1;
}

bool rules_encounter_reaction_stays(const struct rules_encounter *e, int answered, bool stopped,
                                    int i)
{
    assert(e != NULL && answered >= 0 && answered < e->reaction_count && i >= 0 &&
           i < e->reaction_count);
    const struct rules_enc_reaction *a = &e->reactions[answered], *r = &e->reactions[i];
    if (i == answered)
        return false;
    return !(stopped && r->mover == a->mover && r->step > a->step);
}

bool rules_encounter_awaits_after_answer(const struct rules_encounter *e, int answered,
                                         bool stopped)
{
    assert(e != NULL);
    for (int i = 0; i < e->reaction_count; i++)
        if (rules_encounter_reaction_stays(e, answered, stopped, i) &&
            rules_reaction_outcome(&e->reactions[i]) == RULES_AOO_ASKED)
            return true;
    return false;
}

bool rules_encounter_settles_on_answer(const struct rules_encounter *e)
{
    assert(e != NULL);
    for (int i = 0; i < e->reaction_count; i++)
        if (e->reactions[i].policy == RULES_AOO_POLICY_ALWAYS)
            return true;
    return rules_engine_has(e->engine, RULES_ENGINE_PAUSED_MOVES) && e->awaiting_reactions;
}

bool rules_encounter_pause_place(const struct rules_encounter *e, int mover,
                                 struct rules_enc_pause_place *out)
{
    assert(e != NULL && out != NULL);
    *out = (struct rules_enc_pause_place){0};
    if (mover < 0 || e->paused.mover != mover)
        return false;
    assert(mover < e->count);
    int first = -1; /* the earliest asked reaction to its move; of equal steps, the first listed */
    for (int i = 0; i < e->reaction_count; i++) {
        const struct rules_enc_reaction *r = &e->reactions[i];
        if (r->mover == mover && r->policy == RULES_AOO_POLICY_ASK &&
            (first < 0 || r->step < e->reactions[first].step))
            first = i;
    }
    bool dropped = e->combatants[mover].down;
    out->over = first < 0 || dropped;
    if (dropped)
        return true;
    out->set = true;
    if (first >= 0) {
        const struct rules_enc_reaction *r = &e->reactions[first];
        out->x = r->x;
        out->y = r->y;
        out->has_facing = r->facing >= 0;
        out->facing = r->facing;
    } else {
        out->x = e->paused.x;
        out->y = e->paused.y;
        out->has_facing = e->paused.has_facing;
        out->facing = e->paused.facing;
        out->stands = e->paused.stands;
    }
    return true;
}
