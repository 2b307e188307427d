/* The encounter's turn machinery (encounter.h): initiative, the surprise round, turns and
 * rounds, durations, hit points from outside the fight. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rules/board/grid.h"
#include "rules/board/threat.h"
#include "rules/encounter/encounter.h"
#include "rules/encounter/engine.h"
#include "rules/encounter/reaction.h"

const char *const rules_event_kind_names[] = {"created",
                                              "combatant_added",
                                              "combatant_updated",
                                              "combatant_removed",
                                              "initiative",
                                              "next_turn",
                                              "action",
                                              "revealed",
                                              "hp",
                                              "imported",
                                              "undone",
                                              NULL};
static_assert(sizeof rules_event_kind_names / sizeof rules_event_kind_names[0] ==
                  RULES_EVENT_KIND_COUNT + 1,
              "one name per event kind, then NULL");

int rules_event_kind_of(const char *name)
{
    for (int k = 0; name != NULL && k < RULES_EVENT_KIND_COUNT; k++)
        if (strcmp(rules_event_kind_names[k], name) == 0)
            return k;
    return -1;
}

static int by_initiative(const void *pa, const void *pb)
{
    const struct rules_initiative_roll *a = pa, *b = pb;
    /* 004 Initiative Check: highest first; ties by Dexterity (highest first); then a coin. */
    if (a->total != b->total)
        return b->total - a->total;
    if (a->dex != b->dex)
        return b->dex - a->dex;
    if (a->coin != b->coin)
        return b->coin - a->coin;
    return a->combatant - b->combatant; /* qsort is not stable: keep the roll order */
}

int rules_encounter_initiative(const struct rules_encounter *e, int aware, struct rules_dice *d,
                               struct rules_initiative_roll *rolls, bool *surprise)
{
    if (e->started)
        return RULES_ENC_STARTED;
    if (e->count == 0)
        return RULES_ENC_NO_COMBATANTS;
    for (int i = 0; i < e->count; i++) {
        const struct rules_enc_combatant *c = &e->combatants[i];
        struct rules_initiative_roll *r = &rolls[i];
        *r = (struct rules_initiative_roll){
            .combatant = i, .modifier = c->initiative_modifier, .dex = c->dex};
        if (rules_dice_draw(d, 20, &r->d20) != RULES_DICE_OK ||
            rules_dice_draw(d, 2, &r->coin) != RULES_DICE_OK)
            return RULES_ENC_DICE;
        r->total = r->d20 + r->modifier;
    }
    if (!rules_dice_all_used(d))
        return RULES_ENC_EXTRA_DICE;
    qsort(rolls, (size_t)e->count, sizeof *rolls, by_initiative);
    /* 004 Step One: "If no one or everyone starts the battle aware, there is no surprise
     * round." */
    *surprise = aware > 0 && aware < e->count;
    return RULES_ENC_OK;
}

/* The hit point state of the combatant in slot s; up when it has left. */
static enum rules_hp_state slot_state(const struct rules_encounter *e, int s)
{
    int c = e->order[s].combatant;
    if (c < 0 || !rules_engine_has(e->engine, RULES_ENGINE_HP_STATES))
        return RULES_HP_UP;
    return rules_hp_state_of(e->rules, e->combatants[c].hp);
}

