/* Falling, collisions and dropped objects: POST /v1/falling, /v1/collisions and
 * /v1/objects/dropped, ruled by their codec (service/codec/impact.c). */
#include "service/api/api.h"
#include "service/codec/answer.h"
#include "service/codec/ruling.h"
#include "service/http/http.h"

void svc_handle_falling(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_falling);
}

void svc_handle_collisions(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_collision);
}

void svc_handle_dropped(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_dropped);
}
