/* Path matching over a route table. Patterns are literal segments and `{name}` captures; the
 * pattern string doubles as the metrics label, so label cardinality is the table size. The
 * table itself is the service's (service/routes.h). */
#ifndef TACTICS_SVC_HTTP_ROUTER_H
#define TACTICS_SVC_HTTP_ROUTER_H

#include <stdbool.h>

#include "service/http/http.h"

/* What a route takes as its body; the server answers 415 to anything else. */
enum svc_body {
    SVC_BODY_IGNORED,  /* GET and DELETE: whatever is sent is not read */
    SVC_BODY_JSON,     /* application/json, required */
    SVC_BODY_OPTIONAL, /* nothing, or application/json */
    SVC_BODY_NONE,     /* nothing: a POST that acts on the path alone */
};

struct svc_route {
    const char *method;
    const char *pattern; /* "/v1/encounters/{id}"; also the metrics label */
    svc_handler handler;
    enum svc_body body; /* what the request may carry */
};

/* The outcome of matching a method and path against the route table. */
struct svc_match {
    const struct svc_route *route; /* NULL when nothing matched */
    int route_index;               /* index into the table, or -1 */
    /* Both complete only when route is NULL (they are for 404, 405 and OPTIONS): a match stops
     * at the route it found. */
    bool path_known; /* some route has this path under another method */
    char allow[96];  /* methods the path accepts, for Allow */
    const char *params[SVC_MAX_PARAMS];
    char param_buf[512];
};

/* Matches method and path against table (count rows); GET routes also answer HEAD. */
void svc_route_match(const struct svc_route *table, int count, const char *method, const char *path,
                     struct svc_match *m);

#endif
