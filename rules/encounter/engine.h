/* The engine versions: the rules an encounter's event is ruled under, stamped on every event
 * ("engine" in its payload), so that verify and import re-rule each event as it was ruled while
 * new events get the rules of today. Each rule that changed what an engine stores or refuses
 * asks `e->engine >= N` in rules/; this table is their history, and the one place it is told. */
#ifndef TACTICS_RULES_ENCOUNTER_ENGINE_H
#define TACTICS_RULES_ENCOUNTER_ENGINE_H

/* The engine new events are ruled under. */
#define RULES_ENGINE_VERSION 4

/* What each engine brought, in order (rules_engine_history[v - 1] is engine v). */
struct rules_engine_change {
    int engine;
    const char *what;
};
extern const struct rules_engine_change rules_engine_history[RULES_ENGINE_VERSION];

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
