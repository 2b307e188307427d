/* libFuzzer target: every stateless POST handler's request decoding and ruling (and POST
 * /v1/render's drawing), called directly (no HTTP). The first byte picks the route; the rest is the
 * body. Whatever it is, the handler must answer 200, 400 or 422 - never a 5xx and never without an
 * answer. Each body is also parsed both ways: the fast path (jsonr.h) must build exactly jansson's
 * value, member order included, or decline. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "service/http/http.h"
#include "service/http/router.h"
#include "service/json/reader.h"
#include "service/routes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* POST /v1/render draws with cairo, whose font caches live for the process: released at exit
 * so the leak check sees only the handlers' own memory. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    atexit(render_release_caches);
    return 0;
}

/* Aborts unless jsonr_parse declined text or built what json_loadb builds. */
static void check_fast_parse(const char *text, size_t len)
{
    json_t *fast = jsonr_parse(text, len);
    if (fast == NULL)
        return;
    json_t *slow = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (slow == NULL || !json_equal(fast, slow))
        abort();
    char *a = json_dumps(fast, JSON_COMPACT | JSON_ENCODE_ANY);
    char *b = json_dumps(slow, JSON_COMPACT | JSON_ENCODE_ANY);
    if (a == NULL || b == NULL || strcmp(a, b) != 0)
        abort();
    free(a);
    free(b);
    json_decref(fast);
    json_decref(slow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int count = 0;
    const struct svc_route *routes = svc_routes(&count);
    const struct svc_route *post[32];
    int n = 0;
    for (int i = 0; i < count && n < 32; i++)
        if (strcmp(routes[i].method, "POST") == 0 &&
            strncmp(routes[i].pattern, "/v1/encounters", 14) != 0 && /* stateless ones only */
            strncmp(routes[i].pattern, "/v1/discord/", 12) != 0)     /* off without a key: 404 */
            post[n++] = &routes[i];
    const struct svc_route *route = post[data[0] % n];
    char *body = malloc(size);
    memcpy(body, data + 1, size - 1);
    body[size - 1] = '\0';
    check_fast_parse(body, size - 1);
    /* A small map limit keeps each input fast; the decoders are the same. */
    static const struct svc_config cfg = {
        .max_map_side = 64, .max_body = 1 << 20, .budget_divisor = FUZZ_BUDGET_DIVISOR};
    struct svc_context ctx = {.config = &cfg};
    struct svc_request req = {
        .method = "POST", .path = route->pattern, .body = body, .body_len = size - 1, .ctx = &ctx};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    route->handler(&req, &res);
    if (res.status != 200 && res.status != 400 && res.status != 422)
        abort();
    svc_response_clear(&res);
    free(body);
    return 0;
}
