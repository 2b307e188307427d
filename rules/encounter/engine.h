/* The engine versions: the rules an encounter's event is ruled under, stamped on every event
 * ("engine" in its payload), so that verify and import re-rule each event as it was ruled while
 * new events get the rules of today. */
#ifndef TACTICS_RULES_ENCOUNTER_ENGINE_H
#define TACTICS_RULES_ENCOUNTER_ENGINE_H

#include <stdbool.h>

/* The engine new events are ruled under. */
#define RULES_ENGINE_VERSION 4

/* Every rule that changed what an engine stores, refuses or rules, each in the engine that
 * brought it: code asks rules_engine_has(engine, RULES_ENGINE_...), never the version number,
 * so that this table is the engine's history and the one place it is told. Comments elsewhere
 * name a rule by its lower-case name ("with the rule melee_aoo"), never by the engine's number. */
enum rules_engine_rule {
    /* Engine 2. */
    RULES_ENGINE_ACTION_ECONOMY,  /* actions spend the turn's budget; results name their kind */
    RULES_ENGINE_HP_STATES,       /* hit points ruled into states; the hp event */
    RULES_ENGINE_REACTIONS,       /* attacks of opportunity only in answer to a provoking move */
    RULES_ENGINE_AOO_PER_ROUND,   /* Combat Reflexes: more attacks of opportunity a round */
    RULES_ENGINE_CONDITION_FREE,  /* a condition event may come on any turn */
    RULES_ENGINE_LEAVING,         /* who leaves has no turn; turns skipped are listed */
    RULES_ENGINE_DERIVED_DEFENSE, /* an attack's Dex, cover, concealment from the stored state */
    /* Engine 3. */
    RULES_ENGINE_CRAWL,             /* a prone creature moves only by crawling */
    RULES_ENGINE_STUNNED,           /* a stunned creature takes no actions */
    RULES_ENGINE_MELEE_AOO,         /* attacks of opportunity are melee attacks */
    RULES_ENGINE_FLANKING_ALLY,     /* a flat-footed ally still flanks; a stunned one does not */
    RULES_ENGINE_REFLEXES_FLAT,     /* Combat Reflexes allows them while flat-footed */
    RULES_ENGINE_STANDARD_AS_MOVE,  /* a standard action may be taken as a move action */
    RULES_ENGINE_CHARGE,            /* the charge's opponent, line and one attack */
    RULES_ENGINE_DOWN_HELPLESS,     /* a dying or dead defender is helpless */
    RULES_ENGINE_STRAIN,            /* a disabled creature's strenuous action costs 1 hp */
    RULES_ENGINE_STAND_UP_PROVOKES, /* standing up provokes */
    RULES_ENGINE_SHAPES,            /* an action's and a combatant's members checked first */
    RULES_ENGINE_JOIN_STATE,        /* a combatant's hit point state from the moment it joins */
    RULES_ENGINE_PLACING,           /* blocked terrain refuses a place; re-checked when it moves */
    RULES_ENGINE_PAUSED_MOVES,    /* a move pauses for asked reactions; the table's dice refused */
    RULES_ENGINE_NO_HEALING_DEAD, /* healing does not reach the dead */
    /* Engine 4. */
    RULES_ENGINE_START_SQUARE,      /* the start is safe only when all the turn does is move */
    RULES_ENGINE_CONDITION_SOURCES, /* where each condition came from */
    RULES_ENGINE_FULL_ATTACK_PLANS, /* a full attack may change facing and target */
    RULES_ENGINE_SRD_DYING,         /* a dying creature loses 1 hp a round, may become stable */
    RULES_ENGINE_RULE_COUNT
};

struct rules_engine_rule_row {
    int since;        /* the first engine with the rule */
    const char *name; /* its name, as the enum's without the prefix, in lower case */
    const char *what; /* the rule, in words, with its source */
};
extern const struct rules_engine_rule_row rules_engine_rules[RULES_ENGINE_RULE_COUNT];

/* Whether this server rules events of engine (1 to RULES_ENGINE_VERSION). */
bool rules_engine_known(int engine);

/* Whether events of engine are ruled with rule r. */
bool rules_engine_has(int engine, enum rules_engine_rule r);

/* The rule options added after the first engine. An encounter created under an engine before
 * `since` stored its rules without the option, and is ruled with it at `neutral` (a value the
 * option takes, as rules_option_set reads it) for its whole life, as it was ruled then. */
struct rules_engine_option {
    const char *name;
    int since;
    const char *neutral;
};
extern const struct rules_engine_option rules_engine_options[];
extern const int rules_engine_option_count;

/* The first engine whose encounters store option `name` (1 for the options every engine has). */
int rules_engine_option_since(const char *name);

#endif
