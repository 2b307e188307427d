/* Deferred interactions: a command that has not finished within --discord-defer-ms is answered
 * DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE (type 5, Discord shows "thinking"), and finishes on a
 * worker thread, which then edits the original response through the interaction's webhook
 * (PATCH /webhooks/{application.id}/{interaction.token}/messages/@original). The request goes
 * out through libcurl (Debian's libcurl: TLS, redirects and timeouts done well), to
 * --discord-api. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "service/discord/internal.h"

#ifndef TACTICS_VERSION
#define TACTICS_VERSION "0.0.0"
#endif

/* Ids and tokens go into a URL path: only what Discord issues (digits; a token's base64url
 * letters and dots), never a slash or a query. */
static bool url_safe(const char *s, size_t max)
{
    size_t n = strlen(s);
    return n > 0 && n <= max &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
    (void)p, (void)ud;
    return size * n;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int curl_send(void *ud, const char *api, const char *application_id, const char *token,
                     const char *content_type, const char *body, size_t len)
{
    (void)ud;
    if (!url_safe(application_id, 32) || !url_safe(token, 512))
        return -1;
    pthread_once(&curl_once, init_curl);
    char url[1024], ct[160];
    snprintf(url, sizeof url, "%s/webhooks/%s/%s/messages/@original", api, application_id, token);
    snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
    CURL *c = curl_easy_init();
    if (c == NULL)
        return -1;
    struct curl_slist *h = curl_slist_append(NULL, ct);
    /* Discord asks every bot for a User-Agent of this form (API Reference: User Agent). */
    h = curl_slist_append(h, "User-Agent: DiscordBot (https://github.com/tactics, " TACTICS_VERSION
                             ")");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PATCH");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return rc == CURLE_OK && status >= 200 && status < 300 ? 0 : -1;
}

const struct svc_discord_sender svc_discord_curl_sender = {curl_send, NULL};
