/* What a storage backend provides to db.c: one table of functions per backend (libuv's unix/
 * and win/ behind one interface), so that db.c dispatches through the table and names no
 * backend but in its list of them. Each function keeps the contract of its db.h namesake; `b`
 * is the backend's own handle, made by open. */
#ifndef TACTICS_DB_BACKEND_H
#define TACTICS_DB_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"

struct db_backend_ops {
    const char *name;
    /* Whether path (a db_open argument) names a database of this backend. */
    bool (*claims)(const char *path);
    int (*open)(const char *path, void **out);
    void (*close)(void *b);
    int (*check_ready)(void *b);
    int (*schema_version)(void *b, int *out);
    /* NULL: the backend has no size of its own to cap (the operator's, as on PostgreSQL). */
    int (*limit_size)(void *b, uint64_t max_bytes);
    void (*write_health)(void *b, struct db_write_health *out);
    uint64_t (*error_count)(const void *b);
    void (*set_replay_ttl)(void *b, int64_t seconds);
    int (*replay_get)(void *b, struct db_replay *r);
    int (*encounter_create)(void *b, const char *id, const unsigned char *token_hash,
                            const char *rules_json, const char *state_json, int count,
                            const char *const *kinds, const char *const *payloads,
                            struct db_replay *replay);
    int (*encounter_get)(void *b, const char *id, struct db_encounter *out);
    int (*encounter_append)(void *b, const char *id, int64_t expected, const char *kind,
                            const char *payload_json, const char *state_json,
                            struct db_replay *replay, int64_t *current);
    /* NULL: db_encounter_append_async runs encounter_append. Otherwise it returns DB_PENDING or
     * the result, and sets w->current (and w->rc when pending, before calling w->done). */
    int (*encounter_append_async)(void *b, struct db_append_wait *w, const char *id,
                                  int64_t expected, const char *kind, const char *payload_json,
                                  const char *state_json, struct db_replay *replay);
    int (*encounter_delete)(void *b, const char *id, int64_t expected, int64_t *current);
    int (*encounter_list)(void *b, const unsigned char *token_hash, const char *after, int limit,
                          db_encounter_fn fn, void *ud);
    int (*events)(void *b, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn,
                  void *ud);
    int (*channel_put)(void *b, const struct db_channel *c);
    int (*channel_get)(void *b, const char *channel_id, struct db_channel *out);
    /* NULL: no group commit (each append is its own transaction). */
    void (*set_group_commit)(void *b, bool on);
    void (*group_stats)(void *b, struct db_group_stats *out);
    /* NULL: no change notifications (db_listen_start answers DB_ERR_UNSUPPORTED). The
     * listener is the backend's own, stopped with listen_stop. */
    int (*listen_start)(void *b, db_change_fn fn, void *ud, void **listener);
    void (*listen_stop)(void *listener);
};

/* The ops that each backend forwards, unchanged, to its own function of the same name
 * (db_sqlite_<name>, db_pg_<name>) taking its own handle type: each ops.c defines them from
 * this one list with DB_BACKEND_DEFINE_FORWARDS, as X(return type, name, parameters, arguments). */
#define DB_BACKEND_FORWARDED(X)                                                                    \
    X(int, check_ready, (void *b), (b))                                                            \
    X(int, schema_version, (void *b, int *out), (b, out))                                          \
    X(uint64_t, error_count, (const void *b), (b))                                                 \
    X(int, replay_get, (void *b, struct db_replay *r), (b, r))                                     \
    X(int, encounter_create,                                                                       \
      (void *b, const char *id, const unsigned char *token_hash, const char *rules_json,           \
       const char *state_json, int count, const char *const *kinds, const char *const *payloads,   \
       struct db_replay *replay),                                                                  \
      (b, id, token_hash, rules_json, state_json, count, kinds, payloads, replay))                 \
    X(int, encounter_get, (void *b, const char *id, struct db_encounter *out), (b, id, out))       \
    X(int, encounter_append,                                                                       \
      (void *b, const char *id, int64_t expected, const char *kind, const char *payload_json,      \
       const char *state_json, struct db_replay *replay, int64_t *current),                        \
      (b, id, expected, kind, payload_json, state_json, replay, current))                          \
    X(int, encounter_delete, (void *b, const char *id, int64_t expected, int64_t *current),        \
      (b, id, expected, current))                                                                  \
    X(int, encounter_list,                                                                         \
      (void *b, const unsigned char *token_hash, const char *after, int limit, db_encounter_fn fn, \
       void *ud),                                                                                  \
      (b, token_hash, after, limit, fn, ud))                                                       \
    X(int, events,                                                                                 \
      (void *b, const char *id, int64_t after, int64_t upto, int limit, db_event_fn fn, void *ud), \
      (b, id, after, upto, limit, fn, ud))                                                         \
    X(int, channel_put, (void *b, const struct db_channel *c), (b, c))                             \
    X(int, channel_get, (void *b, const char *channel_id, struct db_channel *out),                 \
      (b, channel_id, out))
/* The forwarded ops that answer nothing. */
#define DB_BACKEND_FORWARDED_VOID(X)                                                               \
    X(close, (void *b), (b))                                                                       \
    X(write_health, (void *b, struct db_write_health *out), (b, out))                              \
    X(set_replay_ttl, (void *b, int64_t seconds), (b, seconds))

/* In a backend's ops.c, with DB_BACKEND_PREFIXED(name) defined as its function of that name:
 * DB_BACKEND_DEFINE_FORWARDS() defines the forwarded ops as static functions forward_<name>,
 * and DB_BACKEND_FORWARDED_ENTRIES are their entries in its table. */
#define DB_BACKEND_FORWARD_ONE(type, name, params, args)                                           \
    static type forward_##name params                                                              \
    {                                                                                              \
        return DB_BACKEND_PREFIXED(name) args;                                                     \
    }
#define DB_BACKEND_FORWARD_VOID_ONE(name, params, args)                                            \
    static void forward_##name params                                                              \
    {                                                                                              \
        DB_BACKEND_PREFIXED(name) args;                                                            \
    }
#define DB_BACKEND_DEFINE_FORWARDS()                                                               \
    DB_BACKEND_FORWARDED(DB_BACKEND_FORWARD_ONE)                                                   \
    DB_BACKEND_FORWARDED_VOID(DB_BACKEND_FORWARD_VOID_ONE)
#define DB_BACKEND_ENTRY(type, name, params, args) .name = forward_##name,
#define DB_BACKEND_VOID_ENTRY(name, params, args)  .name = forward_##name,
#define DB_BACKEND_FORWARDED_ENTRIES                                                               \
    DB_BACKEND_FORWARDED(DB_BACKEND_ENTRY) DB_BACKEND_FORWARDED_VOID(DB_BACKEND_VOID_ENTRY)

extern const struct db_backend_ops db_sqlite_ops; /* db/sqlite/ops.c: a file path */
extern const struct db_backend_ops db_pg_ops;     /* db/pg/ops.c: postgres:// URLs */

#endif
