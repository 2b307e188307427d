/* The hub of live feeds (hub.h): per encounter, its generation, its subscribers and its last
 * frames, under one mutex. */
#include "service/http/hub.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 256
#define FRAMES  64 /* frames kept per encounter: a subscriber further behind reads the database */

struct svc_hub_sub {
    struct svc_hub_sub *prev, *next; /* in its channel */
    struct channel *ch;
    void (*wake)(void *);
    void *cookie;
    int fd;
    uint64_t last_write_us;
    bool parked;
    bool hung_up;
};

struct frame {
    int64_t seq; /* 0: empty */
    bool full;
    char *text;
    size_t len;
};

/* An encounter with subscribers; freed when its last one leaves. */
struct channel {
    struct channel *next; /* in its bucket */
    char id[SVC_HUB_ID_MAX + 1];
    int64_t version;
    bool deleted;
    unsigned count;
    struct svc_hub_sub *subs;
    struct frame frames[FRAMES];
    /* The caller's memo (svc_hub_memo_take): a value folded up to event memo_seq. */
    void *memo;
    int64_t memo_seq;
    void (*memo_free)(void *);
    bool memo_taken; /* a subscriber holds the memo: others wait for it */
};

struct svc_hub {
    pthread_mutex_t lock;
    pthread_cond_t memo_free; /* a channel's memo was given back */
    struct channel *buckets[BUCKETS];
    unsigned total, max_total, max_per;
    uint64_t keepalive_us;
    bool closing;
};

/* Wake callbacks gathered under the lock, run after it is released: a wake resumes a
 * connection, which takes libmicrohttpd's own locks, never to be nested in ours. */
struct wake {
    void (*fn)(void *);
    void *cookie;
};

struct wakes {
    struct wake *list;
    size_t n, cap;
    struct wake small[16];
};

static void wakes_init(struct wakes *w)
{
    w->list = w->small;
    w->n = 0;
    w->cap = sizeof w->small / sizeof w->small[0];
}

/* Unparks sub and queues its wake. Out of memory, the wake runs at once, under the lock: a
 * missed wake would leave a subscriber parked for ever, a nested lock only slows. */
static void wakes_add(struct wakes *w, struct svc_hub_sub *sub)
{
    sub->parked = false;
    if (w->n == w->cap) {
        size_t cap = w->cap * 2;
        struct wake *p =
            w->list == w->small ? malloc(cap * sizeof *p) : realloc(w->list, cap * sizeof *p);
        if (p == NULL) {
            sub->wake(sub->cookie);
            return;
        }
        if (w->list == w->small)
            memcpy(p, w->small, sizeof w->small);
        w->list = p;
        w->cap = cap;
    }
    w->list[w->n].fn = sub->wake;
    w->list[w->n].cookie = sub->cookie;
    w->n++;
}

static void wakes_run(struct wakes *w)
{
    for (size_t i = 0; i < w->n; i++)
        w->list[i].fn(w->list[i].cookie);
    if (w->list != w->small)
        free(w->list);
}

static unsigned bucket_of(const char *id)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % BUCKETS;
}

static struct channel *channel_find(struct svc_hub *hub, const char *id)
{
    for (struct channel *c = hub->buckets[bucket_of(id)]; c != NULL; c = c->next)
        if (strcmp(c->id, id) == 0)
            return c;
    return NULL;
}

struct svc_hub *svc_hub_new(unsigned max_total, unsigned max_per_encounter, uint64_t keepalive_us)
{
    struct svc_hub *hub = calloc(1, sizeof *hub);
    if (hub == NULL)
        return NULL;
    pthread_mutex_init(&hub->lock, NULL);
    pthread_cond_init(&hub->memo_free, NULL);
    hub->max_total = max_total;
    hub->max_per = max_per_encounter;
    hub->keepalive_us = keepalive_us;
    return hub;
}

