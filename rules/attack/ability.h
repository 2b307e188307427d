/* Ability scores. The seeds use the Dexterity modifier (004 Initiative: "An initiative check is a
 * Dexterity check"; 004 Flat-Footed: "loses his Dexterity bonus to AC") without giving the
 * table that turns a score into a modifier, so it comes from the d20 3.5 SRD, "Ability
 * Modifiers": (score - 10) / 2, rounded down. */
#ifndef TACTICS_RULES_ABILITY_H
#define TACTICS_RULES_ABILITY_H

#define RULES_ABILITY_MODIFIER_SOURCE                                                              \
    "d20 3.5 SRD, Ability Modifiers: (score - 10) / 2, rounded down"

/* The modifier of an ability score: 10-11 give 0, 12-13 +1, 8-9 -1, 1 -5 (rounded down, so
 * odd scores below 10 round away from zero). Any int score; no overflow for |score| < INT_MAX. */
int rules_ability_modifier(int score);

#endif
