/* CORS: an answer names the request's Origin as allowed only when --cors-origin lists it (or
 * "*"), and then says which headers a script may send (on a preflight) or read (otherwise).
 * A request from any other origin gets no CORS header at all: the browser keeps the answer from
 * the page. */
#include <assert.h>
#include <string.h>

#include "service/http/server_internal.h"

/* The Access-Control-Allow-Origin value the request earns, or NULL. */
static const char *allowed_origin(const struct svc_config *cfg, struct MHD_Connection *conn)
{
    const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
    if (origin == NULL)
        return NULL;
    assert(cfg->cors_origin_count <= SVC_MAX_CORS_ORIGINS);
    for (int i = 0; i < cfg->cors_origin_count; i++) {
        if (strcmp(cfg->cors_origins[i], "*") == 0)
            return "*";
        if (strcmp(cfg->cors_origins[i], origin) == 0)
            return origin;
    }
    return NULL;
}

void svc__cors_headers(const struct svc_config *cfg, struct MHD_Connection *conn,
                       struct MHD_Response *r, bool preflight, const char *allow)
{
    assert(cfg != NULL && r != NULL);
    const char *origin = allowed_origin(cfg, conn);
    if (origin == NULL)
        return;
    MHD_add_response_header(r, "Access-Control-Allow-Origin", origin);
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Origin");
    if (preflight) {
        assert(allow != NULL);
        MHD_add_response_header(r, "Access-Control-Allow-Methods", allow);
        MHD_add_response_header(r, "Access-Control-Allow-Headers",
                                "Content-Type, Authorization, If-Match, Idempotency-Key, "
                                "Prefer, X-Request-Id");
        MHD_add_response_header(r, "Access-Control-Max-Age", "600");
    } else {
        /* Every header an answer of ours may carry that a script needs to read (the
         * CORS-safelisted ones aside): the version, a creation's address, the preference
         * and replay notes of a write, and how long to wait after a 503. */
        MHD_add_response_header(r, "Access-Control-Expose-Headers",
                                "ETag, Location, Preference-Applied, Idempotent-Replayed, "
                                "Retry-After, X-Request-Id");
    }
}
