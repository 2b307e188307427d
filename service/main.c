/* tacticsd: parse configuration, open the database, serve until SIGINT or SIGTERM. */
#include <pthread.h>
#include <signal.h>
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

int main(int argc, char **argv)
{
    struct svc_config cfg;
    char err[256];
    switch (svc_config_parse(argc, argv, env_lookup, &cfg, err, sizeof err)) {
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
     * the sigwait below receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    int exit_code = 1;
    if (cfg.record_bounds[0] != '\0' && !codec_record_bounds(cfg.record_bounds)) {
        fprintf(stderr, "tacticsd: cannot open --record-bounds file %s\n", cfg.record_bounds);
        return 1;
    }
    struct db *db = NULL;
    struct svc_metrics *metrics = NULL;
    struct svc_server *server = NULL;
    struct svc_state_cache *states = NULL, *folds = NULL, *folds_at = NULL, *verified = NULL;
    struct svc_hub *hub = NULL;
    struct svc_discord *discord = NULL;
    char db_shown[sizeof cfg.db_path];
    svc_config_db_for_log(cfg.db_path, db_shown, sizeof db_shown); /* no password in logs */
    int rc = db_open(cfg.db_path, &db);
    if (rc != DB_OK) {
        svc_log("error", "db_open_failed",
                json_pack("{s:s, s:s}", "db", db_shown, "reason", db_strerror(rc)));
        goto out;
    }
    db_set_replay_ttl(db, cfg.idempotency_ttl_s);
    db_set_group_commit(db, cfg.group_commit);
    if (cfg.max_db_size > 0 && db_limit_size(db, cfg.max_db_size) != DB_OK) {
        svc_log("error", "db_open_failed",
                json_pack("{s:s, s:s}", "db", db_shown, "reason", "cannot set --max-db-size"));
        goto out;
    }
    int route_count = 0;
    const struct svc_route *routes = svc_routes(&route_count);
    metrics = svc_metrics_new(routes, route_count);
    if (metrics == NULL)
        goto out;
    states = svc_state_cache_new();
    folds = svc_state_cache_new();
    folds_at = svc_state_cache_new();
    verified = svc_state_cache_new();
    if (states == NULL || folds == NULL || folds_at == NULL || verified == NULL)
        goto out;
    hub = svc_hub_new(cfg.max_subscribers, cfg.max_subscribers_per_encounter,
                      cfg.max_subscribers_per_address, (uint64_t)cfg.keepalive_s * 1000000u);
    if (hub == NULL)
        goto out;
    if (cfg.discord_public_key[0] != '\0' &&
        (discord = svc_discord_new(&cfg, &svc_discord_curl_sender)) == NULL) {
        svc_log("error", "discord_setup_failed", NULL);
        goto out;
    }
    struct svc_context ctx = {.config = &cfg,
                              .db = db,
                              .metrics = metrics,
                              .states = states,
                              .folds = {folds, folds_at},
                              .verified = verified,
                              .hub = hub,
                              .feeds_poll = svc_stream_poll,
                              .routes = routes,
                              .route_count = route_count,
                              .discord = discord};
    rc = svc_server_start(&ctx, &server);
    if (rc != SVC_SERVER_OK) {
        svc_log("error", "listen_failed",
                json_pack("{s:s, s:i, s:s}", "address", cfg.bind, "port", (int)cfg.port, "reason",
                          rc == SVC_SERVER_ERR_BIND_ADDRESS
                              ? "--bind is not an IPv4 or IPv6 address"
                              : "cannot listen (port in use or not permitted)"));
        goto out;
    }
    svc_log("info", "listening",
            json_pack("{s:s, s:i, s:s, s:s}", "address", cfg.bind, "port",
                      (int)svc_server_port(server), "db", db_shown, "version", TACTICS_VERSION));

    int sig = 0;
    sigwait(&stop, &sig);
    svc_log("info", "stopping", json_pack("{s:i}", "signal", sig));
    int left = svc_server_shutdown(server, 10000);
    server = NULL;
    svc_discord_free(discord); /* its deferred commands finish (and follow up) first */
    discord = NULL;
    /* Font caches are process-wide: released only when no request can still be drawing. */
    if (left == 0)
        render_release_caches();
    svc_log("info", "stopped", json_pack("{s:i}", "unfinished_requests", left));
    exit_code = 0;
out:
    if (server != NULL)
        svc_server_shutdown(server, 0);
    svc_discord_free(discord);
    svc_metrics_free(metrics);
    svc_state_cache_free(states);
    svc_state_cache_free(folds);
    svc_state_cache_free(folds_at);
    svc_state_cache_free(verified);
    svc_refusals_release();
    svc_hub_free(hub);
    db_close(db);
    return exit_code;
}
