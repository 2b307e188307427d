/* An encounter's frames: GET /v1/encounters/{id}/map.png and map.svg, the board after event
 * ?at, with the overlays asked for (?overlay=, ?focus=, ?size=). Decoding and encoding only:
 * render/ draws, rules/ decides.
 *
 * The frame after event `at` never changes: its ETag is the event number plus a hash of the
 * query that shaped it, so it changes exactly when the frame would, and If-None-Match answers
 * 304 before anything is drawn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "service/codec/move.h"
#include "service/codec/picture.h"
#include "service/encounter/encounter.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_COVER_LINES 64
#define MAX_AREA        100000

#define SVC_PICTURE_HASH_SEED 14695981039346656037ULL

/* --- GET /v1/encounters/{id}/map.png and map.svg --- */

static const char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static bool has_cond(json_t *c, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(c, "conditions"), i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

/* A stored combatant as the picture needs it: creature, side, looks, and as a mover its walk
 * speed. The state was validated when written, so fields are read as they are. */
static void combatant_of(json_t *c, const struct rules_options *o, struct render_creature *k,
                         char *label, size_t label_n)
{
    int size = rules_size_from_name(str_of(c, "size"));
    if (size < 0)
        size = RULES_SIZE_MEDIUM;
    struct rules_creature *cr = &k->mc.c;
    rules_creature_init(cr, (enum rules_size)size, (int)json_integer_value(json_object_get(c, "x")),
                        (int)json_integer_value(json_object_get(c, "y")),
                        (int)json_integer_value(json_object_get(c, "z")));
    json_t *reach = json_object_get(c, "reach_ft");
    if (json_is_integer(reach))
        cr->reach_ft = (int)json_integer_value(reach);
    cr->reach_weapon = json_is_true(json_object_get(c, "reach_weapon"));
    cr->faceless = json_is_true(json_object_get(c, "faceless"));
    cr->facing = (int)json_integer_value(json_object_get(c, "facing"));
    if (cr->facing < 0 || cr->facing >= rules_facing_count(o))
        cr->facing = 0;
    /* As the encounter's own movement sees its combatants (004 Flat-Footed: no attacks of
     * opportunity; unconscious and helpless creatures threaten nothing). */
    cr->can_threaten = !has_cond(c, "flat_footed");
    k->mc.conscious = !has_cond(c, "unconscious") && !has_cond(c, "helpless");
    k->mc.combat_reflexes = json_is_true(json_object_get(c, "combat_reflexes"));
    k->id = str_of(c, "id");
    const char *name = str_of(c, "name");
    svc_picture_label(name[0] ? name : k->id, label, label_n);
    k->label = label;
    json_t *hp = json_object_get(c, "hp"), *max_hp = json_object_get(c, "max_hp");
    if (json_is_integer(hp) && json_is_integer(max_hp)) {
        k->hp_known = true;
        k->hp = (int)json_integer_value(hp);
        k->max_hp = (int)json_integer_value(max_hp);
    }
    for (int b = 0; svc_picture_cond_names[b] != NULL; b++)
        if (has_cond(c, svc_picture_cond_names[b]))
            k->conditions |= svc_picture_cond_bits[b];
    if (has_cond(c, "helpless"))
        k->conditions |= RENDER_COND_UNCONSCIOUS;
}

/* ?overlay=threatened,flanking,reach,facing (reach and facing are the focus creature's). */
static void frame_overlays(const char *list, struct render_overlays *ov, struct svc_errors *e)
{
    static const char *const names[] = {"threatened", "flanking", "reach", "facing", "none"};
    const char *p = list;
    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ",");
        int k = -1;
        for (int i = 0; i < 5; i++)
            if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
                k = i;
        if (k < 0) {
            svc_errors_add(e, "?overlay",
                           "query overlay is a comma-separated list of threatened, flanking, "
                           "reach, facing");
            return;
        }
        ov->threatened |= k == 0;
        ov->flanking |= k == 1;
        ov->reach |= k == 2;
        ov->facing_of = k == 3 ? 0 : ov->facing_of; /* resolved to the focus below */
        p += n;
        if (*p == ',')
            p++;
    }
}

