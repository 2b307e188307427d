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
#include "service/codec/names.h"
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

/* ?overlay=threatened,flanking,reach,facing,event (reach and facing are the focus creature's;
 * event is what event ?at did: event_marks). */
static void frame_overlays(const char *list, struct render_overlays *ov, bool *event,
                           struct svc_errors *e)
{
    static const char *const names[] = {"threatened", "flanking", "reach",
                                        "facing",     "none",     "event"};
    const char *p = list;
    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ",");
        int k = -1;
        for (int i = 0; i < 6; i++)
            if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
                k = i;
        if (k < 0) {
            svc_errors_add(e, "?overlay",
                           "query overlay is a comma-separated list of threatened, flanking, "
                           "reach, facing, event");
            return;
        }
        *event |= k == 5;
        ov->threatened |= k == 0;
        ov->flanking |= k == 1;
        ov->reach |= k == 2;
        ov->facing_of = k == 3 ? 0 : ov->facing_of; /* resolved to the focus below */
        p += n;
        if (*p == ',')
            p++;
    }
}

/* --- ?overlay=event: what one event did --- */

#define MAX_STRIKES 16

/* Event ?at's own ruling, read from its log entry as GET .../events lists it: a move's path
 * (any mode; the path overlay rules its feet and the attacks of opportunity it provoked again
 * on the board it began on), a charge's target, an attack's or a full attack's lines with hit
 * or miss and the damage, and forced movement. A move or forced movement is drawn on the board
 * before the event (from where it began); an attack on the board it left (hit points and
 * states after it); any other event draws no marks. */
struct event_marks {
    bool before; /* drawn on the board before the event */
    const char *mover, *forced_target;
    enum rules_move_mode mode;
    struct rules_step *path; /* malloc'd; the mover's, or the forced movement's */
    int path_len;
    int end_facing;
    int strike_count;
    struct event_strike {
        const char *attacker, *target;
        int made, hits, damage;
        bool critical, charge; /* a charge's target: the line it charged along */
    } strikes[MAX_STRIKES];
    char labels[MAX_STRIKES][64];
};

static const char *jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* steps: [{x, y, facing}] as the log stores a path; at most `limit` of them (-1: all). */
static void event_path(json_t *steps, int limit, struct event_marks *m)
{
    size_t n = json_array_size(steps);
    if (limit >= 0 && (size_t)limit < n)
        n = (size_t)limit;
    m->path = n > 0 ? calloc(n, sizeof *m->path) : NULL;
    if (m->path == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        json_t *st = json_array_get(steps, i);
        json_t *f = json_object_get(st, "facing");
        m->path[i] = (struct rules_step){(int)json_integer_value(json_object_get(st, "x")),
                                         (int)json_integer_value(json_object_get(st, "y")),
                                         json_is_integer(f) ? (int)json_integer_value(f) : -1};
    }
    m->path_len = (int)n;
}

static void event_strike(struct event_marks *m, const char *attacker, const char *target,
                         json_t *ruling, bool charge)
{
    if (attacker == NULL || target == NULL)
        return;
    int k = 0;
    while (k < m->strike_count &&
           (strcmp(m->strikes[k].target, target) != 0 || m->strikes[k].charge != charge))
        k++;
    if (k == MAX_STRIKES)
        return;
    if (k == m->strike_count) {
        m->strike_count++;
        m->strikes[k].attacker = attacker;
        m->strikes[k].target = target;
        m->strikes[k].charge = charge;
    }
    if (charge)
        return;
    m->strikes[k].made++;
    if (json_is_true(json_object_get(ruling, "hit"))) {
        m->strikes[k].hits++;
        m->strikes[k].damage +=
            (int)json_integer_value(json_object_get(json_object_get(ruling, "damage"), "dealt"));
        m->strikes[k].critical |= json_is_true(json_object_get(ruling, "critical"));
    }
}

