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
    bool want_event = false;
    frame_overlays(overlay, &ov, &want_event, &e);
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
    json_t *event = NULL, *before = NULL;
    json_t *state = want_event ? svc_encounter_event_at(req, res, &at, &version, &event, &before)
                               : svc_encounter_state_at(req, res, &at, &version);
    if (state == NULL)
        return;
    struct event_marks marks = {.end_facing = -1};
    struct render_strike strikes[MAX_STRIKES];
    if (event != NULL)
        event_marks_of(event, &marks);
    if (marks.before) { /* a move or forced movement: drawn from where it began */
        json_decref(state);
        state = json_incref(before);
    }
    /* The frame after event `at` never changes: its ETag is the event and the query's shape. */
    char shape[256], etag[96];
    snprintf(shape, sizeof shape, "%d|%s|%s", size, overlay ? overlay : "", focus ? focus : "");
    snprintf(etag, sizeof etag, "\"v%lld-%s-%08llx\"", (long long)at,
             f == RENDER_SVG ? "svg" : "png",
             svc_picture_hash(shape, strlen(shape), SVC_PICTURE_HASH_SEED) & 0xffffffffULL);
    const char *inm = svc_request_header(req, "If-None-Match");
    if (inm != NULL && (strstr(inm, etag) != NULL || strcmp(inm, "*") == 0)) {
        svc_respond_raw(res, 304, NULL, "", 0);
        svc_response_add_header(res, "ETag", etag);
        svc_response_add_header(res, "Cache-Control", "no-cache");
        goto out_early;
    }
    /* This picture of this board refused before is refused again, from its first refusal. */
    static const char *const params[] = {"size", "overlay", "focus", "format", NULL};
    char key[512];
    if (!svc_refusal_key(req, at, params, key, sizeof key))
        key[0] = '\0';
    if (key[0] != '\0' && svc_refusal_get(key, res))
        goto out_early;
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
    /* ?focus as players name a combatant (issue 31): its id, its name in any case, or the
     * start of one (svc_combatant_named, as an action's actor). */
    json_t *named = NULL;
    char who[256] = "";
    enum svc_named found = focus != NULL ? svc_combatant_named(json_object_get(state, "combatants"),
                                                               focus, &named, who, sizeof who)
                                         : SVC_NAMED_NONE;
    int focus_i = found == SVC_NAMED_ONE
                      ? rules_encounter_find(te, json_string_value(json_object_get(named, "id")))
                      : -1;
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
    if (focus != NULL && found == SVC_NAMED_AMBIGUOUS) {
        svc_errors_add(&e, "?focus", "query focus could name several combatants: %s", who);
        svc_errors_respond(&e, res);
        goto out;
    }
    if (focus != NULL && focus_i < 0) {
        svc_errors_add(&e, "?focus", "query focus names no combatant");
        svc_errors_respond(&e, res);
        goto out;
    }
    if (ov.facing_of >= 0)
        ov.facing_of = rules_has_facing(&board.rules.options, &cs[focus_i].mc.c) ? focus_i : -1;
    /* The event's marks on this board: its mover, or the focus as the mover of a move, as
     * /reach reads it. */
    int mover_i = marks.mover != NULL ? rules_encounter_find(te, marks.mover) : focus_i;
    enum rules_move_mode mode = marks.mover != NULL ? marks.mode : RULES_MODE_MOVE;
    if (marks.mover != NULL && mover_i >= 0) {
        ov.path = marks.path;
        ov.path_len = marks.path_len;
        ov.path_end_facing = marks.end_facing;
    }
    if (marks.forced_target != NULL) {
        ov.forced_creature = rules_encounter_find(te, marks.forced_target);
        ov.forced = marks.path;
        ov.forced_len = marks.path_len;
    }
    if (!event_strikes(&marks, te, strikes) || (marks.mover != NULL && mover_i < 0) ||
        (marks.forced_target != NULL && ov.forced_creature < 0)) {
        svc_problem(res, SVC_PROBLEM_INTERNAL, "the event names a combatant not on its board",
                    NULL);
        goto out;
    }
    ov.strikes = marks.strike_count > 0 ? strikes : NULL;
    ov.strike_count = marks.strike_count;
    struct rules_mover stats = {0};
    if (mover_i >= 0)
        rules_encounter_mover_of(te, mover_i, &te->combatants[mover_i].turn, mode, &stats);
    struct render_scene scene = {.o = &board.rules.options,
                                 .map = &board.map,
                                 .creatures = cs,
                                 .creature_count = te->count,
                                 .side_names = sides,
                                 .side_count = side_count,
                                 /* The focus is the actor: ringed, and threats are its
                                  * enemies' (everyone's with no focus). */
                                 .mover = mover_i,
                                 .stats = &stats,
                                 .mode = mode,
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
out_early:
    free(marks.path);
    json_decref(event);
    json_decref(before);
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
