/* An event's combatants as players name them: before a new event is ruled, each
 * member that names a combatant (actor, target, a move's to, a full attack's targets, a withdraw's,
 * the reactors of reactions and reaction_results) is read by svc_combatant_named (an id, a name in
 * any case, or the start of one) and replaced by the id it names, so that the log stores ids
 * and every rule, replay and verify reads them as before. A name that fits several is refused
 * here, listing them; one that fits none is left for the resolver, which says so at its
 * pointer as it always has. */
#include <stdio.h>
#include <string.h>

#include "service/codec/names.h"
#include "service/encounter/internal.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* The id the string v names (replaced in place), or an error at ptr when it names several. */
static void to_id(json_t *combatants, json_t *v, const char *ptr, struct svc_errors *e)
{
    if (!json_is_string(v))
        return;
    json_t *c = NULL;
    char who[480];
    switch (svc_combatant_named(combatants, json_string_value(v), &c, who, sizeof who)) {
    case SVC_NAMED_ONE:
        json_string_set(v, json_string_value(json_object_get(c, "id")));
        break;
    case SVC_NAMED_AMBIGUOUS:
        svc_errors_add(e, ptr, "'%s' could be any of %s: give more of the name, or the id",
                       json_string_value(v), who);
        break;
    default:
        break;
    }
}

/* The keys of object o (reactor ids), each replaced by the id it names. */
static void keys_to_ids(json_t *combatants, json_t *o, const char *at, struct svc_errors *e)
{
    if (!json_is_object(o))
        return;
    json_t *renamed = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char ptr[CODEC_PTR_MAX];
        codec_pointer(ptr, at, k);
        json_t *key = json_string(k);
        to_id(combatants, key, ptr, e);
        const char *id = json_string_value(key);
        /* Two keys that name one combatant: the later is refused, not merged. */
        if (json_object_get(renamed, id) != NULL)
            svc_errors_add(e, ptr, "names '%s' again", id);
        else
            json_object_set(renamed, id, v);
        json_decref(key);
    }
    json_object_clear(o);
    json_object_update(o, renamed);
    json_decref(renamed);
}

void enc_names_to_ids(json_t *state, const char *kind, json_t *in, struct svc_errors *e)
{
    if (!json_is_object(in) || (strcmp(kind, "action") != 0 && strcmp(kind, "hp") != 0))
        return;
    json_t *cs = json_object_get(state, "combatants");
    to_id(cs, json_object_get(in, "actor"), "/actor", e);
    to_id(cs, json_object_get(in, "target"), "/target", e);
    to_id(cs, json_object_get(in, "to"), "/to", e);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(in, "plan"), i, item)
    {
        char ptr[48];
        snprintf(ptr, sizeof ptr, "/plan/%zu/attack/target", i);
        to_id(cs, json_object_get(json_object_get(item, "attack"), "target"), ptr, e);
    }
    json_t *w = json_object_get(in, "withdraw");
    to_id(cs, json_object_get(w, "primary_target"), "/withdraw/primary_target", e);
    json_array_foreach(json_object_get(w, "no_attack"), i, item)
    {
        char ptr[48];
        snprintf(ptr, sizeof ptr, "/withdraw/no_attack/%zu", i);
        to_id(cs, item, ptr, e);
    }
    keys_to_ids(cs, json_object_get(in, "reactions"), "/reactions", e);
    keys_to_ids(cs, json_object_get(in, "reaction_results"), "/reaction_results", e);
}