static void event_marks_of(json_t *event, struct event_marks *m)
{
    memset(m, 0, sizeof *m);
    m->end_facing = -1;
    json_t *payload = json_object_get(event, "payload");
    json_t *in = json_object_get(payload, "input"), *result = json_object_get(payload, "result");
    const char *kind = jstr(event, "kind"), *type = jstr(in, "type");
    if (kind == NULL || strcmp(kind, "action") != 0 || type == NULL || !json_is_object(result))
        return;
    const char *actor = jstr(in, "actor");
    const char *rtype = jstr(result, "type");
    if (strcmp(type, "move") == 0 && rtype != NULL && strcmp(rtype, "move") == 0) {
        const char *mode = jstr(result, "mode");
        for (int k = 0; mode != NULL && k < RULES_MODE_COUNT; k++)
            if (strcmp(mode, rules_move_mode_names[k]) == 0)
                m->mode = (enum rules_move_mode)k;
        m->before = true;
        m->mover = actor;
        event_path(json_object_get(result, "steps"), -1, m);
        json_t *f = json_object_get(json_object_get(result, "end"), "facing");
        m->end_facing = json_is_integer(f) ? (int)json_integer_value(f) : -1;
        if (m->mode == RULES_MODE_CHARGE)
            event_strike(m, actor, jstr(in, "target"), NULL, true);
    } else if (strcmp(type, "forced") == 0) {
        json_t *moved = json_object_get(result, "moved");
        m->before = true;
        m->forced_target = jstr(in, "target");
        event_path(json_object_get(in, "path"),
                   json_is_integer(moved) ? (int)json_integer_value(moved) : -1, m);
    } else if (strcmp(type, "attack") == 0) {
        event_strike(m, actor, jstr(in, "target"), result, false);
    } else if (strcmp(type, "full_attack") == 0) {
        json_t *rulings = json_object_get(result, "attacks"), *targets;
        targets = json_object_get(result, "targets");
        size_t i;
        json_t *r;
        json_array_foreach(rulings, i, r)
        {
            const char *t = json_string_value(json_array_get(targets, i));
            event_strike(m, actor, t != NULL ? t : jstr(in, "target"), r, false);
        }
    }
}

/* The strikes as render draws them, on the board te; false when one names no combatant. */
static bool event_strikes(struct event_marks *m, const struct rules_encounter *te,
                          struct render_strike *out)
{
    for (int k = 0; k < m->strike_count; k++) {
        const struct event_strike *s = &m->strikes[k];
        int a = rules_encounter_find(te, s->attacker), t = rules_encounter_find(te, s->target);
        if (a < 0 || t < 0)
            return false;
        char *l = m->labels[k];
        size_t n = sizeof m->labels[k];
        if (s->charge)
            snprintf(l, n, "charged");
        else if (s->made == 1 && s->hits == 0)
            snprintf(l, n, "missed");
        else if (s->made == 1)
            snprintf(l, n, "%s, %d damage", s->critical ? "critical hit" : "hit", s->damage);
        else
            snprintf(l, n, "%d of %d hit%s, %d damage", s->hits, s->made,
                     s->critical ? " (a critical)" : "", s->damage);
        out[k] = (struct render_strike){.attacker = a,
                                        .target = t,
                                        .outcome = s->charge     ? RENDER_STRIKE_CHARGE
                                                   : s->hits > 0 ? RENDER_STRIKE_HIT
                                                                 : RENDER_STRIKE_MISS,
                                        .label = l};
    }
    return true;
}

/* One frame being drawn: the query, the board it is drawn on, its tokens and the event's
 * marks. Everything it owns is freed by frame_free. */
struct frame {
    int size;
    const char *overlay, *focus;
    struct render_overlays ov;
    bool want_event;
    int64_t at, version;
    json_t *state, *event, *before; /* the board drawn; event ?at and the board before it */
    struct event_marks marks;
    struct render_strike strikes[MAX_STRIKES];
    char etag[96], key[512];
    struct svc_board board;
    struct svc_enc_typed typed;
    struct render_creature *cs;
    char (*labels)[RENDER_LABEL_BYTES];
    const char **names;
    const char *sides[RENDER_SIDE_COLOURS * 4];
    int side_count;
    int focus_i, mover_i;
    enum rules_move_mode mode;
};

/* ?size, ?overlay and ?focus; false after answering 422. */
static bool frame_query(const struct svc_request *req, struct svc_response *res, struct frame *fr)
{
    struct svc_errors e;
    svc_errors_init(&e);
    fr->size = svc_picture_size(req, &e);
    fr->overlay = svc_request_query(req, "overlay");
    fr->focus = svc_request_query(req, "focus");
    fr->ov = (struct render_overlays){
        .facing_of = -1, .forced_creature = -1, .path_end_facing = -1, .legend = true};
    frame_overlays(fr->overlay, &fr->ov, &fr->want_event, &e);
    if ((fr->ov.reach || fr->ov.facing_of >= 0) && fr->focus == NULL)
        svc_errors_add(&e, "?overlay",
                       "reach and facing are drawn for the focus creature: add "
                       "focus=ID");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return false;
    }
    svc_errors_free(&e);
    return true;
}

/* The board after event ?at, or with overlay=event the event itself and (for a move or
 * forced movement, drawn from where it began) the board before it; false after answering. */
static bool frame_board(const struct svc_request *req, struct svc_response *res, struct frame *fr)
{
    fr->state = fr->want_event ? svc_encounter_event_at(req, res, &fr->at, &fr->version, &fr->event,
                                                        &fr->before)
                               : svc_encounter_state_at(req, res, &fr->at, &fr->version);
    if (fr->state == NULL)
        return false;
    if (fr->event != NULL)
        event_marks_of(fr->event, &fr->marks);
    if (fr->marks.before) {
        json_decref(fr->state);
        fr->state = json_incref(fr->before);
    }
    return true;
}

