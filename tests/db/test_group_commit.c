/* Group commit on SQLite (db/sqlite_group.c): appends made at once share one transaction, each
 * under its own savepoint. To put several appends into one batch for certain, a test holds
 * SQLite's write lock from a connection of its own (BEGIN IMMEDIATE), starts its writers, waits
 * until all of them are queued (db_group_commit_stats), and then lets the lock go: the leader,
 * blocked in BEGIN, takes them all at once. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "tests/db/events.h"

static char dir[64];
static char path[160];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tactics-gc-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
}

static void teardown(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(group_commit, .init = setup, .fini = teardown, .timeout = 120);

static const unsigned char token[DB_HASH_LEN] = {7};

static void create(struct db *db, const char *id)
{
    cr_assert_eq(db_encounter_create(db, id, token, "{}", "{\"v\":1}", "created", "{}", NULL),
                 DB_OK);
}

/* The database at path, opened, with n encounters e0, e1, ... created in it. */
static struct db *open_with_encounters(int n)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    for (int i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "e%d", i);
        create(db, id);
    }
    return db;
}

/* One writer: an append and what it gave back. */
struct writer {
    pthread_t t;
    struct db *db;
    char id[32];
    int64_t expected;
    const char *payload, *state;
    struct db_replay *replay;
    int rc;
    int64_t current;
};

static void *append_once(void *arg)
{
    struct writer *w = arg;
    w->rc = db_encounter_append(w->db, w->id, w->expected, "a", w->payload ? w->payload : "{}",
                                w->state, w->replay, &w->current);
    return NULL;
}

/* Holds the file's write lock from a connection of its own. */
static sqlite3 *hold_write_lock(void)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    return h;
}

static void release_write_lock(sqlite3 *h)
{
    cr_assert_eq(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

/* Waits until n appends wait for the leader, however long the threads take to get there. */
static void wait_queued(struct db *db, unsigned n)
{
    struct db_group_stats s;
    for (;;) {
        db_group_commit_stats(db, &s);
        if (s.queued >= n)
            return;
        usleep(10000);
    }
}

/* Starts the writers on db while the lock is held, so that they commit as one batch, and joins
 * them. */
static void run_as_one_batch(struct db *db, struct writer *w, int n)
{
    sqlite3 *h = hold_write_lock();
    for (int i = 0; i < n; i++) {
        w[i].db = db;
        pthread_create(&w[i].t, NULL, append_once, &w[i]);
    }
    wait_queued(db, (unsigned)n);
    release_write_lock(h);
    for (int i = 0; i < n; i++)
        pthread_join(w[i].t, NULL);
}

/* The largest batch group commit has made on db. */
static uint64_t largest_batch(struct db *db)
{
    struct db_group_stats st;
    db_group_commit_stats(db, &st);
    return st.largest;
}

/* The encounter's stored version, and that its log is 1..version with no gap. */
static int64_t stored_version(struct db *db, const char *id)
{
    struct db_encounter e;
    cr_assert_eq(db_encounter_get(db, id, &e), DB_OK, "%s", id);
    free(e.state_json);
    int64_t n = 0;
    cr_assert_eq(db_events(db, id, 0, INT64_MAX, 100000, test_db_count_contiguous, &n), DB_OK);
    cr_assert_eq(n, e.version, "%s: events 1..%lld contiguous, version %lld", id, (long long)n,
                 (long long)e.version);
    return e.version;
}

/* Every writer of w[0..n) but the one at `failed` committed its append: version 2. */
static void others_committed(struct db *db, const struct writer *w, int n, int failed)
{
    for (int i = 0; i < n; i++)
        if (i != failed) {
            cr_assert_eq(w[i].rc, DB_OK, "%s: %s", w[i].id, db_strerror(w[i].rc));
            cr_assert_eq(stored_version(db, w[i].id), 2);
        }
}

#define THREADS 16
#define EACH    40

struct stream {
    pthread_t t;
    struct db *db;
    char id[32];
    int ok, errors;
};

/* EACH appends to the writer's own encounter, each at the version the last one made. */
static void *append_stream(void *arg)
{
    struct stream *s = arg;
    int64_t v = 1;
    for (int k = 0; k < EACH; k++) {
        char state[48];
        snprintf(state, sizeof state, "{\"v\":%lld}", (long long)v + 1);
        int64_t cur = 0;
        if (db_encounter_append(s->db, s->id, v, "a", "{}", state, NULL, &cur) == DB_OK &&
            cur == v + 1) {
            s->ok++;
            v = cur;
        } else {
            s->errors++;
            return NULL;
        }
    }
    return NULL;
}

Test(group_commit, many_threads_on_different_encounters_all_commit_in_shared_transactions)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    struct stream s[THREADS];
    for (int i = 0; i < THREADS; i++) {
        s[i] = (struct stream){.db = db};
        snprintf(s[i].id, sizeof s[i].id, "e%d", i);
        create(db, s[i].id);
    }
    /* The first appends wait behind a held lock, so that the first batch holds all of them. */
    sqlite3 *h = hold_write_lock();
    for (int i = 0; i < THREADS; i++)
        pthread_create(&s[i].t, NULL, append_stream, &s[i]);
    wait_queued(db, THREADS);
    release_write_lock(h);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(s[i].t, NULL);
        cr_assert_eq(s[i].errors, 0, "writer %d", i);
        cr_assert_eq(s[i].ok, EACH);
    }
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(stored_version(db, s[i].id), 1 + EACH, "%s", s[i].id);
        struct db_encounter e;
        cr_assert_eq(db_encounter_get(db, s[i].id, &e), DB_OK);
        char want[48];
        snprintf(want, sizeof want, "{\"v\":%d}", 1 + EACH);
        cr_assert_str_eq(e.state_json, want);
        free(e.state_json);
    }
    struct db_group_stats st;
    db_group_commit_stats(db, &st);
    cr_assert_eq(st.writes, THREADS * EACH);
    cr_assert_eq(st.largest, THREADS, "the first batch held every writer: %llu",
                 (unsigned long long)st.largest);
    cr_assert_lt(st.commits, st.writes);
    cr_assert_eq(st.queued, 0);
    db_close(db);
}