static void encounter_map(const struct svc_request *req, struct svc_response *res,
                          enum render_format f)
{
    struct svc_errors e;
    svc_errors_init(&e);
    int size = svc_picture_size(req, &e);
    const char *overlay = svc_request_query(req, "overlay");
    const char *focus = svc_request_query(req, "focus");
    struct render_overlays ov = {
        .facing_of = -1, .forced_creature = -1, .path_end_facing = -1, .legend = true};
    frame_overlays(overlay, &ov, &e);
    if ((ov.reach || ov.facing_of >= 0) && focus == NULL)
        svc_errors_add(&e, "?overlay",
                       "reach and facing are drawn for the focus creature: add "
                       "focus=ID");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return;
    }
    svc_errors_free(&e);
    int64_t at = 0, version = 0;
    json_t *state = svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    /* The frame after event `at` never changes: its ETag is the event and the query's shape. */
    char shape[256], etag[96];
    snprintf(shape, sizeof shape, "%d|%s|%s", size, overlay ? overlay : "", focus ? focus : "");
    snprintf(etag, sizeof etag, "\"v%lld-%s-%08llx\"", (long long)at,
             f == RENDER_SVG ? "svg" : "png",
             svc_picture_hash(shape, strlen(shape), SVC_PICTURE_HASH_SEED) & 0xffffffffULL);
    const char *inm = svc_request_header(req, "If-None-Match");
    if (inm != NULL && (strstr(inm, etag) != NULL || strcmp(inm, "*") == 0)) {
        json_decref(state);
        svc_respond_raw(res, 304, NULL, "", 0);
        svc_response_add_header(res, "ETag", etag);
        svc_response_add_header(res, "Cache-Control", "no-cache");
        return;
    }
    struct svc_board board = {0};
    svc_errors_init(&e);
    svc_decode_board(state, req, NULL, NULL, &board, &e);
    json_t *list = json_object_get(state, "combatants");
    size_t n = json_array_size(list);
    struct render_creature *cs = calloc(n + 1, sizeof *cs);
    char(*labels)[24] = calloc(n + 1, sizeof *labels);
    const char *sides[RENDER_SIDE_COLOURS * 4];
    int side_count = 0;
    if (cs == NULL || labels == NULL || !board.map_ok || board.spent != NULL ||
        svc_errors_any(&e)) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the encounter's map could not be read", NULL);
        goto out;
    }
    int focus_i = -1;
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(list, i);
        combatant_of(c, &board.rules.options, &cs[i], labels[i], sizeof labels[i]);
        const char *side = str_of(c, "side");
        int s = 0;
        while (s < side_count && strcmp(sides[s], side) != 0)
            s++;
        if (s == side_count && side_count < (int)(sizeof sides / sizeof sides[0]))
            sides[side_count++] = side;
        cs[i].side = s;
        if (focus != NULL && strcmp(cs[i].id, focus) == 0)
            focus_i = (int)i;
    }
    if (focus != NULL && focus_i < 0) {
        svc_errors_add(&e, "?focus", "query focus names no combatant");
        svc_errors_respond(&e, res);
        goto out;
    }
    if (ov.facing_of >= 0)
        ov.facing_of = rules_has_facing(&board.rules.options, &cs[focus_i].mc.c) ? focus_i : -1;
    struct rules_mover stats = {0};
    if (focus_i >= 0) {
        json_t *c = json_array_get(list, (size_t)focus_i);
        stats.c = cs[focus_i].mc.c;
        json_t *speeds = json_object_get(c, "speeds");
        for (int t = 0; t < RULES_MOVE_TYPES; t++)
            stats.speed[t] =
                (int)json_integer_value(json_object_get(speeds, rules_move_type_names[t]));
        stats.prone = has_cond(c, "prone");
    }
    struct render_scene scene = {.o = &board.rules.options,
                                 .map = &board.map,
                                 .creatures = cs,
                                 .creature_count = (int)n,
                                 .side_names = sides,
                                 .side_count = side_count,
                                 /* The focus is the actor: ringed, and threats are its
                                  * enemies' (everyone's with no focus). */
                                 .mover = focus_i,
                                 .stats = &stats,
                                 .mode = RULES_MODE_MOVE,
                                 .focus = focus_i,
                                 .ov = ov,
                                 .max_width = size,
                                 .max_height = size,
                                 .work = &board.work};
    bool searching = ov.reach;
    if (searching && !svc_search_begin(req, res))
        goto out;
    svc_picture_draw_respond(res, &scene, f, etag);
    if (res->status == 200)
        svc_response_add_header(res, "Cache-Control", "no-cache");
    if (searching)
        svc_search_end();
out:
    svc_errors_free(&e);
    free(cs);
    free(labels);
    svc_board_free(&board);
    json_decref(state);
}

void svc_handle_encounter_map_png(const struct svc_request *req, struct svc_response *res)
{
    encounter_map(req, res, RENDER_PNG);
}

void svc_handle_encounter_map_svg(const struct svc_request *req, struct svc_response *res)
{
    encounter_map(req, res, RENDER_SVG);
}