int rules_encounter_admit(const struct rules_encounter *e, const struct rules_enc_action *a,
                          struct rules_admission *out)
{
    const struct rules_enc_combatant *c = &e->combatants[a->actor];
    *out = (struct rules_admission){.turn_of = -1, .turn = c->turn};
    rules_action_kind_of(e->engine, a->type, a->aoo, &out->kind);
    const struct rules_action_kind *k = &out->kind;
    /* 004 The Combat Round: once initiative is rolled, each acts on its own turn. */
    if (e->started && !k->reaction && !k->anytime) {
        out->turn_of = e->turn >= 0 && e->turn < e->slots ? e->order[e->turn].combatant : -1;
        if (out->turn_of != a->actor)
            return RULES_ADMIT_NOT_ITS_TURN;
    }
    if (!k->while_down && c->down) {
        out->hp_state = rules_engine_has(e->engine, RULES_ENGINE_HP_STATES)
                            ? rules_hp_state_of(e->rules, c->hp)
                            : RULES_HP_UP;
        return RULES_ADMIT_DOWN;
    }
    /* d20 3.5 SRD, Stunned: "can't take actions" (the rule stunned). */
    if (!k->while_down && c->stunned && rules_engine_has(e->engine, RULES_ENGINE_STUNNED))
        return RULES_ADMIT_STUNNED;
    if (e->engine < k->from_engine)
        return RULES_ADMIT_ENGINE;
    /* 001 Part of a Move Action: "standing up from Prone". */
    if (a->type == RULES_ACT_STAND_UP && !c->prone)
        return RULES_ADMIT_NOT_PRONE;
    if (!k->spends || !e->started)
        return RULES_ADMIT_OK;
    out->spends = true;
    out->cost = a->type == RULES_ACT_MOVE ? rules_move_cost(a->mode) : k->cost;
    /* 004 Step One: a partial action in the surprise round; d20 3.5 SRD, Disabled: the same. */
    out->limits.partial = e->round == 0 || rules_hp_state_of(e->rules, c->hp) == RULES_HP_DISABLED;
    out->limits.standard_as_move = rules_engine_has(e->engine, RULES_ENGINE_STANDARD_AS_MOVE);
    out->limits.charge_attack = rules_engine_has(e->engine, RULES_ENGINE_CHARGE);
    if (rules_turn_spend(&out->turn, &out->limits, out->cost, &out->why) != RULES_TURN_OK)
        return RULES_ADMIT_BUDGET;
    return RULES_ADMIT_OK;
}

void rules_encounter_attack_after(const struct rules_encounter *e,
                                  const struct rules_enc_combatant *attacker,
                                  const struct rules_enc_combatant *target, bool aoo, int made,
                                  bool to_target, int dealt, struct rules_attack_after *out)
{
    *out = (struct rules_attack_after){.damaged = to_target,
                                       .target_hp = (long long)target->hp - (to_target ? dealt : 0),
                                       .attacker_hp = attacker->hp};
    if (aoo) {
        out->aoo_made = made + 1;
        /* 004: the mover is struck as it leaves a square; dropped (it no longer acts: SRD,
         * Dying), it goes no further. */
        out->stopped = !rules_hp_acts(rules_hp_state_of(e->rules, out->target_hp));
    }
    /* The rule strain, SRD, Disabled: an attack is a strenuous action. */
    if (rules_engine_has(e->engine, RULES_ENGINE_STRAIN)) {
        out->strain = rules_hp_strain(rules_hp_state_of(e->rules, attacker->hp));
        out->attacker_hp -= out->strain;
    }
}

bool rules_encounter_makes_aoo(int engine, const struct rules_enc_combatant *c)
{
    /* The rule reflexes_flat: SRD, Combat Reflexes: "you may also make attacks of opportunity while
     * flat-footed"; SRD, Stunned: "can't take actions". */
    if (rules_engine_has(engine, RULES_ENGINE_STUNNED) && c->stunned)
        return false;
    return !c->flat_footed ||
           (rules_engine_has(engine, RULES_ENGINE_REFLEXES_FLAT) && c->combat_reflexes);
}

int rules_encounter_aoo_check(const struct rules_encounter *e, const struct rules_enc_combatant *x,
                              int *made, int *allowed)
{
    if (!rules_encounter_makes_aoo(e->engine, x))
        return rules_engine_has(e->engine, RULES_ENGINE_STUNNED) && x->stunned
                   ? RULES_AOO_STUNNED
                   : RULES_AOO_FLAT_FOOTED;
    *made = x->aoo_round == e->round ? x->aoo_made : 0;
    *allowed = rules_engine_has(e->engine, RULES_ENGINE_AOO_PER_ROUND)
                   ? rules_aoo_per_round(x->combat_reflexes, x->dex)
               : x->combat_reflexes ? *made + 1
                                    : 1;
    return *made >= *allowed ? RULES_AOO_SPENT : RULES_AOO_OK;
}

