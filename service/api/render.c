/* Pictures of the board: POST /v1/render, the movement endpoints' map and creature shapes plus
 * the overlays wanted (an encounter's frames: service/encounter/frames.c). Decoding and
 * encoding only: render/ draws, rules/ decides.
 *
 * Decisions where the issue is silent (also in openapi.yaml):
 *  - The format comes from ?format= (png, svg), else from Accept (image/svg+xml without
 *    image/png gives SVG), else PNG (an encounter's frames take it from the path).
 *  - ?size=N bounds both sides of the picture (128 to 4096, default 1024).
 *  - A creature's short label is its `label` (at most 32 characters), else made from its id by
 *    svc_picture_labels, which keeps the labels it makes apart from each other and from those
 *    given.
 *  - The ETag of a POST answer is a hash of the picture's bytes; an encounter frame's is the
 *    event number plus a hash of the query that shaped it, so it changes exactly when the
 *    frame would, and If-None-Match answers 304 before anything is drawn. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "rules/encounter/hp.h"
#include "service/api/api.h"
#include "service/codec/move.h"
#include "service/codec/picture.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"
#include "text/text.h"

#define MAX_COVER_LINES 64
#define MAX_AREA        100000

/* ?format= or Accept; fixed >= 0 when the path names it. */
static int choose_format(const struct svc_request *req, int fixed, struct svc_errors *e)
{
    assert(fixed < 0 || fixed == RENDER_PNG || fixed == RENDER_SVG);
    if (fixed >= 0)
        return fixed;
    const char *f = svc_request_query(req, "format");
    if (f != NULL) {
        if (strcmp(f, "png") == 0)
            return RENDER_PNG;
        if (strcmp(f, "svg") == 0)
            return RENDER_SVG;
        svc_errors_add(e, "?format", "query format must be png or svg");
        return RENDER_PNG;
    }
    const char *accept = svc_request_header(req, "Accept");
    if (accept != NULL && strcasestr(accept, "image/svg+xml") != NULL &&
        strcasestr(accept, "image/png") == NULL)
        return RENDER_SVG;
    return RENDER_PNG;
}

/* --- POST /v1/render --- */

struct render_req {
    struct svc_board board;
    struct render_creature *cs;
    char (*labels)[RENDER_LABEL_BYTES];
    bool *given;        /* the request gave creature i's label */
    const char **names; /* what the others' labels are made from: the ids */
    int n;
    struct rules_step *path, *area, *forced;
    struct render_pair cover[MAX_COVER_LINES];
    struct render_scene scene;
};

static int find_creature(const struct render_req *r, const char *id)
{
    assert(id != NULL && r->n >= 0);
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->cs[i].id, id) == 0)
            return i;
    return -1;
}

/* A member naming a creature by id: its index, or -1 (with an error when present and
 * unknown). */
static int decode_ref(json_t *obj, const char *base, const char *key, bool required,
                      const struct render_req *r, struct svc_errors *e)
{
    const char *id = NULL;
    if (!codec_get_string(obj, base, key, required, 64, &id, e))
        return -1;
    int i = find_creature(r, id);
    if (i < 0) {
        char ptr[CODEC_PTR_MAX];
        codec_pointer(ptr, base, key);
        svc_errors_add(e, ptr, "names no creature");
    }
    return i;
}

/* A list of squares [{x, y, facing?}] ({q, r} on hexes), at most max. */
static struct rules_step *decode_squares(json_t *obj, const char *base, const char *key, size_t max,
                                         bool facings, const struct rules_options *o, int *n,
                                         struct svc_errors *e)
{
    assert(max > 0 && n != NULL);
    json_t *list = NULL;
    *n = 0;
    if (!codec_get_array(obj, base, key, false, max, &list, e))
        return NULL;
    struct rules_step *s = calloc(json_array_size(list) + 1, sizeof *s);
    if (s == NULL) {
        svc_errors_add(e, base, "could not be allocated");
        return NULL;
    }
    char lbase[CODEC_PTR_MAX];
    codec_pointer(lbase, base, key);
    for (size_t i = 0; i < json_array_size(list); i++) {
        char ptr[SVC_STEP_PTR_MAX];
        bool faced = false;
        svc_decode_step(json_array_get(list, i), lbase, i, o, &s[i], &faced, ptr, e);
        if (faced && !facings) {
            char fp[CODEC_PTR_MAX + 32];
            snprintf(fp, sizeof fp, "%s/facing", ptr);
            svc_errors_add(e, fp, "only a path's steps take a facing");
        }
    }
    *n = (int)json_array_size(list);
    return s;
}

