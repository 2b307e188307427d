/* The refusals of a stored board's reads (refusals.h, svc_refusal_*). A read of an
 * encounter's board after event N (reach, route, its pictures) is a function of that board, which
 * never changes, of the read's query and of this server's budgets, which never change while it
 * runs: when it was refused 422 too-expensive once, it is refused again. Most such refusals come
 * from the estimate before any work; a search that ran until its budget ran out took its budget's
 * time, and without this every anonymous reader could make the server spend it again. So the
 * problem's text is kept by the read's key, and the next same read is answered from it after a
 * lookup. Bounded: SLOTS entries, direct-mapped by the key's hash (a collision replaces); an entry
 * holds its key and the problem (a few hundred bytes). Thread-safe. */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/http/http.h"
#include "service/http/refusals.h"

#define SLOTS   256
#define KEY_MAX 512

struct refusal {
    char key[KEY_MAX];
    char *body; /* the problem's text; NULL: empty slot */
    size_t len;
};

static struct refusal slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t replayed; /* answers given from a refusal kept */

static unsigned slot_of(const char *key)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % SLOTS;
}

bool svc_refusal_key(const struct svc_request *req, int64_t at, const char *const *params,
                     char *out, size_t n)
{
    int k = snprintf(out, n, "%s|%lld", req->path, (long long)at);
    for (int i = 0; params[i] != NULL && k >= 0 && (size_t)k < n; i++) {
        const char *v = svc_request_query(req, params[i]);
        k += snprintf(out + k, n - (size_t)k, "|%s=%s", params[i], v != NULL ? v : "");
    }
    return k >= 0 && (size_t)k < n && (size_t)k < KEY_MAX;
}

bool svc_refusal_get(const char *key, struct svc_response *res)
{
    unsigned s = slot_of(key);
    char *body = NULL;
    size_t len = 0;
    pthread_mutex_lock(&lock);
    if (slots[s].body != NULL && strcmp(slots[s].key, key) == 0) {
        body = malloc(slots[s].len);
        if (body != NULL) {
            memcpy(body, slots[s].body, slots[s].len);
            len = slots[s].len;
        }
    }
    pthread_mutex_unlock(&lock);
    if (body == NULL)
        return false;
    svc_respond_owned(res, 422, "application/problem+json", body, len);
    atomic_fetch_add(&replayed, 1);
    return true;
}

uint64_t svc_refusals_replayed(void)
{
    return atomic_load(&replayed);
}

void svc_refusal_put(const char *key, const struct svc_response *res)
{
    if (res->status != 422 || res->body == NULL || strlen(key) >= KEY_MAX)
        return;
    json_t *doc = json_loadb(res->body, res->body_len, 0, NULL);
    const char *type = json_string_value(json_object_get(doc, "type"));
    bool costly = type != NULL && strstr(type, ":too-expensive") != NULL;
    json_decref(doc);
    if (!costly) /* a validation error is the query's, answered as cheaply again */
        return;
    char *copy = malloc(res->body_len);
    if (copy == NULL)
        return;
    memcpy(copy, res->body, res->body_len);
    unsigned s = slot_of(key);
    pthread_mutex_lock(&lock);
    char *old = slots[s].body;
    memcpy(slots[s].key, key, strlen(key) + 1);
    slots[s].body = copy;
    slots[s].len = res->body_len;
    pthread_mutex_unlock(&lock);
    free(old);
}

void svc_refusals_release(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++) {
        free(slots[i].body);
        slots[i].body = NULL;
    }
    pthread_mutex_unlock(&lock);
}
