/* Each thread's cache of jansson's small blocks (service/json/blocks.h, issue 33): a block
 * freed is given to the thread's next allocation of its size, always with room for what was
 * asked; a thread keeps at most SVC_JSON_BLOCK_KEEP bytes; a block may be freed on another
 * thread than the one that made it; and what a thread keeps is given back when it ends
 * (LeakSanitizer reports it otherwise). Under AddressSanitizer a kept block is poisoned. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "service/json/blocks.h"

Test(blocks, a_freed_block_serves_the_next_request_of_its_size)
{
    svc_json_blocks_release();
    void *a = svc_json_block_get(40);
    cr_assert_not_null(a);
    memset(a, 0x5a, 40);
    svc_json_block_put(a);
    cr_assert_gt(svc_json_blocks_kept(), 0);
    /* 33 to 40 bytes take the same size of block (a chunk of 48 bytes in glibc's terms). */
    void *b = svc_json_block_get(33);
    cr_assert_eq(b, a, "the block kept was not given back");
    cr_assert_eq(svc_json_blocks_kept(), 0);
    /* A larger request is not given a smaller block. */
    svc_json_block_put(b);
    void *c = svc_json_block_get(41);
    cr_assert_neq(c, a);
    cr_assert_geq(malloc_usable_size(c), 41);
    free(c); /* any block may go to free() */
    svc_json_blocks_release();
    cr_assert_eq(svc_json_blocks_kept(), 0);
}

Test(blocks, every_block_has_room_for_what_was_asked)
{
    svc_json_blocks_release();
    /* Through the classes and past the largest, each size twice: the second from the kept
     * block of the first where there is one. */
    for (size_t n = 0; n <= 1100; n++) {
        for (int round = 0; round < 2; round++) {
            unsigned char *p = svc_json_block_get(n);
            cr_assert_not_null(p);
            cr_assert_geq(malloc_usable_size(p), n, "%zu bytes asked, %zu given", n,
                          malloc_usable_size(p));
            memset(p, 0xa5, n); /* AddressSanitizer reports a write past the block */
            svc_json_block_put(p);
        }
    }
    cr_assert_leq(svc_json_blocks_kept(), SVC_JSON_BLOCK_KEEP);
    svc_json_blocks_release();
}

Test(blocks, a_thread_keeps_a_bounded_number_of_bytes)
{
    svc_json_blocks_release();
    enum { N = 20000 };
    void **p = malloc(N * sizeof *p);
    cr_assert_not_null(p);
    for (int i = 0; i < N; i++)
        p[i] = svc_json_block_get(64);
    for (int i = 0; i < N; i++)
        svc_json_block_put(p[i]); /* 20,000 x 72 bytes: the rest go back to malloc */
    cr_assert_leq(svc_json_blocks_kept(), SVC_JSON_BLOCK_KEEP);
    cr_assert_gt(svc_json_blocks_kept(), SVC_JSON_BLOCK_KEEP - 1024);
    free(p);
    svc_json_blocks_release();
}

/* Makes jansson values on a thread of its own and ends with them freed there (kept by that
 * thread, until its end gives them back). */
static void *values_on_a_thread(void *arg)
{
    json_t *made = json_pack("{s:i, s:s, s:[i, i]}", "a", 1, "b", "text", "c", 2, 3);
    json_t *given = arg;
    json_decref(made);
    json_decref(given); /* made on the test's thread, freed here */
    return (void *)svc_json_blocks_kept();
}

Test(blocks, values_freed_on_another_thread_and_a_threads_end)
{
    json_t *v = json_pack("{s:s, s:i}", "name", "goblin", "hp", 7);
    cr_assert_not_null(v);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, values_on_a_thread, v), 0);
    void *kept = NULL;
    cr_assert_eq(pthread_join(t, &kept), 0);
    cr_assert_gt((size_t)kept, 0, "the thread kept none of the blocks it freed");
    /* Its end gave them back: LeakSanitizer, at the test's end, reports any that was not. */
}

Test(blocks, jansson_allocates_through_them)
{
    svc_json_blocks_release();
    json_t *one = json_integer(1);
    cr_assert_not_null(one);
    json_decref(one);
    cr_assert_gt(svc_json_blocks_kept(), 0, "jansson's free did not keep the block");
    json_t *two = json_integer(2);
    cr_assert_eq(two, one, "jansson's next value of the size did not take the kept block");
    cr_assert_eq(json_integer_value(two), 2);
    json_decref(two);
    svc_json_blocks_release();
}
