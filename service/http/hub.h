/* The hub: who listens to which encounter's live feed, and what the newest event of each is.
 *
 * A write that appends an event calls svc_hub_appended after its commit; so does anything
 * else that learns of a new event (the poller that reads the database for writes made by other
 * processes, and on PostgreSQL the LISTEN/NOTIFY listener, server.c): the hub keeps, per encounter
 * with subscribers, the highest event number it was told of (its generation), and wakes every
 * subscriber parked on it. A subscriber never holds a thread: its connection is parked
 * (suspended) through a callback the caller gives, under the hub's lock, only when nothing has
 * happened since what it last handled; waking calls the subscriber's wake callback outside the
 * lock. The hub also caps subscribers (in all, per encounter and per client address), wakes
 * parked subscribers whose keep-alive is due or whose client hung up (svc_hub_tick), keeps the
 * last formatted frames of each encounter, so that a thousand subscribers woken by one write
 * format it once, and a few checkpoints of its fold, so that a subscriber resuming far behind
 * starts near where it resumes rather than from the first event.
 *
 * The hub knows no HTTP and no database: it is plain pthreads, safe to call from any thread. */
#ifndef TACTICS_SVC_HUB_H
#define TACTICS_SVC_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct svc_hub;
struct svc_hub_sub;

#define SVC_HUB_ID_MAX 40 /* an encounter id's longest length, without its NUL */

enum svc_hub_status {
    SVC_HUB_OK = 0,
    SVC_HUB_FULL = -1,           /* --max-subscribers reached */
    SVC_HUB_FULL_ENCOUNTER = -2, /* --max-subscribers-per-encounter reached */
    SVC_HUB_CLOSING = -3,        /* the server is stopping */
    SVC_HUB_NOMEM = -4,
    SVC_HUB_FULL_ADDRESS = -5, /* --max-subscribers-per-address reached */
};

#define SVC_HUB_ADDRESS_MAX 63 /* a client address's longest text, without its NUL */

/* A hub for at most max_total subscribers, max_per_encounter on one encounter and
 * max_per_address from one client address, each sent a keep-alive after keepalive_us without a
 * write. NULL when out of memory. */
struct svc_hub *svc_hub_new(unsigned max_total, unsigned max_per_encounter,
                            unsigned max_per_address, uint64_t keepalive_us);

/* The waker runs at most once every us microseconds (0: as each write comes): the wakes of
 * the writes in between wait and go together, so a subscriber behind a burst is woken once for
 * all of them and sends them in one go, and a write is not held by a thousand sends of the one
 * before. A NULL hub is accepted. */
void svc_hub_coalesce(struct svc_hub *hub, uint64_t us);

/* Frees the hub; every subscriber must have left. NULL is accepted. */
void svc_hub_free(struct svc_hub *hub);

/* Event `version` of encounter id is committed: raises its generation and wakes its parked
 * subscribers. Cheap when nobody listens to id. A NULL hub is accepted (no feeds). */
void svc_hub_appended(struct svc_hub *hub, const char *id, int64_t version);

/* Encounter id is gone (deleted): its subscribers are woken and see it. NULL hub: nothing. */
void svc_hub_deleted(struct svc_hub *hub, const char *id);

/* Joins encounter id's subscribers from client `address` (its text; NULL or empty: not counted
 * by address) with its current version, checking the caps: *out gets the subscription, to leave
 * with svc_hub_leave. */
int svc_hub_join(struct svc_hub *hub, const char *id, int64_t version, const char *address,
                 struct svc_hub_sub **out);

/* How a subscriber is woken once parked: wake(cookie) runs outside the hub's lock, once per
 * park. fd is the client's socket, watched for a hang-up while parked (-1: not watched). Call
 * before the first svc_hub_park. */
void svc_hub_attach(struct svc_hub_sub *sub, void (*wake)(void *), void *cookie, int fd);

/* Leaves; sub is freed. The subscriber must not be parked (it never is once its connection is
 * being torn down: a parked connection does nothing). */
void svc_hub_leave(struct svc_hub *hub, struct svc_hub_sub *sub);

/* What a subscriber sees when it looks. */
struct svc_hub_view {
    int64_t version; /* the encounter's generation: the newest event the hub knows of */
    bool deleted;    /* the encounter was deleted */
    bool closing;    /* the server is stopping */
    bool hung_up;    /* the client closed its side */
};

