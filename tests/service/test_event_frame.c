/* map.png?at=N&overlay=event (issue 31: "map.png?at=N cannot show what event N did; to show
 * the move just made, the user rebuilt the scene by hand for POST /v1/render"). The frame of
 * one event draws its own ruling: a move's path with the feet spent, from where it began; an
 * attack's line with hit or miss and the damage, on the board as it left it; nothing for an
 * event that rules nothing on the board. The board (12 x 12, d20 3.5):
 *   kroh "Kroh" (party) at 5,5: walk 30, AC 15, longsword +8 (1d8+3);
 *   goblin "the goblin" (monsters) at 8,8: AC 15, 6 hp;
 *   gnoll "the gnoll" (monsters) at 8,6: AC 15, battleaxe +3.
 * Initiative from the table's dice: kroh 21, gnoll 11, goblin 6; round 2 begun on kroh's turn. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/service/builders.h"
#include "tests/service/harness.h"

SERVER_TEST_SUITE(event_frame);

static void board(struct enc *e)
{
    enc_create(&srv, e, "{\"map\":{\"width\":12,\"height\":12},\"seed\":5}");
    static const char *const bodies[] = {
        "{\"id\":\"kroh\",\"name\":\"Kroh\",\"side\":\"party\",\"x\":5,\"y\":5,\"speeds\":{"
        "\"walk\":30},\"ac\":15,\"dex\":10,\"max_hp\":30,\"attacks\":[{\"name\":\"longsword\","
        "\"attack_bonus\":8,\"damage\":\"1d8+3\"}]}",
        "{\"id\":\"goblin\",\"name\":\"the goblin\",\"side\":\"monsters\",\"x\":8,\"y\":8,"
        "\"speeds\":{\"walk\":30},\"ac\":15,\"dex\":10,\"max_hp\":6,\"attacks\":[{\"name\":"
        "\"morningstar\",\"attack_bonus\":2}]}",
        "{\"id\":\"gnoll\",\"name\":\"the gnoll\",\"side\":\"monsters\",\"x\":8,\"y\":6,"
        "\"speeds\":{\"walk\":30},\"ac\":15,\"dex\":10,\"max_hp\":11,\"attacks\":[{\"name\":"
        "\"battleaxe\",\"attack_bonus\":3,\"damage\":\"1d8+1\"}]}"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        json_decref(enc_call(&srv, e, "POST", "/combatants", NULL, bodies[i], 201));
    enc_post_ok(&srv, e, "/initiative", "{\"results\":[20,1,5,1,10,1]}");
    for (int i = 0; i < 4; i++)
        enc_post_ok(&srv, e, "/next-turn", NULL);
}

static void frame(struct enc *e, const char *query, struct http_response *r)
{
    char path[192];
    snprintf(path, sizeof path, "/v1/encounters/%s/map.svg%s", e->id, query);
    http_request(&srv, "GET", path, NULL, NULL, r);
    cr_assert_eq(r->status, 200, "%s: %.300s", query, r->body);
}

static int count(const struct http_response *r, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(r->body, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Where a creature's token stands: the centre of its group's first shape (cx="..." cy="..."). */
static char *token(const struct http_response *r, const char *id)
{
    char head[96];
    snprintf(head, sizeof head, "data-id=\"%s\"", id);
    const char *g = strstr(r->body, head);
    cr_assert_not_null(g, "%s is drawn", id);
    const char *cx = strstr(g, "<circle cx=");
    cr_assert_not_null(cx);
    const char *radius = strstr(cx, " r=");
    cr_assert_not_null(radius);
    return strndup(cx, (size_t)(radius - cx));
}

