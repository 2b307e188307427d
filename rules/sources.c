/* The rule documents and their sections (sources.h). Each section list is the document's own
 * headings, in its order, as it spells them (000 and 004 write their chapter headings in
 * capitals); a citation "NNN Section" names the document by number and one of these sections,
 * matched without regard to case (docs/rules.md lists every citation the service emits). */
#include "rules/sources.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const sections_000[] = {"COMBAT FACING",
                                           "FACING DIRECTION",
                                           "FACING AND MOVEMENT",
                                           "Changing Facing",
                                           "Normal Movement",
                                           "Moving Backward or Sideways",
                                           "5-Foot Steps",
                                           "ATTACKS OF OPPORTUNITY",
                                           "FACING AND ATTACKING",
                                           "Opponent Facing",
                                           "Sneak Attacks",
                                           "FACING AND PERCEPTION",
                                           "Spot Checks",
                                           "Readied Actions",
                                           "OTHER CONSIDERATIONS",
                                           "Faceless Creatures",
                                           "Tiny and Smaller Creatures",
                                           "Feats and Class Features",
                                           "Cleave and Great Cleave",
                                           "Combat Reflexes",
                                           "Improved Uncanny Dodge",
                                           "Mounted Combat",
                                           "Whirlwind Attack",
                                           "Spellcasting",
                                           "Flank Attacks",
                                           "Rear Attacks",
                                           "Shields (Optional)",
                                           "Combat Awareness [General]",
                                           "HEX GRID",
                                           "HEXES AND FACING",
                                           NULL};

static const char *const sections_001[] = {"Types of Movement",
                                           "General Movement Rules",
                                           "Walk",
                                           "Part of a Move Action",
                                           "Double Move",
                                           "Run",
                                           "5-Foot Step",
                                           "Perform No Other Movement",
                                           "Trade Away Attacks From A Full Attack Action",
                                           "Other Considerations",
                                           "Crawling",
                                           "Stepover",
                                           "Withdraw",
                                           "Overland Travel",
                                           "Hustle",
                                           "Table: Movement and Distance",
                                           "Table: Terrain and Overland Movement",
                                           "Forced March",
                                           "Table: Overland Travel By Vehicle",
                                           "Space and Reach",
                                           "Space",
                                           "Reach",
                                           "Flanking",
                                           "Reach and Flanking",
                                           "Internal Flanking",
                                           "Alternative Movement Types",
                                           "Combining Movement Types",
                                           "Special Movement Rules",
                                           "Encumbrance",
                                           "Squeezing",
                                           "Falling",
                                           "Collisions",
                                           "Falling into Water",
                                           "Thrown or Dropped Objects",
                                           "Difficult Terrain",
                                           "Impeded Terrain",
                                           "Blocked Terrain",
                                           "Cutting Corners",
                                           "Hazardous Terrain",
                                           "Occupied Squares",
                                           "Threatened Area",
                                           "Forced Movement",
                                           "Push",
                                           "Pull",
                                           "Slide",
                                           "Three Dimensional Movement",
                                           "Forced Movement In 3-D",
                                           NULL};

static const char *const sections_002[] = {"Favorable and Unfavorable Conditions",
                                           "Table: Defense Modifiers",
                                           "Table: Attack Roll Modifiers",
                                           "Striking the Cover Instead of a Missed Target",
                                           "Table: Cover",
                                           "Table: Concealment",
                                           NULL};

/* 003 is five paragraphs without a heading: it is cited as a whole. */
static const char *const sections_003[] = {NULL};

static const char *const sections_004[] = {"SPECIAL TERMS",
                                           "Face",
                                           "Flanking",
                                           "Flat-Footed",
                                           "Initiative Check",
                                           "Touch Attack",
                                           "SIZE MODIFIERS",
                                           "COMBAT SEQUENCE",
                                           "Step One",
                                           "Step Two",
                                           "Step Three",
                                           "Step Four",
                                           "ATTACKS OF OPPORTUNITY",
                                           "Threatened Area",
                                           "Provoking an Attack of Opportunity by Moving",
                                           "Provoking an Attack of Opportunity by Taking",
                                           "Making an Attack of Opportunity",
                                           "THE COMBAT ROUND",
                                           NULL};

const struct rules_source_doc rules_source_docs[RULES_SOURCE_DOC_COUNT] = {
    {"000", "000_cafcb0f9f420d912.txt", "Combat Facing (d20 SRD 3.5, Unearthed Arcana)",
     "front, flank and rear areas, facing and movement, attacks into flank and rear, sneak "
     "attacks, perception, feats, monster flank and rear attacks, shields by side; hex grids",
     sections_000},
    {"001", "001_c299d0c47188243b.txt", "Types of Movement (Epic Path)",
     "walk, double move, run, 5-foot steps, crawling, withdraw, overland travel, space and "
     "reach by size, flanking by lines, encumbrance, squeezing, falling, collisions, dropped "
     "objects, terrain, forced movement, three-dimensional movement",
     sections_001},
    {"002", "002_577685b0b49c80e1.txt", "Position Modifiers (d20 Modern SRD)",
     "defense and attack roll modifiers by position, cover (and striking it), concealment",
     sections_002},
    {"003", "003_eb3a99fc444dbe1e.txt", "Facing: Front, Side and Rear Spaces (a facing variant)",
     "front, side and rear spaces on square and hex grids, the flanked condition from the side, "
     "doubled from the rear",
     sections_003},
    {"004", "004_53231e86bfe67d68.txt", "d20 Combat Terms",
     "face, flanking, flat-footed, initiative, touch attacks, size modifiers, the combat "
     "sequence and surprise round, attacks of opportunity, the round",
     sections_004},
};

const struct rules_source_doc *rules_source_doc_of(const char *number)
{
    for (int i = 0; i < RULES_SOURCE_DOC_COUNT; i++)
        if (strncmp(rules_source_docs[i].number, number, 3) == 0)
            return &rules_source_docs[i];
    return NULL;
}

/* Appends s to buf (len bytes, NUL included) at used as far as it fits; returns the length. */
static size_t append(char *buf, size_t len, size_t used, const char *s)
{
    if (len == 0)
        return 0;
    size_t n = strlen(s);
    if (used + n > len - 1)
        n = len - 1 - used;
    memcpy(buf + used, s, n);
    buf[used + n] = '\0';
    return used + n;
}

int rules_source_titles(const char *citation, char *buf, size_t len)
{
    bool seen[RULES_SOURCE_DOC_COUNT] = {false};
    int named = 0;
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    /* A document is named by three digits and a space, at the start or after "; ". */
    for (const char *p = citation; p != NULL && *p != '\0';) {
        if (p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' && p[2] >= '0' &&
            p[2] <= '9' && p[3] == ' ') {
            const struct rules_source_doc *d = rules_source_doc_of(p);
            if (d != NULL && !seen[d - rules_source_docs]) {
                seen[d - rules_source_docs] = true;
                /* Copied, not printed: every cited modifier of every attack answer comes here. */
                if (named > 0)
                    used = append(buf, len, used, "; ");
                used = append(buf, len, used, d->title);
                named++;
            }
        }
        p = strstr(p, "; ");
        if (p != NULL)
            p += 2;
    }
    return named;
}
