/* Attack modifiers: the examples of 000, each footnote of 002, 003, and 004. */
#include <criterion/criterion.h>
#include <string.h>

#include "rules/attack/attack.h"

static struct rules_options f000, f003, plain;

static void setup(void)
{
    cr_assert_eq(rules_preset_apply("d20-3.5-facing", &f000), RULES_OPTION_OK);
    f003 = f000;
    f003.facing = RULES_FACING_003;
    cr_assert_eq(rules_preset_apply("d20-3.5", &plain), RULES_OPTION_OK);
}

/* One suite per source document. */
TestSuite(attack_000, .init = setup);
TestSuite(attack_002, .init = setup);
TestSuite(attack_003, .init = setup);
TestSuite(attack_004, .init = setup);

enum { N = 0, NE, E, SE, S, SW, W, NW };

static struct rules_attacker attacker(int x, int y, int facing)
{
    struct rules_attacker a = {0};
    rules_creature_init(&a.c, RULES_SIZE_MEDIUM, x, y, 0);
    a.c.facing = facing;
    a.attack_bonus = 5;
    return a;
}

static struct rules_defender defender(int x, int y, int facing)
{
    struct rules_defender d = {0};
    rules_creature_init(&d.c, RULES_SIZE_MEDIUM, x, y, 0);
    d.c.facing = facing;
    d.ac = (struct rules_defense){.armor = 4, .shield = 2, .dex = 2};
    return d;
}

static struct rules_attack_eval eval(const struct rules_options *o, struct rules_attacker a,
                                     struct rules_defender d)
{
    struct rules_attack_eval e;
    cr_assert_eq(rules_attack_evaluate(o, &a, &d, NULL, 0, RULES_COVER_NONE, NULL, 0, &e),
                 RULES_ATTACK_OK);
    return e;
}

/* The attack total less the base bonus: what position did. */
static int position(const struct rules_attack_eval *e)
{
    return e->attack_total - 5;
}

static int pos(const struct rules_options *o, struct rules_attacker a, struct rules_defender d)
{
    struct rules_attack_eval e = eval(o, a, d);
    return position(&e);
}

/* 000 Attacks of Opportunity, Figure 1: "Because the fighter is in her flank area, he gets a +2
 * bonus on the attack roll." The rogue faces north; the fighter stands east, facing her. */
Test(attack_000, figure_1_the_fighter_in_the_rogues_flank_gets_plus_2)
{
    struct rules_attack_eval e = eval(&f000, attacker(6, 5, W), defender(5, 5, N));
    cr_assert_eq(e.attacker_area, RULES_AREA_FLANK);
    cr_assert_eq(position(&e), 2);
}

/* Figure 2: moving sideways without turning, "he doesn't get the +2 bonus because he's standing
 * in the rogue's front area." The rogue faces east, toward the fighter. */
Test(attack_000, figure_2_no_bonus_from_the_rogues_front)
{
    struct rules_attack_eval e = eval(&f000, attacker(6, 5, W), defender(5, 5, E));
    cr_assert_eq(e.attacker_area, RULES_AREA_FRONT);
    cr_assert_eq(position(&e), 0);
}

/* Figure 3: "at a -10 penalty because the rogue is in the fighter's rear area. The fighter also
 * gets a +2 bonus because he's in the rogue's flank area." */
Test(attack_000, figure_3_minus_10_into_own_rear_plus_2_from_her_flank)
{
    struct rules_attack_eval e = eval(&f000, attacker(5, 5, N), defender(5, 6, E));
    cr_assert_eq(e.target_area, RULES_AREA_REAR);
    cr_assert_eq(e.attacker_area, RULES_AREA_FLANK);
    cr_assert_eq(position(&e), -8);
}

/* Kroh, beset by a bugbear in front and a goblin behind: attacking into his rear is -10, into
 * his flank -5. */
Test(attack_000, kroh_attacks_into_his_rear_and_flank)
{
    struct rules_defender goblin = defender(5, 6, N);
    goblin.c.facing = N; /* the goblin faces Kroh's back: Kroh is in its front */
    struct rules_attack_eval e = eval(&f000, attacker(5, 5, N), goblin);
    cr_assert_eq(e.target_area, RULES_AREA_REAR);
    cr_assert_eq(position(&e), -10);
    e = eval(&f000, attacker(5, 5, N), defender(6, 5, W));
    cr_assert_eq(e.target_area, RULES_AREA_FLANK);
    cr_assert_eq(position(&e), -5);
}

