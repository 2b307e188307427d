/* Pictures of the board: POST /v1/render (the movement endpoints' map and creature shapes,
 * plus the overlays wanted) and GET /v1/encounters/{id}/map.png and map.svg (the board after
 * event ?at). Decoding and encoding only: render/ draws, rules/ decides.
 *
 * Decisions where the issue is silent (also in openapi.yaml):
 *  - The format comes from ?format= (png, svg), else from Accept (image/svg+xml without
 *    image/png gives SVG), else PNG. The encounter's pictures take it from the path.
 *  - ?size=N bounds both sides of the picture (128 to 4096, default 1024).
 *  - A creature's short label is its `label`, else made from its name (or id): one word whole
 *    when it has at most four characters, else its first three ("Ogre", "Gob"); several words
 *    give their initials plus a trailing number ("Goblin Archer 2" -> "GA2").
 *  - The ETag of a POST answer is a hash of the picture's bytes; an encounter frame's is the
 *    event number plus a hash of the query that shaped it, so it changes exactly when the
 *    frame would, and If-None-Match answers 304 before anything is drawn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "service/codec/move.h"
#include "service/json/fields.h"
#include "service/svc.h"

#define MAX_COVER_LINES 64
#define MAX_AREA        100000

static const char *const side_names[] = {"ally", "enemy"};
static const char *const cond_names[] = {"prone", "flat_footed", "dying", "unconscious", NULL};
static const unsigned cond_bits[] = {RENDER_COND_PRONE, RENDER_COND_FLAT_FOOTED, RENDER_COND_DYING,
                                     RENDER_COND_UNCONSCIOUS};

/* 64-bit FNV-1a: a stable hash for ETags. */
static unsigned long long fnv1a(const void *data, size_t len, unsigned long long h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

#define FNV_OFFSET 14695981039346656037ULL

/* A short label from a name (see the top of this file). */
static void short_label(const char *name, char *out, size_t n)
{
    int words = 0;
    const char *last = NULL;
    for (const char *p = name; *p; p++)
        if (*p != ' ' && (p == name || p[-1] == ' '))
            words++, last = p;
    if (words <= 1) {
        const char *w = last ? last : name;
        size_t len = strcspn(w, " ");
        snprintf(out, n, "%.*s", (int)(len <= 4 ? len : 3), w);
        return;
    }
    size_t k = 0;
    bool digits = last != NULL && strspn(last, "0123456789") == strcspn(last, " ");
    for (const char *p = name; *p && k + 1 < n && k < 3; p++)
        if (*p != ' ' && (p == name || p[-1] == ' ') && !(digits && p == last))
            out[k++] = *p;
    if (digits)
        for (const char *p = last; *p >= '0' && *p <= '9' && k + 1 < n && k < 5; p++)
            out[k++] = *p;
    out[k] = '\0';
}

/* ?format= or Accept; fixed >= 0 when the path names it. */
static int choose_format(const struct svc_request *req, int fixed, struct svc_errors *e)
{
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

static int query_size(const struct svc_request *req, struct svc_errors *e)
{
    char msg[80];
    snprintf(msg, sizeof msg, "must be a whole number of pixels from %d to %d", RENDER_MIN_SIZE,
             RENDER_MAX_SIZE);
    long long v = RENDER_DEFAULT_SIZE;
    return codec_query_whole(req, "size", RENDER_MIN_SIZE, RENDER_MAX_SIZE, RENDER_DEFAULT_SIZE,
                             msg, &v, e)
               ? (int)v
               : RENDER_DEFAULT_SIZE;
}

/* Answers with the picture and its ETag (a hash of the bytes unless etag is given). */
static void respond_image(struct svc_response *res, enum render_format f, struct render_image *img,
                          const char *etag)
{
    char tag[64];
    if (etag == NULL) {
        snprintf(tag, sizeof tag, "\"%016llx\"", fnv1a(img->data, img->len, FNV_OFFSET));
        etag = tag;
    }
    svc_respond_owned(res, 200, f == RENDER_SVG ? "image/svg+xml" : "image/png", (char *)img->data,
                      img->len);
    img->data = NULL;
    svc_response_add_header(res, "ETag", etag);
}

/* The picture's budgets (render.h), times --budget-scale: pixels and answer bytes, and for its
 * searches (the reach and path overlays) half the search states a movement request has, as
 * drawing takes the rest of the time a request may take (bench/cost_bench: the three at their
 * budgets stay within the half second). */
static struct render_budget picture_budget(const struct svc_config *cfg, struct rules_work *work)
{
    work->limit /= 2;
    return (struct render_budget){.pixel_limit = svc_config_budget(cfg, SVC_BUDGET_PIXELS),
                                  .byte_limit = svc_config_budget(cfg, SVC_BUDGET_ANSWER_BYTES)};
}

/* 422 too-expensive for a picture refused by a budget of the scene's: the one that ran out. */
static void picture_too_expensive(struct svc_response *res, const struct render_scene *scene)
{
    long long limit = 0, reached = 0;
    const char *name = rules_work_spent(scene->work, &limit, &reached);
    if (name == NULL)
        name = render_budget_spent(scene->budget, &limit, &reached);
    if (name == NULL) /* cannot happen: the refusal names a budget */
        name = "search_states", limit = scene->work->limit, reached = scene->work->used;
    svc_problem_too_expensive(res, name, limit, reached);
}

/* What drawing the scene will cost (render_estimate), for the searches' gate. */
static struct svc_cost picture_cost(const struct render_scene *scene, enum render_format f)
{
    struct render_estimate est;
    render_estimate(scene, f, &est);
    return (struct svc_cost){
        .states = est.search_states, .threat_tests = est.threat_tests, .pixels = est.canvas_pixels};
}

/* Draws the scene and answers: the picture, 422 too-expensive, or 500. */
static void draw_and_respond(struct svc_response *res, struct render_scene *scene,
                             enum render_format f, const char *etag)
{
    struct render_image img;
    int rc = render_draw(scene, f, &img);
    if (rc == RENDER_ERR_TOO_EXPENSIVE) {
        picture_too_expensive(res, scene);
        return;
    }
    if (rc != RENDER_OK) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the picture could not be drawn", NULL);
        return;
    }
    respond_image(res, f, &img, etag);
    render_image_free(&img);
}

/* --- POST /v1/render --- */

struct render_req {
    struct svc_board board;
    struct render_creature *cs;
    char (*labels)[24];
    int n;
    struct rules_step *path, *area, *forced;
    struct render_pair cover[MAX_COVER_LINES];
    struct render_scene scene;
};

static int find_creature(const struct render_req *r, const char *id)
{
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
    json_t *list = NULL;
    *n = 0;
    if (!codec_get_array(obj, base, key, false, max, &list, e))
        return NULL;
    struct rules_step *s = calloc(json_array_size(list) + 1, sizeof *s);
    if (s == NULL) {
        svc_errors_add(e, base, "could not be allocated");
        return NULL;
    }
    bool hex = o->grid == RULES_GRID_HEX;
    static const char *const square_keys[] = {"x", "y", "facing", NULL};
    static const char *const hex_keys[] = {"q", "r", "facing", NULL};
    char lbase[CODEC_PTR_MAX];
    codec_pointer(lbase, base, key);
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        char ptr[CODEC_PTR_MAX + 24];
        snprintf(ptr, sizeof ptr, "%s/%zu", lbase, i);
        s[i] = (struct rules_step){.facing = -1};
        if (!codec_expect_object(v, ptr, e))
            continue;
        codec_reject_unknown(v, ptr, hex ? hex_keys : square_keys, e);
        long long x = 0, y = 0, f = -1;
        codec_get_int(v, ptr, hex ? "q" : "x", true, -RULES_COORD_MAX, RULES_COORD_MAX, &x, e);
        codec_get_int(v, ptr, hex ? "r" : "y", true, -RULES_COORD_MAX, RULES_COORD_MAX, &y, e);
        if (codec_get_int(v, ptr, "facing", false, 0, rules_facing_count(o) - 1, &f, e) &&
            !facings) {
            char fp[CODEC_PTR_MAX + 32];
            snprintf(fp, sizeof fp, "%s/facing", ptr);
            svc_errors_add(e, fp, "only a path's steps take a facing");
        }
        s[i] = (struct rules_step){(int)x, (int)y, (int)f};
    }
    *n = (int)json_array_size(list);
    return s;
}