/* In one batch: two good appends, one at a stale version (412), one to no encounter, two to one
 * encounter at one version, two with one idempotency key. Each gets the answer it would get
 * alone, in some order, and the good ones commit. */
Test(group_commit, a_stale_version_gets_its_conflict_while_the_batch_commits)
{
    struct db *db = open_with_encounters(6);
    struct db_replay keyed[2];
    for (int i = 0; i < 2; i++) {
        keyed[i] = (struct db_replay){.key = "k", .status = 200, .version = 2};
        memcpy(keyed[i].scope, token, DB_HASH_LEN);
    }
    struct writer w[8] = {
        {.id = "e0", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e1", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e2", .expected = 0, .state = "{\"v\":2}"}, /* stale */
        {.id = "gone", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e3", .expected = 1, .state = "{\"v\":2}"}, /* the same encounter twice */
        {.id = "e3", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e4", .expected = 1, .state = "{\"v\":2}", .replay = &keyed[0]}, /* one key */
        {.id = "e5", .expected = 1, .state = "{\"v\":2}", .replay = &keyed[1]},
    };
    run_as_one_batch(db, w, 8);
    cr_assert_eq(largest_batch(db), 8);

    cr_assert_eq(w[0].rc, DB_OK);
    cr_assert_eq(w[0].current, 2);
    cr_assert_eq(w[1].rc, DB_OK);
    cr_assert_eq(w[2].rc, DB_ERR_CONFLICT, "%s", db_strerror(w[2].rc));
    cr_assert_eq(w[2].current, 1);
    cr_assert_eq(w[3].rc, DB_ERR_NOT_FOUND);
    cr_assert(w[4].rc == DB_OK || w[5].rc == DB_OK, "one of the two appends to e3 commits");
    struct writer *lost = w[4].rc == DB_OK ? &w[5] : &w[4];
    cr_assert_eq(lost->rc, DB_ERR_CONFLICT);
    cr_assert_eq(lost->current, 2, "the loser sees the winner's event");
    cr_assert(w[6].rc == DB_OK || w[7].rc == DB_OK, "one of the keyed appends writes");
    struct writer *replayed = w[6].rc == DB_OK ? &w[7] : &w[6];
    cr_assert_eq(replayed->rc, DB_ERR_REPLAY);
    cr_assert_str_eq(replayed->replay->encounter_id, w[6].rc == DB_OK ? "e4" : "e5");

    cr_assert_eq(stored_version(db, "e0"), 2);
    cr_assert_eq(stored_version(db, "e1"), 2);
    cr_assert_eq(stored_version(db, "e2"), 1);
    cr_assert_eq(stored_version(db, "e3"), 2);
    cr_assert_eq(stored_version(db, "e4") + stored_version(db, "e5"), 3);
    db_close(db);
}

/* An append that fails half way (its event inserted, then its state refused by NOT NULL) rolls
 * back to its savepoint: its event is gone, its neighbours' are committed. */
Test(group_commit, a_failing_writer_undoes_only_its_own_event)
{
    struct db *db = open_with_encounters(4);
    struct writer w[4] = {
        {.id = "e0", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e1", .expected = 1, .state = NULL}, /* fails after its event is written */
        {.id = "e2", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e3", .expected = 1, .state = "{\"v\":2}"},
    };
    run_as_one_batch(db, w, 4);
    cr_assert_eq(largest_batch(db), 4);
    cr_assert_eq(w[1].rc, DB_ERR_IO);
    cr_assert_eq(stored_version(db, "e1"), 1, "the failed append's event was rolled back");
    others_committed(db, w, 4, 1);
    db_close(db);
}

/* An append refused for want of room (the file capped, SQLITE_FULL: SQLite may end the whole
 * transaction) fails alone; the others in its batch commit. */
Test(group_commit, a_full_disk_refusal_fails_only_the_writer_that_needed_the_room)
{
    struct db *db = open_with_encounters(4);
    cr_assert_eq(db_limit_size(db, 256 * 1024), DB_OK);
    size_t big_len = 2 * 1024 * 1024;
    char *big = malloc(big_len + 16);
    cr_assert_not_null(big);
    strcpy(big, "{\"x\":\"");
    memset(big + 6, 'a', big_len);
    strcpy(big + 6 + big_len, "\"}");
    struct writer w[4] = {
        {.id = "e0", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e1", .expected = 1, .state = "{\"v\":2}", .payload = big},
        {.id = "e2", .expected = 1, .state = "{\"v\":2}"},
        {.id = "e3", .expected = 1, .state = "{\"v\":2}"},
    };
    run_as_one_batch(db, w, 4);
    free(big);
    cr_assert_eq(w[1].rc, DB_ERR_IO);
    cr_assert_eq(stored_version(db, "e1"), 1);
    others_committed(db, w, 4, 1);
    db_close(db);
}

/* With group commit off, each append is its own transaction: the counts stay at zero. */
Test(group_commit, off_commits_each_append_alone)
{
    struct db *db = NULL;
    cr_assert_eq(db_open(path, &db), DB_OK);
    db_set_group_commit(db, false);
    create(db, "e0");
    int64_t cur = 0;
    cr_assert_eq(db_encounter_append(db, "e0", 1, "a", "{}", "{}", NULL, &cur), DB_OK);
    cr_assert_eq(cur, 2);
    cr_assert_eq(db_encounter_append(db, "e0", 1, "a", "{}", "{}", NULL, &cur), DB_ERR_CONFLICT);
    cr_assert_eq(cur, 2);
    struct db_group_stats st;
    db_group_commit_stats(db, &st);
    cr_assert_eq(st.commits, 0);
    cr_assert_eq(stored_version(db, "e0"), 2);
    db_close(db);
}

/* ---- db_encounter_append_async ---- */

/* The completions an asynchronous append's done has counted, and on which threads. */
struct completions {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int count;
};

struct async_writer {
    struct db_append_wait w;
    struct completions *c;
    int calls;
    char id[16];
};

static void async_done(void *ud)
{
    struct async_writer *a = ud;
    pthread_mutex_lock(&a->c->lock);
    a->calls++;
    a->c->count++;
    pthread_cond_broadcast(&a->c->changed);
    pthread_mutex_unlock(&a->c->lock);
}

/* Waits until n completions came (no deadline: a lost one fails by the suite's timeout). */
static void wait_completions(struct completions *c, int n)
{
    pthread_mutex_lock(&c->lock);
    while (c->count < n)
        pthread_cond_wait(&c->changed, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

/* Queues n asynchronous appends (to e1, e2, ...; a[k] at expected[k]) behind a leader blocked in
 * BEGIN (a synchronous writer to e0, lead), each answered DB_PENDING, then lets the lock go and
 * waits for every completion. */
static void run_behind_a_blocked_leader(struct db *db, struct writer *lead, struct async_writer *a,
                                        const int64_t *expected, int n, struct completions *c)
{
    sqlite3 *h = hold_write_lock();
    *lead = (struct writer){.db = db, .id = "e0", .expected = 1, .state = "{\"v\":2}"};
    pthread_create(&lead->t, NULL, append_once, lead);
    wait_queued(db, 1); /* it leads, and waits for the lock */
    for (int i = 0; i < n; i++) {
        a[i] = (struct async_writer){.c = c, .w = {.done = async_done, .ud = &a[i]}};
        snprintf(a[i].id, sizeof a[i].id, "e%d", i + 1);
        cr_assert_eq(db_encounter_append_async(db, &a[i].w, a[i].id, expected[i], "a", "{}",
                                               "{\"v\":2}", NULL),
                     DB_PENDING, "append %d queued behind the leader", i);
    }
    release_write_lock(h);
    pthread_join(lead->t, NULL);
    wait_completions(c, n);
}

/* Appends queued behind a leader return at once (DB_PENDING) and hold no thread; each is told
 * once, after the commit, with what a synchronous append would have returned. */
Test(group_commit, async_appends_behind_a_leader_are_told_once_after_the_commit)
{
    struct db *db = open_with_encounters(6);
    struct completions c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    struct writer lead;
    struct async_writer a[5];
    int64_t expected[5] = {1, 1, 0, 1, 1}; /* e3: stale */
    run_behind_a_blocked_leader(db, &lead, a, expected, 5, &c);
    cr_assert_eq(lead.rc, DB_OK);
    cr_assert_eq(largest_batch(db), 6, "the leader's batch held every queued append");
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(a[i].calls, 1, "append %d told once", i);
        cr_assert_eq(a[i].w.rc, i == 2 ? DB_ERR_CONFLICT : DB_OK, "%d: %s", i,
                     db_strerror(a[i].w.rc));
        cr_assert_eq(a[i].w.current, i == 2 ? 1 : 2);
        cr_assert_eq(stored_version(db, a[i].id), i == 2 ? 1 : 2);
    }
    db_close(db);
}

/* More appends than one batch holds: the leader steps down with asynchronous appends at the
 * queue's head, which have no thread of their own to lead; the committer leads them. */
Test(group_commit, async_appends_left_at_the_head_of_the_queue_are_still_committed)
{
    enum { N = 70 }; /* past GROUP_MAX (64) with the leader's own */
    struct db *db = open_with_encounters(N + 1);
    struct completions c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    struct writer lead;
    static struct async_writer a[N];
    int64_t expected[N];
    for (int i = 0; i < N; i++)
        expected[i] = 1;
    run_behind_a_blocked_leader(db, &lead, a, expected, N, &c);
    cr_assert_eq(largest_batch(db), 64);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(a[i].calls, 1, "append %d told once", i);
        cr_assert_eq(a[i].w.rc, DB_OK, "%d: %s", i, db_strerror(a[i].w.rc));
        cr_assert_eq(stored_version(db, a[i].id), 2);
    }
    struct db_group_stats st;
    db_group_commit_stats(db, &st);
    cr_assert_eq(st.writes, N + 1);
    cr_assert_eq(st.queued, 0);
    db_close(db);
}

/* A lone asynchronous append leads at once on its own thread, as a synchronous one: its result
 * is returned, and done is never called. So it is with group commit off. */
Test(group_commit, a_lone_async_append_completes_at_once)
{
    for (int on = 1; on >= 0; on--) {
        struct db *db = NULL;
        cr_assert_eq(db_open(path, &db), DB_OK);
        db_set_group_commit(db, on);
        if (on)
            create(db, "e0");
        struct completions c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        struct async_writer a = {.c = &c, .w = {.done = async_done, .ud = &a}};
        int64_t v = on ? 1 : 2;
        cr_assert_eq(db_encounter_append_async(db, &a.w, "e0", v, "a", "{}", "{}", NULL), DB_OK);
        cr_assert_eq(a.w.rc, DB_OK);
        cr_assert_eq(a.w.current, v + 1);
        cr_assert_eq(db_encounter_append_async(db, &a.w, "e0", v, "a", "{}", "{}", NULL),
                     DB_ERR_CONFLICT);
        cr_assert_eq(a.w.current, v + 1);
        cr_assert_eq(a.calls, 0);
        db_close(db);
    }
}
