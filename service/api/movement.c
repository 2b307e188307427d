/* Movement endpoints: POST /v1/movement/{path,reach,route,forced,speed}. Each handler parses
 * the body, calls its ruling (service/codec/movement.c) and sends the answer. */
#include <stdlib.h>

#include "service/api/api.h"
#include "service/codec/answer.h"
#include "service/codec/move.h"
#include "service/codec/move_req.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

/* Parses the body and answers it with ruling f: each movement handler's HTTP part. */
static void handle(const struct svc_request *req, struct svc_response *res,
                   void (*f)(json_t *, const struct svc_config *, const struct rules_map *,
                             struct svc_answer *))
{
    json_t *body = svc_parse_json_body(req, res);
    if (body == NULL)
        return;
    struct svc_answer ans = {0};
    f(body, req->ctx->config, NULL, &ans);
    svc_answer_respond(&ans, res);
    json_decref(body);
}

void svc_handle_move_path(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, svc_rule_move_path);
}

void svc_handle_move_reach(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, svc_rule_move_reach);
}

void svc_handle_move_route(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, svc_rule_move_route);
}

void svc_handle_move_forced(const struct svc_request *req, struct svc_response *res)
{
    handle(req, res, svc_rule_move_forced);
}

void svc_handle_move_speed(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "mover", "checks", NULL};
    json_t *body;
    struct svc_errors e;
    struct move_req r = {0};
    if (!svc_decode_begin(req, res, known, &body, &e))
        return;
    long long checks = 0;
    move_decode_speed(body, &r, &checks, &e);
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
    } else {
        struct rules_speed sp;
        struct svc_answer ans = {0};
        rules_speed_eval(r.o, &r.mover, &sp);
        move_answer_speed(&ans, &r, &sp, (int)checks);
        svc_answer_respond(&ans, res);
    }
    svc_errors_free(&e);
    move_req_free(&r);
    json_decref(body);
}