/* Rogue A and the fighter stand in the gnoll's flank areas: +2 each, and rogue A gets no sneak
 * attack. Rogue B attacks from the gnoll's rear: +4 and sneak attack. */
Test(attack_000, rogues_a_and_b_and_the_gnoll)
{
    struct rules_defender gnoll = defender(5, 5, N);
    struct rules_attacker rogue_a = attacker(4, 5, E), fighter = attacker(6, 5, W);
    rogue_a.sneak_dice = 2;
    struct rules_attack_eval e = eval(&f000, rogue_a, gnoll);
    cr_assert_eq(position(&e), 2);
    cr_assert_not(e.sneak_attack);
    cr_assert_eq(pos(&f000, fighter, gnoll), 2);
    struct rules_attacker rogue_b = attacker(5, 6, N);
    rogue_b.sneak_dice = 2;
    e = eval(&f000, rogue_b, gnoll);
    cr_assert_eq(position(&e), 4);
    cr_assert(e.sneak_attack);
    rogue_b.ranged = true; /* "attacking with a melee weapon from the foe's rear area" */
    cr_assert_not(eval(&f000, rogue_b, gnoll).sneak_attack);
    gnoll.conditions = RULES_COND_FLAT_FOOTED; /* "whenever her foe is flat-footed" */
    cr_assert(eval(&f000, rogue_a, gnoll).sneak_attack);
}

/* 000 Improved Uncanny Dodge: no +2 or +4; only a rogue four levels higher sneak attacks from
 * the rear. */
Test(attack_000, improved_uncanny_dodge)
{
    struct rules_defender d = defender(5, 5, N);
    d.improved_uncanny_dodge = true;
    d.iud_level = 6;
    struct rules_attacker a = attacker(5, 6, N);
    a.sneak_dice = 3;
    a.rogue_level = 9;
    struct rules_attack_eval e = eval(&f000, a, d);
    cr_assert_eq(position(&e), 0);
    cr_assert_not(e.sneak_attack);
    a.rogue_level = 10;
    cr_assert(eval(&f000, a, d).sneak_attack);
}

/* The exceptions to attacking into one's own flank or rear. */
Test(attack_000, facing_exceptions)
{
    struct rules_defender foe = defender(6, 5, E); /* in the attacker's flank; faces away */
    struct rules_attacker a = attacker(5, 5, N);
    cr_assert_eq(pos(&f000, a, foe), -5 + 4);
    a.whirlwind_attack = true;
    cr_assert_eq(pos(&f000, a, foe), 4);
    a = attacker(5, 5, N);
    a.kind = RULES_ATTACK_CLEAVE;
    cr_assert_eq(pos(&f000, a, foe), 4);
    a = attacker(5, 5, N);
    a.kind = RULES_ATTACK_OF_OPPORTUNITY;
    a.combat_reflexes = true;
    cr_assert_eq(pos(&f000, a, foe), 4);
    a = attacker(5, 5, N);
    a.flank_attack = true;
    cr_assert_eq(pos(&f000, a, foe), 4);
    /* Rear attacks: a tail slap into the rear takes no -10. */
    struct rules_defender behind = defender(5, 6, S);
    a = attacker(5, 5, N);
    cr_assert_eq(pos(&f000, a, behind), -10 + 4);
    a.rear_attack = true;
    cr_assert_eq(pos(&f000, a, behind), 4);
    /* Mounted Combat: into the steed's flank areas. */
    a = attacker(5, 5, N);
    a.mounted_combat = true;
    a.has_steed = true;
    rules_creature_init(&a.steed, RULES_SIZE_MEDIUM, 5, 5, 0);
    a.steed.facing = N;
    cr_assert_eq(pos(&f000, a, foe), 4);
}

/* 000 Shields (Optional): a shield counts against the front and its own flank; the shield
 * spell against the front only. */
