/* The encounter state cache (service/state_cache.h): an entry is found only for its exact id
 * and version, taking it out hands it over, and the slots and byte budget are bounds. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/encounter/state_cache.h"

static const unsigned char hash_a[AUTH_HASH_LEN] = {1, 2, 3};

Test(state_cache, found_only_at_its_version_and_taken_out)
{
    struct svc_state_cache *c = svc_state_cache_new();
    cr_assert_not_null(c);
    unsigned char h[AUTH_HASH_LEN];
    size_t bytes = 0;
    cr_assert_null(svc_state_cache_take(c, "enc1", 1, h, &bytes));
    json_t *state = json_pack("{s:i}", "round", 3);
    svc_state_cache_put(c, "enc1", 7, hash_a, state, 100);
    cr_assert_null(svc_state_cache_take(c, "enc1", 6, h, &bytes));
    cr_assert_null(svc_state_cache_take(c, "enc1", 8, h, &bytes));
    cr_assert_null(svc_state_cache_take(c, "enc2", 7, h, &bytes));
    json_t *got = svc_state_cache_take(c, "enc1", 7, h, &bytes);
    cr_assert_eq(got, state);
    cr_assert_eq(bytes, 100);
    cr_assert_eq(memcmp(h, hash_a, AUTH_HASH_LEN), 0);
    /* Taken out: a second writer at the same version finds nothing and reads the database. */
    cr_assert_null(svc_state_cache_take(c, "enc1", 7, h, &bytes));
    json_decref(got);
    svc_state_cache_free(c);
}

Test(state_cache, dropped_for_a_deleted_encounter)
{
    struct svc_state_cache *c = svc_state_cache_new();
    unsigned char h[AUTH_HASH_LEN];
    size_t bytes = 0;
    svc_state_cache_put(c, "enc1", 2, hash_a, json_object(), 10);
    svc_state_cache_drop(c, "enc1");
    cr_assert_null(svc_state_cache_take(c, "enc1", 2, h, &bytes));
    svc_state_cache_free(c);
}

Test(state_cache, bounded_by_bytes_and_slots)
{
    struct svc_state_cache *c = svc_state_cache_new();
    unsigned char h[AUTH_HASH_LEN];
    size_t bytes = 0;
    svc_state_cache_put(c, "big", 1, hash_a, json_object(), SVC_STATE_CACHE_BYTES + 1);
    cr_assert_null(svc_state_cache_take(c, "big", 1, h, &bytes));
    /* More encounters than slots: some replace others, none leak (LeakSanitizer), and at most
     * SVC_STATE_CACHE_SLOTS are found. */
    enum { N = SVC_STATE_CACHE_SLOTS * 2 };
    char id[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(id[i], sizeof id[i], "e%d", i);
        svc_state_cache_put(c, id[i], 1, hash_a, json_integer(i), 10);
    }
    int found = 0;
    for (int i = 0; i < N; i++) {
        json_t *v = svc_state_cache_take(c, id[i], 1, h, &bytes);
        if (v != NULL) {
            cr_assert_eq(json_integer_value(v), i);
            found++;
        }
        json_decref(v);
    }
    cr_assert_gt(found, 0);
    cr_assert_leq(found, SVC_STATE_CACHE_SLOTS);
    svc_state_cache_free(c);
}

Test(state_cache, no_cache_keeps_nothing)
{
    unsigned char h[AUTH_HASH_LEN];
    size_t bytes = 0;
    svc_state_cache_put(NULL, "enc1", 1, hash_a, json_object(), 10);
    cr_assert_null(svc_state_cache_take(NULL, "enc1", 1, h, &bytes));
    svc_state_cache_drop(NULL, "enc1");
}

/* As a cache of fold checkpoints: a copy of the state cached at or before the version asked,
 * the entry left in place (the next page starts from it too), and its version readable without
 * a copy. */
