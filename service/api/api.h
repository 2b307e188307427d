/* The stateless endpoints' handlers (one file per endpoint family: parse, call rules/,
 * encode), for the route table (service/routes.c). */
#ifndef TACTICS_SVC_API_API_H
#define TACTICS_SVC_API_API_H

#include "service/http/http.h"

void svc_handle_healthz(const struct svc_request *req, struct svc_response *res);
void svc_handle_readyz(const struct svc_request *req, struct svc_response *res);
void svc_handle_metrics(const struct svc_request *req, struct svc_response *res);
void svc_handle_openapi(const struct svc_request *req, struct svc_response *res);
void svc_handle_docs(const struct svc_request *req, struct svc_response *res);
void svc_handle_play(const struct svc_request *req, struct svc_response *res);
void svc_handle_presets(const struct svc_request *req, struct svc_response *res);
void svc_handle_distance(const struct svc_request *req, struct svc_response *res);
void svc_handle_flanking(const struct svc_request *req, struct svc_response *res);
void svc_handle_areas(const struct svc_request *req, struct svc_response *res);
void svc_handle_sizes(const struct svc_request *req, struct svc_response *res);
void svc_handle_sources(const struct svc_request *req, struct svc_response *res);
void svc_handle_falling(const struct svc_request *req, struct svc_response *res);
void svc_handle_collisions(const struct svc_request *req, struct svc_response *res);
void svc_handle_dropped(const struct svc_request *req, struct svc_response *res);
void svc_handle_travel(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_path(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_reach(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_route(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_forced(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_speed(const struct svc_request *req, struct svc_response *res);
void svc_handle_render(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_modifiers(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_resolve(const struct svc_request *req, struct svc_response *res);
void svc_handle_dice_roll(const struct svc_request *req, struct svc_response *res);
void svc_handle_dice_odds(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_odds(const struct svc_request *req, struct svc_response *res);

#endif