/* The picture's own members of a creature: label, hp, max_hp, conditions. */
static void decode_looks(json_t *c, const char *ptr, const char *id, struct render_creature *k,
                         char *label, size_t label_n, struct svc_errors *e)
{
    const char *given = NULL;
    if (codec_get_string(c, ptr, "label", false, 32, &given, e))
        snprintf(label, label_n, "%s", given);
    else
        short_label(id, label, label_n);
    k->label = label;
    long long hp = 0, max_hp = 0;
    bool has_hp = codec_get_int(c, ptr, "hp", false, -100000, 100000, &hp, e);
    bool has_max = codec_get_int(c, ptr, "max_hp", false, 1, 100000, &max_hp, e);
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
            for (int j = 0; cond_names[j] != NULL && json_is_string(v); j++)
                if (strcmp(cond_names[j], json_string_value(v)) == 0)
                    b = j;
            if (b < 0) {
                char p[CODEC_PTR_MAX + 32];
                snprintf(p, sizeof p, "%s/conditions/%zu", ptr, i);
                svc_errors_add(e, p, "must be one of prone, flat_footed, dying, unconscious");
                continue;
            }
            k->conditions |= cond_bits[b];
        }
    }
    /* Dying or unconscious creatures threaten nothing (004 Threatened Area; 001). */
    if (k->conditions & (RENDER_COND_DYING | RENDER_COND_UNCONSCIOUS))
        k->mc.conscious = false;
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
    codec_get_int(obj, "/overlays", "end_facing", false, 0, rules_facing_count(o) - 1, &ef, e);
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
    int size = query_size(req, &e);
    int nc = r.board.creature_count;
    bool has_mover = r.board.mover_json != NULL;
    r.n = nc + has_mover;
    r.cs = calloc((size_t)r.n + 1, sizeof *r.cs);
    r.labels = calloc((size_t)r.n + 1, sizeof *r.labels);
    if (r.cs == NULL || r.labels == NULL) {
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
            decode_looks(c, ptr, k->id, k, r.labels[i], sizeof r.labels[i], &e);
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
        decode_looks(r.board.mover_json, "/mover", k->id, k, r.labels[nc], sizeof r.labels[nc], &e);
    }
    r.scene = (struct render_scene){
        .o = &r.board.rules.options,
        .map = &r.board.map,
        .creatures = r.cs,
        .creature_count = r.n,
        .side_names = side_names,
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
    struct render_budget budget = picture_budget(req->ctx->config, &r.board.work);
    r.scene.budget = &budget;
    struct svc_cost cost = picture_cost(&r.scene, f);
    if (!svc_search_begin(req, &cost, &held, res))
        goto out;
    searching = true;
    draw_and_respond(res, &r.scene, f, NULL);
out:
    if (searching)
        svc_search_end(held);
    svc_errors_free(&e);
    render_req_free(&r);
    json_decref(body);
}

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
    short_label(name[0] ? name : k->id, label, label_n);
    k->label = label;
    json_t *hp = json_object_get(c, "hp"), *max_hp = json_object_get(c, "max_hp");
    if (json_is_integer(hp) && json_is_integer(max_hp)) {
        k->hp_known = true;
        k->hp = (int)json_integer_value(hp);
        k->max_hp = (int)json_integer_value(max_hp);
    }
    for (int b = 0; cond_names[b] != NULL; b++)
        if (has_cond(c, cond_names[b]))
            k->conditions |= cond_bits[b];
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
    int size = query_size(req, &e);
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
             fnv1a(shape, strlen(shape), FNV_OFFSET) & 0xffffffffULL);
    const char *inm = svc_request_header(req, "If-None-Match");
    if (inm != NULL && (strstr(inm, etag) != NULL || strcmp(inm, "*") == 0)) {
        json_decref(state);
        svc_respond_raw(res, 304, NULL, "", 0);
        svc_response_add_header(res, "ETag", etag);
        svc_response_add_header(res, "Cache-Control", "no-cache");
        return;
    }
    /* This picture of this board refused before is refused again, from its first refusal. */
    static const char *const params[] = {"size", "overlay", "focus", "format", NULL};
    char key[512];
    if (!svc_refusal_key(req, at, params, key, sizeof key))
        key[0] = '\0';
    if (key[0] != '\0' && svc_refusal_get(key, res)) {
        json_decref(state);
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
    struct render_budget budget = picture_budget(req->ctx->config, &board.work);
    scene.budget = &budget;
    struct svc_cost cost = picture_cost(&scene, f);
    long long held = 0;
    if (!svc_search_begin(req, &cost, &held, res))
        goto out;
    draw_and_respond(res, &scene, f, etag);
    if (res->status == 200)
        svc_response_add_header(res, "Cache-Control", "no-cache");
    else if (key[0] != '\0')
        svc_refusal_put(key, res); /* kept when refused too-expensive */
    svc_search_end(held);
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