Test(attack_000, shields_by_side_and_the_shield_spell)
{
    struct rules_defender d = defender(5, 5, N);
    d.shield_side = RULES_SHIELD_LEFT;
    d.shield_spell = 4;
    /* 10 + armor 4 + shield 2 + dex 2 = 18; + shield spell 4 from the front. */
    struct rules_attack_eval e = eval(&f000, attacker(5, 4, S), d);
    cr_assert_eq(e.target_number, 22);
    e = eval(&f000, attacker(4, 5, E), d); /* the left flank: shield, no spell */
    cr_assert_eq(e.target_number, 18);
    e = eval(&f000, attacker(6, 5, W), d); /* the right flank: neither */
    cr_assert_eq(e.target_number, 16);
    cr_assert(e.shieldless);
    e = eval(&f000, attacker(5, 6, N), d); /* the rear */
    cr_assert_eq(e.target_number, 16);
}

/* 002 Table: Defense Modifiers, with each footnote. */
Test(attack_002, defense_table_and_footnotes)
{
    struct rules_attacker melee = attacker(5, 4, S), bow = attacker(5, 0, S);
    bow.ranged = true;
    struct rules_defender d = defender(5, 5, N);
    d.conditions = RULES_COND_PRONE;
    cr_assert_eq(eval(&plain, melee, d).target_number, 18 - 4);
    cr_assert_eq(eval(&plain, bow, d).target_number, 18 + 4);
    struct rules_attacker adjacent_bow = attacker(5, 4, S);
    adjacent_bow.ranged = true; /* footnote 1: not if the target is adjacent */
    cr_assert_eq(eval(&plain, adjacent_bow, d).target_number, 18);
    d.conditions = RULES_COND_SITTING;
    cr_assert_eq(eval(&plain, melee, d).target_number, 16);
    cr_assert_eq(eval(&plain, bow, d).target_number, 20);
    d.conditions = RULES_COND_STUNNED; /* -2 and footnote 2: loses Dex bonus */
    struct rules_attack_eval e = eval(&plain, melee, d);
    cr_assert_eq(e.target_number, 18 - 2 - 2);
    cr_assert(e.flat_footed);
    d.conditions = RULES_COND_CLIMBING;
    cr_assert_eq(eval(&plain, melee, d).target_number, 14);
    d.conditions = RULES_COND_FLAT_FOOTED;
    cr_assert_eq(eval(&plain, melee, d).target_number, 16);
    d.conditions = RULES_COND_RUNNING;
    cr_assert_eq(eval(&plain, melee, d).target_number, 16);
    cr_assert_eq(eval(&plain, bow, d).target_number, 18);
    d.conditions = RULES_COND_GRAPPLING;
    cr_assert_eq(eval(&plain, bow, d).target_number, 16); /* footnote 3 */
    d.conditions = RULES_COND_PINNED; /* -4 melee and footnote 4: Dex treated as 0 (-5) */
    cr_assert_eq(eval(&plain, melee, d).target_number, 10 + 4 + 2 - 4 - 5);
    cr_assert_eq(eval(&plain, bow, d).target_number, 10 + 4 + 2 - 5);
    d.conditions = RULES_COND_HELPLESS;
    cr_assert_eq(eval(&plain, melee, d).target_number, 16);
    /* A Dexterity penalty is not a bonus to lose. */
    d.ac.dex = -1;
    d.conditions = RULES_COND_FLAT_FOOTED;
    cr_assert_eq(eval(&plain, melee, d).target_number, 10 + 4 + 2 - 1);
}

/* 002 Table: Attack Roll Modifiers. */
Test(attack_002, attack_roll_table)
{
    struct rules_defender d = defender(5, 5, N);
    struct rules_attacker a = attacker(5, 4, S);
    a.higher_ground = true;
    cr_assert_eq(pos(&plain, a, d), 1);
    a.ranged = true;
    cr_assert_eq(pos(&plain, a, d), 0);
    a = attacker(5, 4, S);
    a.prone = true;
    cr_assert_eq(pos(&plain, a, d), -4);
    a.ranged = true;
    cr_assert_eq(pos(&plain, a, d), -2);
    a = attacker(5, 4, S);
    a.invisible = true; /* +2, and the defender loses its Dex bonus */
    struct rules_attack_eval e = eval(&plain, a, d);
    cr_assert_eq(position(&e), 2);
    cr_assert_eq(e.target_number, 16);
    a = attacker(5, 4, S);
    a.squeezing = true; /* 001 Squeezing: -4 to attack */
    cr_assert_eq(pos(&plain, a, d), -4);
    d.conditions = RULES_COND_SQUEEZING; /* and -4 to AC */
    cr_assert_eq(eval(&plain, attacker(5, 4, S), d).target_number, 14);
}