void svc_hub_look(struct svc_hub *hub, struct svc_hub_sub *sub, struct svc_hub_view *v);

/* Parks the subscriber, calling park(cookie) under the hub's lock, unless the generation is
 * past `known`, the encounter was deleted, the server is closing, or the client hung up; true
 * when parked. last_write_us is when it last wrote (the keep-alive counts from it). */
bool svc_hub_park(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t known,
                  uint64_t last_write_us, void (*park)(void *), void *cookie);

/* Wakes every parked subscriber whose keep-alive is due at now_us, or whose client hung up. */
void svc_hub_tick(struct svc_hub *hub, uint64_t now_us);

/* Stops the hub: every subscriber is woken and sees closing, and none parks again. */
void svc_hub_close(struct svc_hub *hub);

/* The ids of the encounters that have subscribers (at most max), for the poller; the count. */
size_t svc_hub_ids(struct svc_hub *hub, char (*ids)[SVC_HUB_ID_MAX + 1], size_t max);

/* Subscribers now, in all. */
unsigned svc_hub_count(struct svc_hub *hub);

/* A memo the subscribers of one encounter share: the caller's value (here, the encounter's
 * state folded up to event *seq, so that each new event is told from the state before it
 * without folding the log from its start). take hands it over (NULL when there is none yet)
 * and makes the channel's other takers wait until it is put back, so one subscriber at a time
 * reads the database for the encounter and the others find its frames cached; put gives it
 * back folded to seq (NULL: none; the hub frees the memo with its free_fn when the last
 * subscriber leaves). Every take must be followed by a put. */
void *svc_hub_memo_take(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t *seq);
void svc_hub_memo_put(struct svc_hub *hub, struct svc_hub_sub *sub, void *memo, int64_t seq,
                      void (*free_fn)(void *));

/* Checkpoints of an encounter's fold (the caller's values, immutable once given): a subscriber
 * that resumes behind the memo starts from the latest one at or before where it resumes. The
 * caller offers one every SVC_HUB_CHECKPOINT_EVERY events; the hub keeps at most
 * SVC_HUB_CHECKPOINTS an encounter (when full it drops the one whose neighbours lie nearest, so
 * they spread over the whole log) and SVC_HUB_CHECKPOINT_BYTES in all, freed with the channel.
 * get returns ref(value) of the latest at or before upto (*seq gets its event), or NULL;
 * wanted says whether one at seq would be kept; put hands one over (bytes: its size), which
 * the hub releases with unref when it does not keep it. */
#define SVC_HUB_CHECKPOINT_EVERY 256
#define SVC_HUB_CHECKPOINTS      16
#define SVC_HUB_CHECKPOINT_BYTES (64u << 20)
void *svc_hub_checkpoint_get(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t upto,
                             int64_t *seq, void *(*ref)(void *));
bool svc_hub_checkpoint_wanted(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq);
void svc_hub_checkpoint_put(struct svc_hub *hub, struct svc_hub_sub *sub, void *value, int64_t seq,
                            size_t bytes, void (*unref)(void *));

/* The events read and folded to catch subscribers up, in all (a counter for /metrics: each
 * event once per subscriber at most, not once per batch). */
void svc_hub_count_folded(struct svc_hub *hub, uint64_t n);
uint64_t svc_hub_folded(struct svc_hub *hub);

/* The frame cache: the formatted text of event seq of sub's encounter, as a reader who sees
 * all (full) or the public view sees it, formatted once and shared by every subscriber that
 * sends it: a frame is immutable and counted, and each reader holds a reference while it sends
 * the bytes, which are never copied per subscriber. ref returns a reference to
 * the frame held for (seq, full), or NULL; put keeps text as the frame for (seq, full) (the
 * oldest of the last few is dropped) and returns a reference to it for the caller to send, or
 * NULL when out of memory; unref gives a reference back (NULL is accepted). */
struct svc_hub_frame {
    _Atomic unsigned refs;
    size_t len;
    char text[]; /* len bytes and a NUL */
};
struct svc_hub_frame *svc_hub_frame_ref(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq,
                                        bool full);
struct svc_hub_frame *svc_hub_frame_put(struct svc_hub *hub, struct svc_hub_sub *sub, int64_t seq,
                                        bool full, const char *text, size_t len);
void svc_hub_frame_unref(struct svc_hub_frame *f);

#endif
