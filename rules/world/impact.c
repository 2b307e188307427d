#include "rules/world/impact.h"

#include <assert.h>
#include <stdio.h>

int rules_surface_per_die(enum rules_surface s)
{
    switch (s) {
    case RULES_SURFACE_OBSIDIAN:
        return 2;
    case RULES_SURFACE_STONE:
        return 1;
    case RULES_SURFACE_SOFT:
        return -1;
    case RULES_SURFACE_GROUND:
    case RULES_SURFACE_WATER:
        break;
    }
    return 0;
}

int rules_material_per_die(enum rules_material m)
{
    switch (m) {
    case RULES_MATERIAL_FEATHERS:
        return -2;
    case RULES_MATERIAL_BRUSH:
        return -1;
    case RULES_MATERIAL_DENSE:
        return 1;
    case RULES_MATERIAL_HARMFUL:
        return 2;
    case RULES_MATERIAL_NORMAL:
        break;
    }
    return 0;
}

/* Writes the dice notation of an impact ("3d6{+2}", "2d3+1d6", or "" for no dice). */
static void write_expression(struct rules_impact *im)
{
    char mod[16] = "";
    if (im->per_die != 0)
        snprintf(mod, sizeof mod, "{%+d}", im->per_die);
    int n = 0;
    im->expression[0] = '\0';
    if (im->d3 > 0)
        n = snprintf(im->expression, sizeof im->expression, "%dd3%s", im->d3, mod);
    if (im->d6 > 0)
        snprintf(im->expression + n, sizeof im->expression - (size_t)n, "%s%dd6%s",
                 n > 0 ? "+" : "", im->d6, mod);
}

/* Caps d3 + d6 at the falling maximum (0: none), removing d6 first: the deepest part of a fall
 * is what the maximum cuts off. */
static void cap(const struct rules_options *o, struct rules_impact *im)
{
    int max = o->falling_max_dice;
    if (max <= 0)
        return;
    if (im->d3 > max) {
        im->d3 = max;
        im->capped = true;
    }
    if (im->d3 + im->d6 > max) {
        im->d6 = max - im->d3;
        im->capped = true;
    }
}

void rules_fall(const struct rules_options *o, const struct rules_fall *f,
                struct rules_fall_outcome *out)
{
    *out = (struct rules_fall_outcome){0};
    struct rules_impact *im = &out->dice;
    int h = f->height_ft;
    if (f->surface == RULES_SURFACE_WATER && f->water_depth_ft >= 10) {
        /* 001 Falling into Water: "If the water is at least 10 feet deep, the first 20 feet of
         * falling does no damage. The next 20 feet of falling deals half normal falling damage
         * (1d3 per 10-foot increment). Beyond that ... 1d6 per additional 10-foot increment." */
        out->water = true;
        im->free_ft = h < 20 ? h : 20;
        int tens = h / 10;
        im->d3 = tens > 4 ? 2 : (tens > 2 ? tens - 2 : 0);
        im->d6 = tens > 4 ? tens - 4 : 0;
        im->rule = "001 Falling into Water: the first 20 feet do no damage, the next 20 feet "
                   "1d3 per 10-foot increment, beyond that 1d6 per 10-foot increment";
        if (f->dive) {
            /* "take no damage on a successful DC 15 ... check, so long as the water is at
             * least 10 feet deep for every 30 feet fallen. The DC ... increases by 5 for every
             * 50 feet of the dive." */
            out->dive_dc = 15 + 5 * (h / 50);
            out->dive_deep_enough = 3 * (long long)f->water_depth_ft >= h;
            out->dive_unharmed = f->dive_success && out->dive_deep_enough;
            if (out->dive_unharmed) {
                im->d3 = im->d6 = 0;
                im->free_ft = h;
                im->rule = "001 Falling into Water: a deliberate dive takes no damage on a "
                           "successful DC 15 check, with 10 feet of water per 30 feet fallen";
            }
        }
    } else {
        /* 001 Falling: "1d6 points of damage per 10 feet fallen". A deliberate jump: "the first
         * 10 feet of the fall inflict no damage. A DC 15 Acrobatics check allows the character
         * to avoid any damage from the second 10 feet as well." */
        int free_ft = f->deliberate ? (f->acrobatics_success ? 20 : 10) : 0;
        im->free_ft = h < free_ft ? h : free_ft;
        im->d6 = (h - im->free_ft) / 10;
        im->per_die = rules_surface_per_die(f->surface) + f->custom_per_die;
        im->rule = f->deliberate
                       ? (f->acrobatics_success
                              ? "001 Falling: a deliberate jump with a DC 15 Acrobatics check "
                                "takes no damage from the first 20 feet"
                              : "001 Falling: a deliberate jump takes no damage from the first "
                                "10 feet")
                       : "001 Falling: 1d6 points of damage per 10 feet fallen";
    }
    if (out->water)
        im->per_die = f->custom_per_die;
    cap(o, im);
    write_expression(im);
}