void svc_hub_free(struct svc_hub *hub)
{
    if (hub == NULL)
        return;
    for (int b = 0; b < BUCKETS; b++) {
        struct channel *c = hub->buckets[b];
        while (c != NULL) {
            struct channel *next = c->next;
            for (int i = 0; i < FRAMES; i++)
                free(c->frames[i].text);
            if (c->memo != NULL)
                c->memo_free(c->memo);
            while (c->subs != NULL) {
                struct svc_hub_sub *s = c->subs;
                c->subs = s->next;
                free(s);
            }
            free(c);
            c = next;
        }
    }
    pthread_cond_destroy(&hub->memo_free);
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

/* Queues the wake of every parked subscriber of c. */
static void wake_channel(struct channel *c, struct wakes *w)
{
    for (struct svc_hub_sub *s = c->subs; s != NULL; s = s->next)
        if (s->parked)
            wakes_add(w, s);
}

void svc_hub_appended(struct svc_hub *hub, const char *id, int64_t version)
{
    if (hub == NULL)
        return;
    struct wakes w;
    wakes_init(&w);
    pthread_mutex_lock(&hub->lock);
    struct channel *c = channel_find(hub, id);
    if (c != NULL && version > c->version) {
        c->version = version;
        wake_channel(c, &w);
    }
    pthread_mutex_unlock(&hub->lock);
    wakes_run(&w);
}

void svc_hub_deleted(struct svc_hub *hub, const char *id)
{
    if (hub == NULL)
        return;
    struct wakes w;
    wakes_init(&w);
    pthread_mutex_lock(&hub->lock);
    struct channel *c = channel_find(hub, id);
    if (c != NULL && !c->deleted) {
        c->deleted = true;
        wake_channel(c, &w);
    }
    pthread_mutex_unlock(&hub->lock);
    wakes_run(&w);
}

int svc_hub_join(struct svc_hub *hub, const char *id, int64_t version, struct svc_hub_sub **out)
{
    *out = NULL;
    if (strlen(id) > SVC_HUB_ID_MAX)
        return SVC_HUB_NOMEM;
    struct svc_hub_sub *sub = calloc(1, sizeof *sub);
    if (sub == NULL)
        return SVC_HUB_NOMEM;
    sub->fd = -1;
    pthread_mutex_lock(&hub->lock);
    int rc = SVC_HUB_OK;
    struct channel *c = channel_find(hub, id);
    if (hub->closing)
        rc = SVC_HUB_CLOSING;
    else if (hub->total >= hub->max_total)
        rc = SVC_HUB_FULL;
    else if (c != NULL && c->count >= hub->max_per)
        rc = SVC_HUB_FULL_ENCOUNTER;
    else if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL) {
            rc = SVC_HUB_NOMEM;
        } else {
            memcpy(c->id, id, strlen(id) + 1);
            unsigned b = bucket_of(id);
            c->next = hub->buckets[b];
            hub->buckets[b] = c;
        }
    }
    if (rc == SVC_HUB_OK) {
        if (version > c->version)
            c->version = version;
        sub->ch = c;
        sub->next = c->subs;
        if (c->subs != NULL)
            c->subs->prev = sub;
        c->subs = sub;
        c->count++;
        hub->total++;
    }
    pthread_mutex_unlock(&hub->lock);
    if (rc != SVC_HUB_OK) {
        free(sub);
        return rc;
    }
    *out = sub;
    return SVC_HUB_OK;
}

void svc_hub_attach(struct svc_hub_sub *sub, void (*wake)(void *), void *cookie, int fd)
{
    sub->wake = wake;
    sub->cookie = cookie;
    sub->fd = fd;
}

void svc_hub_leave(struct svc_hub *hub, struct svc_hub_sub *sub)
{
    if (sub == NULL)
        return;
    pthread_mutex_lock(&hub->lock);
    struct channel *c = sub->ch;
    if (sub->prev != NULL)
        sub->prev->next = sub->next;
    else
        c->subs = sub->next;
    if (sub->next != NULL)
        sub->next->prev = sub->prev;
    c->count--;
    hub->total--;
    if (c->count == 0) {
        struct channel **p = &hub->buckets[bucket_of(c->id)];
        while (*p != c)
            p = &(*p)->next;
        *p = c->next;
        for (int i = 0; i < FRAMES; i++)
            free(c->frames[i].text);
        if (c->memo != NULL)
            c->memo_free(c->memo);
        free(c);
    }
    pthread_mutex_unlock(&hub->lock);
    free(sub);
}

void svc_hub_look(struct svc_hub *hub, struct svc_hub_sub *sub, struct svc_hub_view *v)
{
    pthread_mutex_lock(&hub->lock);
    v->version = sub->ch->version;
    v->deleted = sub->ch->deleted;
    v->closing = hub->closing;
    v->hung_up = sub->hung_up;
    pthread_mutex_unlock(&hub->lock);
}

bool svc_hub_park(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t known,
                  uint64_t last_write_us, void (*park)(void *), void *cookie)
{
    pthread_mutex_lock(&hub->lock);
    bool ok = sub->wake != NULL && !hub->closing && !sub->ch->deleted && !sub->hung_up &&
              sub->ch->version <= known;
    if (ok) {
        park(cookie);
        sub->parked = true;
        sub->last_write_us = last_write_us;
    }
    pthread_mutex_unlock(&hub->lock);
    return ok;
}

