/* What the db suites share to read a log back. */
#ifndef TACTICS_TEST_DB_EVENTS_H
#define TACTICS_TEST_DB_EVENTS_H

#include <stdint.h>

/* A db_event_fn counting the events of a log that runs 1, 2, 3, ... with no gap: ud is an
 * int64_t count (start it at 0); a gap stops the read (returns 1) with the count so far. */
int test_db_count_contiguous(void *ud, int64_t seq, const char *kind, const char *payload,
                             const char *created_at);

#endif
