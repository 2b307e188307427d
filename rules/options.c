#include "rules/options.h"

#include <string.h>

#define OFF(field) offsetof(struct rules_options, field)

static const struct rules_option_info table[] = {
    {"grid",
     "Square grid of 5-ft squares, or the hex grid (000 Hex Grid).",
     RULES_OPTION_ENUM,
     {"square", "hex"},
     {"5-ft squares; x grows east, y grows south; facing 0 is north",
      "000 Hex Grid: flat-topped hexes in axial q,r; facing 0 is north"},
     0,
     0,
     OFF(grid)},
    {"diagonals",
     "How diagonal steps count on a square grid (docs/rules.md 1).",
     RULES_OPTION_ENUM,
     {"alternating", "one_for_one"},
     {"000: every other diagonal counts double (5, 10, 5, ...)",
      "001 General Movement Rules: diagonal moves are the same as straight moves"},
     0,
     0,
     OFF(diagonals)},
    {"facing",
     "Facing variant (docs/rules.md 3).",
     RULES_OPTION_ENUM,
     {"none", "000", "003"},
     {"no facing: flanking follows the flanking option",
      "000 Combat Facing: front, flank and rear areas; replaces flanking",
      "003: front, side and rear spaces and the flanked condition; replaces flanking"},
     0,
     0,
     OFF(facing)},
    {"flanking",
     "Flanking when facing is none (docs/rules.md 4).",
     RULES_OPTION_ENUM,
     {"opposite", "lines"},
     {"004 Flanking: an ally directly opposite, both threatening, +2 melee",
      "001 Flanking: a line between square centres through opposite sides or corners"},
     0,
     0,
     OFF(flanking)},
    {"run",
     "Run speed multiplier (docs/rules.md 2).",
     RULES_OPTION_ENUM,
     {"x4", "encumbrance"},
     {"001 Run: 4 x speed, 3 x in heavy armor",
      "001 Encumbrance: 5 x Walk, -1 per medium and -2 per heavy load or armor, at least x1"},
     0,
     0,
     OFF(run)},
    {"size_table",
     "Which size modifiers apply (docs/rules.md 6).",
     RULES_OPTION_ENUM,
     {"004", "001"},
     {"004 Size Modifiers: Fine +8 ... Colossal -8 to attack and AC",
      "001 Space and Reach: player-character size bonuses to AC (none to attack), "
      "through Titanic-Three-Plus"},
     0,
     0,
     OFF(size_table)},
    {"start_square",
     "Attacks of opportunity when leaving the starting square (docs/rules.md 7).",
     RULES_OPTION_ENUM,
     {"safe", "threatened"},
     {"004: after a move or double move (not a run) the starting square is not threatened",
      "001: leaving any threatened square provokes"},
     0,
     0,
     OFF(start_square)},
    {"falling_max_dice",
     "Most d6 a fall can deal; 0 for no maximum (001 Falling).",
     RULES_OPTION_INT,
     {0},
     {0},
     0,
     1000,
     OFF(falling_max_dice)},
    {"shields_by_side",
     "Shields protect only the front and the shield side (000 Shields).",
     RULES_OPTION_BOOL,
     {0},
     {0},
     0,
     1,
     OFF(shields_by_side)},
    {"slow_medium_penalty_ft",
     "Speed penalty of medium load or armor at base speed 20 ft or less (docs/rules.md 8): 001's "
     "rule "
     "gives none (0), its own example of heavy armor and medium load gives 5.",
     RULES_OPTION_INT,
     {0},
     {0},
     0,
     5,
     OFF(slow_medium_penalty_ft)},
    {"hp_states",
     "What hit points at 0 or below mean; the seeds are silent (d20 3.5 SRD, Combat: Injury and "
     "Death).",
     RULES_OPTION_ENUM,
     {"none", "srd"},
     {"only the number: the table rules what 0 or less means",
      "d20 3.5 SRD: 0 disabled (a move or a standard action a turn), -1 to -9 dying "
      "(unconscious, no actions), -10 or less dead"},
     0,
     0,
     OFF(hp_states)},
    {"dying",
     "What becomes of a dying creature (hp_states srd) as its turns come up in an encounter; the "
     "seeds are silent (d20 3.5 SRD, Combat: Dying).",
     RULES_OPTION_ENUM,
     {"steady", "srd"},
     {"nothing: it stays dying at its hit points until they change",
      "d20 3.5 SRD: each round, as its turn comes up, a 10% chance (d%) to become stable, else "
      "it loses 1 hit point, dying at -10"},
     0,
     0,
     OFF(dying)},
    {"critical_hits",
     "Natural 20 always hits, natural 1 always misses, and a hit in the attacker's threat range "
     "(crit_range, 20 by default) is confirmed by a second attack roll against the same AC; a "
     "confirmed critical hit rolls the weapon's damage crit_multiplier times (x2 by default), "
     "sneak attack dice once (d20 3.5 SRD, Combat: Critical Hits; 004 names critical hits but "
     "gives no rule).",
     RULES_OPTION_BOOL,
     {0},
     {0},
     0,
     1,
     OFF(critical_hits)},
};