/* The picture's own members of a creature: label (*given when it has one; the others are made
 * for the whole scene: svc_picture_labels), hp, max_hp, conditions. */
static void decode_looks(json_t *c, const char *ptr, struct render_creature *k, char *label,
                         size_t label_n, bool *given, struct svc_errors *e)
{
    const char *text = NULL;
    assert(label != NULL && label_n > 0);
    *given = codec_get_string(c, ptr, "label", false, 32, &text, e);
    if (*given)
        text_copy(label, label_n, text, SIZE_MAX);
    k->label = label;
    long long hp = 0, max_hp = 0;
    bool has_hp = codec_get_int(c, ptr, "hp", false, RULES_HP_MIN, RULES_HP_MAX, &hp, e);
    bool has_max = codec_get_int(c, ptr, "max_hp", false, 1, RULES_HP_MAX, &max_hp, e);
    if (has_hp != has_max) {
        char p[CODEC_PTR_MAX];
        codec_pointer(p, ptr, has_hp ? "max_hp" : "hp");
        svc_errors_add(e, p, "is required with %s", has_hp ? "hp" : "max_hp");
    }
    k->hp_known = has_hp && has_max;
    k->hp = (int)hp, k->max_hp = (int)max_hp;
    json_t *conds = NULL;
    if (codec_get_array(c, ptr, "conditions", false, 8, &conds, e)) {
        size_t i;
        json_t *v;
        json_array_foreach(conds, i, v)
        {
            int b = -1;
            for (int j = 0; svc_picture_cond_names[j] != NULL && json_is_string(v); j++)
                if (strcmp(svc_picture_cond_names[j], json_string_value(v)) == 0)
                    b = j;
            if (b < 0) {
                char p[CODEC_PTR_MAX + 32];
                snprintf(p, sizeof p, "%s/conditions/%zu", ptr, i);
                svc_errors_add(e, p,
                               "must be one of prone, flat_footed, dying, unconscious, dead, "
                               "disabled, stunned, stable");
                continue;
            }
            k->conditions |= svc_picture_cond_bits[b];
        }
    }
    /* Dying, dead, stable or unconscious creatures threaten nothing, and stunned ones can't act
     * (004 Threatened Area; 001; d20 3.5 SRD, Dying, Stunned). */
    if (k->conditions & RENDER_COND_DOWN)
        k->mc.conscious = false;
    if (k->conditions & (RENDER_COND_DOWN | RENDER_COND_STUNNED))
        k->mc.c.can_threaten = false;
}

