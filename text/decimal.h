/* Integers written in decimal by hand (decimal.c): snprintf was most of what an attack's answer
 * and its sentence cost (bench/README.md), on paths that write numbers by the dozen. rules/
 * needs only libc, so rules/dice/text.c keeps its own. */
#ifndef TACTICS_TEXT_DECIMAL_H
#define TACTICS_TEXT_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any long long with its sign. */
#define TEXT_DECIMAL_MAX 24

/* v as printf's "%lld" writes it ("%+lld" when plus), at the end of num; returns where it
 * starts, its length in *n (no NUL). */
char *text_decimal(char num[TEXT_DECIMAL_MAX], long long v, bool plus, size_t *n);

#endif
