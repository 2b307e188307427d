/* Falling, collisions and dropped objects (001 "Falling", "Collisions", "Falling into Water",
 * "Thrown or Dropped Objects"). These functions decide the dice; the caller rolls them with a
 * dice handle and totals them with rules_impact_total. */
#ifndef TACTICS_RULES_IMPACT_H
#define TACTICS_RULES_IMPACT_H

#include "rules/board/size.h"
#include "rules/dice/dice.h"
#include "rules/options.h"

#define RULES_IMPACT_MAX_FT 1000000 /* heights, distances and speeds accepted, in feet */

/* The dice of one impact: d6 and d3 counts and a modifier added to every die. */
struct rules_impact {
    int d6, d3;
    int per_die;
    bool capped;         /* the falling maximum removed dice */
    int free_ft;         /* feet of the fall that dealt no damage */
    const char *rule;    /* the sentence of 001 that decided it */
    char expression[48]; /* dice notation for the dice engine, "" when no dice */
};

/* 001 Falling surfaces and their per-die modifiers. */
enum rules_surface {
    RULES_SURFACE_GROUND = 0, /* "Normal unremarkable 'ground' is base damage" */
    RULES_SURFACE_OBSIDIAN,   /* "jagged broken obsidian shards might add +2 per die" */
    RULES_SURFACE_STONE,      /* "broken tree-trunks or solid stone may add +1 per die" */
    RULES_SURFACE_SOFT,       /* "Soft loam or deep grass might remove -1 per die" */
    RULES_SURFACE_WATER,      /* 001 Falling into Water */
};

int rules_surface_per_die(enum rules_surface s);

struct rules_fall {
    int height_ft;
    enum rules_surface surface;
    int custom_per_die;      /* added to the surface's (for surfaces the table lacks) */
    bool deliberate;         /* jumped: "the first 10 feet of the fall inflict no damage" */
    bool acrobatics_success; /* with a deliberate jump: the second 10 ft too (DC 15) */
    int water_depth_ft;      /* for RULES_SURFACE_WATER */
    bool dive;               /* a deliberate dive into water */
    bool dive_success;       /* its DC 15 (+5 per 50 ft) check succeeded */
};

struct rules_fall_outcome {
    struct rules_impact dice;
    bool water;            /* the water rule applied (at least 10 ft deep) */
    int dive_dc;           /* for a dive: 15 + 5 per full 50 ft */
    bool dive_deep_enough; /* for a dive: at least 10 ft of water per 30 ft fallen */
    bool dive_unharmed;    /* the dive succeeded: no damage */
};

/* Decides a fall's dice under o (its falling_max_dice). */
void rules_fall(const struct rules_options *o, const struct rules_fall *f,
                struct rules_fall_outcome *out);

/* 001 Collisions: how the creature was moving. */
enum rules_motion {
    RULES_MOTION_WALK = 0,    /* "a normal move at his base speed": cautious */
    RULES_MOTION_DOUBLE_MOVE, /* "also considered cautious movement" */
    RULES_MOTION_RUN,         /* "Beware the Run maneuver!" */
    RULES_MOTION_CHARGE,      /* "If you are making a Charge, you are not moving cautiously" */
    RULES_MOTION_SWEPT_AWAY,  /* "swept away by a raging current or massive blast of wind" */
    RULES_MOTION_THROWN,      /* thrown from a mount or vehicle, dragged, run over */
};

struct rules_collision {
    int speed_ft; /* speed at the moment of impact, after haste and the like */
    enum rules_motion motion;
    bool deliberate; /* it meant to ram what it hit (a charge or overrun at a foe) */
};

/* Decides a collision's dice: 1d6 per 10 ft of speed unless cautious or deliberate; capped by
 * the falling maximum, since a collision "is a more general case of Falling damage". */
void rules_collision(const struct rules_options *o, const struct rules_collision *c,
                     struct rules_impact *out);

/* 001 Thrown or Dropped Objects: material per-die modifiers. */
enum rules_material {
    RULES_MATERIAL_NORMAL = 0,
    RULES_MATERIAL_FEATHERS, /* "-2 points per die" */
    RULES_MATERIAL_BRUSH,    /* "loose brush and debris does -1 per die" */
    RULES_MATERIAL_DENSE,    /* "like solid boulders, might inflict +1 points per die" */
    RULES_MATERIAL_HARMFUL,  /* "intended to cause harm in a fall ... +2 points per die" */
};

int rules_material_per_die(enum rules_material m);

/* The size table's extra dice ("Tiny +1d6" ... "Titanic and larger +34d6"); -1 for sizes
 * smaller than Tiny, which the table does not list. */
int rules_object_size_dice(enum rules_size size);

/* A dropped or thrown object: the falling damage of the distance it fell (1d6 per 10 ft, as
 * for a character, to the falling maximum) plus its size's dice, every die adjusted by the
 * material (RULES.md 9: how distance enters). Returns -1 for a size the table lacks. */
int rules_dropped_object(const struct rules_options *o, enum rules_size size, int distance_ft,
                         enum rules_material material, int custom_per_die,
                         struct rules_impact *out);

/* 001 Thrown or Dropped Objects: "Such attacks generally have a range increment of 20 feet". */
#define RULES_DROPPED_RANGE_INCREMENT_FT 20

/* Whether an object of size fills an area and so may strike several targets: Large or larger
 * ("If an extremely large object is being thrown at you it affects an area"). */
bool rules_dropped_fills_area(enum rules_size size);

/* The range increment range_ft (at least 0) falls in: 1 within the first 20 ft, 2 to 40 ft... */
int rules_dropped_range_increment(int range_ft);

/* The attack penalty at range_ft: per_increment for each increment past the first (the
 * documents give no penalty per increment: the caller states it). */
int rules_dropped_range_penalty(int range_ft, int per_increment);

/* One target's ranged touch attack against a dropped or thrown object, and what it takes. */
struct rules_dropped_strike {
    int attack_total; /* the attack bonus less the range penalty */
    int roll_total;   /* the d20 plus attack_total */
    bool hit;         /* roll_total reaches the target's touch AC */
    int damage;       /* on a hit, the object's damage less the target's DR (never below 0) */
};

/* Rules the touch attack of d20 with attack_bonus at range_penalty against touch_ac; the
 * object's damage (rolled once for every target) less the target's damage reduction on a hit. */
void rules_dropped_strike(int d20, int attack_bonus, int range_penalty, int touch_ac, int damage,
                          int damage_reduction, struct rules_dropped_strike *out);

/* The damage of a rolled impact: each kept die plus the per-die modifier, never below 0 for a
 * die (001 gives no floor; a die cannot heal), less damage reduction, never below 0. */
int rules_impact_total(const struct rules_roll *roll, int per_die, int damage_reduction);

#endif