static void decode_overlays(json_t *body, struct render_req *r, struct svc_errors *e)
{
    static const char *const keys[] = {"threatened", "reach",  "path", "end_facing",
                                       "flanking",   "cover",  "area", "forced",
                                       "facing",     "legend", NULL};
    struct render_overlays *ov = &r->scene.ov;
    const struct rules_options *o = &r->board.rules.options;
    json_t *obj = json_object_get(body, "overlays");
    if (obj == NULL || !codec_expect_object(obj, "/overlays", e))
        return;
    codec_reject_unknown(obj, "/overlays", keys, e);
    bool mover = r->scene.mover >= 0;
    codec_get_bool(obj, "/overlays", "threatened", false, &ov->threatened, e);
    codec_get_bool(obj, "/overlays", "flanking", false, &ov->flanking, e);
    codec_get_bool(obj, "/overlays", "legend", false, &ov->legend, e);
    json_t *reach = json_object_get(obj, "reach");
    if (json_is_boolean(reach)) {
        ov->reach = json_is_true(reach);
    } else if (reach != NULL && codec_expect_object(reach, "/overlays/reach", e)) {
        static const char *const rkeys[] = {"prefer", NULL};
        static const char *const prefer[] = {"cost", "fewest_attacks", NULL};
        codec_reject_unknown(reach, "/overlays/reach", rkeys, e);
        ov->reach = true;
        ov->reach_fewest_aoo =
            codec_get_enum(reach, "/overlays/reach", "prefer", prefer, false, 0, e) == 1;
    }
    if (ov->reach && !mover)
        svc_errors_add(e, "/overlays/reach", "needs a mover");
    r->path = decode_squares(obj, "/overlays", "path", RULES_MAX_PATH, true, o, &ov->path_len, e);
    ov->path = r->path;
    if (r->path != NULL && !mover)
        svc_errors_add(e, "/overlays/path", "needs a mover");
    long long ef = -1;
    CODEC_WITHIN(
        codec_get_int(obj, "/overlays", "end_facing", false, 0, rules_facing_count(o) - 1, &ef, e));
    ov->path_end_facing = (int)ef;
    r->area = decode_squares(obj, "/overlays", "area", MAX_AREA, false, o, &ov->area_len, e);
    ov->area = r->area;
    json_t *cover = NULL;
    if (codec_get_array(obj, "/overlays", "cover", false, MAX_COVER_LINES, &cover, e)) {
        size_t i;
        json_t *v;
        json_array_foreach(cover, i, v)
        {
            static const char *const ckeys[] = {"attacker", "target", "melee", NULL};
            char ptr[CODEC_PTR_MAX];
            snprintf(ptr, sizeof ptr, "/overlays/cover/%zu", i);
            if (!codec_expect_object(v, ptr, e))
                continue;
            codec_reject_unknown(v, ptr, ckeys, e);
            int a = decode_ref(v, ptr, "attacker", true, r, e);
            int t = decode_ref(v, ptr, "target", true, r, e);
            if (a >= 0 && a == t)
                svc_errors_add(e, ptr, "attacker and target must differ");
            bool melee = false;
            codec_get_bool(v, ptr, "melee", false, &melee, e);
            r->cover[i] = (struct render_pair){a, t, melee};
        }
        ov->cover = r->cover;
        ov->cover_count = (int)json_array_size(cover);
    }
    json_t *forced = json_object_get(obj, "forced");
    if (forced != NULL && codec_expect_object(forced, "/overlays/forced", e)) {
        static const char *const fkeys[] = {"creature", "path", NULL};
        codec_reject_unknown(forced, "/overlays/forced", fkeys, e);
        ov->forced_creature = decode_ref(forced, "/overlays/forced", "creature", true, r, e);
        r->forced = decode_squares(forced, "/overlays/forced", "path", RULES_FORCED_MAX, false, o,
                                   &ov->forced_len, e);
        if (r->forced == NULL)
            svc_errors_add(e, "/overlays/forced/path", "is required");
        ov->forced = r->forced;
    }
    if (json_object_get(obj, "facing") != NULL) {
        ov->facing_of = decode_ref(obj, "/overlays", "facing", false, r, e);
        if (ov->facing_of >= 0 && !rules_has_facing(o, &r->cs[ov->facing_of].mc.c))
            svc_errors_add(e, "/overlays/facing",
                           "names a creature without facing (no facing variant in force, "
                           "faceless, or Tiny and smaller: 000)");
    }
}

static void render_req_free(struct render_req *r)
{
    svc_board_free(&r->board);
    free(r->cs);
    free(r->labels);
    free(r->given);
    free(r->names);
    free(r->path);
    free(r->area);
    free(r->forced);
}

