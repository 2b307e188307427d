#include "rules/attack/attack.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

int rules_cover_bonus(enum rules_cover c)
{
    static const int bonus[] = {0, 2, 4, 7, 10, 0};
    static_assert(sizeof bonus / sizeof bonus[0] == RULES_COVER_TOTAL + 1, "one per degree");
    assert((unsigned)c <= RULES_COVER_TOTAL);
    return bonus[c];
}

int rules_cover_reflex(enum rules_cover c)
{
    static const int bonus[] = {0, 1, 2, 3, 4, 0};
    static_assert(sizeof bonus / sizeof bonus[0] == RULES_COVER_TOTAL + 1, "one per degree");
    assert((unsigned)c <= RULES_COVER_TOTAL);
    return bonus[c];
}

const char *rules_cover_reflex_footnote(enum rules_cover c)
{
    /* Nine-tenths: "+4 1", footnote 1: "Half damage if save is failed; no damage if
     * successful." */
    return c == RULES_COVER_NINE_TENTHS ? "Half damage if save is failed; no damage if successful."
                                        : NULL;
}

int rules_concealment_miss_chance(enum rules_concealment c)
{
    assert((unsigned)c <= RULES_CONCEAL_TOTAL);
    return 10 * (int)c; /* 002 Table: Concealment: 10%, 20%, 30%, 40%, 50% */
}

static void add(struct rules_attack_eval *e, int value, enum rules_applies to, bool applied,
                const char *reason, const char *source)
{
    /* A defense part of 0 says nothing; conditions worth +0 still are listed (they carry
     * footnotes), as is anything that did not apply. */
    if (value == 0 && applied && strcmp(source, "defender") == 0)
        return;
    if (e->mod_count >= RULES_MAX_MODIFIERS)
        return;
    e->mods[e->mod_count++] = (struct rules_modifier){value, to, reason, source, applied, 0};
}

/* How favourable an area is to an attacker standing in it (rear best). */
static int favour(enum rules_area a)
{
    return a == RULES_AREA_REAR ? 3 : (a == RULES_AREA_FLANK || a == RULES_AREA_SIDE) ? 2 : 1;
}

/* The area of `who`'s nearest square in `of`'s facing areas. Among equally near squares the
 * one most favourable to the attacker counts when `attacker_view` is false (the attacker
 * picks where it strikes from), the most favourable to the attacker's own facing (front)
 * when it is true (the attacker picks which square of the target to strike). */
static enum rules_area nearest_area(const struct rules_options *o, const struct rules_creature *of,
                                    const struct rules_creature *who, bool attacker_view)
{
    int best_d = INT_MAX, best_f = -1;
    enum rules_area best = RULES_AREA_NONE;
    int n = o->grid == RULES_GRID_HEX ? 1 : who->body.side;
    for (int dy = 0; dy < n; dy++) {
        for (int dx = 0; dx < n; dx++) {
            int x = who->body.x + dx, y = who->body.y + dy;
            struct rules_body sq = {.x = x, .y = y, .z = who->body.z, .side = 1};
            struct rules_distance d;
            rules_distance(o, &of->body, &sq, &d);
            enum rules_area a = rules_facing_area(o, of, x, y);
            int f = attacker_view ? 4 - favour(a) : favour(a);
            if (d.squares < best_d || (d.squares == best_d && f > best_f)) {
                best_d = d.squares;
                best_f = f;
                best = a;
            }
        }
    }
    return best;
}

/* +1 when `who` stands on the right of `of`'s facing, -1 on the left, 0 straight ahead or
 * behind: the sign of the cross product of the facing and the direction to `who`. */
