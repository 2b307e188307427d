/* The hub of live feeds (hub.h): per encounter, its generation, its subscribers, its last
 * frames and its checkpoints, and per client address its subscribers, under one mutex. */
#include "service/http/hub.h"

#include <assert.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUCKETS 256
/* Frames kept per encounter (two views of 128 events): enough for what the waker's interval
 * gathers under a burst; a subscriber further behind reads the database. */
#define FRAMES 256

/* A client address with subscribers; freed when its last one leaves. */
struct address {
    struct address *next; /* in its bucket */
    char text[SVC_HUB_ADDRESS_MAX + 1];
    unsigned count;
};

struct svc_hub_sub {
    struct svc_hub_sub *prev, *next; /* in its channel */
    struct channel *ch;
    struct address *addr; /* NULL: not counted by address */
    void (*wake)(void *);
    void *cookie;
    int fd;
    uint64_t last_write_us;
    bool parked;
    bool hung_up;
};

struct checkpoint {
    int64_t seq;
    void *value;
    size_t bytes;
    void (*unref)(void *);
};

struct frame {
    int64_t seq; /* 0: empty */
    bool full;
    struct svc_hub_frame *f; /* the hub's reference */
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
    struct checkpoint ckpt[SVC_HUB_CHECKPOINTS]; /* by seq, ascending */
    int nckpt;
};

