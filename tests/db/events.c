/* The db suites' log readers (events.h). */
#include "tests/db/events.h"

#include <assert.h>
#include <stddef.h>

int test_db_count_contiguous(void *ud, int64_t seq, const char *kind, const char *payload,
                             const char *created_at)
{
    (void)kind, (void)payload, (void)created_at;
    int64_t *n = ud;
    assert(n != NULL);
    if (seq != *n + 1)
        return 1;
    (*n)++;
    return 0;
}