/* The frame after event `at` never changes: its ETag is the event and the query's shape. True
 * after answering 304 to an If-None-Match that holds it. */
static bool frame_not_modified(const struct svc_request *req, struct svc_response *res,
                               enum render_format f, struct frame *fr)
{
    char shape[256];
    snprintf(shape, sizeof shape, "%d|%s|%s", fr->size, fr->overlay ? fr->overlay : "",
             fr->focus ? fr->focus : "");
    snprintf(fr->etag, sizeof fr->etag, "\"v%lld-%s-%08llx\"", (long long)fr->at,
             f == RENDER_SVG ? "svg" : "png",
             svc_picture_hash(shape, strlen(shape), SVC_PICTURE_HASH_SEED) & 0xffffffffULL);
    const char *inm = svc_request_header(req, "If-None-Match");
    if (inm == NULL || (strstr(inm, fr->etag) == NULL && strcmp(inm, "*") != 0))
        return false;
    svc_respond_raw(res, 304, NULL, "", 0);
    svc_response_add_header(res, "ETag", fr->etag);
    svc_response_add_header(res, "Cache-Control", "no-cache");
    return true;
}

/* This picture of this board refused before is refused again, from its first refusal: true
 * after answering that refusal. Leaves the frame's refusal key in fr->key ("" when none). */
static bool frame_refused_before(const struct svc_request *req, struct svc_response *res,
                                 struct frame *fr)
{
    static const char *const params[] = {"size", "overlay", "focus", "format", NULL};
    if (!svc_refusal_key(req, fr->at, params, fr->key, sizeof fr->key)) {
        fr->key[0] = '\0';
        return false;
    }
    return svc_refusal_get(fr->key, res);
}

/* The board's map and typed state, and a token for each combatant (labels no two alike, sides
 * in order of appearance); false after answering 500. */
static bool frame_tokens(const struct svc_request *req, struct svc_response *res, struct frame *fr)
{
    struct svc_errors e;
    svc_errors_init(&e);
    svc_decode_board(fr->state, req, NULL, NULL, &fr->board, &e);
    size_t n = json_array_size(json_object_get(fr->state, "combatants"));
    fr->cs = calloc(n + 1, sizeof *fr->cs);
    fr->labels = calloc(n + 1, sizeof *fr->labels);
    fr->names = calloc(n + 1, sizeof *fr->names);
    bool ok = fr->cs != NULL && fr->labels != NULL && fr->names != NULL && fr->board.map_ok &&
              fr->board.spent == NULL && !svc_errors_any(&e) &&
              svc_enc_typed_decode(fr->state, RULES_ENGINE_VERSION, req->ctx->config,
                                   &fr->board.map, &fr->typed) == SVC_ENC_TYPED_OK;
    svc_errors_free(&e);
    if (!ok) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the encounter's map could not be read", NULL);
        return false;
    }
    const struct rules_encounter *te = &fr->typed.e;
    assert((size_t)te->count <= n);
    for (int i = 0; i < te->count; i++) {
        combatant_of(te, i, &fr->cs[i], fr->labels[i]);
        fr->names[i] = *te->combatants[i].name ? te->combatants[i].name : te->combatants[i].id;
        const char *side = te->combatants[i].side;
        int s = 0;
        while (s < fr->side_count && strcmp(fr->sides[s], side) != 0)
            s++;
        if (s == fr->side_count && fr->side_count < (int)(sizeof fr->sides / sizeof *fr->sides))
            fr->sides[fr->side_count++] = side;
        fr->cs[i].side = s;
    }
    if (svc_picture_labels(fr->names, NULL, te->count, fr->labels) != 0) { /* no two alike */
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return false;
    }
    return true;
}

/* ?focus as players name a combatant: its id, its name in any case, or the start
 * of one (svc_combatant_named, as an action's actor); false after answering 422. */
static bool frame_focus(struct svc_response *res, struct frame *fr)
{
    fr->focus_i = -1;
    if (fr->focus == NULL)
        return true;
    json_t *named = NULL;
    char who[256] = "";
    enum svc_named found = svc_combatant_named(json_object_get(fr->state, "combatants"), fr->focus,
                                               &named, who, sizeof who);
    if (found == SVC_NAMED_ONE)
        fr->focus_i =
            rules_encounter_find(&fr->typed.e, json_string_value(json_object_get(named, "id")));
    struct svc_errors e;
    svc_errors_init(&e);
    if (found == SVC_NAMED_AMBIGUOUS)
        svc_errors_add(&e, "?focus", "query focus could name several combatants: %s", who);
    else if (fr->focus_i < 0)
        svc_errors_add(&e, "?focus", "query focus names no combatant");
    if (svc_errors_any(&e)) {
        svc_errors_respond(&e, res);
        return false;
    }
    svc_errors_free(&e);
    if (fr->ov.facing_of >= 0)
        fr->ov.facing_of = rules_has_facing(&fr->board.rules.options, &fr->cs[fr->focus_i].mc.c)
                               ? fr->focus_i
                               : -1;
    return true;
}

