/* The referee's struct encounter for tests (referee.h). */
#include "tests/rules/referee.h"

#include <criterion/criterion.h>
#include <string.h>

#include "rules/board/size.h"
#include "rules/board/threat.h"
#include "rules/encounter/apply.h"

/* The map the last referee_init made: freed by the next, so that a test need not free it. */
static struct rules_map last_map;

void referee_init(struct referee *r, int engine, int w, int h)
{
    *r = (struct referee){0};
    cr_assert_eq(rules_preset_apply("d20-3.5", &r->o), RULES_OPTION_OK);
    rules_map_free(&last_map);
    cr_assert_eq(rules_map_init(&last_map, w, h), 0);
    r->map = last_map; /* the same squares: a test may change them through either */
    r->club = (struct rules_enc_profile){.name = "club",
                                         .attack_bonus = 2,
                                         .form = RULES_FORM_MELEE,
                                         .crit_range = RULES_CRIT_RANGE_DEFAULT,
                                         .crit_multiplier = RULES_CRIT_MULTIPLIER_DEFAULT,
                                         .damage = "1d6"};
    r->bow = r->club;
    r->bow.name = "bow", r->bow.attack_bonus = 6, r->bow.form = RULES_FORM_RANGED;
    r->bow.damage = "1d8";
    r->e = (struct rules_encounter){.engine = engine,
                                    .rules = &r->o,
                                    .map = &r->map,
                                    .started = true,
                                    .round = 1,
                                    .turn = -1,
                                    .combatants = r->c,
                                    .order = r->order};
}

int referee_add(struct referee *r, const char *id, const char *side, int x, int y)
{
    int i = r->e.count;
    cr_assert_lt(i, REFEREE_MAX);
    struct rules_enc_combatant *c = &r->c[i];
    *c = (struct rules_enc_combatant){.id = id,
                                      .name = id,
                                      .side = side,
                                      .owner = "",
                                      .placed = true,
                                      .constitution = 10,
                                      .defense = {.armor = 2},
                                      .hp = 10,
                                      .max_hp = 10,
                                      .dex = 10,
                                      .attack_count = 1,
                                      .attacks = &r->club,
                                      .charge_target = -1,
                                      .aoo_round = -1};
    rules_creature_init(&c->body, RULES_SIZE_MEDIUM, x, y, 0);
    c->speed[RULES_MOVE_WALK] = 30;
    r->order[i] = (struct rules_enc_slot){.combatant = i, .aware = true};
    r->e.count = r->e.slots = i + 1;
    return i;
}

void referee_hp(struct referee *r, int c, int hp)
{
    struct rules_enc_combatant *k = &r->c[c];
    k->hp = hp;
    k->hp_state = rules_hp_state_of(&r->o, hp);
    rules_enc_combatant_derive(k);
}

void referee_condition(struct referee *r, int c, enum rules_condition k, bool on)
{
    struct rules_enc_combatant *x = &r->c[c];
    if (on)
        x->conditions |= 1u << k;
    else
        x->conditions &= ~(1u << k);
    referee_hp(r, c, x->hp);
}

int referee_next_turn(struct referee *r)
{
    r->next = (struct rules_next_turn){.skipped = r->skips, .ended = r->ended};
    int rc = rules_encounter_next_turn(&r->e, &r->next);
    if (rc != RULES_ENC_OK)
        return rc;
    rules_encounter_begin_turn(&r->e, r->c, &r->next);
    return rc;
}

int referee_admit(struct referee *r, enum rules_action_type type, int actor,
                  enum rules_move_mode mode)
{
    struct rules_enc_action a = {.type = type, .actor = actor, .mode = mode};
    int rc = rules_encounter_admit(&r->e, &a, &r->adm);
    if (rc == RULES_ADMIT_OK && r->adm.spends)
        r->c[actor].turn = r->adm.turn;
    return rc;
}

