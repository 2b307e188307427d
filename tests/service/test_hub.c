/* The hub's frame cache (service/http/hub.h): a frame is formatted once and its bytes shared by
 * every subscriber that sends it (issue 33: they were copied twice for each subscriber). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "service/http/hub.h"

static struct svc_hub *hub;
static struct svc_hub_sub *a, *b;

static void setup(void)
{
    hub = svc_hub_new(10, 10, 10, 15000000);
    cr_assert_not_null(hub);
    cr_assert_eq(svc_hub_join(hub, "enc1", 5, "127.0.0.1", &a), SVC_HUB_OK);
    cr_assert_eq(svc_hub_join(hub, "enc1", 5, "127.0.0.1", &b), SVC_HUB_OK);
}

static void teardown(void)
{
    svc_hub_leave(hub, a);
    svc_hub_leave(hub, b);
    svc_hub_free(hub);
}

TestSuite(hub, .init = setup, .fini = teardown);

/* One copy for all: what a subscriber put is what the others get, the same bytes at the same
 * address; each reference is given back on its own, and the frame outlives the cache's slot
 * while a subscriber still sends it. */
Test(hub, a_frame_is_shared_not_copied)
{
    const char text[] = "id: 6\ndata: {}\n\n";
    struct svc_hub_frame *mine = svc_hub_frame_put(hub, a, 6, true, text, sizeof text - 1);
    cr_assert_not_null(mine);
    cr_assert_eq(mine->len, sizeof text - 1);
    cr_assert_str_eq(mine->text, text);
    struct svc_hub_frame *theirs = svc_hub_frame_ref(hub, b, 6, true);
    cr_assert_eq(theirs, mine, "the second subscriber sends the first one's copy");
    /* Another reader's view of the same event is another frame; an event not put, none. */
    cr_assert_null(svc_hub_frame_ref(hub, b, 6, false));
    cr_assert_null(svc_hub_frame_ref(hub, b, 7, true));
    svc_hub_frame_unref(mine);
    /* The cache drops the frame when a later event takes its slot (256 frames, two views
     * each): the subscriber still holding it reads it whole. */
    for (int64_t seq = 7; seq < 7 + 128; seq++) {
        struct svc_hub_frame *f = svc_hub_frame_put(hub, a, seq, true, "x", 1);
        cr_assert_not_null(f);
        svc_hub_frame_unref(f);
    }
    cr_assert_null(svc_hub_frame_ref(hub, a, 6, true));
    cr_assert_str_eq(theirs->text, text);
    svc_hub_frame_unref(theirs);
    svc_hub_frame_unref(NULL);
}

/* The waker (issue 33): a write's event wakes the encounter's parked subscribers from the hub's
 * own thread, not the writer's, so that resuming a thousand connections is not part of the
 * write's answer; and stopping the hub runs the wakes still pending before it returns (the
 * server must not stop libmicrohttpd with a connection suspended). Waits on semaphores, never
 * on time. */
struct waked {
    sem_t done;    /* posted by the wake */
    sem_t release; /* the wake waits for it, when hold */
    bool hold;
    pthread_t by;
};

static void wake_fn(void *cookie)
{
    struct waked *w = cookie;
    w->by = pthread_self();
    sem_post(&w->done);
    if (w->hold)
        sem_wait(&w->release);
}

static void no_park(void *cookie)
{
    (void)cookie;
}

Test(hub, the_waker_wakes_subscribers_and_close_runs_what_is_pending)
{
    struct svc_hub *h = svc_hub_new(10, 10, 10, 15000000);
    struct svc_hub_sub *x, *y;
    cr_assert_eq(svc_hub_join(h, "one", 1, NULL, &x), SVC_HUB_OK);
    cr_assert_eq(svc_hub_join(h, "two", 1, NULL, &y), SVC_HUB_OK);
    static struct waked wx, wy;
    sem_init(&wx.done, 0, 0);
    sem_init(&wx.release, 0, 0);
    sem_init(&wy.done, 0, 0);
    sem_init(&wy.release, 0, 0);
    wx.hold = true; /* keeps the waker busy in x's wake */
    svc_hub_attach(x, wake_fn, &wx, -1);
    svc_hub_attach(y, wake_fn, &wy, -1);
    cr_assert(svc_hub_park(h, x, 1, 0, no_park, NULL));
    cr_assert(svc_hub_park(h, y, 1, 0, no_park, NULL));
    svc_hub_appended(h, "one", 2);
    sem_wait(&wx.done);
    cr_assert_not(pthread_equal(wx.by, pthread_self()), "woken from the writer's thread");
    /* The waker is held in x's wake: y's wake waits in the hub until close runs it. */
    svc_hub_appended(h, "two", 2);
    cr_assert_eq(sem_trywait(&wy.done), -1);
    svc_hub_close(h);
    cr_assert_eq(sem_trywait(&wy.done), 0, "close returned with a wake still pending");
    cr_assert(pthread_equal(wy.by, pthread_self()));
    sem_post(&wx.release);
    svc_hub_leave(h, x);
    svc_hub_leave(h, y);
    svc_hub_free(h);
}

static uint64_t test_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The waker's interval (--feed-coalesce): the wakes of writes that come less than the interval
 * after the waker's last run wait for the interval's end, so a subscriber behind a burst is
 * woken once for all of it and sends it in one go. The waker's first run starts no sooner than
 * the first append; the second no sooner than the interval after that: a bound from below,
 * which a loaded machine only makes later. (That the writes of the interval then share the
 * wake follows: a woken subscriber is not parked, so no write queues it twice; asserting it
 * here would need the two writes to land inside the interval, which a loaded machine may not
 * give.) */
Test(hub, wakes_closer_than_the_interval_wait_for_its_end)
{
    enum { INTERVAL_US = 80000 };
    struct svc_hub *h = svc_hub_new(10, 10, 10, 15000000);
    svc_hub_coalesce(h, INTERVAL_US);
    struct svc_hub_sub *x;
    cr_assert_eq(svc_hub_join(h, "one", 1, NULL, &x), SVC_HUB_OK);
    static struct waked wx;
    sem_init(&wx.done, 0, 0);
    sem_init(&wx.release, 0, 0);
    svc_hub_attach(x, wake_fn, &wx, -1);
    cr_assert(svc_hub_park(h, x, 1, 0, no_park, NULL));
    uint64_t first = test_mono_us();
    svc_hub_appended(h, "one", 2);
    sem_wait(&wx.done);
    cr_assert(svc_hub_park(h, x, 2, 0, no_park, NULL));
    svc_hub_appended(h, "one", 3);
    sem_wait(&wx.done);
    uint64_t second = test_mono_us();
    cr_assert_geq(second - first, INTERVAL_US, "woken again %llu us after the first write",
                  (unsigned long long)(second - first));
    /* Stopping the hub does not wait out the interval: close runs a held wake at once. */
    cr_assert(svc_hub_park(h, x, 3, 0, no_park, NULL));
    svc_hub_coalesce(h, 3600u * 1000000u);
    svc_hub_appended(h, "one", 4);
    svc_hub_close(h);
    cr_assert_eq(sem_trywait(&wx.done), 0, "close returned with a wake still held");
    svc_hub_leave(h, x);
    svc_hub_free(h);
}
