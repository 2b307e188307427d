/* Each thread's cache of jansson's small blocks (issue 33). jansson makes one allocation per
 * value, name and text: an encounter's attack action made about 390 and freed as many, and
 * glibc's own per-thread cache keeps only 7 blocks of a size, so most of them went through
 * malloc's and free's slow paths (and were gathered again by the next large malloc's
 * consolidation): 122k of the action's 494k instructions (callgrind). These keep, for each
 * thread, the blocks up to 512 bytes that jansson freed, by size, and give them back to the
 * next allocation of that size on the thread.
 *
 * Every block is an ordinary malloc'd block, owned by whoever holds it: a block may be freed
 * on any thread (a value that lived in a cache goes to the freeing thread's blocks), or given
 * to free(), and svc_json_block_put takes any malloc'd block. So this is not an arena: no
 * value is tied to a request or a thread. A thread keeps at most SVC_JSON_BLOCK_KEEP bytes;
 * what it holds when it ends is given back to malloc. Under AddressSanitizer a kept block is
 * poisoned, so a value used after its free is still reported. */
#ifndef TACTICS_SVC_JSON_BLOCKS_H
#define TACTICS_SVC_JSON_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

/* The bytes one thread keeps at most. */
#define SVC_JSON_BLOCK_KEEP (256u * 1024u)

/* n bytes (malloc's alignment), from this thread's kept blocks when one fits, else malloc;
 * NULL when out of memory. Give it back with svc_json_block_put or free(). */
void *svc_json_block_get(size_t n);
/* Keeps p (any malloc'd block, or NULL) for this thread's next svc_json_block_get of its size,
 * or frees it when it is larger than the cache's sizes or the thread keeps enough already. */
void svc_json_block_put(void *p);
/* The bytes this thread keeps (for tests). */
size_t svc_json_blocks_kept(void);
/* Gives everything this thread keeps back to malloc (as a thread's end does). */
void svc_json_blocks_release(void);

#endif
