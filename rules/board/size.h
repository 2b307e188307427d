/* Sizes: space, reach, gaps, sharing and size modifiers, from 001 "Space and Reach" (every size
 * it lists, Fine to Titanic-Three-Plus), 001 "Occupied Squares", and 004 "Size Modifiers". */
#ifndef TACTICS_RULES_SIZE_H
#define TACTICS_RULES_SIZE_H

#include "rules/options.h"

enum rules_size {
    RULES_SIZE_FINE,
    RULES_SIZE_DIMINUTIVE,
    RULES_SIZE_TINY,
    RULES_SIZE_SMALL,
    RULES_SIZE_MEDIUM,
    RULES_SIZE_LARGE,
    RULES_SIZE_HUGE,
    RULES_SIZE_GARGANTUAN,
    RULES_SIZE_COLOSSAL,
    RULES_SIZE_TITANIC,
    RULES_SIZE_TITANIC_PLUS,
    RULES_SIZE_TITANIC_TWO_PLUS,
    RULES_SIZE_TITANIC_THREE_PLUS,
    RULES_SIZE_COUNT
};

struct rules_size_info {
    const char *name;     /* "medium", "titanic-plus", ... */
    int space_in;         /* side of its space in inches (Fine 6, Medium 60, Large 120) */
    int squares;          /* side of its footprint in grid squares (Medium and smaller: 1) */
    int hexes;            /* hexes occupied on a hex grid; 0 where no document says */
    int natural_reach_ft; /* 0 means reach only within its own space */
    int fit_gap_in;       /* the narrowest gap it passes without squeezing */
    int squeeze_gap_in;   /* the narrowest gap it squeezes through */
    int impeded_gap_in;   /* the narrowest gap it squeezes through as impeded terrain */
    int per_square;       /* creatures of this size that may share one 5-ft square */
    int mod_004;          /* 004 size modifier to attack and AC (Fine..Colossal only) */
    bool has_mod_004;
    int pc_ac_001;       /* 001 player-character size bonus (+) or penalty (-) to AC */
    int pc_maneuver_001; /* 001 player-character modifier to Maneuver Defense and Might */
    int pc_walk_ft_001;  /* 001 player-character Walk speed adjustment */
};

const struct rules_size_info *rules_size_info(enum rules_size size);

/* Finds a size by its name; -1 when unknown. */
int rules_size_from_name(const char *name);

enum rules_size_status {
    RULES_SIZE_OK = 0,
    RULES_SIZE_ERR_NO_MODIFIER = -1, /* 004's table stops at Colossal */
};

/* The size modifier to attack and to AC under the size table in force. Under 001 only player
 * characters have one, and only to AC: 001 lists none to attack. */
int rules_size_modifiers(const struct rules_options *o, enum rules_size size, bool player_character,
                         int *attack, int *ac);

#endif