#define OPTION_COUNT ((int)(sizeof table / sizeof table[0]))

/* Each preset states every option; see the option table for what each value means. */
static const struct rules_preset presets[] = {
    {"d20-3.5",
     "d20 3.5 (000's diagonals, 004's combat terms and sizes), without facing.",
     {.grid = RULES_GRID_SQUARE,
      .diagonals = RULES_DIAGONALS_ALTERNATING,
      .facing = RULES_FACING_NONE,
      .flanking = RULES_FLANKING_OPPOSITE,
      .run = RULES_RUN_X4,
      .size_table = RULES_SIZE_TABLE_004,
      .start_square = RULES_START_SQUARE_SAFE,
      .falling_max_dice = 20,
      .shields_by_side = false,
      .slow_medium_penalty_ft = 0,
      .hp_states = RULES_HP_STATES_SRD,
      .dying = RULES_DYING_SRD,
      /* The d20 3.5 SRD is this preset's game: its Critical Hits rule. */
      .critical_hits = true}},
    {"d20-3.5-facing",
     "d20 3.5 with 000's Combat Facing variant and its optional shields by side.",
     {.grid = RULES_GRID_SQUARE,
      .diagonals = RULES_DIAGONALS_ALTERNATING,
      .facing = RULES_FACING_000,
      .flanking = RULES_FLANKING_OPPOSITE,
      .run = RULES_RUN_X4,
      .size_table = RULES_SIZE_TABLE_004,
      .start_square = RULES_START_SQUARE_SAFE,
      .falling_max_dice = 20,
      .shields_by_side = true,
      .slow_medium_penalty_ft = 0,
      .hp_states = RULES_HP_STATES_SRD,
      .dying = RULES_DYING_SRD,
      /* The d20 3.5 SRD, as in d20-3.5. */
      .critical_hits = true}},
    {"epic-path",
     "Epic Path (001): 1-for-1 counting, flanking by lines, run by encumbrance, its sizes.",
     {.grid = RULES_GRID_SQUARE,
      .diagonals = RULES_DIAGONALS_ONE_FOR_ONE,
      .facing = RULES_FACING_NONE,
      .flanking = RULES_FLANKING_LINES,
      .run = RULES_RUN_ENCUMBRANCE,
      .size_table = RULES_SIZE_TABLE_001,
      .start_square = RULES_START_SQUARE_THREATENED,
      .falling_max_dice = 20,
      .shields_by_side = false,
      .slow_medium_penalty_ft = 5,
      .hp_states = RULES_HP_STATES_NONE,
      .dying = RULES_DYING_STEADY,
      /* Off: Epic Path says otherwise. Its Glossary of Terms (Critical Threat) counts every
       * threat as a hit "even if that roll normally would miss the target's armor class",
       * where the SRD makes only a natural 20 a sure hit; 001 is silent. A table may turn the
       * SRD's rule on. */
      .critical_hits = false}},
    {"d20-modern",
     "d20 Modern (002's position modifiers) on 004's combat terms and sizes, 000's diagonals.",
     {.grid = RULES_GRID_SQUARE,
      .diagonals = RULES_DIAGONALS_ALTERNATING,
      .facing = RULES_FACING_NONE,
      .flanking = RULES_FLANKING_OPPOSITE,
      .run = RULES_RUN_X4,
      .size_table = RULES_SIZE_TABLE_004,
      .start_square = RULES_START_SQUARE_SAFE,
      .falling_max_dice = 20,
      .shields_by_side = false,
      .slow_medium_penalty_ft = 0,
      .hp_states = RULES_HP_STATES_SRD,
      /* Steady: the d20 3.5 SRD's d% roll is that game's rule, not d20 Modern's (it stabilises
       * a dying hero otherwise); a table may turn it on. */
      .dying = RULES_DYING_STEADY,
      /* On: the d20 Modern SRD (Combat, Attack Roll) has the same rule: "A natural 1 ... is
       * always a miss. A natural 20 ... is always a hit. A natural 20 is also always a
       * threat-a possible critical hit", confirmed by a second roll; 002 is silent. */
      .critical_hits = true}},
};

