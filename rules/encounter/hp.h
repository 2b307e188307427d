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
    /* SRD "Stable Characters and Recovery": dying, but no longer losing hit points; unconscious.
     * Never ruled from hit points alone: a dying creature becomes stable by its roll
     * (rules_hp_dying_round), and any change of its hit points rules its state again. */
    RULES_HP_STABLE = 4,
};

#define RULES_HP_SOURCE "d20 3.5 SRD, Combat: Injury and Death"

/* The hit points this server keeps and answers about, a bound of the service and not of the
 * rules: a creature's hit points lie in RULES_HP_MIN..RULES_HP_MAX and its max_hp, or the hit
 * points a request's odds start from, in 1..RULES_HP_MAX. Every request is held to them. */
#define RULES_HP_MIN (-100000)
#define RULES_HP_MAX 100000

/* The state of a creature at hp hit points under o's hp_states option. */
enum rules_hp_state rules_hp_state_of(const struct rules_options *o, long long hp);

/* The damage that kills a creature at hp hit points under the SRD's states: enough to take it
 * to -10 ("Dead (-10 hit points or lower)"). */
long long rules_hp_damage_to_kill(long long hp);

/* "up", "disabled", "dying", "dead". */
const char *rules_hp_state_name(enum rules_hp_state s);
/* The state named name ("up", "disabled", ...), or -1. */
int rules_hp_state_from(const char *name);

/* A dying creature's round (d20 3.5 SRD, Dying: "At the end of each round (starting with the
 * round in which the character dropped below 0), roll d% to see whether the dying character
 * becomes stable. The character has a 10% chance of becoming stable. If he doesn't, he loses 1
 * hit point"; the option dying srd rolls it as its turn comes up): d100 is the d% roll, 1 to
 * 100. *stable when it is 10 or less; else *hp_after is hp - 1 and *state_after its state under
 * o (dying, or dead at the threshold in force). */
#define RULES_HP_DYING_SOURCE  "d20 3.5 SRD, Dying: 10% a round to become stable, else -1 hp"
#define RULES_HP_STABLE_CHANCE 10
void rules_hp_dying_round(const struct rules_options *o, long long hp, int d100, bool *stable,
                          long long *hp_after, enum rules_hp_state *state_after);

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