void rules_collision(const struct rules_options *o, const struct rules_collision *c,
                     struct rules_impact *out)
{
    *out = (struct rules_impact){0};
    if (c->deliberate) {
        out->rule = "001 Collisions: charges, overruns and other deliberate cases of a "
                    "character ramming into things never cause damage to the character who "
                    "instigates it";
    } else if (c->motion == RULES_MOTION_WALK || c->motion == RULES_MOTION_DOUBLE_MOVE) {
        out->rule = "001 Collisions: a character moving in a cautious manner takes no damage "
                    "from bumping into things (a normal move, or a double move)";
    } else {
        out->d6 = c->speed_ft / 10;
        out->rule = "001 Collisions: 1d6 of damage per ten feet of speed at the moment of the "
                    "collision";
        cap(o, out);
    }
    write_expression(out);
}

int rules_object_size_dice(enum rules_size size)
{
    static const int dice[] = {
        [RULES_SIZE_TINY] = 1,      [RULES_SIZE_SMALL] = 2, [RULES_SIZE_MEDIUM] = 3,
        [RULES_SIZE_LARGE] = 5,     [RULES_SIZE_HUGE] = 8,  [RULES_SIZE_GARGANTUAN] = 13,
        [RULES_SIZE_COLOSSAL] = 21,
    };
    if (size < RULES_SIZE_TINY)
        return -1;
    if (size >= RULES_SIZE_TITANIC)
        return 34; /* "Titanic and larger +34d6" */
    return dice[size];
}

int rules_dropped_object(const struct rules_options *o, enum rules_size size, int distance_ft,
                         enum rules_material material, int custom_per_die, struct rules_impact *out)
{
    *out = (struct rules_impact){0};
    int extra = rules_object_size_dice(size);
    if (extra < 0)
        return -1;
    out->d6 = distance_ft / 10;
    cap(o, out);
    out->d6 += extra;
    out->per_die = rules_material_per_die(material) + custom_per_die;
    out->rule = "001 Thrown or Dropped Objects: damage based on their size and the distance "
                "they have fallen (1d6 per 10 feet fallen, as for a character, plus the size "
                "table's dice)";
    write_expression(out);
    return 0;
}

bool rules_dropped_fills_area(enum rules_size size)
{
    return size >= RULES_SIZE_LARGE;
}

int rules_dropped_range_increment(int range_ft)
{
    assert(range_ft >= 0);
    int n = RULES_DROPPED_RANGE_INCREMENT_FT;
    return range_ft <= n ? 1 : (range_ft + n - 1) / n;
}

int rules_dropped_range_penalty(int range_ft, int per_increment)
{
    return (rules_dropped_range_increment(range_ft) - 1) * per_increment;
}

void rules_dropped_strike(int d20, int attack_bonus, int range_penalty, int touch_ac, int damage,
                          int damage_reduction, struct rules_dropped_strike *out)
{
    assert(out != NULL && d20 >= 1 && d20 <= 20);
    out->attack_total = attack_bonus - range_penalty;
    out->roll_total = d20 + out->attack_total;
    out->hit = out->roll_total >= touch_ac;
    int dealt = damage - damage_reduction;
    out->damage = out->hit && dealt > 0 ? dealt : 0;
}

int rules_impact_total(const struct rules_roll *roll, int per_die, int damage_reduction)
{
    int total = 0;
    for (int i = 0; i < roll->dice_count; i++) {
        if (!roll->dice[i].kept)
            continue;
        int v = roll->dice[i].value + per_die;
        total += v > 0 ? v : 0;
    }
    total -= damage_reduction;
    return total > 0 ? total : 0;
}
