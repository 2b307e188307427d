/* POST /v1/attacks/modifiers (the breakdown, no dice) and POST /v1/attacks/resolve (rolled):
 * ruled by the attack request's codec (service/codec/attack.h). */
#include "service/api/api.h"
#include "service/codec/answer.h"
#include "service/codec/ruling.h"
#include "service/http/http.h"

void svc_handle_attack_modifiers(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_attack_modifiers);
}

void svc_handle_attack_resolve(const struct svc_request *req, struct svc_response *res)
{
    svc_answer_handle(req, res, svc_rule_attack);
}
