/* bench_table.c: the figures of a bench's repeated runs (median, least,
 * largest, spread) and how the bench commands print and write them. */
#include <string.h>
#include "cli.h"

/* The q-quantile of the n sorted x, interpolated between neighbours. */
static double quantile(const double *x, int n, double q)
{
    double at = q * (n - 1);
    int k = (int)at;
    return k + 1 < n ? x[k] + (at - k) * (x[k + 1] - x[k]) : x[n - 1];
}

cli_times cli_times_of(double *ms, int n)
{
    cli_times t = {0, 0, 0, 0, 0, n};
    if (n <= 0) return t;
    cli_median_min_max(ms, n, &t.median, &t.min, &t.max);
    t.q1 = quantile(ms, n, 0.25), t.q3 = quantile(ms, n, 0.75);
    return t;
}

double cli_spread(const cli_times *t)
{
    if (t->runs <= 0 || t->median <= 0) return 0.0;
    return t->q3 > 0 ? (t->q3 - t->q1) / t->median : (t->max - t->min) / t->median;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
        else fputc(*s, f);
    fputc('"', f);
}

void cli_csv_number(FILE *f, const char *fmt, double x)
{
    fputc(',', f);
    if (x > 0) fprintf(f, fmt, x);
}

void cli_csv_times(FILE *f, const cli_times *t)
{
    if (t->runs <= 0) {
        fputs(",,,", f);
        return;
    }
    fprintf(f, ",%.4f,%.4f,%.4f", t->median, t->min, t->max);
}

void cli_print_times_header(const char *lead)
{
    printf("%s %-14s %10s %9s %9s %7s %8s\n", lead, "program", "median ms", "min", "max", "spread", "x");
}

void cli_print_times(const char *lead, const char *program, const cli_times *t, double ref, const char *tail)
{
    printf("%s %-14s", lead, program);
    if (t->runs <= 0) {
        printf(" %10s %9s %9s %7s %8s", "-", "-", "-", "-", "");
    } else {
        double spread = cli_spread(t);
        printf(" %10.3f %9.3f %9.3f %5.0f%%%c", t->median, t->min, t->max, 100 * spread,
               spread > CLI_SPREAD_BOUND ? '!' : ' ');
        if (ref > 0) printf(" %7.2fx", t->median / ref);
        else printf(" %8s", "");
    }
    printf("%s%s\n", tail[0] ? "  " : "", tail);
}
