/* The benchmarks' timing summaries (stats.h). */
#include "bench/stats.h"

#include <assert.h>
#include <stdlib.h>

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    assert(v != NULL && n > 0);
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}
