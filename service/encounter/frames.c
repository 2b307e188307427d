/* An encounter's frames: GET /v1/encounters/{id}/map.png and map.svg, the board after event
 * ?at, with the overlays asked for (?overlay=, ?focus=, ?size=). Decoding and encoding only:
 * render/ draws, rules/ decides.
 *
 * The frame after event `at` never changes: its ETag is the event number plus a hash of the
 * query that shaped it, so it changes exactly when the frame would, and If-None-Match answers
 * 304 before anything is drawn. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "service/codec/encounter_state.h"
#include "service/codec/move.h"
#include "service/codec/picture.h"
#include "service/encounter/encounter.h"
#include "service/encounter/internal.h"
#include "service/http/http.h"
#include "service/http/problem.h"
#include "service/http/refusals.h"
#include "service/http/request.h"
#include "service/json/errors.h"
#include "service/json/fields.h"

#define MAX_COVER_LINES 64
#define MAX_AREA        100000

#define SVC_PICTURE_HASH_SEED 14695981039346656037ULL

/* --- GET /v1/encounters/{id}/map.png and map.svg --- */

/* Combatant i of the typed state as the picture draws it: where it stands, its label, hit
 * points and marks (its conditions, and its hit point state as last ruled), whether it threatens
 * (rules_encounter_threatening, as /threats and every action say) and, for the focus's reach
 * overlay, whether it may make an attack of opportunity now (rules_encounter_board's
 * can_threaten). */
static void combatant_of(const struct rules_encounter *e, int i, struct render_creature *k,
                         char *label)
{
    const struct rules_enc_combatant *c = &e->combatants[i];
    k->mc.c = c->body;
    k->mc.c.can_threaten = rules_encounter_may_aoo(e, c, rules_encounter_melee_of(e, i));
    k->mc.conscious = !c->down;
    k->mc.combat_reflexes = c->combat_reflexes;
    int profile = rules_encounter_aoo_profile_of(e, i);
    k->mc.attack_bonus = profile >= 0 ? c->attacks[profile].attack_bonus : 0;
    k->threatens = rules_encounter_threatening(e, i);
    k->id = c->id;
    k->label = label; /* made for the whole board: svc_picture_labels */
    k->hp_known = true;
    k->hp = c->hp;
    k->max_hp = c->max_hp;
    static const struct {
        int condition;
        unsigned mark;
    } marks[] = {{RULES_CONDITION_PRONE, RENDER_COND_PRONE},
                 {RULES_CONDITION_FLAT_FOOTED, RENDER_COND_FLAT_FOOTED},
                 {RULES_CONDITION_UNCONSCIOUS, RENDER_COND_UNCONSCIOUS},
                 {RULES_CONDITION_HELPLESS, RENDER_COND_UNCONSCIOUS},
                 {RULES_CONDITION_STUNNED, RENDER_COND_STUNNED}};
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++)
        if (c->conditions & 1u << marks[m].condition)
            k->conditions |= marks[m].mark;
    static const unsigned by_state[] = {[RULES_HP_UP] = 0,
                                        [RULES_HP_DISABLED] = RENDER_COND_DISABLED,
                                        [RULES_HP_DYING] = RENDER_COND_DYING,
                                        [RULES_HP_DEAD] = RENDER_COND_DEAD};
    static_assert(sizeof by_state / sizeof by_state[0] == RULES_HP_DEAD + 1, "one per state");
    k->conditions |= by_state[c->hp_state];
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
    struct svc_enc_typed typed = {0};
    svc_errors_init(&e);
    svc_decode_board(state, req, NULL, NULL, &board, &e);
    size_t n = json_array_size(json_object_get(state, "combatants"));
    struct render_creature *cs = calloc(n + 1, sizeof *cs);
    char(*labels)[RENDER_LABEL_BYTES] = calloc(n + 1, sizeof *labels);
    const char **names = calloc(n + 1, sizeof *names);
    const char *sides[RENDER_SIDE_COLOURS * 4];
    int side_count = 0;
    if (cs == NULL || labels == NULL || names == NULL || !board.map_ok || board.spent != NULL ||
        svc_errors_any(&e) ||
        svc_enc_typed_decode(state, RULES_ENGINE_VERSION, req->ctx->config, &board.map, &typed) !=
            SVC_ENC_TYPED_OK) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the encounter's map could not be read", NULL);
        goto out;
    }
    const struct rules_encounter *te = &typed.e;
    int focus_i = focus != NULL ? rules_encounter_find(te, focus) : -1;
    for (int i = 0; i < te->count; i++) {
        combatant_of(te, i, &cs[i], labels[i]);
        names[i] = *te->combatants[i].name ? te->combatants[i].name : te->combatants[i].id;
        const char *side = te->combatants[i].side;
        int s = 0;
        while (s < side_count && strcmp(sides[s], side) != 0)
            s++;
        if (s == side_count && side_count < (int)(sizeof sides / sizeof sides[0]))
            sides[side_count++] = side;
        cs[i].side = s;
    }
    if (svc_picture_labels(names, NULL, te->count, labels) != 0) { /* no two alike */
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        goto out;
    }
    if (focus != NULL && focus_i < 0) {
        svc_errors_add(&e, "?focus", "query focus names no combatant");
        svc_errors_respond(&e, res);
        goto out;
    }
    if (ov.facing_of >= 0)
        ov.facing_of = rules_has_facing(&board.rules.options, &cs[focus_i].mc.c) ? focus_i : -1;
    struct rules_mover stats = {0};
    if (focus_i >= 0) /* the focus as the mover of a move, as /reach reads it */
        rules_encounter_mover_of(te, focus_i, &te->combatants[focus_i].turn, RULES_MODE_MOVE,
                                 &stats);
    struct render_scene scene = {.o = &board.rules.options,
                                 .map = &board.map,
                                 .creatures = cs,
                                 .creature_count = te->count,
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
    struct render_budget budget = svc_picture_budget(req->ctx->config, &board.work);
    scene.budget = &budget;
    struct svc_cost cost = svc_picture_cost(&scene, f);
    long long held = 0;
    if (!svc_search_begin(req, &cost, &held, res))
        goto out;
    svc_picture_draw_respond(res, &scene, f, etag);
    if (res->status == 200)
        svc_response_add_header(res, "Cache-Control", "no-cache");
    else if (key[0] != '\0')
        svc_refusal_put(key, res); /* kept when refused too-expensive */
    svc_search_end(held);
out:
    svc_errors_free(&e);
    free(cs);
    free(labels);
    free(names);
    svc_enc_typed_free(&typed);
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
