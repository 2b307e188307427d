/* The parsed state of recently written encounters, kept so that the next write to one skips
 * reading its row and parsing its state (a third of an attack action's CPU before this). The
 * cache never decides anything: an entry is used only for the version the client names in
 * If-Match, and the write's transaction still checks that the database is at that version, so
 * a stale entry costs a 412 that the database would have given anyway, never a lost update.
 * Bounded: SVC_STATE_CACHE_SLOTS entries (direct-mapped by id) and SVC_STATE_CACHE_BYTES of
 * their JSON text in all. Thread-safe. */
#ifndef TACTICS_SVC_STATE_CACHE_H
#define TACTICS_SVC_STATE_CACHE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "service/http/auth.h"

#define SVC_STATE_CACHE_SLOTS 256
#define SVC_STATE_CACHE_BYTES (8u << 20)

struct svc_state_cache;

/* NULL when out of memory. */
struct svc_state_cache *svc_state_cache_new(void);
void svc_state_cache_free(struct svc_state_cache *c);

/* Takes out id's state if it is cached at exactly `version`: the caller owns the returned value
 * and gets the encounter's token hash and the size of the state's JSON text; NULL otherwise.
 * c may be NULL (no cache). */
json_t *svc_state_cache_take(struct svc_state_cache *c, const char *id, int64_t version,
                             unsigned char token_hash[AUTH_HASH_LEN], size_t *text_len);

/* Stores state (stolen) as id's at `version`; text_len is the size of its JSON, for the byte
 * budget. Replaces whatever shared the slot; dropped when over budget or when c is NULL. */
void svc_state_cache_put(struct svc_state_cache *c, const char *id, int64_t version,
                         const unsigned char token_hash[AUTH_HASH_LEN], json_t *state,
                         size_t text_len);

/* The same two with what the writer keeps beside the state (the encounter's typed state): put
 * stores extra (stolen; NULL: nothing), which holds extra_bytes of memory (counted against the
 * byte budget beside the text), with its free, which the cache calls when it drops the entry;
 * take hands it back (*extra, the caller's to free; NULL when none) with the state and the
 * length of its text alone. */
json_t *svc_state_cache_take_with(struct svc_state_cache *c, const char *id, int64_t version,
                                  unsigned char token_hash[AUTH_HASH_LEN], size_t *text_len,
                                  void **extra);
void svc_state_cache_put_with(struct svc_state_cache *c, const char *id, int64_t version,
                              const unsigned char token_hash[AUTH_HASH_LEN], json_t *state,
                              size_t text_len, void *extra, size_t extra_bytes,
                              void (*extra_free)(void *));

/* A copy of id's state if it is cached at a version at most `upto` (*version gets it); NULL
 * otherwise. The entry stays. For a cache of fold checkpoints (svc_context.folds): an
 * encounter's log is append-only, so the fold of its first N events never changes, and a later
 * fold may start from it rather than from event 1. */
json_t *svc_state_cache_copy_upto(struct svc_state_cache *c, const char *id, int64_t upto,
                                  int64_t *version);

/* The version id's state is cached at, or -1. */
int64_t svc_state_cache_version(struct svc_state_cache *c, const char *id);

/* Forgets id (a deleted encounter). */
void svc_state_cache_drop(struct svc_state_cache *c, const char *id);

#endif
