#include "service/encounter/state_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char id[AUTH_ID_LEN + 1];
    int64_t version;
    unsigned char token_hash[AUTH_HASH_LEN];
    json_t *state;     /* NULL: empty */
    size_t bytes;      /* what the entry counts against the budget */
    size_t text_bytes; /* of which the state's text (take hands it back) */
    void *extra;       /* what the writer keeps beside the state (NULL: nothing), and its free */
    void (*extra_free)(void *);
};

struct svc_state_cache {
    pthread_mutex_t lock;
    size_t bytes; /* text size of the entries held */
    struct entry slots[SVC_STATE_CACHE_SLOTS];
};

struct svc_state_cache *svc_state_cache_new(void)
{
    struct svc_state_cache *c = calloc(1, sizeof *c);
    if (c != NULL && pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void svc_state_cache_free(struct svc_state_cache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < SVC_STATE_CACHE_SLOTS; i++) {
        json_decref(c->slots[i].state);
        if (c->slots[i].extra != NULL)
            c->slots[i].extra_free(c->slots[i].extra);
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* FNV-1a of the id: ids are random hex, so any mixing spreads them. */
static struct entry *slot_of(struct svc_state_cache *c, const char *id)
{
    uint32_t h = 2166136261u;
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return &c->slots[h % SVC_STATE_CACHE_SLOTS];
}

/* What an entry held, taken out of it: released outside the lock (evicted_free). */
struct evicted {
    json_t *state;
    void *extra;
    void (*extra_free)(void *);
};

static void evicted_free(struct evicted *v)
{
    json_decref(v->state);
    if (v->extra != NULL)
        v->extra_free(v->extra);
}

/* Empties e; returns what it held for the caller to release outside the lock. */
static struct evicted evict(struct svc_state_cache *c, struct entry *e)
{
    struct evicted old = {e->state, e->extra, e->extra_free};
    c->bytes -= e->bytes;
    e->state = NULL;
    e->extra = NULL;
    e->extra_free = NULL;
    e->bytes = e->text_bytes = 0;
    e->id[0] = '\0';
    return old;
}

json_t *svc_state_cache_take(struct svc_state_cache *c, const char *id, int64_t version,
                             unsigned char token_hash[AUTH_HASH_LEN], size_t *text_len)
{
    return svc_state_cache_take_with(c, id, version, token_hash, text_len, NULL);
}

json_t *svc_state_cache_take_with(struct svc_state_cache *c, const char *id, int64_t version,
                                  unsigned char token_hash[AUTH_HASH_LEN], size_t *text_len,
                                  void **extra)
{
    if (extra != NULL)
        *extra = NULL;
    if (c == NULL || strlen(id) > AUTH_ID_LEN)
        return NULL;
    struct evicted got = {0};
    pthread_mutex_lock(&c->lock);
    struct entry *e = slot_of(c, id);
    if (e->state != NULL && e->version == version && strcmp(e->id, id) == 0) {
        memcpy(token_hash, e->token_hash, AUTH_HASH_LEN);
        *text_len = e->text_bytes;
        got = evict(c, e);
    }
    pthread_mutex_unlock(&c->lock);
    if (extra != NULL) {
        *extra = got.extra;
    } else if (got.extra != NULL) {
        got.extra_free(got.extra);
    }
    return got.state;
}

void svc_state_cache_put(struct svc_state_cache *c, const char *id, int64_t version,
                         const unsigned char token_hash[AUTH_HASH_LEN], json_t *state,
                         size_t text_len)
{
    svc_state_cache_put_with(c, id, version, token_hash, state, text_len, NULL, 0, NULL);
}

void svc_state_cache_put_with(struct svc_state_cache *c, const char *id, int64_t version,
                              const unsigned char token_hash[AUTH_HASH_LEN], json_t *state,
                              size_t text_len, void *extra, size_t extra_bytes,
                              void (*extra_free)(void *))
{
    struct evicted mine = {state, extra, extra_free};
    size_t bytes = text_len + (extra != NULL ? extra_bytes : 0);
    if (c == NULL || state == NULL || strlen(id) > AUTH_ID_LEN) {
        evicted_free(&mine);
        return;
    }
    pthread_mutex_lock(&c->lock);
    struct entry *e = slot_of(c, id);
    struct evicted old = evict(c, e);
    if (c->bytes + bytes <= SVC_STATE_CACHE_BYTES) {
        memcpy(e->id, id, strlen(id) + 1);
        e->version = version;
        memcpy(e->token_hash, token_hash, AUTH_HASH_LEN);
        e->state = state;
        e->extra = extra;
        e->extra_free = extra_free;
        e->bytes = bytes;
        e->text_bytes = text_len;
        c->bytes += bytes;
        mine = (struct evicted){0};
    }
    pthread_mutex_unlock(&c->lock);
    evicted_free(&old);
    evicted_free(&mine);
}

json_t *svc_state_cache_copy_upto(struct svc_state_cache *c, const char *id, int64_t upto,
                                  int64_t *version)
{
    if (c == NULL || strlen(id) > AUTH_ID_LEN)
        return NULL;
    json_t *copy = NULL;
    pthread_mutex_lock(&c->lock);
    struct entry *e = slot_of(c, id);
    if (e->state != NULL && e->version <= upto && strcmp(e->id, id) == 0) {
        copy = json_deep_copy(e->state);
        *version = e->version;
    }
    pthread_mutex_unlock(&c->lock);
    return copy;
}

int64_t svc_state_cache_version(struct svc_state_cache *c, const char *id)
{
    if (c == NULL || strlen(id) > AUTH_ID_LEN)
        return -1;
    pthread_mutex_lock(&c->lock);
    struct entry *e = slot_of(c, id);
    int64_t v = e->state != NULL && strcmp(e->id, id) == 0 ? e->version : -1;
    pthread_mutex_unlock(&c->lock);
    return v;
}

void svc_state_cache_drop(struct svc_state_cache *c, const char *id)
{
    if (c == NULL)
        return;
    struct evicted old = {0};
    pthread_mutex_lock(&c->lock);
    struct entry *e = slot_of(c, id);
    if (e->state != NULL && strcmp(e->id, id) == 0)
        old = evict(c, e);
    pthread_mutex_unlock(&c->lock);
    evicted_free(&old);
}
