/* Discord interactions (POST /v1/discord/interactions): a channel plays an encounter through
 * Discord's slash commands, with no bot code. The layer is a transport: each command is the
 * REST operation it names, dispatched through the route table, and its answer turned into a
 * Discord message (commands.c). The files: verify.c (signatures, stale and replayed requests),
 * commands.c (the commands, names, who may act), reply.c (messages, embeds, attachments),
 * followup.c (deferred answers, sent to Discord's webhook), commands.json (the definitions to
 * register). */
#ifndef TACTICS_SVC_DISCORD_DISCORD_H
#define TACTICS_SVC_DISCORD_DISCORD_H

#include <stdbool.h>
#include <stddef.h>

#include "service/http/http.h"

/* Sends one followup to a deferred interaction: the message (body, len bytes of content_type:
 * application/json or multipart/form-data) that replaces the deferred "thinking" reply, by
 * PATCH {api}/webhooks/{application_id}/{token}/messages/@original (Discord's "Edit Original
 * Interaction Response"). Returns 0 when the peer answered 2xx. Called from a worker thread. */
struct svc_discord_sender {
    int (*send)(void *ud, const char *api, const char *application_id, const char *token,
                const char *content_type, const char *body, size_t len);
    void *ud;
};

/* The sender tacticsd uses: libcurl (HTTPS to Discord, or the --discord-api URL). */
extern const struct svc_discord_sender svc_discord_curl_sender;

/* The layer's state for a server: the public key (NULL config key: interactions off), the
 * signatures seen within the window (replays), the deferred commands still running. */
struct svc_discord;

/* NULL when out of memory or when the key is unusable; then interactions answer 503. */
struct svc_discord *svc_discord_new(const struct svc_config *cfg,
                                    const struct svc_discord_sender *sender);

/* Waits for the deferred commands still running (each sends its followup first), then frees. */
void svc_discord_free(struct svc_discord *d);

/* POST /v1/discord/interactions (service/routes.c). */
void svc_handle_discord_interactions(const struct svc_request *req, struct svc_response *res);

#endif
