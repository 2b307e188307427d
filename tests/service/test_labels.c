/* The labels of one scene (service/codec/picture.c, svc_picture_labels): no two draw alike
 * (issue 31: "the goblin" and "the gnoll" were both "tg" on every frame and in /play). Each
 * expectation is the rule picture.h states, worked by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "service/codec/picture.h"
#include "text/text.h"

#define MAX_SCENE 600

static char labels[MAX_SCENE][RENDER_LABEL_BYTES];

/* Labels n names (given: the labels a request gave, NULL entries for none, or NULL) and
 * checks them against want. */
static void expect(const char *const *names, const char *const *given, int n,
                   const char *const *want)
{
    bool fixed[MAX_SCENE] = {false};
    for (int i = 0; i < n; i++)
        if (given != NULL && given[i] != NULL) {
            fixed[i] = true;
            snprintf(labels[i], sizeof labels[i], "%s", given[i]);
        }
    cr_assert_eq(svc_picture_labels(names, given != NULL ? fixed : NULL, n, labels), 0);
    for (int i = 0; i < n; i++)
        cr_assert_str_eq(labels[i], want[i], "%s: got %s, want %s", names[i], labels[i], want[i]);
}

#define NAMES(...) ((const char *const[]){__VA_ARGS__})

/* svc_picture_label's labels, when no two are alike. */
Test(labels, labels_already_apart_are_kept)
{
    expect(NAMES("Goblin 1", "Goblin 2", "Ogre", "Goblin Archer 2", "Дракон", "Kroh", "kroh"), NULL,
           7, NAMES("G1", "G2", "Ogre", "GA2", "Дра", "Kroh", "kroh"));
}

/* "the goblin" and "the gnoll" are both "tg": one more character of the last word tells them
 * apart ("tgo", "tgn"); "Goblin" and "Gnoll" never were alike ("Gob", "Gno"). */
Test(labels, labels_alike_get_longer_until_they_differ)
{
    expect(NAMES("the goblin", "the gnoll", "Goblin", "Gnoll"), NULL, 4,
           NAMES("tgo", "tgn", "Gob", "Gno"));
    /* "Goblin" and "Goblet": "Gob", then "Gobl" both, no further within four characters. */
    expect(NAMES("Goblin", "Goblet", "Gnome"), NULL, 3, NAMES("Gob1", "Gob2", "Gno"));
    /* "Goblin Archer 2" and "Goblin Axeman 2": "GA2", then "GAr2" and "GAx2". */
    expect(NAMES("Goblin Archer 2", "Goblin Axeman 2"), NULL, 2, NAMES("GAr2", "GAx2"));
}

/* Names alike to their fourth character are numbered: by their own number when they end in
 * one, else in the scene's order, with letters after a label that ends in a digit. */
Test(labels, labels_still_alike_are_numbered)
{
    expect(NAMES("goblin-2", "goblin-7", "goblin"), NULL, 3, NAMES("gob2", "gob7", "gob1"));
    expect(NAMES("the goblin", "the goblin", "the goblin"), NULL, 3, NAMES("tg1", "tg2", "tg3"));
    expect(NAMES("Goblin Archer 2", "Goblin Archer 2"), NULL, 2, NAMES("GA2a", "GA2b"));
    /* A number another label holds already is passed over. */
    expect(NAMES("orc", "orc", "orc1"), NULL, 3, NAMES("orc2", "orc3", "orc1"));
    /* Cut by character, never by byte (text.h). */
    expect(NAMES("Дракон", "Драконица"), NULL, 2, NAMES("Дра1", "Дра2"));
}

/* A label the request gave is kept; the labels made from names keep clear of it. */
Test(labels, given_labels_are_kept_and_avoided)
{
    expect(NAMES("x", "the goblin", "y", "Goblin"), NAMES("tg", NULL, "Gob", NULL), 4,
           NAMES("tg", "tgo", "Gob", "Gobl"));
    /* goblin-2 has its own number; goblin-1's is taken, so it gets the first free one. */
    expect(NAMES("x", "goblin-1", "goblin-2"), NAMES("gob1", NULL, NULL), 3,
           NAMES("gob1", "gob3", "gob2"));
    /* Two given alike stay alike: the request chose them. */
    expect(NAMES("a", "b"), NAMES("Z", "Z"), 2, NAMES("Z", "Z"));
}

/* 500 goblins (an encounter's most combatants): 500 labels, no two drawn alike, none longer
 * than what is drawn. */
Test(labels, a_crowd_alike_gets_labels_all_apart)
{
    const char *names[500];
    for (int i = 0; i < 500; i++)
        names[i] = "goblin";
    cr_assert_eq(svc_picture_labels(names, NULL, 500, labels), 0);
    for (int i = 0; i < 500; i++) {
        cr_assert_leq(text_chars(labels[i], strlen(labels[i])), RENDER_LABEL_MAX, "%s", labels[i]);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(labels[i], labels[j], "%d and %d", i, j);
    }
    cr_assert_str_eq(labels[0], "gob1");
    cr_assert_str_eq(labels[9], "go10");
    cr_assert_str_eq(labels[499], "g500");
}
