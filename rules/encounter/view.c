/* What every view of an encounter derives from its state (state.h): who threatens whom, who
 * may strike back, who helps flank. Ruled once here, on the typed state, for the actions, the
 * queries, the pictures and the texts. */
#include <assert.h>

#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/state.h"

#define MAX_PROFILES 64

static const struct rules_enc_combatant *at(const struct rules_encounter *e, int c)
{
    assert(e != NULL && c >= 0 && c < e->count);
    return &e->combatants[c];
}

/* Which of c's profiles are melee attacks; returns how many profiles (at most MAX_PROFILES). */
static int melee_flags(const struct rules_enc_combatant *c, bool melee[MAX_PROFILES])
{
    int n = c->attack_count < MAX_PROFILES ? c->attack_count : MAX_PROFILES;
    for (int i = 0; i < n; i++)
        melee[i] = c->attacks[i].form == RULES_FORM_MELEE;
    return n;
}

bool rules_encounter_melee_of(const struct rules_encounter *e, int c)
{
    bool melee[MAX_PROFILES];
    int n = melee_flags(at(e, c), melee);
    return rules_encounter_has_melee(e->engine, melee, n);
}

int rules_encounter_aoo_profile_of(const struct rules_encounter *e, int c)
{
    bool melee[MAX_PROFILES];
    int n = melee_flags(at(e, c), melee);
    return rules_encounter_aoo_profile(e->engine, melee, n);
}

bool rules_encounter_threatening(const struct rules_encounter *e, int c)
{
    const struct rules_enc_combatant *k = at(e, c);
    if (k->down || !k->placed)
        return false;
    return !(k->stunned && rules_engine_has(e->engine, RULES_ENGINE_STUNNED)) &&
           (!rules_engine_has(e->engine, RULES_ENGINE_MELEE_AOO) || rules_encounter_melee_of(e, c));
}

bool rules_encounter_threatens(const struct rules_encounter *e, int a, int b)
{
    return a != b && rules_encounter_threatening(e, a) && at(e, b)->placed &&
           rules_encounter_reaches(e->rules, &at(e, a)->body, &at(e, b)->body);
}

bool rules_encounter_aoo_now(const struct rules_encounter *e, int c)
{
    return !at(e, c)->down && rules_encounter_may_aoo(e, at(e, c), rules_encounter_melee_of(e, c));
}

bool rules_encounter_flanker(const struct rules_encounter *e, int c)
{
    return rules_encounter_flanks(e->engine, at(e, c), rules_encounter_melee_of(e, c));
}

int rules_encounter_board(const struct rules_encounter *e, int me, struct rules_map_creature *out,
                          int *index)
{
    assert(out != NULL && index != NULL);
    int n = 0;
    for (int i = 0; i < e->count; i++) {
        const struct rules_enc_combatant *c = at(e, i);
        if (i == me || !c->placed)
            continue;
        int profile = rules_encounter_aoo_profile_of(e, i);
        out[n] = (struct rules_map_creature){
            .c = c->body,
            .ally = me >= 0 && !rules_encounter_enemies(e, i, me),
            .conscious = !c->down,
            .combat_reflexes = c->combat_reflexes,
            .attack_bonus = profile >= 0 ? c->attacks[profile].attack_bonus : 0};
        out[n].c.can_threaten = rules_encounter_may_aoo(e, c, rules_encounter_melee_of(e, i));
        index[n++] = i;
    }
    return n;
}

void rules_encounter_mover_of(const struct rules_encounter *e, int me,
                              const struct rules_turn *turn, enum rules_move_mode mode,
                              struct rules_mover *out)
{
    const struct rules_enc_combatant *c = at(e, me);
    *out = (struct rules_mover){.c = c->body,
                                .armor = c->armor,
                                .load = c->load,
                                .constitution = c->constitution,
                                .runner = c->runner,
                                .darkvision = c->darkvision,
                                .prone = c->prone,
                                .moved = turn != NULL && turn->moved,
                                .ran = turn != NULL && turn->ran};
    for (int t = 0; t < RULES_MOVE_TYPES; t++)
        out->speed[t] = c->speed[t];
    /* One action this turn: the surprise round (004 Step One), or disabled (SRD) as its hit
     * points rule now. */
    enum rules_hp_state hs = rules_engine_has(e->engine, RULES_ENGINE_HP_STATES)
                                 ? rules_hp_state_of(e->rules, (long long)c->hp)
                                 : RULES_HP_UP;
    bool single = (e->started && e->round == 0) || hs == RULES_HP_DISABLED;
    rules_encounter_mover(e->engine, mode, single, out);
    /* The rule start_square: the turn so far, for 004's starting square (rules_mover.acted). */
    out->acted = rules_engine_has(e->engine, RULES_ENGINE_START_SQUARE) && turn != NULL &&
                 (turn->standard || turn->move || turn->full_round);
}

