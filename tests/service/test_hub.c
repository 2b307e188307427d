/* The hub's frame cache (service/http/hub.h): a frame is formatted once and its bytes shared by
 * every subscriber that sends it (issue 33: they were copied twice for each subscriber). */
#include <criterion/criterion.h>
#include <string.h>

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
    /* The cache drops the frame when a later event takes its slot (64 frames, two views each):
     * the subscriber still holding it reads it whole. */
    for (int64_t seq = 7; seq < 7 + 64; seq++) {
        struct svc_hub_frame *f = svc_hub_frame_put(hub, a, seq, true, "x", 1);
        cr_assert_not_null(f);
        svc_hub_frame_unref(f);
    }
    cr_assert_null(svc_hub_frame_ref(hub, a, 6, true));
    cr_assert_str_eq(theirs->text, text);
    svc_hub_frame_unref(theirs);
    svc_hub_frame_unref(NULL);
}
