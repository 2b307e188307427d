/* The encounter's handlers, for the route table (service/routes.c): stored encounters,
 * refereed (the model, and which file does what: internal.h). */
#ifndef TACTICS_SVC_ENCOUNTER_ENCOUNTER_H
#define TACTICS_SVC_ENCOUNTER_ENCOUNTER_H

#include "service/http/http.h"

void svc_handle_encounter_create(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_list(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_import(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_get(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_delete(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_add_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_update_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_remove_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_initiative(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_next_turn(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_action(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_events(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_stream(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_state(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_verify(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_reveal(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_undo(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_hp(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_export(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_map_png(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_map_svg(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_odds(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_reach(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_route(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_threats(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_flanking(const struct svc_request *req, struct svc_response *res);

/* The state of the encounter req->params[0] after event ?at (default: the latest), as the
 * request's reader may see it (the seed only for the owner or once revealed): for handlers
 * that show an encounter in another form (pictures, feeds). *at_out and *version get the event
 * number and the encounter's version. NULL after answering (404, 422 for a bad ?at, 503). */
json_t *svc_encounter_state_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version);

/* As svc_encounter_state_at, and also event ?at itself as GET .../events lists it to this reader
 * ({seq, kind, created_at, payload, explain, ...}) in *event, and the state after the event
 * before it (before event 1: an empty object) in *before; both new references, NULL when the
 * answer is NULL. For a picture of what one event did. */
json_t *svc_encounter_event_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version, json_t **event, json_t **before);

/* The live feed's poll (svc_context.feeds_poll, stream.c). */
void svc_stream_poll(struct svc_context *ctx);

#endif