/* d20 3.5 SRD, Combat: Charge (the seeds give charging no modifiers): "You get a +2 bonus on the
 * attack roll and take a -2 penalty to your AC until the start of your next turn." */
Test(attack_002, a_charge_gives_plus_2_to_hit_and_minus_2_to_ac)
{
    struct rules_defender d = defender(5, 5, N); /* 10 + 4 + 2 + 2 = 18 */
    struct rules_attacker a = attacker(5, 4, S);
    a.charging = true;
    struct rules_attack_eval e = eval(&plain, a, d);
    cr_assert_eq(position(&e), 2);
    cr_assert_eq(e.target_number, 18);
    d.conditions = RULES_COND_CHARGING;
    cr_assert_eq(eval(&plain, attacker(5, 4, S), d).target_number, 16);
}

/* 002 Table: Cover and Concealment (highest, never summed). */
Test(attack_002, cover_and_concealment)
{
    static const int bonus[] = {0, 2, 4, 7, 10};
    for (int c = RULES_COVER_NONE; c <= RULES_COVER_NINE_TENTHS; c++)
        cr_assert_eq(rules_cover_bonus((enum rules_cover)c), bonus[c]);
    cr_assert_eq(rules_cover_reflex(RULES_COVER_NINE_TENTHS), 4);
    struct rules_attacker a = attacker(5, 4, S);
    struct rules_defender d = defender(5, 5, N);
    struct rules_attack_eval e;
    cr_assert_eq(rules_attack_evaluate(&plain, &a, &d, NULL, 0, RULES_COVER_TOTAL, NULL, 0, &e),
                 RULES_ATTACK_ERR_TOTAL_COVER);
    enum rules_concealment cs[] = {RULES_CONCEAL_QUARTER, RULES_CONCEAL_HALF};
    cr_assert_eq(rules_attack_evaluate(&plain, &a, &d, NULL, 0, RULES_COVER_HALF, cs, 2, &e),
                 RULES_ATTACK_OK);
    cr_assert_eq(e.target_number, 22);
    cr_assert_eq(e.target_without_cover, 18);
    cr_assert_eq(e.miss_chance, 20); /* not 30 */
    d.invisible = true;
    rules_attack_evaluate(&plain, &a, &d, NULL, 0, RULES_COVER_NONE, cs, 2, &e);
    cr_assert_eq(e.miss_chance, 50);
    cr_assert(e.guess_square);
}

/* 002 Table: Cover: nine-tenths is "+10 | +4 1", and footnote 1 reads "Half damage if save is
 * failed; no damage if successful." The footnote is reported, on the cover row too. */
Test(attack_002, nine_tenths_cover_carries_its_reflex_footnote)
{
    cr_assert_str_eq(rules_cover_reflex_footnote(RULES_COVER_NINE_TENTHS),
                     "Half damage if save is failed; no damage if successful.");
    for (int c = RULES_COVER_NONE; c <= RULES_COVER_THREE_QUARTERS; c++)
        cr_assert_null(rules_cover_reflex_footnote((enum rules_cover)c));
    struct rules_attacker a = attacker(5, 4, S);
    struct rules_defender d = defender(5, 5, N);
    struct rules_attack_eval e;
    cr_assert_eq(
        rules_attack_evaluate(&plain, &a, &d, NULL, 0, RULES_COVER_NINE_TENTHS, NULL, 0, &e),
        RULES_ATTACK_OK);
    cr_assert_eq(e.cover_bonus, 10);
    const struct rules_modifier *row = &e.mods[e.mod_count - 1];
    cr_assert_eq(row->value, 10);
    cr_assert_str_eq(row->source, "002 Table: Cover, footnote 1");
    cr_assert_not_null(strstr(row->reason, "half damage if the save fails, none if it succeeds"));
}

