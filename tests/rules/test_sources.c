/* The table of rule documents (rules/sources.c) against the documents themselves: every file
 * RULES.md lists is in the table and every one in the table is in RULES.md; every section the
 * table gives is a heading of its document (a line of its own, or a run-in "Heading:" opening a
 * paragraph or a bullet), in the document's order. The documents live beside the repository
 * (../shared), as in CI; where they are absent the comparison is skipped, saying so. And the
 * titles a citation gains. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/sources.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The line number (1-based) where heading h stands in text, searching from line `from`: a line
 * that, past spaces and a bullet, is h or opens with "h:" (without regard to case); 0 if none. */
static int heading_line(const char *text, const char *h, int from)
{
    size_t hl = strlen(h);
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *s = p;
        while (s < p + n && (*s == ' ' || *s == '\t'))
            s++;
        if ((size_t)(p + n - s) >= 3 && memcmp(s, "\xe2\x80\xa2", 3) == 0) /* a bullet */
            s += 3;
        while (s < p + n && *s == ' ')
            s++;
        size_t rest = (size_t)(p + n - s);
        while (rest > 0 && isspace((unsigned char)s[rest - 1]))
            rest--;
        if (line >= from && rest >= hl && strncasecmp(s, h, hl) == 0 &&
            (rest == hl || s[hl] == ':'))
            return line;
        if (end == NULL)
            break;
        p = end + 1;
    }
    return 0;
}

Test(sources, the_table_matches_the_documents_headings)
{
    char path[512];
    snprintf(path, sizeof path, "%s/RULES.md", SHARED_DIR);
    char *rules_md = slurp(path);
    if (rules_md == NULL) {
        /* Skipped, not warned: Criterion 2.4.1 exits 1 after any cr_log_warn, which failed
         * the suite in every checkout without ../shared (a worktree under /work/wt). */
        fprintf(stderr, "%s is absent: the table is not compared with the documents\n", path);
        cr_skip_test("%s is absent", path);
    }
    /* RULES.md's table lists each file as `NNN_....txt`: the same set as ours. */
    int listed = 0;
    for (const char *p = strstr(rules_md, "| `"); p != NULL; p = strstr(p + 3, "| `")) {
        char file[64];
        if (sscanf(p, "| `%63[^`]`", file) != 1 || strstr(file, ".txt") == NULL)
            continue;
        listed++;
        const struct rules_source_doc *d = rules_source_doc_of(file);
        cr_assert_not_null(d, "RULES.md lists %s, which the table lacks", file);
        cr_assert_str_eq(d->file, file);
    }
    cr_assert_eq(listed, RULES_SOURCE_DOC_COUNT, "RULES.md lists %d documents", listed);
    for (int i = 0; i < RULES_SOURCE_DOC_COUNT; i++) {
        const struct rules_source_doc *d = &rules_source_docs[i];
        snprintf(path, sizeof path, "%s/seeds/%s", SHARED_DIR, d->file);
        char *text = slurp(path);
        cr_assert_not_null(text, "%s is missing", path);
        int at = 1;
        for (int k = 0; d->sections[k] != NULL; k++) {
            int line = heading_line(text, d->sections[k], at);
            cr_assert_neq(line, 0, "%s: no heading \"%s\" at or after line %d", d->number,
                          d->sections[k], at);
            at = line;
        }
        free(text);
    }
    free(rules_md);
}

Test(sources, a_citation_gains_the_titles_of_the_documents_it_names)
{
    char buf[256];
    cr_assert_eq(rules_source_titles("004 Flanking", buf, sizeof buf), 1);
    cr_assert_str_eq(buf, "d20 Combat Terms");
    cr_assert_eq(rules_source_titles("002 Table: Defense Modifiers, footnote 2; 004 Flat-Footed",
                                     buf, sizeof buf),
                 2);
    cr_assert_str_eq(buf, "Position Modifiers (d20 Modern SRD); d20 Combat Terms");
    cr_assert_eq(rules_source_titles("001 Run; 001 Withdraw", buf, sizeof buf), 1);
    cr_assert_str_eq(buf, "Types of Movement (Epic Path)");
    cr_assert_eq(rules_source_titles("attacker", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(rules_source_titles("d20 3.5 SRD, Combat: Critical Hits", buf, sizeof buf), 0);
    /* Cut short, never overrun. */
    char tiny[8];
    cr_assert_eq(rules_source_titles("004 Flanking", tiny, sizeof tiny), 1);
    cr_assert_str_eq(tiny, "d20 Com");
}

/* docs/rules.md's glossary names each citation's document and section: every one of them is
 * in the table (the server's titles and the glossary cannot drift apart). */
Test(sources, the_glossary_names_only_sections_the_table_has)
{
    char *md = slurp(RULES_GLOSSARY);
    cr_assert_not_null(md, "%s is missing", RULES_GLOSSARY);
    const char *at = strstr(md, "## Glossary of the citations");
    cr_assert_not_null(at);
    int rows = 0;
    for (const char *p = strstr(at, "\n| `"); p != NULL; p = strstr(p + 1, "\n| `")) {
        /* | forms | number | title | section | summary | */
        const char *cell[5];
        const char *q = p + 1;
        for (int c = 0; c < 5 && q != NULL; c++) {
            cell[c] = q + 1;
            q = strchr(q + 1, '|');
        }
        cr_assert_not_null(q, "a glossary row is cut short");
        char number[8] = "", title[128] = "", section[128] = "";
        sscanf(cell[1], " %7[0-9]", number);
        sscanf(cell[2], " %127[^|]", title);
        sscanf(cell[3], " %127[^|]", section);
        for (char *e = title + strlen(title); e > title && e[-1] == ' ';)
            *--e = '\0';
        for (char *e = section + strlen(section); e > section && e[-1] == ' ';)
            *--e = '\0';
        const struct rules_source_doc *d = rules_source_doc_of(number);
        cr_assert_not_null(d, "glossary row for document %s", number);
        cr_assert_str_eq(title, d->title);
        bool found = d->sections[0] == NULL && strcmp(section, "(the whole document)") == 0;
        for (int k = 0; d->sections[k] != NULL; k++)
            found |= strcmp(d->sections[k], section) == 0;
        cr_assert(found, "the glossary cites %s \"%s\", which the table lacks", number, section);
        rows++;
    }
    cr_assert_gt(rows, 50);
    free(md);
}
