/* The PostgreSQL backend (pg.c): the functions db.c dispatches to. Each db_pg_X keeps the
 * contract of db_X in db.h; db_pg_open takes a libpq connection string or URL. */
#ifndef TACTICS_PG_INTERNAL_H
#define TACTICS_PG_INTERNAL_H

#include <stdint.h>

#include "db/db.h"

struct db_pg;

int db_pg_open(const char *conninfo, struct db_pg **out);
void db_pg_close(struct db_pg *db);
int db_pg_check_ready(struct db_pg *db);
int db_pg_schema_version(struct db_pg *db, int *out);
void db_pg_write_health(struct db_pg *db, struct db_write_health *out);
uint64_t db_pg_error_count(const struct db_pg *db);
void db_pg_set_replay_ttl(struct db_pg *db, int64_t seconds);
int db_pg_replay_get(struct db_pg *db, struct db_replay *r);
int db_pg_encounter_create(struct db_pg *db, const char *id, const unsigned char *token_hash,
                           const char *rules_json, const char *state_json, int count,
                           const char *const *kinds, const char *const *payloads,
                           struct db_replay *replay);
int db_pg_encounter_get(struct db_pg *db, const char *id, struct db_encounter *out);
int db_pg_encounter_append(struct db_pg *db, const char *id, int64_t expected, const char *kind,
                           const char *payload_json, const char *state_json,
                           struct db_replay *replay, int64_t *current);
int db_pg_channel_put(struct db_pg *db, const struct db_channel *ch);
int db_pg_channel_get(struct db_pg *db, const char *channel_id, struct db_channel *out);
int db_pg_encounter_delete(struct db_pg *db, const char *id, int64_t expected, int64_t *current);
int db_pg_encounter_list(struct db_pg *db, const unsigned char *token_hash, const char *after,
                         int limit, db_encounter_fn fn, void *ud);
int db_pg_events(struct db_pg *db, const char *id, int64_t after, int64_t upto, int limit,
                 db_event_fn fn, void *ud);

/* The channel every append and delete notifies (pg_notify, in its transaction) and the
 * listener (pg_listen.c) LISTENs on; payload "ID:VERSION" or "ID:deleted". */
#define DB_PG_CHANNEL "tactics_events"

/* The listener of db_listen_start (pg_listen.c): one thread and one connection of its own. */
struct db_pg_listener;
int db_pg_listen_start(const char *conninfo, db_change_fn fn, void *ud,
                       struct db_pg_listener **out);
void db_pg_listen_stop(struct db_pg_listener *l);
const char *db_pg_conninfo(const struct db_pg *db);

#endif
