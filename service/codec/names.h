/* Combatants as players name them: a request's actor, target or reactor may be an
 * id, a name in any case, or the start of one, as chat users type them. One lookup for the
 * REST actions and queries and for the Discord commands, so that both read a name alike. */
#ifndef TACTICS_SVC_NAMES_H
#define TACTICS_SVC_NAMES_H

#include <jansson.h>
#include <stddef.h>

enum svc_named {
    SVC_NAMED_ONE = 0,   /* *found is the combatant */
    SVC_NAMED_NONE,      /* nothing is called so */
    SVC_NAMED_AMBIGUOUS, /* several are: candidates says which */
};

/* The combatant of `combatants` (an encounter state's array) that `said` names, in this order:
 * the one whose id is `said` exactly; else the only one whose id or name is `said` ignoring
 * case (text_same_ignoring_case); else the only one whose id or name begins with it ignoring
 * case. Several at the first step that finds any: AMBIGUOUS, with their ids and names in
 * candidates ("goblin (Goblin), gobbo (Gobbo)", cut to cap bytes) when it is not NULL. *found
 * is borrowed from combatants. */
enum svc_named svc_combatant_named(json_t *combatants, const char *said, json_t **found,
                                   char *candidates, size_t cap);

#endif
