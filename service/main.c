/* tacticsd: parse configuration, open the database, serve until SIGINT or SIGTERM. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/db.h"
#include "render/render.h"
#include "service/discord/discord.h"
#include "service/encounter/encounter.h"
#include "service/encounter/state_cache.h"
#include "service/http/http.h"
#include "service/http/hub.h"
#include "service/http/log.h"
#include "service/http/refusals.h"
#include "service/http/router.h"
#include "service/http/server.h"
#include "service/json/fields.h"
#include "service/routes.h"

#ifndef TACTICS_VERSION
#define TACTICS_VERSION "0.0.0"
#endif

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

/* What the server is made of, from the database up; every part NULL until made. */
struct app {
    struct svc_config cfg;
    char db_shown[sizeof((struct svc_config *)0)->db_path]; /* --db without its password */
    struct db *db;
    struct svc_metrics *metrics;
    struct svc_state_cache *states, *folds, *folds_at, *verified;
    struct svc_hub *hub;
    struct svc_discord *discord;
    struct svc_server *server;
    struct svc_context ctx;
};

/* Opens --db with its settings; false (logged) when it cannot. */
static bool open_db(struct app *a)
{
    const struct svc_config *cfg = &a->cfg;
    svc_config_db_for_log(cfg->db_path, a->db_shown, sizeof a->db_shown);
    int rc = db_open(cfg->db_path, &a->db);
    const char *why = rc != DB_OK ? db_strerror(rc) : NULL;
    if (why == NULL) {
        db_set_replay_ttl(a->db, cfg->idempotency_ttl_s);
        db_set_group_commit(a->db, cfg->group_commit);
        if (cfg->max_db_size > 0 && db_limit_size(a->db, cfg->max_db_size) != DB_OK)
            why = "cannot set --max-db-size";
    }
    if (why != NULL)
        svc_log("error", "db_open_failed",
                json_pack("{s:s, s:s}", "db", a->db_shown, "reason", why));
    return why == NULL;
}

/* Makes the parts the handlers share, and the context that holds them; false when one cannot
 * be made. */
static bool make_parts(struct app *a)
{
    const struct svc_config *cfg = &a->cfg;
    int route_count = 0;
    const struct svc_route *routes = svc_routes(&route_count);
    a->metrics = svc_metrics_new(routes, route_count);
    a->states = svc_state_cache_new();
    a->folds = svc_state_cache_new();
    a->folds_at = svc_state_cache_new();
    a->verified = svc_state_cache_new();
    a->hub = svc_hub_new(cfg->max_subscribers, cfg->max_subscribers_per_encounter,
                         cfg->max_subscribers_per_address, (uint64_t)cfg->keepalive_s * 1000000u);
    svc_hub_coalesce(a->hub, (uint64_t)cfg->feed_coalesce_ms * 1000u);
    if (a->metrics == NULL || a->states == NULL || a->folds == NULL || a->folds_at == NULL ||
        a->verified == NULL || a->hub == NULL)
        return false;
    if (cfg->discord_public_key[0] != '\0' &&
        (a->discord = svc_discord_new(cfg, &svc_discord_curl_sender)) == NULL) {
        svc_log("error", "discord_setup_failed", NULL);
        return false;
    }
    a->ctx = (struct svc_context){.config = cfg,
                                  .db = a->db,
                                  .metrics = a->metrics,
                                  .states = a->states,
                                  .folds = {a->folds, a->folds_at},
                                  .verified = a->verified,
                                  .hub = a->hub,
                                  .feeds_poll = svc_stream_poll,
                                  .routes = routes,
                                  .route_count = route_count,
                                  .discord = a->discord};
    return true;
}

/* Listens, serves until a signal of stop, then drains. Returns the exit code. */
static int serve(struct app *a, const sigset_t *stop)
{
    const struct svc_config *cfg = &a->cfg;
    int rc = svc_server_start(&a->ctx, &a->server);
    if (rc != SVC_SERVER_OK) {
        svc_log("error", "listen_failed",
                json_pack("{s:s, s:i, s:s}", "address", cfg->bind, "port", (int)cfg->port, "reason",
                          rc == SVC_SERVER_ERR_BIND_ADDRESS
                              ? "--bind is not an IPv4 or IPv6 address"
                              : "cannot listen (port in use or not permitted)"));
        return 1;
    }
    svc_log("info", "listening",
            json_pack("{s:s, s:i, s:s, s:s}", "address", cfg->bind, "port",
                      (int)svc_server_port(a->server), "db", a->db_shown, "version",
                      TACTICS_VERSION));
    int sig = 0;
    sigwait(stop, &sig);
    svc_log("info", "stopping", json_pack("{s:i}", "signal", sig));
    int left = svc_server_shutdown(a->server, 10000);
    a->server = NULL;
    svc_discord_free(a->discord); /* its deferred commands finish (and follow up) first */
    a->discord = NULL;
    /* Font caches are process-wide: released only when no request can still be drawing. */
    if (left == 0)
        render_release_caches();
    svc_log("info", "stopped", json_pack("{s:i}", "unfinished_requests", left));
    return 0;
}

static void app_free(struct app *a)
{
    if (a->server != NULL)
        svc_server_shutdown(a->server, 0);
    svc_discord_free(a->discord);
    svc_metrics_free(a->metrics);
    svc_state_cache_free(a->states);
    svc_state_cache_free(a->folds);
    svc_state_cache_free(a->folds_at);
    svc_state_cache_free(a->verified);
    svc_refusals_release();
    svc_hub_free(a->hub);
    db_close(a->db);
}

int main(int argc, char **argv)
{
    static struct app app; /* large (the configuration's paths): not on the stack */
    char err[256];
    switch (svc_config_parse(argc, argv, env_lookup, &app.cfg, err, sizeof err)) {
    case SVC_CONFIG_HELP:
        fputs(svc_config_usage(), stdout);
        return 0;
    case SVC_CONFIG_VERSION:
        printf("tacticsd %s\n", TACTICS_VERSION);
        return 0;
    case SVC_CONFIG_ERROR:
        fprintf(stderr, "tacticsd: %s\n%s", err, svc_config_usage());
        return 2;
    case SVC_CONFIG_RUN:
        break;
    }
    /* Block the shutdown signals in every thread (libmicrohttpd's inherit this mask), so only
     * the sigwait in serve receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (app.cfg.record_bounds[0] != '\0' && !codec_record_bounds(app.cfg.record_bounds)) {
        fprintf(stderr, "tacticsd: cannot open --record-bounds file %s\n", app.cfg.record_bounds);
        return 1;
    }
    int exit_code = open_db(&app) && make_parts(&app) ? serve(&app, &stop) : 1;
    app_free(&app);
    return exit_code;
}
