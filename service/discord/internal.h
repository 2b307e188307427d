/* What the files of service/discord/ share. */
#ifndef TACTICS_SVC_DISCORD_INTERNAL_H
#define TACTICS_SVC_DISCORD_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "service/discord/discord.h"
#include "service/http/http.h"

/* How far a request's X-Signature-Timestamp may be from our clock, either way, in seconds.
 * Discord documents no window and its libraries (discord-interactions' verifyKey) check none;
 * five minutes is the common choice (Slack's request signing documents it), wide enough for a
 * clock a little off and narrow enough that the signatures to remember stay few. */
#define DISCORD_WINDOW_S 300
/* Signatures remembered within the window; past it a request is refused 503 until some age. */
#define DISCORD_SEEN_MAX 8192

struct discord_seen {
    unsigned char sig[64];
    int64_t ts;
};

struct svc_discord {
    unsigned char key[32];
    pthread_mutex_t lock;
    struct discord_seen *seen;
    size_t seen_n;
    struct svc_discord_sender sender;
    char api[256];
    unsigned defer_ms;
    int running; /* deferred commands still running (worker threads) */
    pthread_cond_t idle;
};

/* verify.c: the verdict on a request's signature headers and raw body. */
enum discord_verdict {
    DISCORD_OK = 0,
    DISCORD_UNSIGNED,  /* a header is missing or malformed: 401 */
    DISCORD_FORGED,    /* the signature does not verify: 401 */
    DISCORD_STALE,     /* the timestamp is outside the window: 401 */
    DISCORD_REPLAYED,  /* this signature was seen within the window: 401 */
    DISCORD_SEEN_FULL, /* too many signatures to remember: 503 */
};
enum discord_verdict discord_verify(struct svc_discord *d, const char *sig_hex, const char *ts,
                                    const char *body, size_t len, int64_t now);

/* A message to answer with (reply.c): JSON, or multipart with one PNG. */
struct discord_reply {
    json_t *data; /* the message: content, embeds, flags, attachments */
    int type;     /* the interaction response type: 1, 4, 5 or 8 */
    char *png;    /* the board (malloc), or NULL */
    size_t png_len;
};

/* The response body of reply r: JSON {"type", "data"} or, with a PNG, multipart/form-data
 * (payload_json, files[0]); followup: the message alone (for the webhook). Returns the body
 * (malloc) and its static content type in *ct, or NULL when out of memory. */
char *discord_reply_body(const struct discord_reply *r, bool followup, const char **ct,
                         size_t *len);
void discord_reply_free(struct discord_reply *r);

/* commands.c: rules one interaction (a parsed body) into reply. */
void discord_run(struct svc_context *ctx, json_t *interaction, struct discord_reply *reply);

#endif
