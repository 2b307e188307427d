/* Forced movement (movement.h, rules_move_forced): push, pull and slide on the map, in the air
 * straight up or down, stopped by creatures, blocked terrain, the map's edge, the target's
 * reductions or its falling prone (001 Forced Movement, Push, Pull, Slide, Forced Movement In
 * 3-D). */
#include <stdbool.h>

#include "rules/move/internal.h"
#include "rules/move/move.h"

static const struct {
    const char *code, *text;
} forced_stops[] = {
    [RULES_FORCED_COMPLETE] = {"complete", "moved every square"},
    [RULES_FORCED_OBSTRUCTED] = {"obstructed",
                                 "a creature (friend or foe) occupies the next square: it ends "
                                 "in the square before (001 Push, Pull, Slide)"},
    [RULES_FORCED_BLOCKED] = {"blocked",
                              "blocked terrain in the way: it ends in the square before; forced "
                              "movement never enters blocked terrain (001 Forced Movement In "
                              "3-D)"},
    [RULES_FORCED_NO_ROOM] = {"no_room",
                              "no unoccupied squares of its size and shape there (001 Forced "
                              "Movement)"},
    [RULES_FORCED_DIRECTION] = {"direction",
                                "each square of a push must be farther from the attacker's "
                                "squares, of a pull closer (or, once adjacent, another square "
                                "adjacent to the attacker) (001 Push, Pull)"},
    [RULES_FORCED_PRONE] = {"fell_prone",
                            "the target elected to fall prone, ending the forced movement (001 "
                            "Forced Movement)"},
    [RULES_FORCED_RESISTED] = {"resisted",
                               "its reductions to forced movement took every square (001 Forced "
                               "Movement)"},
    [RULES_FORCED_IGNORED] = {"ignored", "a creature that dropped prone voluntarily ignores forced "
                                         "movement while prone (001 Forced Movement)"},
    [RULES_FORCED_GROUND] = {"ground",
                             "moved straight down as far as the ground (001 Forced Movement In "
                             "3-D)"},
};

const char *rules_forced_stop_code(enum rules_forced_stop s)
{
    return forced_stops[s].code;
}

const char *rules_forced_stop_text(enum rules_forced_stop s)
{
    return forced_stops[s].text;
}

static int forced_distance(const struct rules_options *o, const struct rules_body *a,
                           const struct rules_body *b)
{
    struct rules_distance d;
    rules_distance(o, a, b, &d);
    return d.squares;
}

/* What stops the target's space at (x, y): blocked terrain, the map's edge or a creature. */
static enum rules_forced_stop forced_room(const struct rules_forced_query *q, int x, int y,
                                          int *obstacle)
{
    bool hex = q->o->grid == RULES_GRID_HEX;
    struct rules_body b = q->target.body;
    b.x = x, b.y = y;
    int fx[MAX_FOOT], fy[MAX_FOOT];
    int fn = rules_body_squares(q->o, &b, fx, fy, MAX_FOOT);
    for (int i = 0; i < fn; i++) {
        if (!on_map(q->map, fx[i], fy[i]))
            return RULES_FORCED_NO_ROOM;
        uint8_t t = q->map->terrain[mcell(q->map, fx[i], fy[i])];
        if (t == RULES_MAP_BLOCKED || t == RULES_MAP_EARTH)
            return RULES_FORCED_BLOCKED;
    }
    for (int k = 0; k < q->creature_count; k++) {
        const struct rules_creature *o = &q->creatures[k].c;
        /* 001 Stepover: a larger creature forced along may step over ones two sizes smaller. */
        if ((int)q->target.size >= (int)o->size + 2)
            continue;
        bool overlap = false;
        if (hex) {
            int oq[3], orr[3];
            int on = rules_hex_members(&o->body, oq, orr);
            for (int i = 0; i < fn && !overlap; i++)
                overlap = in_footprint(oq, orr, on, fx[i], fy[i]);
        } else {
            overlap = b.x < o->body.x + o->body.side && o->body.x < b.x + b.side &&
                      b.y < o->body.y + o->body.side && o->body.y < b.y + b.side;
        }
        if (overlap) {
            *obstacle = k;
            return RULES_FORCED_OBSTRUCTED;
        }
    }
    return RULES_FORCED_COMPLETE;
}

