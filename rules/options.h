/* Rule options: every point where the documents disagree (../shared/RULES.md, "Where the
 * documents disagree or are silent") is a named option; presets group them per source game.
 * One table (rules_option_table) drives parsing, echoing and listing, so an option added
 * there is accepted, echoed and documented everywhere at once. */
#ifndef TACTICS_RULES_OPTIONS_H
#define TACTICS_RULES_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum rules_grid { RULES_GRID_SQUARE = 0, RULES_GRID_HEX = 1 };
/* RULES.md 1: 000's "every other diagonal counts double" or 001's 1-for-1 counting. */
enum rules_diagonals { RULES_DIAGONALS_ALTERNATING = 0, RULES_DIAGONALS_ONE_FOR_ONE = 1 };
/* RULES.md 3: no facing, 000 Combat Facing, or 003's front/side/rear variant. */
enum rules_facing { RULES_FACING_NONE = 0, RULES_FACING_000 = 1, RULES_FACING_003 = 2 };
/* RULES.md 4: flanking without facing: 004's ally directly opposite, or 001's lines. */
enum rules_flanking { RULES_FLANKING_OPPOSITE = 0, RULES_FLANKING_LINES = 1 };
/* RULES.md 2: 001 Run (x4, x3 in heavy armor) or 001 Encumbrance (x5 less 1 per medium and
 * 2 per heavy load or armor, stacking, at least x1). */
enum rules_run { RULES_RUN_X4 = 0, RULES_RUN_ENCUMBRANCE = 1 };
/* RULES.md 6: 004's size modifier to attack and AC, or 001's player-character size bonuses. */
enum rules_size_table { RULES_SIZE_TABLE_004 = 0, RULES_SIZE_TABLE_001 = 1 };
/* RULES.md 7: 004 (a move or double move does not treat the starting square as threatened)
 * or 001 (leaving any threatened square provokes). */
enum rules_start_square { RULES_START_SQUARE_SAFE = 0, RULES_START_SQUARE_THREATENED = 1 };
/* Hit points below 1: the seeds are silent, so either the table tracks them itself (none) or
 * the d20 3.5 SRD's states apply (0 disabled, -1 to -9 dying, -10 dead; rules/hp.h). */
enum rules_hp_states { RULES_HP_STATES_NONE = 0, RULES_HP_STATES_SRD = 1 };
/* A dying creature's rounds: the seeds are silent, so either it stays as it is until the table
 * changes its hit points (steady), or the d20 3.5 SRD's Dying rule applies: each round it has a
 * 10% chance to become stable, else it loses 1 hit point (rules/encounter/hp.h). */
enum rules_dying { RULES_DYING_STEADY = 0, RULES_DYING_SRD = 1 };

struct rules_options {
    enum rules_grid grid;
    enum rules_diagonals diagonals;
    enum rules_facing facing;
    enum rules_flanking flanking;
    enum rules_run run;
    enum rules_size_table size_table;
    enum rules_start_square start_square;
    int falling_max_dice; /* 001 Falling: 20 normally; 0 means no maximum */
    bool shields_by_side; /* 000 Shields (Optional) */
    /* RULES.md 8: 001 gives medium load/armor's -5 ft only "if your base move is above 20
     * feet"; this is the penalty at 20 ft or less (0 reads the text literally). */
    int slow_medium_penalty_ft;
    enum rules_hp_states hp_states;
    enum rules_dying dying; /* read under hp_states srd, by encounters with the rule srd_dying */
    /* Where the documents are silent: 004 says combatants "can score critical hits" but gives
     * no rule for them. On: the d20 3.5 SRD's (Combat: Automatic Misses and Hits; Combat:
     * Critical Hits), rules/attack_roll.h. Off: the d20 against the target number alone. */
    bool critical_hits;
};

enum rules_option_status {
    RULES_OPTION_OK = 0,
    RULES_OPTION_ERR_UNKNOWN = -1, /* no option or preset by that name */
    RULES_OPTION_ERR_VALUE = -2,   /* a value the option does not take */
    RULES_OPTION_ERR_TYPE = -3,    /* a string for an integer option or the reverse */
};

enum rules_option_kind { RULES_OPTION_ENUM, RULES_OPTION_INT, RULES_OPTION_BOOL };

#define RULES_OPTION_MAX_VALUES 4

/* One option: its name, what it is, its source, and its values. */
struct rules_option_info {
    const char *name;
    const char *description;
    enum rules_option_kind kind;
    const char *values[RULES_OPTION_MAX_VALUES];     /* ENUM: names, by enum value */
    const char *value_docs[RULES_OPTION_MAX_VALUES]; /* ENUM: what each value means */
    int min, max;                                    /* INT: the accepted range */
    size_t offset;                                   /* into struct rules_options */
};

struct rules_preset {
    const char *name;
    const char *description;
    struct rules_options options;
};

const struct rules_option_info *rules_option_table(int *count);
const struct rules_preset *rules_presets(int *count);

/* The preset used when a request names none. */
#define RULES_DEFAULT_PRESET "d20-3.5"

/* Looks a preset up by name and copies its options. */
int rules_preset_apply(const char *name, struct rules_options *out);

/* Sets option `name` from a string (ENUM) or an integer/boolean (INT, BOOL); is_string says
 * which the caller has. */
int rules_option_set(struct rules_options *o, const char *name, bool is_string,
                     const char *str_value, long long int_value);

/* Reads option i of the table: ENUM gives *str, INT and BOOL give *num. */
void rules_option_get(const struct rules_options *o, int i, const char **str, long long *num);

#endif
