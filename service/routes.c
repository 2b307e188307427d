/* The route table: one row per operation (method, path pattern, handler, what the body may
 * be). The server matches requests against it (service/http/router.h); its row numbers are the
 * metrics' route labels; list_routes prints it for the contract test. */
#include <assert.h>

#include "service/routes.h"

#include "service/api/api.h"
#include "service/discord/discord.h"
#include "service/encounter/encounter.h"
#include "service/http/router.h"

static const struct svc_route routes[] = {
    {"GET", "/healthz", svc_handle_healthz, SVC_BODY_IGNORED},
    {"GET", "/readyz", svc_handle_readyz, SVC_BODY_IGNORED},
    {"GET", "/metrics", svc_handle_metrics, SVC_BODY_IGNORED},
    {"GET", "/openapi.json", svc_handle_openapi, SVC_BODY_IGNORED},
    {"GET", "/docs", svc_handle_docs, SVC_BODY_IGNORED},
    {"GET", "/play", svc_handle_play, SVC_BODY_IGNORED},
    {"POST", "/v1/dice/roll", svc_handle_dice_roll, SVC_BODY_JSON},
    {"POST", "/v1/dice/odds", svc_handle_dice_odds, SVC_BODY_JSON},
    {"GET", "/v1/rules/presets", svc_handle_presets, SVC_BODY_IGNORED},
    {"GET", "/v1/rules/sizes", svc_handle_sizes, SVC_BODY_IGNORED},
    {"GET", "/v1/rules/sources", svc_handle_sources, SVC_BODY_IGNORED},
    {"POST", "/v1/geometry/distance", svc_handle_distance, SVC_BODY_JSON},
    {"POST", "/v1/geometry/flanking", svc_handle_flanking, SVC_BODY_JSON},
    {"POST", "/v1/geometry/areas", svc_handle_areas, SVC_BODY_JSON},
    {"POST", "/v1/falling", svc_handle_falling, SVC_BODY_JSON},
    {"POST", "/v1/collisions", svc_handle_collisions, SVC_BODY_JSON},
    {"POST", "/v1/objects/dropped", svc_handle_dropped, SVC_BODY_JSON},
    {"POST", "/v1/travel", svc_handle_travel, SVC_BODY_JSON},
    {"POST", "/v1/attacks/modifiers", svc_handle_attack_modifiers, SVC_BODY_JSON},
    {"POST", "/v1/attacks/resolve", svc_handle_attack_resolve, SVC_BODY_JSON},
    {"POST", "/v1/attacks/odds", svc_handle_attack_odds, SVC_BODY_JSON},
    {"POST", "/v1/movement/path", svc_handle_move_path, SVC_BODY_JSON},
    {"POST", "/v1/movement/reach", svc_handle_move_reach, SVC_BODY_JSON},
    {"POST", "/v1/movement/route", svc_handle_move_route, SVC_BODY_JSON},
    {"POST", "/v1/movement/forced", svc_handle_move_forced, SVC_BODY_JSON},
    {"POST", "/v1/movement/speed", svc_handle_move_speed, SVC_BODY_JSON},
    {"POST", "/v1/render", svc_handle_render, SVC_BODY_JSON},
    {"POST", "/v1/encounters", svc_handle_encounter_create, SVC_BODY_JSON},
    {"GET", "/v1/encounters", svc_handle_encounter_list, SVC_BODY_IGNORED},
    {"POST", "/v1/encounters/import", svc_handle_encounter_import, SVC_BODY_JSON},
    {"GET", "/v1/encounters/{id}", svc_handle_encounter_get, SVC_BODY_IGNORED},
    {"DELETE", "/v1/encounters/{id}", svc_handle_encounter_delete, SVC_BODY_IGNORED},
    {"POST", "/v1/encounters/{id}/combatants", svc_handle_encounter_add_combatant, SVC_BODY_JSON},
    {"PATCH", "/v1/encounters/{id}/combatants/{cid}", svc_handle_encounter_update_combatant,
     SVC_BODY_JSON},
    {"DELETE", "/v1/encounters/{id}/combatants/{cid}", svc_handle_encounter_remove_combatant,
     false},
    {"POST", "/v1/encounters/{id}/initiative", svc_handle_encounter_initiative, SVC_BODY_OPTIONAL},
    {"POST", "/v1/encounters/{id}/next-turn", svc_handle_encounter_next_turn, SVC_BODY_OPTIONAL},
    {"POST", "/v1/encounters/{id}/actions", svc_handle_encounter_action, SVC_BODY_JSON},
    {"GET", "/v1/encounters/{id}/events", svc_handle_encounter_events, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/events/stream", svc_handle_encounter_stream, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/state", svc_handle_encounter_state, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/odds", svc_handle_encounter_odds, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/reach", svc_handle_encounter_reach, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/route", svc_handle_encounter_route, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/threats", svc_handle_encounter_threats, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/flanking", svc_handle_encounter_flanking, SVC_BODY_IGNORED},
    {"POST", "/v1/encounters/{id}/verify", svc_handle_encounter_verify, SVC_BODY_NONE},
    {"POST", "/v1/encounters/{id}/reveal", svc_handle_encounter_reveal, SVC_BODY_NONE},
    {"POST", "/v1/encounters/{id}/undo", svc_handle_encounter_undo, SVC_BODY_NONE},
    {"POST", "/v1/encounters/{id}/hp", svc_handle_encounter_hp, SVC_BODY_JSON},
    {"GET", "/v1/encounters/{id}/export", svc_handle_encounter_export, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/map.png", svc_handle_encounter_map_png, SVC_BODY_IGNORED},
    {"GET", "/v1/encounters/{id}/map.svg", svc_handle_encounter_map_svg, SVC_BODY_IGNORED},
    {"POST", "/v1/discord/interactions", svc_handle_discord_interactions, SVC_BODY_JSON},
};

const struct svc_route *svc_routes(int *count)
{
    assert(count != NULL);
    *count = (int)(sizeof routes / sizeof routes[0]);
    return routes;
}