/* The event's marks on this board: its mover (or the focus as the mover of a move, as /reach
 * reads it), its path or forced movement, its strikes; false after answering 500 when the
 * event names a combatant the board does not hold. */
static bool frame_marks(struct svc_response *res, struct frame *fr)
{
    const struct rules_encounter *te = &fr->typed.e;
    struct event_marks *m = &fr->marks;
    fr->mover_i = m->mover != NULL ? rules_encounter_find(te, m->mover) : fr->focus_i;
    fr->mode = m->mover != NULL ? m->mode : RULES_MODE_MOVE;
    if (m->mover != NULL && fr->mover_i >= 0) {
        fr->ov.path = m->path;
        fr->ov.path_len = m->path_len;
        fr->ov.path_end_facing = m->end_facing;
    }
    if (m->forced_target != NULL) {
        fr->ov.forced_creature = rules_encounter_find(te, m->forced_target);
        fr->ov.forced = m->path;
        fr->ov.forced_len = m->path_len;
    }
    if (!event_strikes(m, te, fr->strikes) || (m->mover != NULL && fr->mover_i < 0) ||
        (m->forced_target != NULL && fr->ov.forced_creature < 0)) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the event names a combatant not on its board",
                    NULL);
        return false;
    }
    fr->ov.strikes = m->strike_count > 0 ? fr->strikes : NULL;
    fr->ov.strike_count = m->strike_count;
    return true;
}

/* Draws the frame within its budgets and answers it; a refusal as too expensive is kept under
 * the frame's key, so asking again costs nothing. */
static void frame_draw(const struct svc_request *req, struct svc_response *res,
                       enum render_format f, struct frame *fr)
{
    const struct rules_encounter *te = &fr->typed.e;
    struct rules_mover stats = {0};
    if (fr->mover_i >= 0)
        rules_encounter_mover_of(te, fr->mover_i, &te->combatants[fr->mover_i].turn, fr->mode,
                                 &stats);
    struct render_scene scene = {.o = &fr->board.rules.options,
                                 .map = &fr->board.map,
                                 .creatures = fr->cs,
                                 .creature_count = te->count,
                                 .side_names = fr->sides,
                                 .side_count = fr->side_count,
                                 /* The focus is the actor: ringed, and threats are its
                                  * enemies' (everyone's with no focus). */
                                 .mover = fr->mover_i,
                                 .stats = &stats,
                                 .mode = fr->mode,
                                 .focus = fr->focus_i,
                                 .ov = fr->ov,
                                 .max_width = fr->size,
                                 .max_height = fr->size,
                                 .work = &fr->board.work};
    struct render_budget budget = svc_picture_budget(req->ctx->config, &fr->board.work);
    scene.budget = &budget;
    struct svc_cost cost = svc_picture_cost(&scene, f);
    long long held = 0;
    if (!svc_search_begin(req, &cost, &held, res))
        return;
    svc_picture_draw_respond(res, &scene, f, fr->etag);
    if (res->status == 200)
        svc_response_add_header(res, "Cache-Control", "no-cache");
    else if (fr->key[0] != '\0')
        svc_refusal_put(fr->key, res); /* kept when refused too-expensive */
    svc_search_end(held);
}

static void frame_free(struct frame *fr)
{
    free(fr->cs);
    free(fr->labels);
    free(fr->names);
    svc_enc_typed_free(&fr->typed);
    svc_board_free(&fr->board);
    free(fr->marks.path);
    json_decref(fr->event);
    json_decref(fr->before);
    json_decref(fr->state);
}

static void encounter_map(const struct svc_request *req, struct svc_response *res,
                          enum render_format f)
{
    struct frame *fr = calloc(1, sizeof *fr);
    if (fr == NULL) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, NULL, NULL);
        return;
    }
    fr->marks.end_facing = -1;
    if (frame_query(req, res, fr) && frame_board(req, res, fr) &&
        !frame_not_modified(req, res, f, fr) && !frame_refused_before(req, res, fr) &&
        frame_tokens(req, res, fr) && frame_focus(res, fr) && frame_marks(res, fr))
        frame_draw(req, res, f, fr);
    frame_free(fr);
    free(fr);
}

void svc_handle_encounter_map_png(const struct svc_request *req, struct svc_response *res)
{
    encounter_map(req, res, RENDER_PNG);
}

void svc_handle_encounter_map_svg(const struct svc_request *req, struct svc_response *res)
{
    encounter_map(req, res, RENDER_SVG);
}