void rules_move_forced(const struct rules_forced_query *q, struct rules_forced_result *out)
{
    const struct rules_body *t = &q->target.body;
    *out = (struct rules_forced_result){.x = t->x,
                                        .y = t->y,
                                        .z = t->z,
                                        .stop = RULES_FORCED_COMPLETE,
                                        .stop_step = -1,
                                        .obstacle = -1};
    if (q->voluntarily_prone) {
        out->stop = RULES_FORCED_IGNORED;
        out->prone = true;
        return;
    }
    if (q->fall_prone_at == 0) {
        out->stop = RULES_FORCED_PRONE, out->stop_step = 0, out->prone = true;
        return;
    }
    /* 001: "forced movement reductions stack ... the sum of the reductions". */
    int n = q->squares - q->reduction;
    if (n <= 0) {
        out->stop = RULES_FORCED_RESISTED;
        return;
    }
    /* 001 Forced Movement In 3-D: a creature in the air moves "nearly always directly down";
     * a push that could not go down (from below) moves it "directly up". */
    int ground = 0;
    if (on_map(q->map, t->x, t->y) && q->map->elevation != NULL)
        ground = q->map->elevation[mcell(q->map, t->x, t->y)];
    bool airborne = t->z > ground || (on_map(q->map, t->x, t->y) &&
                                      q->map->terrain[mcell(q->map, t->x, t->y)] == RULES_MAP_AIR);
    if (airborne) {
        out->vertical = true;
        bool up = q->kind == RULES_FORCED_PUSH && q->attacker.body.z < t->z;
        if (up) {
            out->dz = n;
        } else {
            int room = t->z - ground;
            out->dz = -(n < room ? n : room);
            if (n > room)
                out->stop = RULES_FORCED_GROUND;
        }
        if (q->fall_prone_at > 0 && q->fall_prone_at <= (out->dz < 0 ? -out->dz : out->dz)) {
            out->dz = out->dz < 0 ? -(q->fall_prone_at - 1) : q->fall_prone_at - 1;
            out->stop = RULES_FORCED_PRONE, out->stop_step = q->fall_prone_at;
            out->prone = true;
        }
        out->z = t->z + out->dz;
        out->moved = out->dz < 0 ? -out->dz : out->dz;
        return;
    }
    struct rules_body cur = *t;
    const struct rules_body *att = &q->attacker.body;
    int limit = q->path_len < n ? q->path_len : n;
    for (int i = 0; i < limit; i++) {
        if (q->fall_prone_at == i + 1) {
            out->stop = RULES_FORCED_PRONE, out->stop_step = i + 1, out->prone = true;
            break;
        }
        struct rules_body next = cur;
        next.x = q->path[i].x, next.y = q->path[i].y;
        int before = forced_distance(q->o, &cur, att), after = forced_distance(q->o, &next, att);
        bool ok = true;
        if (q->kind == RULES_FORCED_PUSH)
            ok = after > before;
        else if (q->kind == RULES_FORCED_PULL)
            ok = after < before || (before <= 1 && after == 1);
        if (!ok) {
            out->stop = RULES_FORCED_DIRECTION, out->stop_step = i;
            break;
        }
        int obstacle = -1;
        enum rules_forced_stop why = forced_room(q, next.x, next.y, &obstacle);
        if (why != RULES_FORCED_COMPLETE) {
            out->stop = why, out->stop_step = i, out->obstacle = obstacle;
            break;
        }
        /* The squares entered that are hazardous: forced movement may carry it in (001
         * Hazardous Terrain; falling prone is the way to avoid it). */
        if (on_map(q->map, next.x, next.y) &&
            q->map->terrain[mcell(q->map, next.x, next.y)] == RULES_MAP_HAZARDOUS &&
            out->hazard_count < (int)(sizeof out->hazards / sizeof out->hazards[0]))
            out->hazards[out->hazard_count++] = i;
        cur = next;
        out->moved++;
    }
    if (out->stop == RULES_FORCED_COMPLETE && limit < q->path_len)
        out->stop = RULES_FORCED_RESISTED; /* the reductions shortened it */
    out->x = cur.x, out->y = cur.y;
}
