/* The service's route table (routes.c). */
#ifndef TACTICS_SVC_ROUTES_H
#define TACTICS_SVC_ROUTES_H

#include "service/http/router.h"

/* The table and its row count. */
const struct svc_route *svc_routes(int *count);

#endif
