/* svc_damage_parse_kept (service/codec/creature.h, issue 33): the last damage text a thread
 * parsed is copied, not parsed again. Whatever the order of the texts, each answer must be
 * rules_dice_parse's to the byte: a text beside its prefix and its extension, one that differs
 * in its last character, a refused text between two equal ones (it is not kept), and the same
 * text again after it. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/dice/dice.h"
#include "service/codec/creature.h"

Test(damage_kept, each_text_parses_as_rules_dice_parse_parses_it)
{
    static const char *const texts[] = {
        "1d6+1",     "1d6+1", "1d6",         "1d6+1",       "1d6+10",     "1d6+1",
        "2d6-1d4+2", "1d6+2", "2d0",         "1d6+2",       "2d0",        "4d6kh3",
        "1d6",       "",      "1d6",         "1d8+1",       "1d8+1",      "1d8-1",
        "x",         "1d8-1", "3d6[fire]+2", "3d6[fire]+2", "3d6[cold]+2"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct rules_dice_expr mine, theirs;
        memset(&mine, 0xab, sizeof mine); /* whatever was there before */
        memset(&theirs, 0x5c, sizeof theirs);
        size_t at_mine = 99, at_theirs = 77;
        int rc_mine = svc_damage_parse_kept(texts[i], &mine, &at_mine);
        int rc_theirs = rules_dice_parse(texts[i], &theirs, &at_theirs);
        cr_assert_eq(rc_mine, rc_theirs, "%zu: %s", i, texts[i]);
        cr_assert_eq(at_mine, at_theirs, "%zu: %s", i, texts[i]);
        if (rc_theirs == RULES_DICE_OK)
            cr_assert(memcmp(&mine, &theirs, sizeof mine) == 0, "%zu: %s", i, texts[i]);
    }
}
