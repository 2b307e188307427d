/* d20 3.5 SRD, "Ability Modifiers" (Table: Ability Modifiers and Bonus Spells): the seeds use
 * the Dexterity modifier (004 Initiative, Flat-Footed) without its table. */
#include <criterion/criterion.h>

#include "rules/attack/ability.h"

Test(ability, modifiers_follow_the_srd_table)
{
    /* Table rows: 1 -5; 2-3 -4; 8-9 -1; 10-11 0; 12-13 +1; 18-19 +4; 30-31 +10. */
    const int rows[][2] = {{1, -5}, {2, -4}, {3, -4}, {8, -1}, {9, -1}, {10, 0},
                           {11, 0}, {12, 1}, {13, 1}, {18, 4}, {19, 4}, {30, 10}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect_eq(rules_ability_modifier(rows[i][0]), rows[i][1], "score %d", rows[i][0]);
}