Test(state_cache, a_fold_checkpoint_is_copied_at_or_before_and_stays)
{
    struct svc_state_cache *c = svc_state_cache_new();
    cr_assert_eq(svc_state_cache_version(c, "enc1"), -1);
    json_t *state = json_pack("{s:i}", "round", 3);
    svc_state_cache_put(c, "enc1", 40, hash_a, state, 100);
    cr_assert_eq(svc_state_cache_version(c, "enc1"), 40);
    int64_t v = 0;
    cr_assert_null(svc_state_cache_copy_upto(c, "enc1", 39, &v));
    json_t *copy = svc_state_cache_copy_upto(c, "enc1", 100, &v);
    cr_assert_eq(v, 40);
    cr_assert(copy != state && json_equal(copy, state));
    json_object_set_new(copy, "round", json_integer(9)); /* the caller's to change */
    json_decref(copy);
    copy = svc_state_cache_copy_upto(c, "enc1", 40, &v);
    cr_assert_eq(json_integer_value(json_object_get(copy, "round")), 3);
    json_decref(copy);
    cr_assert_null(svc_state_cache_copy_upto(c, "enc2", 100, &v));
    cr_assert_null(svc_state_cache_copy_upto(NULL, "enc1", 100, &v));
    cr_assert_eq(svc_state_cache_version(NULL, "enc1"), -1);
    svc_state_cache_free(c);
}

/* What a writer keeps beside a state (its typed encounter) goes and comes back with it, counts
 * against the byte budget, and the cache frees it whenever it lets the state go without handing
 * it over: replaced, dropped, over budget, taken by a caller that does not ask for it, or left
 * at the end. */
static int freed;
static void count_free(void *p)
{
    freed++;
    free(p);
}

Test(state_cache, what_is_kept_beside_a_state_follows_it)
{
    struct svc_state_cache *c = svc_state_cache_new();
    unsigned char h[AUTH_HASH_LEN];
    size_t bytes = 0;
    void *extra = NULL;
    freed = 0;
    int *mine = malloc(sizeof *mine);
    svc_state_cache_put_with(c, "enc1", 3, hash_a, json_object(), 10, mine, 1, count_free);
    cr_assert_null(svc_state_cache_take_with(c, "enc1", 2, h, &bytes, &extra));
    cr_assert_null(extra);
    json_t *got = svc_state_cache_take_with(c, "enc1", 3, h, &bytes, &extra);
    cr_assert_not_null(got);
    cr_assert_eq(extra, mine);
    cr_assert_eq(bytes, 10); /* the text's length, without what extra holds */
    cr_assert_eq(freed, 0);
    /* Put back, then replaced by a new version without one: freed. */
    svc_state_cache_put_with(c, "enc1", 3, hash_a, got, 10, mine, 1, count_free);
    svc_state_cache_put(c, "enc1", 4, hash_a, json_object(), 10);
    cr_assert_eq(freed, 1);
    /* Dropped; over the byte budget (never stored); taken by a caller not asking for it. */
    svc_state_cache_put_with(c, "enc1", 5, hash_a, json_object(), 10, malloc(1), 1, count_free);
    svc_state_cache_drop(c, "enc1");
    cr_assert_eq(freed, 2);
    svc_state_cache_put_with(c, "enc1", 6, hash_a, json_object(), SVC_STATE_CACHE_BYTES + 1,
                             malloc(1), 1, count_free);
    cr_assert_eq(freed, 3);
    /* Over the budget by what extra holds, though its text fits. */
    svc_state_cache_put_with(c, "enc1", 6, hash_a, json_object(), 10, malloc(1),
                             SVC_STATE_CACHE_BYTES, count_free);
    cr_assert_null(svc_state_cache_take(c, "enc1", 6, h, &bytes));
    cr_assert_eq(freed, 4);
    svc_state_cache_put_with(c, "enc1", 7, hash_a, json_object(), 10, malloc(1), 1, count_free);
    json_decref(svc_state_cache_take(c, "enc1", 7, h, &bytes));
    cr_assert_eq(freed, 5);
    /* Left in the cache at its end. */
    svc_state_cache_put_with(c, "enc1", 8, hash_a, json_object(), 10, malloc(1), 1, count_free);
    svc_state_cache_free(c);
    cr_assert_eq(freed, 6);
}
