/* Ability modifiers (see ability.h). */
#include "rules/attack/ability.h"

int rules_ability_modifier(int score)
{
    /* d20 3.5 SRD, Ability Modifiers: rounded down, which C's division (toward zero) is not
     * for odd scores below 10. */
    int d = score - 10;
    return d >= 0 ? d / 2 : -((1 - d) / 2);
}