int rules_encounter_next_turn(const struct rules_encounter *e, struct rules_next_turn *out)
{
    if (!e->started)
        return RULES_ENC_NOT_STARTED;
    if (e->slots <= 0)
        return RULES_ENC_NO_COMBATANTS;
    int n = e->slots, t = e->turn, round = e->round;
    bool found = false;
    out->skipped_count = 0;
    /* Two laps and a little more: past the surprise round everyone's turn comes up once. */
    for (int guard = 0; guard <= 2 * n + 2 && !found; guard++) {
        if (++t >= n) {
            t = 0;
            round++;
        }
        /* 004 Step One: in the surprise round only those aware act. With leaving, a slot whose
         * combatant has left the encounter has no turn. */
        found = (round != 0 || e->order[t].aware) &&
                (!rules_engine_has(e->engine, RULES_ENGINE_LEAVING) || e->order[t].combatant >= 0);
        enum rules_hp_state st = found ? slot_state(e, t) : RULES_HP_UP;
        if (!rules_hp_acts(st)) {
            found = false;
            if (out->skipped_count < n)
                out->skipped[out->skipped_count++] =
                    (struct rules_enc_skip){e->order[t].combatant, st};
        }
    }
    if (!found && rules_engine_has(e->engine, RULES_ENGINE_LEAVING))
        return RULES_ENC_NO_ONE_ACTS;
    out->round = round;
    out->turn = t;
    out->combatant = e->order[t].combatant;
    out->ended_count = 0;
    for (int c = 0; c < e->count; c++)
        for (int k = 0; k < e->combatants[c].timed_count; k++) {
            const struct rules_enc_timed *tm = &e->combatants[c].timed[k];
            if (rules_duration_ended(tm->end_round, tm->end_turn, round, t))
                out->ended[out->ended_count++] = (struct rules_enc_ended){c, k};
        }
    out->limits =
        (struct rules_turn_limits){.partial = round == 0 || slot_state(e, t) == RULES_HP_DISABLED};
    return RULES_ENC_OK;
}

void rules_duration_end(int round, int turn, int rounds, long long *end_round, int *end_turn)
{
    /* "end just before the same initiative count that they began on": the turn at that count,
     * `rounds` rounds on, is the first without it. */
    *end_round = (long long)round + rounds;
    *end_turn = turn < 0 ? 0 : turn;
}

bool rules_duration_ended(long long end_round, long long end_turn, long long round, long long turn)
{
    return round > end_round || (round == end_round && turn >= end_turn);
}

/* The squares of body b: at most 36 on squares (a Titanic creature's 6 x 6), 3 on hexes. */
#define BODY_MAX 64

bool rules_bodies_clash(const struct rules_options *o, const struct rules_creature *a,
                        const struct rules_creature *b)
{
    int d = (int)a->size - (int)b->size;
    if (d >= 2 || d <= -2)
        return false;
    const struct rules_body *p = &a->body, *q = &b->body;
    if (o->grid != RULES_GRID_HEX)
        return p->x < q->x + q->side && q->x < p->x + p->side && p->y < q->y + q->side &&
               q->y < p->y + p->side;
    int ax[3], ay[3], bx[3], by[3];
    int an = rules_body_squares(o, p, ax, ay, 3), bn = rules_body_squares(o, q, bx, by, 3);
    for (int i = 0; i < an; i++)
        for (int j = 0; j < bn; j++)
            if (ax[i] == bx[j] && ay[i] == by[j])
                return true;
    return false;
}