static int side_of(const struct rules_options *o, const struct rules_creature *of,
                   const struct rules_creature *who)
{
    long long cross;
    if (o->grid == RULES_GRID_HEX) {
        const int *f = rules_hex_dirs[of->facing % 6];
        long long vq = who->body.x - of->body.x, vr = who->body.y - of->body.y;
        cross = (long long)f[0] * vr - (long long)f[1] * vq;
    } else {
        static const int dir[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                                      {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};
        const int *f = dir[of->facing % 8];
        long long vx = 2LL * who->body.x + who->body.side - (2LL * of->body.x + of->body.side);
        long long vy = 2LL * who->body.y + who->body.side - (2LL * of->body.y + of->body.side);
        cross = (long long)f[0] * vy - (long long)f[1] * vx;
    }
    return (cross > 0) - (cross < 0);
}

static void attack_roll_modifiers(const struct rules_attacker *a, struct rules_attack_eval *e)
{
    const char *table = "002 Table: Attack Roll Modifiers";
    if (a->higher_ground)
        add(e, a->ranged ? 0 : 1, RULES_APPLIES_ATTACK, !a->ranged,
            a->ranged ? "attacker on higher ground (+0 ranged)" : "attacker on higher ground",
            table);
    if (a->prone)
        add(e, a->ranged ? -2 : -4, RULES_APPLIES_ATTACK, true,
            a->ranged ? "attacker prone (some ranged weapons can't be used prone)"
                      : "attacker prone",
            table);
    if (a->invisible) {
        add(e, 2, RULES_APPLIES_ATTACK, true,
            "attacker invisible (the defender loses any Dexterity bonus)", table);
        e->dex_lost = true;
    }
    if (a->squeezing)
        add(e, -4, RULES_APPLIES_ATTACK, true, "attacker squeezing", "001 Squeezing");
    /* d20 3.5 SRD, Charge (the seeds give charging no modifiers): "You get a +2 bonus on the
     * attack roll". */
    if (a->charging)
        add(e, 2, RULES_APPLIES_ATTACK, true, "attacker charging", RULES_SRC_CHARGE);
    /* RULES_SRC_CIRCUMSTANCE: a circumstance bonus the seeds do not rule is the table's to
     * give (the request's bonus, Avrae's -b). */
    if (a->situational != 0)
        add(e, a->situational, RULES_APPLIES_ATTACK, true, "situational bonus",
            RULES_SRC_CIRCUMSTANCE);
}

/* 000 Facing and Attacking: the attacker's own facing. */
static void own_facing(const struct rules_options *o, const struct rules_attacker *a,
                       const struct rules_defender *d, struct rules_attack_eval *e)
{
    if (o->facing != RULES_FACING_000 || !rules_has_facing(o, &a->c))
        return;
    enum rules_area at = nearest_area(o, &a->c, &d->c, true);
    e->target_area = at;
    if (at != RULES_AREA_FLANK && at != RULES_AREA_REAR)
        return;
    bool flank = at == RULES_AREA_FLANK;
    int value = flank ? -5 : -10;
    const char *reason = flank ? "attacking into own flank area" : "attacking into own rear area";
    const char *why_not = NULL;
    if (a->whirlwind_attack)
        why_not = "000 Whirlwind Attack: attack into any area without penalty";
    else if (flank && a->kind == RULES_ATTACK_CLEAVE)
        why_not = "000 Cleave and Great Cleave: extra attacks into flank areas without penalty";
    else if (flank && a->kind == RULES_ATTACK_OF_OPPORTUNITY && a->combat_reflexes)
        why_not = "000 Combat Reflexes: attacks of opportunity into flank areas without penalty";
    else if (flank && a->flank_attack)
        why_not = "000 Flank Attacks: monster attacks that reach flank squares take no penalty";
    else if (!flank && a->rear_attack)
        why_not = "000 Rear Attacks: monster attacks into rear squares take no penalty";
    else if (flank && a->mounted_combat && a->has_steed &&
             rules_facing_area(o, &a->steed, d->c.body.x, d->c.body.y) == RULES_AREA_FLANK)
        why_not = "000 Mounted Combat: attacks into the steed's flank areas without penalty";
    add(e, value, RULES_APPLIES_ATTACK, why_not == NULL, why_not ? why_not : reason,
        why_not ? why_not : "000 Facing and Attacking");
}

/* Opponent facing (000), the flanked condition (003), or flanking (004/001). */
static void position_bonus(const struct rules_options *o, const struct rules_attacker *a,
                           const struct rules_defender *d, const struct rules_creature *allies,
                           int ally_count, struct rules_attack_eval *e)
{
    bool immune = d->c.cannot_be_flanked || d->uncanny_dodge || d->all_around_vision;
    if (o->facing == RULES_FACING_NONE) {
        struct rules_flank_result r;
        struct rules_creature target = d->c;
        target.cannot_be_flanked = immune;
        rules_flanking(o, &a->c, &target, allies, ally_count, NULL, &r);
        e->flank_rule = r.rule;
        if (r.flanked) {
            e->flanked = !a->ranged;
            add(e, a->ranged ? 0 : 2, RULES_APPLIES_ATTACK, !a->ranged,
                a->ranged ? "flanking counts for melee attacks only" : "flanking the defender",
                o->flanking == RULES_FLANKING_LINES ? "001 Flanking" : "004 Flanking");
        }
        return;
    }
    if (!rules_has_facing(o, &d->c))
        return;
    enum rules_area at = nearest_area(o, &d->c, &a->c, false);
    e->attacker_area = at;
    if (o->facing == RULES_FACING_000) {
        if (at != RULES_AREA_FLANK && at != RULES_AREA_REAR)
            return;
        bool rear = at == RULES_AREA_REAR;
        const char *src = "000 Opponent Facing";
        if (d->improved_uncanny_dodge)
            add(e, 0, RULES_APPLIES_ATTACK, false,
                rear ? "no +4 from the rear: the defender has Improved Uncanny Dodge"
                     : "no +2 from the flank: the defender has Improved Uncanny Dodge",
                "000 Improved Uncanny Dodge");
        else
            add(e, rear ? 4 : 2, RULES_APPLIES_ATTACK, true,
                rear ? "attacking from the defender's rear area (or beyond)"
                     : "attacking from the defender's flank area (or beyond)",
                src);
        return;
    }
    /* 003: side spaces flank, the rear doubles it; shifted bands move one step forward. */
    int band = at == RULES_AREA_REAR ? 2 : at == RULES_AREA_SIDE ? 1 : 0;
    if (a->shifts_bands && band < 2)
        band++;
    if (band == 0)
        return;
    if (immune) {
        add(e, 0, RULES_APPLIES_ATTACK, false,
            "no advantage from behind or the side: the defender cannot be flanked", "003");
        return;
    }
    e->flanked = true;
    add(e, band == 2 ? 4 : 2, RULES_APPLIES_ATTACK, true,
        band == 2 ? "defender flanked, doubled from a rear-facing space"
                  : "defender flanked from a side-facing space",
        "003: the flanked condition (the d20 flanking +2), doubled from rear spaces");
    if (a->pack_bonus > 0)
        add(e, band == 2 ? a->pack_bonus : a->pack_bonus / 2, RULES_APPLIES_ATTACK, true,
            band == 2 ? "Pack-Fighter-type bonus, full from the rear"
                      : "Pack-Fighter-type bonus, half from the side",
            "003: features that worsen the flanked condition");
}

/* A defense modifier that the defender's condition cond gives (tagged with it, so that an
 * answer can name the AC's reasons). */
static void add_cond(struct rules_attack_eval *e, unsigned cond, int value, bool applied,
                     const char *reason, const char *source)
{
    int before = e->mod_count;
    add(e, value, RULES_APPLIES_DEFENSE, applied, reason, source);
    if (e->mod_count > before)
        e->mods[before].condition = cond;
}

/* 002 Table: Defense Modifiers with its footnotes, and 001 Squeezing. */
static void defense_conditions(const struct rules_options *o, const struct rules_attacker *a,
                               const struct rules_defender *d, struct rules_attack_eval *e)
{
    const char *table = "002 Table: Defense Modifiers";
    unsigned c = d->conditions;
    bool ranged = a->ranged;
    struct rules_distance dist;
    rules_distance(o, &a->c.body, &d->c.body, &dist);
    bool adjacent = dist.squares <= 1;
    if (c & RULES_COND_SITTING) {
        bool applies = !ranged || !adjacent; /* footnote 1 */
        add_cond(e, RULES_COND_SITTING, ranged ? 2 : -2, applies,
                 applies ? "defender sitting or kneeling"
                         : "defender sitting or kneeling: not against an adjacent attacker",
                 table);
    }
    if (c & RULES_COND_PRONE) {
        bool applies = !ranged || !adjacent;
        add_cond(e, RULES_COND_PRONE, ranged ? 4 : -4, applies,
                 applies ? "defender prone" : "defender prone: not against an adjacent attacker",
                 table);
    }
    if (c & RULES_COND_STUNNED) {
        add_cond(e, RULES_COND_STUNNED, -2, true, "defender stunned or cowering", table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_CLIMBING) {
        add_cond(e, RULES_COND_CLIMBING, -2, true, "defender climbing", table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_FLAT_FOOTED) {
        add_cond(e, RULES_COND_FLAT_FOOTED, 0, true, "defender flat-footed", table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_RUNNING) {
        add_cond(e, RULES_COND_RUNNING, ranged ? 2 : 0, true, "defender running", table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_GRAPPLING) {
        add_cond(e, RULES_COND_GRAPPLING, 0, true,
                 ranged ? "defender grappling: roll randomly which grappler is struck"
                        : "defender grappling (attacker not)",
                 table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_HELPLESS) {
        add_cond(e, RULES_COND_HELPLESS, 0, true, "defender helpless", table);
        e->dex_lost = true;
    }
    if (c & RULES_COND_PINNED)
        add_cond(e, RULES_COND_PINNED, ranged ? 0 : -4, true, "defender pinned", table);
    if (c & RULES_COND_SQUEEZING)
        add_cond(e, RULES_COND_SQUEEZING, -4, true, "defender squeezing", "001 Squeezing");
    /* d20 3.5 SRD, Charge: "and take a -2 penalty to your AC until the start of your next
     * turn". */
    if (c & RULES_COND_CHARGING)
        add_cond(e, RULES_COND_CHARGING, -2, true, "defender charged since its turn began",
                 RULES_SRC_CHARGE);
}

/* The attack roll's parts: the bonus, the attacker's size, its own modifiers, its facing and
 * its position. */
static int attack_side(const struct rules_options *o, const struct rules_attacker *a,
                       const struct rules_defender *d, const struct rules_creature *allies,
                       int ally_count, struct rules_attack_eval *e)
{
    add(e, a->attack_bonus, RULES_APPLIES_ATTACK, true, "attack bonus", "attacker");
    if (!a->size_included) {
        int atk = 0, ac = 0;
        if (rules_size_modifiers(o, a->c.size, a->player_character, &atk, &ac) != RULES_SIZE_OK)
            return RULES_ATTACK_ERR_NO_SIZE_MODIFIER;
        if (atk != 0)
            add(e, atk, RULES_APPLIES_ATTACK, true, "attacker's size",
                o->size_table == RULES_SIZE_TABLE_001 ? "001 Space and Reach"
                                                      : "004 Size Modifiers");
    }
    attack_roll_modifiers(a, e);
    own_facing(o, a, d, e);
    /* 000 Spellcasting: "A spellcaster can't target anything in his rear area with a spell." */
    if (a->spell && e->target_area == RULES_AREA_REAR)
        return RULES_ATTACK_ERR_SPELL_INTO_REAR;
    position_bonus(o, a, d, allies, ally_count, e);
    return RULES_ATTACK_OK;
}

/* Armor, shield and natural armor: a touch attack ignores them; under 000 facing a shield
 * guards only the front and the shield's flank. Sets e->attacker_area, and *front when the
 * attacker stands in the defender's front (or facing does not apply). */
static void defense_armor(const struct rules_options *o, const struct rules_attacker *a,
                          const struct rules_defender *d, struct rules_attack_eval *e, bool *front)
{
    const struct rules_defense *p = &d->ac;
    const char *touch_src = "004 Touch Attack: no armor, shield or natural armor bonus";
    add(e, p->armor, RULES_APPLIES_DEFENSE, !a->touch, "armor bonus",
        a->touch ? touch_src : "defender");
    bool shield_ok = true;
    *front = true;
    if (o->facing == RULES_FACING_000 && rules_has_facing(o, &d->c)) {
        enum rules_area at = e->attacker_area != RULES_AREA_NONE
                                 ? e->attacker_area
                                 : nearest_area(o, &d->c, &a->c, false);
        e->attacker_area = at;
        *front = at == RULES_AREA_FRONT;
        if (o->shields_by_side && d->shield_side != RULES_SHIELD_NONE) {
            int side = side_of(o, &d->c, &a->c);
            bool on_shield_side = (d->shield_side == RULES_SHIELD_RIGHT && side > 0) ||
                                  (d->shield_side == RULES_SHIELD_LEFT && side < 0);
            shield_ok = at == RULES_AREA_FRONT || (at == RULES_AREA_FLANK && on_shield_side);
        }
    }
    e->shieldless = !shield_ok && (p->shield + p->shield_enhancement) != 0;
    const char *shield_src = a->touch    ? touch_src
                             : shield_ok ? "defender"
                                         : "000 Shields (Optional): only against attacks from the "
                                           "front and the shield's flank";
    add(e, p->shield, RULES_APPLIES_DEFENSE, !a->touch && shield_ok, "shield bonus", shield_src);
    add(e, p->shield_enhancement, RULES_APPLIES_DEFENSE, !a->touch && shield_ok,
        "shield enhancement", shield_src);
    add(e, p->natural, RULES_APPLIES_DEFENSE, !a->touch, "natural armor",
        a->touch ? touch_src : "defender");
}

/* Dexterity: lost to the conditions that deny it, replaced by -5 when pinned. */
static void defense_dexterity(const struct rules_defender *d, struct rules_attack_eval *e)
{
    int dex = d->ac.dex;
    if (d->conditions & RULES_COND_PINNED) {
        add(e, -5, RULES_APPLIES_DEFENSE, true, "Dexterity treated as 0 (-5): pinned",
            "002 Table: Defense Modifiers, footnote 4");
        add(e, dex, RULES_APPLIES_DEFENSE, false, "Dexterity (replaced: pinned)", "defender");
        e->dex_lost = true;
    } else if (e->dex_lost && dex > 0) {
        add(e, dex, RULES_APPLIES_DEFENSE, false, "Dexterity bonus lost",
            "002 Table: Defense Modifiers, footnote 2; 004 Flat-Footed");
    } else {
        add(e, dex, RULES_APPLIES_DEFENSE, true, "Dexterity", "defender");
    }
    e->flat_footed = e->dex_lost;
}

/* Dodge, deflection, size, other, the shield spell (front only under 000 facing) and cover. */
static int defense_rest(const struct rules_options *o, const struct rules_defender *d,
                        enum rules_cover cover, bool front, struct rules_attack_eval *e)
{
    const struct rules_defense *p = &d->ac;
    add(e, p->dodge, RULES_APPLIES_DEFENSE, true, "dodge bonus", "defender");
    add(e, p->deflection, RULES_APPLIES_DEFENSE, true, "deflection bonus", "defender");
    int size_part = p->size;
    const char *size_src = "defender";
    if (!p->size_given) {
        int atk = 0;
        if (rules_size_modifiers(o, d->c.size, d->player_character, &atk, &size_part) !=
            RULES_SIZE_OK)
            return RULES_ATTACK_ERR_NO_SIZE_MODIFIER;
        size_src =
            o->size_table == RULES_SIZE_TABLE_001 ? "001 Space and Reach" : "004 Size Modifiers";
    }
    add(e, size_part, RULES_APPLIES_DEFENSE, true, "size", size_src);
    add(e, p->other, RULES_APPLIES_DEFENSE, true, "other", "defender");
    if (d->shield_spell > 0) {
        bool ok = o->facing != RULES_FACING_000 || !rules_has_facing(o, &d->c) || front;
        add(e, d->shield_spell, RULES_APPLIES_DEFENSE, ok,
            ok ? "shield spell" : "shield spell: front area only",
            ok ? "defender" : "000 Shields (Optional): the shield spell, front area only");
    }
    e->cover_bonus = rules_cover_bonus(cover);
    if (cover == RULES_COVER_NINE_TENTHS) /* the Reflex footnote belongs to this row too */
        add(e, e->cover_bonus, RULES_APPLIES_DEFENSE, true,
            "cover (nine-tenths; Reflex +4: half damage if the save fails, none if it succeeds)",
            "002 Table: Cover, footnote 1");
    else if (cover != RULES_COVER_NONE)
        add(e, e->cover_bonus, RULES_APPLIES_DEFENSE, true, "cover", "002 Table: Cover");
    return RULES_ATTACK_OK;
}

/* The attack total and the target number: the sums of the applied modifiers of each side. */
static void totals(struct rules_attack_eval *e)
{
    e->attack_total = 0;
    e->target_number = 0;
    for (int i = 0; i < e->mod_count; i++) {
        if (!e->mods[i].applied)
            continue;
        if (e->mods[i].applies_to == RULES_APPLIES_ATTACK)
            e->attack_total += e->mods[i].value;
        else
            e->target_number += e->mods[i].value;
    }
    e->target_without_cover = e->target_number - e->cover_bonus;
}

/* 002 Concealment: "use the one that would produce the highest miss chance. Do not add the
 * miss chances together." An invisible defender is totally concealed. */
static void concealment(const struct rules_defender *d, const enum rules_concealment *list,
                        int count, struct rules_attack_eval *e)
{
    assert(count == 0 || list != NULL);
    enum rules_concealment best = d->invisible ? RULES_CONCEAL_TOTAL : RULES_CONCEAL_NONE;
    for (int i = 0; i < count; i++)
        if (list[i] > best)
            best = list[i];
    e->concealment = best;
    e->miss_chance = rules_concealment_miss_chance(best);
    e->guess_square = best == RULES_CONCEAL_TOTAL;
}

/* Whether the attack may deal sneak attack damage, and the rule that says so or not. */
static void sneak_attack(const struct rules_options *o, const struct rules_attacker *a,
                         const struct rules_defender *d, struct rules_attack_eval *e)
{
    if (a->sneak_dice <= 0) {
        e->sneak_reason = "the attacker has no sneak attack dice";
    } else if (d->immune_sneak_attack) {
        e->sneak_reason = "the defender is immune to sneak attack";
    } else if (d->conditions & RULES_COND_FLAT_FOOTED) {
        e->sneak_attack = true;
        e->sneak_reason = "000 Sneak Attacks: the foe is flat-footed";
    } else if (o->facing == RULES_FACING_000 && e->attacker_area == RULES_AREA_REAR) {
        if (a->ranged) {
            e->sneak_reason = "000 Sneak Attacks: from the rear area only with a melee weapon";
        } else if (d->improved_uncanny_dodge && a->rogue_level < d->iud_level + 4) {
            e->sneak_reason = "000 Improved Uncanny Dodge: only a rogue four levels higher "
                              "deals sneak attack damage from a rear square";
        } else {
            e->sneak_attack = true;
            e->sneak_reason = "000 Sneak Attacks: a melee attack from the foe's rear area";
        }
    } else if (o->facing == RULES_FACING_003) {
        if (e->flanked && e->attacker_area == RULES_AREA_REAR) {
            e->sneak_attack = true;
            e->sneak_reason = "003: sneak-attack-type effects apply from rear-facing spaces";
        } else {
            e->sneak_reason = "003: sneak-attack-type effects only from rear-facing spaces";
        }
    } else if (o->facing == RULES_FACING_NONE && e->flanked) {
        e->sneak_attack = true;
        e->sneak_reason = "004 Flanking: a rogue in this position can also sneak attack";
    } else {
        e->sneak_reason = o->facing == RULES_FACING_000
                              ? "000 Sneak Attacks: the foe is neither flat-footed nor attacked "
                                "from its rear area"
                              : "the defender is neither flat-footed nor flanked";
    }
}

int rules_attack_evaluate(const struct rules_options *o, const struct rules_attacker *a,
                          const struct rules_defender *d, const struct rules_creature *allies,
                          int ally_count, enum rules_cover cover,
                          const enum rules_concealment *concealments, int concealment_count,
                          struct rules_attack_eval *out)
{
    assert(o != NULL && a != NULL && d != NULL && out != NULL);
    assert(ally_count == 0 || allies != NULL);
    *out = (struct rules_attack_eval){
        .attacker_area = RULES_AREA_NONE, .target_area = RULES_AREA_NONE, .cover = cover};
    struct rules_attack_eval *e = out;
    if (cover == RULES_COVER_TOTAL)
        return RULES_ATTACK_ERR_TOTAL_COVER;
    int rc = attack_side(o, a, d, allies, ally_count, e);
    if (rc != RULES_ATTACK_OK)
        return rc;
    /* The defense, from its parts. */
    e->touch = a->touch;
    add(e, 10, RULES_APPLIES_DEFENSE, true, "base Defense (10 plus its parts)", "defender");
    bool front = true;
    defense_armor(o, a, d, e, &front);
    defense_conditions(o, a, d, e);
    defense_dexterity(d, e);
    rc = defense_rest(o, d, cover, front, e);
    if (rc != RULES_ATTACK_OK)
        return rc;
    totals(e);
    concealment(d, concealments, concealment_count, e);
    sneak_attack(o, a, d, e);
    return RULES_ATTACK_OK;
}