Test(event_frame, a_move_is_drawn_from_where_it_began_with_its_feet)
{
    struct enc e;
    board(&e);
    long long before = e.version;
    /* Kroh moves to (7, 7): 5,6 then 6,7 (the first diagonal, 5 ft) then 7,7: 15 ft. */
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"kroh\",\"to\":{\"x\":7,\"y\":7}}");
    char q[96];
    struct http_response was, now, ev;
    snprintf(q, sizeof q, "?at=%lld", before);
    frame(&e, q, &was);
    snprintf(q, sizeof q, "?at=%lld", e.version);
    frame(&e, q, &now);
    snprintf(q, sizeof q, "?at=%lld&overlay=event", e.version);
    frame(&e, q, &ev);
    char *start = token(&was, "kroh"), *end = token(&now, "kroh"), *drawn = token(&ev, "kroh");
    cr_assert_str_neq(start, end, "Kroh moved");
    cr_assert_str_eq(drawn, start, "the move's frame draws Kroh where he began");
    free(start);
    free(end);
    free(drawn);
    /* The path's feet, as the move ruled them (bold in the path's ink; the grid's numbers are
     * grey), and the mover ringed. */
    cr_assert_eq(count(&ev, "fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"3.0\" "
                            "paint-order=\"stroke\" stroke-linejoin=\"round\">5</text>"),
                 1, "%s", ev.body);
    cr_assert_eq(count(&ev, "round\">10</text>"), 1);
    cr_assert_eq(count(&ev, "round\">15</text>"), 1);
    cr_assert_eq(count(&ev, "class=\"creature mover\""), 1);
    cr_assert_eq(count(&ev, ">path (ft spent)</text>"), 1, "the legend says what the path is");
    cr_assert_eq(count(&ev, "class=\"strike"), 0);
    /* Without overlay=event the same frame has none of it. */
    cr_assert_eq(count(&now, ">path (ft spent)</text>"), 0);
    cr_assert_eq(count(&now, "round\">15</text>"), 0);
    http_response_free(&was);
    http_response_free(&now);
    http_response_free(&ev);
}

Test(event_frame, an_attack_is_drawn_hit_or_miss_with_its_damage)
{
    struct enc e;
    board(&e);
    enc_post_ok(&srv, &e, "/actions",
                "{\"type\":\"move\",\"actor\":\"kroh\",\"to\":{\"x\":7,\"y\":7}}");
    /* d20 15 + 8 = 23 against AC 15: a hit; 1d8 (5) + 3 = 8 damage. */
    enc_post_ok(&srv, &e, "/actions", TB_ATTACK("kroh", "goblin", "[15,5]"));
    char q[96];
    struct http_response r;
    snprintf(q, sizeof q, "?at=%lld&overlay=event", e.version);
    frame(&e, q, &r);
    cr_assert_eq(count(&r, "class=\"strike hit\""), 1, "%s", r.body);
    cr_assert_eq(count(&r, ">hit, 8 damage</text>"), 1);
    cr_assert_eq(count(&r, ">attack: hit</text>"), 1, "the legend");
    cr_assert_eq(count(&r, ">attack: missed</text>"), 0);
    /* On the board the attack left: the goblin (6 hp) is at -2, dying. */
    cr_assert_eq(count(&r, ">dying</text>"), 1);
    http_response_free(&r);

    /* The gnoll's turn: d20 2 + 3 = 5 against Kroh's AC 15, a miss. */
    enc_post_ok(&srv, &e, "/next-turn", NULL);
    enc_post_ok(&srv, &e, "/actions", TB_ATTACK("gnoll", "kroh", "[2]"));
    snprintf(q, sizeof q, "?at=%lld&overlay=event", e.version);
    frame(&e, q, &r);
    cr_assert_eq(count(&r, "class=\"strike miss\""), 1, "%s", r.body);
    cr_assert_eq(count(&r, ">missed</text>"), 1);
    cr_assert_eq(count(&r, ">attack: missed</text>"), 1);
    http_response_free(&r);

    /* A turn's start rules nothing on the board: no marks. */
    snprintf(q, sizeof q, "?at=%lld&overlay=event", e.version - 1);
    frame(&e, q, &r);
    cr_assert_eq(count(&r, "class=\"strike"), 0);
    cr_assert_eq(count(&r, ">path (ft spent)</text>"), 0);
    http_response_free(&r);
}

/* ?focus names a combatant as an action's actor does (issue 31: names, not only ids): by its
 * name in any case or the start of one; one that could name several is refused, listing them. */
Test(event_frame, focus_takes_a_name)
{
    struct enc e;
    board(&e);
    struct http_response r;
    frame(&e, "?focus=KROH", &r);
    cr_assert_eq(count(&r, "data-id=\"kroh\" class=\"creature mover\""), 1, "%.300s", r.body);
    http_response_free(&r);
    frame(&e, "?focus=the%20gob", &r);
    cr_assert_eq(count(&r, "data-id=\"goblin\" class=\"creature mover\""), 1);
    http_response_free(&r);
    char path[192];
    snprintf(path, sizeof path, "/v1/encounters/%s/map.svg?focus=the", e.id);
    http_request(&srv, "GET", path, NULL, NULL, &r);
    cr_assert_eq(r.status, 422, "%.300s", r.body);
    cr_assert(strstr(r.body, "goblin (the goblin)") && strstr(r.body, "gnoll (the gnoll)"), "%s",
              r.body);
    http_response_free(&r);
}