void svc_hub_tick(struct svc_hub *hub, uint64_t now_us)
{
    struct wakes w;
    wakes_init(&w);
    pthread_mutex_lock(&hub->lock);
    /* A parked connection is out of libmicrohttpd's sight, so a client that hangs up is seen
     * here: its socket turns readable (end of file) or reports a hang-up. A feed's client sends
     * nothing after its request, so anything readable ends it as well. */
    size_t n = 0;
    struct pollfd *fds = hub->total > 0 ? malloc(hub->total * sizeof *fds) : NULL;
    struct svc_hub_sub **who = hub->total > 0 ? malloc(hub->total * sizeof *who) : NULL;
    for (int b = 0; b < BUCKETS; b++)
        for (struct channel *c = hub->buckets[b]; c != NULL; c = c->next)
            for (struct svc_hub_sub *s = c->subs; s != NULL; s = s->next) {
                if (!s->parked)
                    continue;
                if (now_us > s->last_write_us && now_us - s->last_write_us >= hub->keepalive_us)
                    wakes_add(&w, s);
                else if (fds != NULL && who != NULL && s->fd >= 0) {
                    fds[n] = (struct pollfd){.fd = s->fd, .events = POLLIN | POLLRDHUP};
                    who[n++] = s;
                }
            }
    if (n > 0 && poll(fds, n, 0) > 0) {
        for (size_t i = 0; i < n; i++)
            if (fds[i].revents != 0 && who[i]->parked) {
                who[i]->hung_up = true;
                wakes_add(&w, who[i]);
            }
    }
    free(fds);
    free(who);
    pthread_mutex_unlock(&hub->lock);
    wakes_run(&w);
}

void svc_hub_close(struct svc_hub *hub)
{
    struct wakes w;
    wakes_init(&w);
    pthread_mutex_lock(&hub->lock);
    hub->closing = true;
    for (int b = 0; b < BUCKETS; b++)
        for (struct channel *c = hub->buckets[b]; c != NULL; c = c->next)
            wake_channel(c, &w);
    pthread_mutex_unlock(&hub->lock);
    wakes_run(&w);
}

size_t svc_hub_ids(struct svc_hub *hub, char (*ids)[SVC_HUB_ID_MAX + 1], size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&hub->lock);
    for (int b = 0; b < BUCKETS && n < max; b++)
        for (struct channel *c = hub->buckets[b]; c != NULL && n < max; c = c->next)
            memcpy(ids[n++], c->id, sizeof c->id);
    pthread_mutex_unlock(&hub->lock);
    return n;
}

unsigned svc_hub_count(struct svc_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    unsigned n = hub->total;
    pthread_mutex_unlock(&hub->lock);
    return n;
}

bool svc_hub_frame_get(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq, bool full,
                       char **text, size_t *len)
{
    bool found = false;
    pthread_mutex_lock(&hub->lock);
    struct frame *f = &sub->ch->frames[(seq * 2 + full) % FRAMES];
    if (f->seq == seq && f->full == full) {
        *text = malloc(f->len + 1);
        if (*text != NULL) {
            memcpy(*text, f->text, f->len + 1);
            *len = f->len;
            found = true;
        }
    }
    pthread_mutex_unlock(&hub->lock);
    return found;
}

void svc_hub_frame_put(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq, bool full,
                       const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    pthread_mutex_lock(&hub->lock);
    struct frame *f = &sub->ch->frames[(seq * 2 + full) % FRAMES];
    char *old = f->text;
    *f = (struct frame){.seq = seq, .full = full, .text = copy, .len = len};
    pthread_mutex_unlock(&hub->lock);
    free(old);
}

void *svc_hub_memo_take(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t *seq)
{
    pthread_mutex_lock(&hub->lock);
    struct channel *c = sub->ch;
    while (c->memo_taken)
        pthread_cond_wait(&hub->memo_free, &hub->lock);
    c->memo_taken = true;
    void *memo = c->memo;
    *seq = c->memo_seq;
    c->memo = NULL;
    pthread_mutex_unlock(&hub->lock);
    return memo;
}

void svc_hub_memo_put(struct svc_hub *hub, struct svc_hub_sub *sub, void *memo, int64_t seq,
                      void (*free_fn)(void *))
{
    pthread_mutex_lock(&hub->lock);
    struct channel *c = sub->ch;
    /* The take emptied the channel's memo and held the others off: this one is the memo now. */
    if (memo != NULL)
        c->memo = memo, c->memo_seq = seq, c->memo_free = free_fn;
    c->memo_taken = false;
    pthread_cond_broadcast(&hub->memo_free);
    pthread_mutex_unlock(&hub->lock);
}
