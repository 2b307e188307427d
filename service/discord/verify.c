/* Discord's request signatures (Discord: "Security and Authorization"): X-Signature-Ed25519 is
 * the Ed25519 signature, in hex, of the X-Signature-Timestamp header's bytes followed by the raw
 * body, by the application's key. Checked with libsodium (Debian's libsodium-dev): a
 * well-kept, constant-time implementation rather than code of our own. Stale timestamps and
 * signatures seen before within the window are refused too, which Discord does not ask but a
 * captured request replayed later would otherwise act again. */
#include <assert.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "service/discord/internal.h"

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes exactly n bytes of hex; false on any other text. */
static bool from_hex(const char *hex, unsigned char *out, size_t n)
{
    assert(out != NULL && n > 0);
    if (hex == NULL || strlen(hex) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return true;
}

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ok = -1;

static void init_sodium(void)
{
    sodium_ok = sodium_init();
}

struct svc_discord *svc_discord_new(const struct svc_config *cfg,
                                    const struct svc_discord_sender *sender)
{
    assert(cfg != NULL && sender != NULL);
    pthread_once(&sodium_once, init_sodium);
    if (sodium_ok < 0)
        return NULL;
    struct svc_discord *d = calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->seen = calloc(DISCORD_SEEN_MAX, sizeof *d->seen);
    if (d->seen == NULL || !from_hex(cfg->discord_public_key, d->key, sizeof d->key)) {
        free(d->seen);
        free(d);
        return NULL;
    }
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->idle, NULL);
    d->sender = *sender;
    snprintf(d->api, sizeof d->api, "%s", cfg->discord_api);
    d->defer_ms = cfg->discord_defer_ms;
    return d;
}

void svc_discord_free(struct svc_discord *d)
{
    if (d == NULL)
        return;
    pthread_mutex_lock(&d->lock);
    while (d->running > 0)
        pthread_cond_wait(&d->idle, &d->lock);
    pthread_mutex_unlock(&d->lock);
    pthread_cond_destroy(&d->idle);
    pthread_mutex_destroy(&d->lock);
    free(d->seen);
    free(d);
}

/* Remembers sig at ts unless it was seen within the window (forgetting what aged out). */
static enum discord_verdict remember(struct svc_discord *d, const unsigned char sig[64], int64_t ts,
                                     int64_t now)
{
    assert(now - ts <= DISCORD_WINDOW_S &&
           ts - now <= DISCORD_WINDOW_S); /* discord_verify checked the window */
    enum discord_verdict v = DISCORD_OK;
    pthread_mutex_lock(&d->lock);
    assert(d->seen_n <= DISCORD_SEEN_MAX);
    size_t kept = 0;
    for (size_t i = 0; i < d->seen_n; i++) {
        int64_t age = now - d->seen[i].ts;
        if (age > DISCORD_WINDOW_S || age < -DISCORD_WINDOW_S)
            continue; /* a replay of it would be stale anyway */
        if (sodium_memcmp(d->seen[i].sig, sig, 64) == 0)
            v = DISCORD_REPLAYED;
        d->seen[kept++] = d->seen[i];
    }
    d->seen_n = kept;
    if (v == DISCORD_OK && d->seen_n == DISCORD_SEEN_MAX)
        v = DISCORD_SEEN_FULL;
    if (v == DISCORD_OK) {
        assert(d->seen_n < DISCORD_SEEN_MAX);
        memcpy(d->seen[d->seen_n].sig, sig, 64);
        d->seen[d->seen_n++].ts = ts;
    }
    pthread_mutex_unlock(&d->lock);
    return v;
}

enum discord_verdict discord_verify(struct svc_discord *d, const char *sig_hex, const char *ts,
                                    const char *body, size_t len, int64_t now)
{
    assert(d != NULL && (body != NULL || len == 0));
    unsigned char sig[64];
    if (!from_hex(sig_hex, sig, sizeof sig) || ts == NULL || *ts == '\0' || strlen(ts) > 12 ||
        strspn(ts, "0123456789") != strlen(ts))
        return DISCORD_UNSIGNED;
    size_t tn = strlen(ts);
    unsigned char *msg = malloc(tn + len + 1);
    if (msg == NULL)
        return DISCORD_SEEN_FULL;
    memcpy(msg, ts, tn);
    memcpy(msg + tn, body, len);
    int bad = crypto_sign_verify_detached(sig, msg, tn + len, d->key);
    free(msg);
    if (bad != 0)
        return DISCORD_FORGED;
    int64_t t = strtoll(ts, NULL, 10);
    if (t < now - DISCORD_WINDOW_S || t > now + DISCORD_WINDOW_S)
        return DISCORD_STALE;
    return remember(d, sig, t, now);
}
