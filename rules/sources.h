/* The rule documents every citation points into (RULES.md's table; the texts are in the seeds
 * folder beside it): number, file, title, what each covers, and its sections. Built at
 * development time from RULES.md and the seeds' headings; the service never reads them at run
 * time. tests/rules/test_sources.c checks the table against the seeds when they are present. */
#ifndef TACTICS_RULES_SOURCES_H
#define TACTICS_RULES_SOURCES_H

#include <stddef.h>

struct rules_source_doc {
    const char *number; /* "000" ... "004": how a citation names it */
    const char *file;   /* the seed file */
    const char *title;
    const char *covers; /* one line: what it covers */
    /* Its section headings as the document writes them (a heading line, or a run-in heading
     * "Name:" opening a paragraph), NULL-terminated; empty for a document without headings. */
    const char *const *sections;
};

#define RULES_SOURCE_DOC_COUNT 5

extern const struct rules_source_doc rules_source_docs[RULES_SOURCE_DOC_COUNT];

/* The document a citation's number names ("004" for "004 Flanking"), or NULL. */
const struct rules_source_doc *rules_source_doc_of(const char *number);

/* The titles of the documents citation names, each once, in the order cited and joined by
 * "; " ("002 Table: Defense Modifiers, footnote 2; 004 Flat-Footed" names 002 and 004), into
 * buf (always terminated when len > 0). Returns the number of documents named: 0 when the
 * citation names none (buf is then ""). */
int rules_source_titles(const char *citation, char *buf, size_t len);

#endif
