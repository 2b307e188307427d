/* Hit points at 0 and below. The seeds say nothing of them, so this follows the d20 3.5 SRD
 * (Combat, "Injury and Death") when the rules object's hp_states option is "srd"; with "none"
 * hit points are only a number and the table rules what 0 or less means. */
#ifndef TACTICS_RULES_HP_H
#define TACTICS_RULES_HP_H

#include <stdbool.h>

#include "rules/options.h"

enum rules_hp_state {
    RULES_HP_UP = 0,       /* above 0, or hp_states none */
    RULES_HP_DISABLED = 1, /* SRD "Disabled (0 hit points)": a move or a standard action a turn */
    RULES_HP_DYING = 2,    /* SRD "Dying (-1 to -9 hit points)": unconscious, no actions */
    RULES_HP_DEAD = 3,     /* SRD "Dead (-10 hit points or lower)" */
};

#define RULES_HP_SOURCE "d20 3.5 SRD, Combat: Injury and Death"

/* The state of a creature at hp hit points under o's hp_states option. */
enum rules_hp_state rules_hp_state_of(const struct rules_options *o, long long hp);

/* The damage that kills a creature at hp hit points under the SRD's states: enough to take it
 * to -10 ("Dead (-10 hit points or lower)"). */
long long rules_hp_damage_to_kill(long long hp);

/* "up", "disabled", "dying", "dead". */
const char *rules_hp_state_name(enum rules_hp_state s);
/* The state named name ("up", "disabled", ...), or -1. */
int rules_hp_state_from(const char *name);

/* Whether a creature in state s acts on its turn (dying and dead creatures do not: the SRD's
 * dying character "is unconscious and can take no actions"). */
bool rules_hp_acts(enum rules_hp_state s);

/* Whether it threatens squares and so makes attacks of opportunity and helps flank: only a
 * creature that can act (004 Threatened Area: "the area into which it can make a melee
 * attack"; an unconscious creature can make none). */
bool rules_hp_threatens(enum rules_hp_state s);

/* Whether healing reaches a creature in state s: not a dead one (d20 3.5 SRD, Dead: "A dead
 * character's soul leaves his body. Dead characters cannot benefit from normal or magical
 * healing"). */
#define RULES_HP_DEAD_SOURCE "d20 3.5 SRD, Dead"
bool rules_hp_healable(enum rules_hp_state s);

/* The damage a creature in state s takes for a strenuous action such as an attack: 1 when
 * disabled (d20 3.5 SRD, Disabled: "If he performs any strenuous action, he takes 1 point of
 * damage after completing the act"), else 0. */
#define RULES_HP_STRAIN_SOURCE "d20 3.5 SRD, Disabled"
int rules_hp_strain(enum rules_hp_state s);

#endif
