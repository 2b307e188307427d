/* Combatants as players name them (names.h). */
#include "service/codec/names.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text/text.h"

static const char *member(json_t *c, const char *key)
{
    const char *s = json_string_value(json_object_get(c, key));
    return s != NULL ? s : "";
}

/* Whether combatant c answers to said at step `how`: 1 the same id or name ignoring case, 2
 * an id or name that begins with it. */
static bool answers(json_t *c, const char *said, size_t n, int how)
{
    const char *keys[] = {"id", "name"};
    for (int k = 0; k < 2; k++) {
        const char *v = member(c, keys[k]);
        if (*v == '\0')
            continue;
        if (how == 1 ? text_same_ignoring_case(said, n, v, strlen(v))
                     : text_begins_ignoring_case(said, n, v, strlen(v)))
            return true;
    }
    return false;
}

enum svc_named svc_combatant_named(json_t *combatants, const char *said, json_t **found,
                                   char *candidates, size_t cap)
{
    *found = NULL;
    if (candidates != NULL && cap > 0)
        candidates[0] = '\0';
    if (said == NULL || *said == '\0')
        return SVC_NAMED_NONE;
    size_t i, n = strlen(said);
    json_t *c;
    json_array_foreach(combatants, i, c)
    {
        if (strcmp(member(c, "id"), said) == 0) {
            *found = c;
            return SVC_NAMED_ONE;
        }
    }
    for (int how = 1; how <= 2; how++) {
        int matches = 0;
        size_t used = 0;
        json_array_foreach(combatants, i, c)
        {
            if (!answers(c, said, n, how))
                continue;
            *found = c;
            matches++;
            if (candidates == NULL || used >= cap)
                continue;
            const char *name = member(c, "name");
            char one[200];
            if (*name != '\0')
                text_format(one, sizeof one, "%s%s (%s)", matches > 1 ? ", " : "", member(c, "id"),
                            name);
            else
                text_format(one, sizeof one, "%s%s", matches > 1 ? ", " : "", member(c, "id"));
            text_format(candidates + used, cap - used, "%s", one);
            used += strlen(candidates + used);
        }
        if (matches == 1)
            return SVC_NAMED_ONE;
        if (matches > 1) {
            *found = NULL;
            return SVC_NAMED_AMBIGUOUS;
        }
    }
    return SVC_NAMED_NONE;
}
