/* The slow-client watchdog's arithmetic (server.c): a connection is cut only when more than
 * --timeout has passed since its last answer. */
#include <criterion/criterion.h>

#include "service/http/server.h"

Test(watchdog, overdue_only_past_the_limit)
{
    cr_assert(svc_watch_overdue(1000, 1000 + 30000001, 30000000));
    cr_assert_not(svc_watch_overdue(1000, 1000 + 30000000, 30000000));
    cr_assert_not(svc_watch_overdue(1000, 1000, 30000000));
}

/* The watchdog once read the clock before taking its lock, so an answer finished in between
 * left since later than now; the unsigned difference wrapped and the connection was cut just
 * after its answer. */
Test(watchdog, a_since_later_than_now_is_not_overdue)
{
    cr_assert_not(svc_watch_overdue(5000, 4999, 30000000));
    cr_assert_not(svc_watch_overdue(UINT64_MAX, 0, 0));
}