int rules_place_conflict(const struct rules_options *o, const struct rules_map *m,
                         const struct rules_creature *me, unsigned move_types,
                         const struct rules_creature *others, int count, int *bx, int *by)
{
    const struct rules_body *b = &me->body;
    if (o->grid != RULES_GRID_HEX && (b->side > 8 || b->side < 1))
        return RULES_PLACE_OFF_MAP;
    int xs[BODY_MAX], ys[BODY_MAX];
    int n = rules_body_squares(o, b, xs, ys, BODY_MAX);
    for (int i = 0; i < n; i++)
        if (xs[i] < 0 || ys[i] < 0 || xs[i] >= m->width || ys[i] >= m->height)
            return RULES_PLACE_OFF_MAP;
    for (int i = 0; i < count; i++)
        if (rules_bodies_clash(o, me, &others[i]))
            return i;
    int found = RULES_PLACE_OK;
    for (int i = 0; i < n && found != RULES_PLACE_BLOCKED; i++) {
        uint8_t t = m->terrain[(size_t)ys[i] * (size_t)m->width + (size_t)xs[i]];
        int here = t == RULES_MAP_BLOCKED ? RULES_PLACE_BLOCKED
                   : (rules_terrain_move_types((enum rules_map_terrain)t) & move_types) == 0
                       ? RULES_PLACE_TERRAIN
                       : RULES_PLACE_OK;
        if (here != RULES_PLACE_OK && (found == RULES_PLACE_OK || here == RULES_PLACE_BLOCKED)) {
            found = here;
            if (bx != NULL)
                *bx = xs[i];
            if (by != NULL)
                *by = ys[i];
        }
    }
    return found;
}

int rules_charge_check(const struct rules_options *o, const struct rules_creature *mover,
                       const struct rules_step *steps, int n, const struct rules_creature *target,
                       int *at)
{
    *at = -1;
    if (n < 2)
        return RULES_CHARGE_SHORT;
    struct rules_creature m = *mover;
    m.can_threaten = true;
    struct rules_distance d;
    rules_distance(o, &m.body, &target->body, &d);
    int before = d.squares;
    for (int i = 0; i < n; i++) {
        m.body.x = steps[i].x, m.body.y = steps[i].y;
        rules_distance(o, &m.body, &target->body, &d);
        if (d.squares >= before) {
            *at = i;
            return RULES_CHARGE_AWAY;
        }
        before = d.squares;
        /* "you must move to the closest space from which you can attack the opponent" */
        if (i < n - 1 && rules_threatens_creature(o, &m, target)) {
            *at = i + 1;
            return RULES_CHARGE_PAST;
        }
    }
    return rules_threatens_creature(o, &m, target) ? RULES_CHARGE_OK : RULES_CHARGE_AFAR;
}

void rules_move_marks_of(enum rules_move_mode mode, bool runner, struct rules_move_marks *out)
{
    *out = (struct rules_move_marks){0};
    if (mode == RULES_MODE_STEP) {
        out->stepped = true;
        return;
    }
    out->moved = true;
    out->ran = mode == RULES_MODE_RUN;
    out->flat_footed = out->ran && !runner;
}

int rules_full_attack_trade(int iterative, int attacks, int steps, bool player_character)
{
    if (steps > 0 && !player_character)
        return RULES_TRADE_MONSTER;
    if (attacks < 0 || steps < 0 || attacks + steps > iterative)
        return RULES_TRADE_TOO_MANY;
    return RULES_TRADE_OK;
}

int rules_iterative_penalty(int i)
{
    return -5 * i;
}

int rules_iterative_attacks(int bab)
{
    return bab >= 16 ? 4 : bab >= 11 ? 3 : bab >= 6 ? 2 : 1;
}

long long rules_hp_after(long long before, long long max, bool set, long long value, bool *capped)
{
    long long after = set ? value : before + value;
    /* d20 3.5 SRD, Healing: no healing past the full normal total; one above it keeps it. */
    *capped = after > max && after > before;
    if (*capped)
        after = before > max ? before : max;
    return after < RULES_HP_MIN ? RULES_HP_MIN : after;
}