void svc_handle_render(const struct svc_request *req, struct svc_response *res)
{
    static const char *const known[] = {"rules", "map",      "creatures", "mover",
                                        "mode",  "overlays", "focus",     NULL};
    static const char *const looks[] = {"label", "hp", "max_hp", "conditions", NULL};
    static const char *const mover_looks[] = {"id", "label", "hp", "max_hp", "conditions", NULL};
    json_t *body = NULL;
    struct svc_errors e;
    struct render_req r = {0};
    bool searching = false;
    long long held = 0;
    if (!svc_decode_begin(req, res, known, &body, &e))
        goto out;
    svc_decode_board(body, req, looks, mover_looks, &r.board, &e);
    if (r.board.spent != NULL) {
        svc_problem_too_expensive(res, r.board.spent, r.board.spent_budget, r.board.spent_reached);
        goto out;
    }
    enum render_format f = (enum render_format)choose_format(req, -1, &e);
    int size = svc_picture_size(req, &e);
    int nc = r.board.creature_count;
    bool has_mover = r.board.mover_json != NULL;
    r.n = nc + has_mover;
    r.cs = calloc((size_t)r.n + 1, sizeof *r.cs);
    r.labels = calloc((size_t)r.n + 1, sizeof *r.labels);
    r.given = calloc((size_t)r.n + 1, sizeof *r.given);
    r.names = calloc((size_t)r.n + 1, sizeof *r.names);
    if (r.cs == NULL || r.labels == NULL || r.given == NULL || r.names == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    json_t *list = json_object_get(body, "creatures");
    for (int i = 0; i < nc; i++) {
        struct render_creature *k = &r.cs[i];
        char ptr[CODEC_PTR_MAX];
        snprintf(ptr, sizeof ptr, "/creatures/%d", i);
        k->id = r.board.ids[i];
        k->mc = r.board.creatures[i];
        k->side = k->mc.ally ? 0 : 1;
        json_t *c = json_array_get(list, (size_t)i);
        if (json_is_object(c))
            decode_looks(c, ptr, k, r.labels[i], sizeof r.labels[i], &r.given[i], &e);
    }
    if (has_mover) {
        struct render_creature *k = &r.cs[nc];
        k->id = "mover";
        codec_get_string(r.board.mover_json, "/mover", "id", false, 64, &k->id, &e);
        for (int i = 0; i < nc; i++)
            if (strcmp(r.board.ids[i], k->id) == 0)
                svc_errors_add(&e, "/mover/id", "'%s' is already used by /creatures/%d", k->id, i);
        k->mc.c = r.board.mover.c;
        k->mc.conscious = true;
        k->side = 0;
        decode_looks(r.board.mover_json, "/mover", k, r.labels[nc], sizeof r.labels[nc],
                     &r.given[nc], &e);
    }
    /* A scene described creature by creature threatens as each creature says it can. */
    for (int i = 0; i < nc + (has_mover ? 1 : 0); i++)
        r.cs[i].threatens = r.cs[i].mc.conscious && r.cs[i].mc.c.can_threaten;
    r.scene = (struct render_scene){
        .o = &r.board.rules.options,
        .map = &r.board.map,
        .creatures = r.cs,
        .creature_count = r.n,
        .side_names = svc_picture_side_names,
        .side_count = 2,
        .mover = has_mover ? nc : -1,
        .stats = &r.board.mover,
        .mode = r.board.mode,
        .focus = -1,
        .ov = {.facing_of = -1, .forced_creature = -1, .path_end_facing = -1, .legend = true},
        .max_width = size,
        .max_height = size,
        .work = &r.board.work};
    if (json_object_get(body, "focus") != NULL)
        r.scene.focus = decode_ref(body, "", "focus", false, &r, &e);
    decode_overlays(body, &r, &e);
    if (!r.board.map_ok && !svc_errors_any(&e))
        svc_errors_add(&e, "/map", "is required");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        goto out;
    }
    for (int i = 0; i < r.n; i++)
        r.names[i] = r.cs[i].id;
    if (svc_picture_labels(r.names, r.given, r.n, r.labels) != 0) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    struct render_budget budget = svc_picture_budget(req->ctx->config, &r.board.work);
    r.scene.budget = &budget;
    struct svc_cost cost = svc_picture_cost(&r.scene, f);
    if (!svc_search_begin(req, &cost, &held, res))
        goto out;
    searching = true;
    svc_picture_draw_respond(res, &r.scene, f, NULL);
out:
    if (searching)
        svc_search_end(held);
    svc_errors_free(&e);
    render_req_free(&r);
    json_decref(body);
}
