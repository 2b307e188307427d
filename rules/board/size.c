#include "rules/board/size.h"

#include <assert.h>
#include <string.h>

/* 001 Space and Reach, one bullet list per size; 004 Size Modifiers for mod_004.
 * per_square: Fine and Diminutive "can share a 5-foot square with up to three other
 * creatures" (4); Tiny "can share a 5-foot square with up to one other sized-tiny creature"
 * (2; 001's Three Dimensional Movement says four Tiny fill a cube, the size bullets are the
 * more specific rule); Small and larger share only with creatures two sizes smaller (1).
 * hexes: 003 gives Small/Medium 1 hex and Large 3 hexes; 000's hex size diagram is not in
 * the text, so larger creatures have no hex footprint here. */
static const struct rules_size_info sizes[RULES_SIZE_COUNT] = {
    {"fine", 6, 1, 1, 0, 6, 3, 1, 4, 8, true, 4, -4, -10},
    {"diminutive", 12, 1, 1, 0, 12, 6, 3, 4, 4, true, 3, -3, -10},
    {"tiny", 30, 1, 1, 0, 30, 12, 6, 2, 2, true, 2, -2, -10},
    {"small", 60, 1, 1, 5, 60, 30, 12, 1, 1, true, 1, -1, -10},
    {"medium", 60, 1, 1, 5, 60, 30, 12, 1, 0, true, 0, 0, 0},
    {"large", 120, 2, 3, 10, 120, 60, 30, 1, -1, true, -1, 1, 10},
    {"huge", 180, 3, 0, 15, 180, 120, 60, 1, -2, true, -2, 2, 10},
    {"gargantuan", 240, 4, 0, 20, 240, 180, 120, 1, -4, true, -3, 3, 10},
    {"colossal", 300, 5, 0, 25, 300, 240, 180, 1, -8, true, -4, 4, 10},
    {"titanic", 360, 6, 0, 30, 360, 300, 240, 1, 0, false, -5, 5, 10},
    {"titanic-plus", 720, 12, 0, 60, 720, 360, 300, 1, 0, false, -6, 6, 10},
    {"titanic-two-plus", 1440, 24, 0, 120, 1440, 720, 360, 1, 0, false, -7, 7, 10},
    {"titanic-three-plus", 2880, 48, 0, 240, 2880, 1440, 720, 1, 0, false, -8, 8, 10},
};

const struct rules_size_info *rules_size_info(enum rules_size size)
{
    assert((unsigned)size < RULES_SIZE_COUNT);
    return &sizes[size];
}

int rules_size_from_name(const char *name)
{
    for (int i = 0; i < RULES_SIZE_COUNT; i++)
        if (strcmp(sizes[i].name, name) == 0)
            return i;
    return -1;
}

int rules_size_modifiers(const struct rules_options *o, enum rules_size size, bool player_character,
                         int *attack, int *ac)
{
    assert((unsigned)size < RULES_SIZE_COUNT);
    const struct rules_size_info *s = &sizes[size];
    if (o->size_table == RULES_SIZE_TABLE_001) {
        *attack = 0;
        *ac = player_character ? s->pc_ac_001 : 0;
        return RULES_SIZE_OK;
    }
    if (!s->has_mod_004)
        return RULES_SIZE_ERR_NO_MODIFIER;
    *attack = *ac = s->mod_004;
    return RULES_SIZE_OK;
}