struct svc_hub {
    pthread_mutex_t lock;
    pthread_cond_t memo_free; /* a channel's memo was given back */
    struct channel *buckets[BUCKETS];
    struct address *addresses[BUCKETS];
    unsigned total, max_total, max_per, max_per_address;
    size_t ckpt_bytes;       /* held by every channel's checkpoints */
    _Atomic uint64_t folded; /* svc_hub_count_folded */
    uint64_t keepalive_us;
    bool closing;
    /* The waker: a write's event wakes the encounter's parked subscribers from this thread,
     * not the writer's, so that resuming a thousand connections (each a system call in
     * libmicrohttpd) is not part of the write's answer. pending holds the wakes it has yet to
     * run; waker_cond tells it there are some, or that it must stop. */
    pthread_t waker;
    bool waker_started, waker_stop;
    pthread_cond_t waker_cond; /* on CLOCK_MONOTONIC */
    uint64_t coalesce_us;      /* the least time between two runs of the waker */
    struct wake *pending;
    size_t npending, cap_pending;
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
    assert(sub->parked && sub->wake != NULL); /* only a parked subscriber is woken */
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
    assert(id != NULL);
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

static uint64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static struct timespec mono_at(uint64_t us)
{
    return (struct timespec){.tv_sec = (time_t)(us / 1000000u),
                             .tv_nsec = (long)(us % 1000000u) * 1000};
}

/* Runs the wakes svc_hub_appended queued, until svc_hub_free stops it: at once after a
 * quiet spell, otherwise no sooner than coalesce_us after its last run, so the writes between
 * two runs wake each subscriber once (a run's wakes are counted from when it starts). */
static void *waker_run(void *arg)
{
    struct svc_hub *hub = arg;
    uint64_t last_us = 0;
    pthread_mutex_lock(&hub->lock);
    for (;;) {
        while (hub->npending == 0 && !hub->waker_stop)
            pthread_cond_wait(&hub->waker_cond, &hub->lock);
        if (hub->npending == 0)
            break;
        uint64_t now = mono_us();
        if (!hub->waker_stop && now < last_us + hub->coalesce_us) {
            struct timespec ts = mono_at(last_us + hub->coalesce_us);
            pthread_cond_timedwait(&hub->waker_cond, &hub->lock, &ts);
            continue;
        }
        last_us = now;
        struct wake *list = hub->pending;
        size_t n = hub->npending;
        hub->pending = NULL;
        hub->npending = hub->cap_pending = 0;
        pthread_mutex_unlock(&hub->lock);
        for (size_t i = 0; i < n; i++)
            list[i].fn(list[i].cookie);
        free(list);
        pthread_mutex_lock(&hub->lock);
    }
    pthread_mutex_unlock(&hub->lock);
    return NULL;
}

struct svc_hub *svc_hub_new(unsigned max_total, unsigned max_per_encounter,
                            unsigned max_per_address, uint64_t keepalive_us)
{
    struct svc_hub *hub = calloc(1, sizeof *hub);
    if (hub == NULL)
        return NULL;
    pthread_mutex_init(&hub->lock, NULL);
    pthread_cond_init(&hub->memo_free, NULL);
    pthread_condattr_t mono;
    pthread_condattr_init(&mono);
    pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
    pthread_cond_init(&hub->waker_cond, &mono);
    pthread_condattr_destroy(&mono);
    hub->max_total = max_total;
    hub->max_per = max_per_encounter;
    hub->max_per_address = max_per_address;
    hub->keepalive_us = keepalive_us;
    /* Without the thread, the writers wake their subscribers themselves, as before. */
    hub->waker_started = pthread_create(&hub->waker, NULL, waker_run, hub) == 0;
    return hub;
}

void svc_hub_coalesce(struct svc_hub *hub, uint64_t us)
{
    if (hub == NULL)
        return;
    pthread_mutex_lock(&hub->lock);
    hub->coalesce_us = us;
    pthread_cond_signal(&hub->waker_cond); /* a waker waiting out the old interval looks again */
    pthread_mutex_unlock(&hub->lock);
}

/* Frees what a channel holds (its frames, memo and checkpoints) and the channel. */
static void channel_free(struct svc_hub *hub, struct channel *c)
{
    for (int i = 0; i < FRAMES; i++)
        svc_hub_frame_unref(c->frames[i].f);
    if (c->memo != NULL)
        c->memo_free(c->memo);
    for (int i = 0; i < c->nckpt; i++) {
        hub->ckpt_bytes -= c->ckpt[i].bytes;
        c->ckpt[i].unref(c->ckpt[i].value);
    }
    free(c);
}

void svc_hub_free(struct svc_hub *hub)
{
    if (hub == NULL)
        return;
    if (hub->waker_started) {
        pthread_mutex_lock(&hub->lock);
        hub->waker_stop = true;
        pthread_cond_signal(&hub->waker_cond);
        pthread_mutex_unlock(&hub->lock);
        pthread_join(hub->waker, NULL);
    }
    free(hub->pending);
    for (int b = 0; b < BUCKETS; b++) {
        struct channel *c = hub->buckets[b];
        while (c != NULL) {
            struct channel *next = c->next;
            while (c->subs != NULL) {
                struct svc_hub_sub *s = c->subs;
                c->subs = s->next;
                free(s);
            }
            channel_free(hub, c);
            c = next;
        }
        while (hub->addresses[b] != NULL) {
            struct address *a = hub->addresses[b];
            hub->addresses[b] = a->next;
            free(a);
        }
    }
    pthread_cond_destroy(&hub->memo_free);
    pthread_cond_destroy(&hub->waker_cond);
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

/* Hands the wakes of c's parked subscribers to the waker (under the lock). Each is unparked
 * here, so nothing else wakes it again; out of memory, the rest go to w, run by the caller. */
static void wake_channel_later(struct svc_hub *hub, struct channel *c, struct wakes *w)
{
    bool was_idle = hub->npending == 0;
    for (struct svc_hub_sub *s = c->subs; s != NULL; s = s->next) {
        if (!s->parked)
            continue;
        if (hub->npending == hub->cap_pending) {
            size_t cap = hub->cap_pending ? hub->cap_pending * 2 : 64;
            struct wake *p = realloc(hub->pending, cap * sizeof *p);
            if (p == NULL) {
                wakes_add(w, s);
                continue;
            }
            hub->pending = p;
            hub->cap_pending = cap;
        }
        s->parked = false;
        hub->pending[hub->npending++] = (struct wake){s->wake, s->cookie};
    }
    if (was_idle && hub->npending > 0)
        pthread_cond_signal(&hub->waker_cond);
}

/* A write's news of encounter id for its subscribers: version appended (newer than the
 * channel's), woken by the waker thread when it runs; or (deleted) the encounter gone, woken at
 * once. The wakes run after the lock is let go. */
static void hub_notify(struct svc_hub *hub, const char *id, int64_t version, bool deleted)
{
    if (hub == NULL)
        return;
    struct wakes w;
    wakes_init(&w);
    pthread_mutex_lock(&hub->lock);
    struct channel *c = channel_find(hub, id);
    if (c != NULL && deleted && !c->deleted) {
        c->deleted = true;
        wake_channel(c, &w);
    } else if (c != NULL && !deleted && version > c->version) {
        c->version = version;
        if (hub->waker_started && !hub->closing)
            wake_channel_later(hub, c, &w);
        else
            wake_channel(c, &w);
    }
    pthread_mutex_unlock(&hub->lock);
    wakes_run(&w);
}

void svc_hub_appended(struct svc_hub *hub, const char *id, int64_t version)
{
    hub_notify(hub, id, version, false);
}

void svc_hub_deleted(struct svc_hub *hub, const char *id)
{
    hub_notify(hub, id, 0, true);
}

static struct address *address_find(struct svc_hub *hub, const char *text)
{
    for (struct address *a = hub->addresses[bucket_of(text)]; a != NULL; a = a->next)
        if (strcmp(a->text, text) == 0)
            return a;
    return NULL;
}

int svc_hub_join(struct svc_hub *hub, const char *id, int64_t version, const char *address,
                 struct svc_hub_sub **out)
{
    *out = NULL;
    if (strlen(id) > SVC_HUB_ID_MAX)
        return SVC_HUB_NOMEM;
    bool by_address = address != NULL && *address != '\0' && strlen(address) <= SVC_HUB_ADDRESS_MAX;
    struct svc_hub_sub *sub = calloc(1, sizeof *sub);
    struct address *fresh = by_address ? calloc(1, sizeof *fresh) : NULL;
    if (sub == NULL || (by_address && fresh == NULL)) {
        free(sub);
        free(fresh);
        return SVC_HUB_NOMEM;
    }
    sub->fd = -1;
    pthread_mutex_lock(&hub->lock);
    int rc = SVC_HUB_OK;
    struct channel *c = channel_find(hub, id);
    struct address *a = by_address ? address_find(hub, address) : NULL;
    if (hub->closing)
        rc = SVC_HUB_CLOSING;
    else if (hub->total >= hub->max_total)
        rc = SVC_HUB_FULL;
    else if (c != NULL && c->count >= hub->max_per)
        rc = SVC_HUB_FULL_ENCOUNTER;
    else if (a != NULL && a->count >= hub->max_per_address)
        rc = SVC_HUB_FULL_ADDRESS;
    else if (by_address && a == NULL && hub->max_per_address == 0)
        rc = SVC_HUB_FULL_ADDRESS;
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
    if (rc == SVC_HUB_OK && by_address) {
        if (a == NULL) {
            a = fresh, fresh = NULL;
            memcpy(a->text, address, strlen(address) + 1);
            unsigned b = bucket_of(address);
            a->next = hub->addresses[b];
            hub->addresses[b] = a;
        }
        a->count++;
        sub->addr = a;
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
    free(fresh);
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
    assert(c->count > 0 && hub->total > 0);
    c->count--;
    hub->total--;
    if (c->count == 0) {
        struct channel **p = &hub->buckets[bucket_of(c->id)];
        while (*p != c)
            p = &(*p)->next;
        *p = c->next;
        channel_free(hub, c);
    }
    struct address *a = sub->addr;
    if (a != NULL && --a->count == 0) {
        struct address **q = &hub->addresses[bucket_of(a->text)];
        while (*q != a)
            q = &(*q)->next;
        *q = a->next;
        free(a);
    }
    pthread_mutex_unlock(&hub->lock);
    free(sub);
}

void svc_hub_look(struct svc_hub *hub, struct svc_hub_sub *sub, struct svc_hub_view *v)
{
    pthread_mutex_lock(&hub->lock);
    assert(sub != NULL && sub->ch != NULL);
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
    assert(park != NULL && sub->ch != NULL);
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
                    assert(n < hub->total); /* fds and who hold one per subscriber */
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
    /* The waker's wakes still to run are run here, before this returns: the server must not
     * stop libmicrohttpd while a connection is suspended. */
    struct wake *pending = hub->pending;
    size_t npending = hub->npending;
    hub->pending = NULL;
    hub->npending = hub->cap_pending = 0;
    for (int b = 0; b < BUCKETS; b++)
        for (struct channel *c = hub->buckets[b]; c != NULL; c = c->next)
            wake_channel(c, &w);
    pthread_mutex_unlock(&hub->lock);
    for (size_t i = 0; i < npending; i++)
        pending[i].fn(pending[i].cookie);
    free(pending);
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

struct svc_hub_frame *svc_hub_frame_ref(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq,
                                        bool full)
{
    struct svc_hub_frame *found = NULL;
    pthread_mutex_lock(&hub->lock);
    struct frame *f = &sub->ch->frames[(seq * 2 + full) % FRAMES];
    if (f->seq == seq && f->full == full && f->f != NULL) {
        found = f->f;
        atomic_fetch_add_explicit(&found->refs, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&hub->lock);
    return found;
}

struct svc_hub_frame *svc_hub_frame_put(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq,
                                        bool full, const char *text, size_t len)
{
    struct svc_hub_frame *fresh = malloc(sizeof *fresh + len + 1);
    if (fresh == NULL)
        return NULL;
    atomic_init(&fresh->refs, 2); /* the hub's and the caller's */
    fresh->len = len;
    memcpy(fresh->text, text, len);
    fresh->text[len] = '\0';
    pthread_mutex_lock(&hub->lock);
    struct frame *f = &sub->ch->frames[(seq * 2 + full) % FRAMES];
    struct svc_hub_frame *old = f->f;
    *f = (struct frame){.seq = seq, .full = full, .f = fresh};
    pthread_mutex_unlock(&hub->lock);
    svc_hub_frame_unref(old);
    return fresh;
}

void svc_hub_frame_unref(struct svc_hub_frame *f)
{
    /* The last reference frees it: the release pairs with the acquire of whoever frees, so
     * that every reader's use happens before the free. */
    if (f != NULL && atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) == 1)
        free(f);
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

void *svc_hub_checkpoint_get(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t upto,
                             int64_t *seq, void *(*ref)(void *))
{
    void *value = NULL;
    *seq = 0;
    pthread_mutex_lock(&hub->lock);
    struct channel *c = sub->ch;
    for (int i = c->nckpt - 1; i >= 0 && value == NULL; i--)
        if (c->ckpt[i].seq <= upto) {
            value = ref(c->ckpt[i].value);
            *seq = c->ckpt[i].seq;
        }
    pthread_mutex_unlock(&hub->lock);
    return value;
}

/* Whether channel c would keep a checkpoint at seq of `bytes` (0: not yet known). */
static bool checkpoint_fits(const struct svc_hub *hub, const struct channel *c, int64_t seq,
                            size_t bytes)
{
    if (hub->ckpt_bytes + bytes > SVC_HUB_CHECKPOINT_BYTES)
        return false;
    for (int i = 0; i < c->nckpt; i++)
        if (c->ckpt[i].seq == seq)
            return false;
    return true;
}

bool svc_hub_checkpoint_wanted(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq)
{
    pthread_mutex_lock(&hub->lock);
    bool wanted = checkpoint_fits(hub, sub->ch, seq, 0);
    pthread_mutex_unlock(&hub->lock);
    return wanted;
}

void svc_hub_checkpoint_put(struct svc_hub *hub, struct svc_hub_sub *sub, void *value, int64_t seq,
                            size_t bytes, void (*unref)(void *))
{
    void *dropped = NULL;
    struct checkpoint gone = {0};
    pthread_mutex_lock(&hub->lock);
    struct channel *c = sub->ch;
    if (!checkpoint_fits(hub, c, seq, bytes)) {
        dropped = value;
    } else {
        if (c->nckpt == SVC_HUB_CHECKPOINTS) {
            /* Full: the interior one whose neighbours lie nearest goes, so that those kept
             * spread over the log (the first and the last stay). */
            int victim = 1;
            for (int i = 2; i < c->nckpt - 1; i++)
                if (c->ckpt[i + 1].seq - c->ckpt[i - 1].seq <
                    c->ckpt[victim + 1].seq - c->ckpt[victim - 1].seq)
                    victim = i;
            gone = c->ckpt[victim]; /* released below, outside the lock */
            hub->ckpt_bytes -= gone.bytes;
            memmove(&c->ckpt[victim], &c->ckpt[victim + 1],
                    (size_t)(c->nckpt - victim - 1) * sizeof c->ckpt[0]);
            c->nckpt--;
        }
        int at = c->nckpt;
        while (at > 0 && c->ckpt[at - 1].seq > seq)
            at--;
        memmove(&c->ckpt[at + 1], &c->ckpt[at], (size_t)(c->nckpt - at) * sizeof c->ckpt[0]);
        c->ckpt[at] = (struct checkpoint){seq, value, bytes, unref};
        c->nckpt++;
        hub->ckpt_bytes += bytes;
    }
    pthread_mutex_unlock(&hub->lock);
    if (dropped != NULL)
        unref(dropped);
    if (gone.value != NULL)
        gone.unref(gone.value); /* the hub's reference: a caller's own stays valid */
}

void svc_hub_count_folded(struct svc_hub *hub, uint64_t n)
{
    atomic_fetch_add(&hub->folded, n);
}

uint64_t svc_hub_folded(struct svc_hub *hub)
{
    return hub == NULL ? 0 : atomic_load(&hub->folded);
}
