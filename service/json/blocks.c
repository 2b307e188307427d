/* Each thread's cache of jansson's small blocks (blocks.h). */
#include "service/json/blocks.h"

#include <assert.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define BLOCKS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCKS_ASAN 1
#endif
#endif
#ifdef BLOCKS_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Sizes go by glibc's chunks: a request of n bytes takes a chunk of (n + 8) rounded up to 16
 * (32 at least), whose usable size is the chunk less 8. Class c holds blocks of exactly
 * c * 16 - 8 usable bytes, and is malloc'd at that size, so that malloc_usable_size names the
 * class of any block, whichever malloc made it (AddressSanitizer's answers the size asked, which
 * is then the class's own). */
#define GRAIN          16u
#define MIN_CLASS      2u  /* 24 bytes: glibc's smallest chunk */
#define MAX_CLASS      32u /* 504 bytes */
#define CLASS_BYTES(c) ((size_t)(c)*GRAIN - 8u)

/* A kept block's first word links it to the next kept block of its class. */
struct kept {
    struct kept *next;
};

static _Thread_local struct {
    struct kept *head[MAX_CLASS + 1];
    size_t bytes; /* the sum of the kept blocks' sizes */
    bool registered;
} blocks;

static pthread_key_t ending;
static pthread_once_t ending_once = PTHREAD_ONCE_INIT;

static void release_at_end(void *unused)
{
    (void)unused;
    svc_json_blocks_release();
    blocks.registered = false; /* a later destructor's free registers again (POSIX runs it) */
}

static void make_ending_key(void)
{
    if (pthread_key_create(&ending, release_at_end) != 0)
        abort(); /* only when the process is out of keys, at its first free */
}

/* The class serving a request of n bytes, or 0 when n is larger than the largest class. */
static inline unsigned class_of_request(size_t n)
{
    if (n > CLASS_BYTES(MAX_CLASS))
        return 0;
    unsigned c = (unsigned)((n + 8u + GRAIN - 1u) / GRAIN);
    return c < MIN_CLASS ? MIN_CLASS : c;
}

void *svc_json_block_get(size_t n)
{
    unsigned c = class_of_request(n);
    if (c == 0)
        return malloc(n);
    struct kept *k = blocks.head[c];
    if (k == NULL)
        return malloc(CLASS_BYTES(c));
    UNPOISON(k, CLASS_BYTES(c));
    blocks.head[c] = k->next;
    blocks.bytes -= CLASS_BYTES(c);
    return k;
}

void svc_json_block_put(void *p)
{
    if (p == NULL)
        return;
    size_t u = malloc_usable_size(p);
    size_t c = (u + 8u) / GRAIN;
    if ((u + 8u) % GRAIN != 0 || c < MIN_CLASS || c > MAX_CLASS ||
        blocks.bytes + u > SVC_JSON_BLOCK_KEEP) {
        free(p);
        return;
    }
    if (!blocks.registered) { /* the thread's end gives its blocks back */
        pthread_once(&ending_once, make_ending_key);
        if (pthread_setspecific(ending, &blocks) != 0) {
            free(p);
            return;
        }
        blocks.registered = true;
    }
    struct kept *k = p;
    k->next = blocks.head[c];
    blocks.head[c] = k;
    blocks.bytes += u;
    POISON((char *)p + sizeof *k, u - sizeof *k);
}

size_t svc_json_blocks_kept(void)
{
    return blocks.bytes;
}

void svc_json_blocks_release(void)
{
    for (unsigned c = MIN_CLASS; c <= MAX_CLASS; c++) {
        while (blocks.head[c] != NULL) {
            struct kept *k = blocks.head[c];
            blocks.head[c] = k->next;
            UNPOISON(k, CLASS_BYTES(c));
            free(k);
        }
    }
    blocks.bytes = 0;
}