int referee_move(struct referee *r, int mover, enum rules_move_mode mode, const int (*path)[2],
                 int n, int target)
{
    struct rules_enc_combatant *me = &r->c[mover];
    int nc = rules_encounter_board(&r->e, mover, r->board, r->board_index);
    int on_board = -1;
    for (int k = 0; k < nc; k++)
        if (r->board_index[k] == target)
            on_board = k;
    struct rules_mover mv;
    rules_encounter_mover_of(&r->e, mover, &me->turn, mode, &mv);
    struct rules_move_query q = referee_query(&r->o, &r->map, r->board, nc, &mv, mode);
    struct rules_enc_move m = {.q = &q,
                               .target_named = target >= 0,
                               .target = on_board,
                               .has_melee = rules_encounter_melee_of(&r->e, mover),
                               .runner = me->runner,
                               .charging = me->conditions & (1u << RULES_CONDITION_CHARGING)};
    memset(r->aoos, 0, sizeof r->aoos);
    r->move = (struct rules_enc_move_ruling){.path = {.steps = r->steps, .aoos = r->aoos}};
    int rc = referee_rule_move(&r->e, m, path, n, &r->move);
    for (int k = 0; k < r->move.path.aoo_count; k++) /* board indices to combatant indices */
        r->aoos[k].creature = r->board_index[r->aoos[k].creature];
    if (rc == RULES_ENC_MOVE_OK) {
        me->body.body.x = r->move.end_x;
        me->body.body.y = r->move.end_y;
    }
    return rc;
}

struct rules_move_query referee_query(const struct rules_options *o, const struct rules_map *map,
                                      const struct rules_map_creature *creatures, int count,
                                      const struct rules_mover *mover, enum rules_move_mode mode)
{
    return (struct rules_move_query){.o = o,
                                     .map = map,
                                     .creatures = creatures,
                                     .creature_count = count,
                                     .mover = mover,
                                     .mode = mode,
                                     .primary_target = -1};
}

int referee_rule_move(const struct rules_encounter *e, struct rules_enc_move m,
                      const int (*path)[2], int n, struct rules_enc_move_ruling *out)
{
    struct rules_step steps[32];
    cr_assert_leq(n, 32);
    for (int i = 0; i < n; i++)
        steps[i] = (struct rules_step){path[i][0], path[i][1], -1};
    m.steps = steps, m.n = n, m.end_facing = -1;
    return rules_encounter_move(e, &m, out);
}

int referee_provoked_by(const struct referee *r, int c)
{
    int n = 0;
    for (int k = 0; k < r->move.path.aoo_count; k++)
        n += r->aoos[k].creature == c;
    return n;
}

int referee_evaluate(const struct referee *r, int a, int t, enum rules_cover cover,
                     struct rules_attack_eval *out)
{
    struct rules_attacker at = {0};
    struct rules_defender df = {0};
    struct rules_creature allies[REFEREE_MAX];
    int ally_count = 0;
    rules_encounter_attack_sides(&r->e, a, t, NULL, &at, &df, allies, &ally_count);
    const struct rules_enc_profile *p = &r->c[a].attacks[0];
    at.attack_bonus = p->attack_bonus;
    at.ranged = p->form != RULES_FORM_MELEE;
    at.sneak_dice = p->sneak_dice, at.rogue_level = p->rogue_level;
    /* The charge's +2 when the gate says this is the charge's attack, as the service asks it. */
    struct rules_enc_attack_gate gate;
    rules_encounter_attack_gate(&r->e, a, t, 0, false, NULL, &gate);
    at.charging = gate.charge_attack;
    return rules_attack_evaluate(&r->o, &at, &df, allies, ally_count, cover, NULL, 0, out);
}

bool referee_has_modifier(const struct rules_attack_eval *ev, const char *reason, int value)
{
    for (int i = 0; i < ev->mod_count; i++)
        if (ev->mods[i].applied && ev->mods[i].value == value &&
            strcmp(ev->mods[i].reason, reason) == 0)
            return true;
    return false;
}