#define PRESET_COUNT ((int)(sizeof presets / sizeof presets[0]))

const struct rules_option_info *rules_option_table(int *count)
{
    *count = OPTION_COUNT;
    return table;
}

const struct rules_preset *rules_presets(int *count)
{
    *count = PRESET_COUNT;
    return presets;
}

int rules_preset_apply(const char *name, struct rules_options *out)
{
    for (int i = 0; i < PRESET_COUNT; i++) {
        if (strcmp(presets[i].name, name) == 0) {
            *out = presets[i].options;
            return RULES_OPTION_OK;
        }
    }
    return RULES_OPTION_ERR_UNKNOWN;
}

/* Enum-typed fields are all int-sized; they are stored through an int pointer. */
static int *field(struct rules_options *o, const struct rules_option_info *info)
{
    return (int *)(void *)((char *)o + info->offset);
}

int rules_option_set(struct rules_options *o, const char *name, bool is_string,
                     const char *str_value, long long int_value)
{
    for (int i = 0; i < OPTION_COUNT; i++) {
        const struct rules_option_info *info = &table[i];
        if (strcmp(info->name, name) != 0)
            continue;
        if (info->kind == RULES_OPTION_ENUM) {
            if (!is_string)
                return RULES_OPTION_ERR_TYPE;
            for (int v = 0; v < RULES_OPTION_MAX_VALUES && info->values[v]; v++) {
                if (strcmp(info->values[v], str_value) == 0) {
                    *field(o, info) = v;
                    return RULES_OPTION_OK;
                }
            }
            return RULES_OPTION_ERR_VALUE;
        }
        if (is_string)
            return RULES_OPTION_ERR_TYPE;
        if (int_value < info->min || int_value > info->max)
            return RULES_OPTION_ERR_VALUE;
        if (info->kind == RULES_OPTION_BOOL)
            *(bool *)(void *)((char *)o + info->offset) = int_value != 0;
        else
            *field(o, info) = (int)int_value;
        return RULES_OPTION_OK;
    }
    return RULES_OPTION_ERR_UNKNOWN;
}

void rules_option_get(const struct rules_options *o, int i, const char **str, long long *num)
{
    const struct rules_option_info *info = &table[i];
    const char *base = (const char *)o + info->offset;
    *str = NULL;
    *num = 0;
    switch (info->kind) {
    case RULES_OPTION_ENUM:
        *str = info->values[*(const int *)(const void *)base];
        break;
    case RULES_OPTION_INT:
        *num = *(const int *)(const void *)base;
        break;
    case RULES_OPTION_BOOL:
        *num = *(const bool *)(const void *)base ? 1 : 0;
        break;
    }
}