/* 004: touch attacks ignore armor, shield and natural armor; size modifiers to attack and AC. */
Test(attack_004, touch_and_size)
{
    struct rules_defender d = defender(5, 5, N);
    d.ac.natural = 3;
    struct rules_attacker a = attacker(5, 4, S);
    cr_assert_eq(eval(&plain, a, d).target_number, 21);
    a.touch = true;
    struct rules_attack_eval e = eval(&plain, a, d);
    cr_assert_eq(e.target_number, 12);
    cr_assert(e.touch);
    struct rules_attacker ogre = attacker(5, 3, S);
    rules_creature_init(&ogre.c, RULES_SIZE_LARGE, 5, 3, 0);
    cr_assert_eq(pos(&plain, ogre, d), -1);
    ogre.size_included = true;
    cr_assert_eq(pos(&plain, ogre, d), 0);
    struct rules_defender pixie = defender(5, 5, N);
    rules_creature_init(&pixie.c, RULES_SIZE_TINY, 5, 5, 0);
    cr_assert_eq(eval(&plain, attacker(5, 4, S), pixie).target_number, 18 + 2);
}

/* 003: the flanked condition from side spaces, doubled from the rear; Pack-Fighter-type
 * bonuses full from the rear and half from the side; shifted bands; sneak attack only from
 * the rear; cannot be flanked. */
Test(attack_003, variant_003)
{
    struct rules_defender d = defender(5, 5, N);
    struct rules_attacker side = attacker(6, 6, NW), rear = attacker(5, 6, N);
    side.sneak_dice = rear.sneak_dice = 2;
    struct rules_attack_eval e = eval(&f003, side, d);
    cr_assert_eq(e.attacker_area, RULES_AREA_SIDE);
    cr_assert_eq(position(&e), 2);
    cr_assert_not(e.sneak_attack);
    e = eval(&f003, rear, d);
    cr_assert_eq(position(&e), 4);
    cr_assert(e.sneak_attack);
    side.pack_bonus = rear.pack_bonus = 2;
    cr_assert_eq(pos(&f003, side, d), 2 + 1);
    cr_assert_eq(pos(&f003, rear, d), 4 + 2);
    struct rules_attacker chief = attacker(5, 4, S); /* in front, with shifted bands */
    chief.shifts_bands = true;
    cr_assert_eq(pos(&f003, chief, d), 2);
    d.uncanny_dodge = true;
    cr_assert_eq(pos(&f003, rear, d), 2 - 2 + 0);
}

/* Without facing: flanking +2, melee only (002 footnote 1; 004 Flanking). */
Test(attack_004, flanking_without_facing_is_melee_only)
{
    struct rules_defender d = defender(5, 5, N);
    struct rules_creature ally;
    rules_creature_init(&ally, RULES_SIZE_MEDIUM, 5, 6, 0);
    struct rules_attacker a = attacker(5, 4, S);
    a.sneak_dice = 1;
    struct rules_attack_eval e;
    rules_attack_evaluate(&plain, &a, &d, &ally, 1, RULES_COVER_NONE, NULL, 0, &e);
    cr_assert_eq(position(&e), 2);
    cr_assert(e.sneak_attack);
    a.ranged = true;
    rules_attack_evaluate(&plain, &a, &d, &ally, 1, RULES_COVER_NONE, NULL, 0, &e);
    cr_assert_eq(position(&e), 0);
    cr_assert_not(e.sneak_attack);
}

/* 000 Spellcasting: "A spellcaster can't target anything in his rear area with a spell." */
Test(attack_000, no_spell_into_the_casters_rear)
{
    struct rules_attacker mage = attacker(5, 5, N);
    mage.ranged = mage.spell = true;
    struct rules_defender behind = defender(5, 7, N), ahead = defender(5, 3, S);
    struct rules_attack_eval e;
    cr_assert_eq(
        rules_attack_evaluate(&f000, &mage, &behind, NULL, 0, RULES_COVER_NONE, NULL, 0, &e),
        RULES_ATTACK_ERR_SPELL_INTO_REAR);
    cr_assert_eq(
        rules_attack_evaluate(&f000, &mage, &ahead, NULL, 0, RULES_COVER_NONE, NULL, 0, &e),
        RULES_ATTACK_OK);
}
