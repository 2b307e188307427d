/* Each worker thread's scratch for a parsed body (scratch.h). */
#include "service/json/scratch.h"

#include <jansson.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define SCRATCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCRATCH_ASAN 1
#endif
#endif
#ifdef SCRATCH_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* 64 KB: the attack's body parses into about 5 KB; a body that needs more spills to malloc. */
#define SCRATCH_BYTES 65536
#define SCRATCH_ALIGN 16

static _Thread_local struct {
    alignas(SCRATCH_ALIGN) unsigned char mem[SCRATCH_BYTES];
    size_t used;
    bool active;
    bool spilled; /* an allocation inside did not fit and came from malloc */
} scratch;

static void *scratch_malloc(size_t n)
{
    if (scratch.active) {
        size_t take = (n + SCRATCH_ALIGN - 1) & ~(size_t)(SCRATCH_ALIGN - 1);
        if (take >= n && take <= SCRATCH_BYTES - scratch.used) {
            void *p = scratch.mem + scratch.used;
            scratch.used += take;
            UNPOISON(p, n);
            return p;
        }
        scratch.spilled = true;
    }
    return malloc(n);
}

bool svc_json_scratch_owns(const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)scratch.mem;
    return a >= lo && a < lo + SCRATCH_BYTES;
}

/* A scratch value freed on another thread is not in that thread's scratch, and would reach
 * free(): values made in scratch stay on their thread (scratch.h). */
static void scratch_free(void *p)
{
    if (!svc_json_scratch_owns(p))
        free(p);
}

/* Installed before main, before any jansson value exists or any thread starts. */
__attribute__((constructor)) static void scratch_install(void)
{
    json_set_alloc_funcs(scratch_malloc, scratch_free);
}

void svc_json_scratch_begin(void)
{
    POISON(scratch.mem, SCRATCH_BYTES);
    scratch.used = 0;
    scratch.spilled = false;
    scratch.active = true;
}

bool svc_json_scratch_end(void)
{
    scratch.active = false;
    return !scratch.spilled;
}

void svc_json_scratch_drop(json_t *v)
{
    if (v != NULL && !(svc_json_scratch_owns(v) && !scratch.spilled && !scratch.active))
        json_decref(v);
}
