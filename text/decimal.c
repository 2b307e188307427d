/* Integers in decimal (decimal.h). */
#include "text/decimal.h"

char *text_decimal(char num[TEXT_DECIMAL_MAX], long long v, bool plus, size_t *n)
{
    char *end = num + TEXT_DECIMAL_MAX, *p = end;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    else if (plus)
        *--p = '+';
    *n = (size_t)(end - p);
    return p;
}