void rules_encounter_attack_sides(const struct rules_encounter *e, int a, int t,
                                  const struct rules_creature *target_at,
                                  struct rules_attacker *attacker, struct rules_defender *defender,
                                  struct rules_creature *allies, int *ally_count)
{
    assert(attacker != NULL && defender != NULL && allies != NULL && ally_count != NULL);
    const struct rules_enc_combatant *ca = at(e, a), *ct = at(e, t);
    attacker->c = ca->body;
    attacker->combat_reflexes = ca->combat_reflexes;
    attacker->prone = ca->prone;
    defender->c = target_at != NULL ? *target_at : ct->body;
    defender->ac = ct->defense;
    defender->conditions = rules_condition_attack_bits(ct->conditions);
    if (rules_engine_has(e->engine, RULES_ENGINE_DOWN_HELPLESS) &&
        (ct->hp_state == RULES_HP_DYING || ct->hp_state == RULES_HP_DEAD))
        defender->conditions |= RULES_COND_HELPLESS;
    *ally_count = 0;
    for (int i = 0; i < e->count; i++) {
        const struct rules_enc_combatant *c = at(e, i);
        if (i == a || i == t || rules_encounter_enemies(e, i, a) || c->down || !c->placed)
            continue;
        allies[*ally_count] = c->body;
        allies[(*ally_count)++].can_threaten = rules_encounter_flanker(e, i);
    }
}

int rules_encounter_attack_gate(const struct rules_encounter *e, int a, int t, int p, bool aoo,
                                const struct rules_creature *target_at,
                                struct rules_enc_attack_gate *gate)
{
    const struct rules_enc_combatant *ca = at(e, a), *ct = at(e, t);
    assert(p >= 0 && p < ca->attack_count && gate != NULL);
    *gate = (struct rules_enc_attack_gate){0};
    if (!ca->placed || !ct->placed)
        return RULES_ENC_ATTACK_REACH;
    struct rules_enc_attack ask = {.attacker = &ca->body,
                                   .target = target_at != NULL ? target_at : &ct->body,
                                   .aoo = aoo,
                                   .melee = ca->attacks[p].form == RULES_FORM_MELEE,
                                   .charge_elsewhere =
                                       ca->charge_target >= 0 && ca->charge_target != t};
    return rules_encounter_attack_check(e, ca, &ask, gate);
}

bool rules_encounter_prone_known(const struct rules_encounter *e, int c)
{
    const struct rules_enc_combatant *k = at(e, c);
    return rules_encounter_keeps_sources(e->engine) && k->prone &&
           k->sources[RULES_CONDITION_PRONE].event > 0;
}

bool rules_encounter_resists_forced(const struct rules_encounter *e, int c)
{
    if (!rules_encounter_prone_known(e, c))
        return false;
    const struct rules_condition_source *src = &at(e, c)->sources[RULES_CONDITION_PRONE];
    return !src->involuntary || src->had_turn;
}

bool rules_encounter_bleeds(const struct rules_encounter *e, int c)
{
    const struct rules_enc_combatant *k = at(e, c);
    return rules_engine_has(e->engine, RULES_ENGINE_SRD_DYING) &&
           e->rules->hp_states == RULES_HP_STATES_SRD && e->rules->dying == RULES_DYING_SRD &&
           k->hp_state != RULES_HP_STABLE &&
           rules_hp_state_of(e->rules, (long long)k->hp) == RULES_HP_DYING;
}
