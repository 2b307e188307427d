/* What the benchmarks share to summarise their timings. */
#ifndef TACTICS_BENCH_STATS_H
#define TACTICS_BENCH_STATS_H

/* qsort's comparison of two doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* The median of v[0..n) (n > 0; the upper one of an even count), sorting v in place. */
double bench_median(double *v, int n);

#endif
