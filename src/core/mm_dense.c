/* mm_dense.c: dense matrices (hsp_dense) in Matrix Market array files: the
 * banner, the size line "M N", then M N values column by column, one a
 * line; and the check of a dense matrix's layout. */
#include <stdlib.h>
#include "core/mm_text.h"

hsp_status hsp_dense_check(const hsp_dense *M, const char *who)
{
    if (!M) return hsp_fail(HSP_ERR_ARG, "%s is NULL", who);
    if (M->order != HSP_ROW_MAJOR && M->order != HSP_COL_MAJOR)
        return hsp_fail(HSP_ERR_ARG, "%s: unknown order %d", who, (int)M->order);
    if (M->precision != HSP_FLOAT && M->precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "%s: unknown precision %d", who, (int)M->precision);
    if (M->nrows < 0 || M->ncols < 0) return hsp_fail(HSP_ERR_ARG, "%s: negative shape %d x %d", who, M->nrows, M->ncols);
    int row_major = M->order == HSP_ROW_MAJOR;
    int64_t inner = row_major ? M->ncols : M->nrows, outer = row_major ? M->nrows : M->ncols;
    int64_t least = inner > 1 ? inner : 1, end;
    if (M->ld < least)
        return hsp_fail(HSP_ERR_ARG, "%s: ld %lld is less than %lld (%s)", who, (long long)M->ld, (long long)least,
                        row_major ? "its columns, row-major" : "its rows, column-major");
    if (outer > 0 && (hsp_mul_overflows(outer - 1, M->ld, &end) || hsp_add_overflows(end, inner, &end) ||
                      hsp_mul_overflows(end, (int64_t)hsp_value_size(M->precision), &end)))
        return hsp_fail(HSP_ERR_OVERFLOW, "%s: its array's size overflows 64 bits", who);
    if (!M->values && M->nrows && M->ncols) return hsp_fail(HSP_ERR_ARG, "%s has no values", who);
    return HSP_OK;
}

size_t hsp_dense_bytes(const hsp_dense *M)
{
    int64_t inner = M->order == HSP_ROW_MAJOR ? M->ncols : M->nrows;
    int64_t outer = M->order == HSP_ROW_MAJOR ? M->nrows : M->ncols;
    return inner && outer ? (size_t)((outer - 1) * M->ld + inner) * hsp_value_size(M->precision) : 0;
}

void hsp_dense_steps(const hsp_dense *M, int64_t step[2])
{
    step[0] = M->order == HSP_ROW_MAJOR ? M->ld : 1;
    step[1] = M->order == HSP_ROW_MAJOR ? 1 : M->ld;
}

/* The size line "M N" into *m, *n, checked against the bytes left (a value
 * and its newline take 2 at the least) and the machine's memory. */
static hsp_status parse_shape(mm_reader *r, int64_t *m, int64_t *n)
{
    const char *line = mm_next_data_line(r), *p = line;
    if (!line)
        return r->error ? r->error : hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends before the size line", r->path,
                                              (long long)r->line);
    if (!mm_read_integer(&p, m) || !mm_read_integer(&p, n) || *mm_skip_blanks(p))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the size line of an array must be 'ROWS COLUMNS'", r->path,
                        (long long)r->line);
    if (*m < 0 || *n < 0) return hsp_fail(HSP_ERR_PARSE, "%s:%lld: negative size", r->path, (long long)r->line);
    if (*m > INT32_MAX || *n > INT32_MAX)
        return hsp_fail(HSP_ERR_OVERFLOW, "%s:%lld: %lld x %lld is over 2^31-1 rows or columns", r->path,
                        (long long)r->line, (long long)*m, (long long)*n);
    double count = (double)*m * (double)*n, need = count * (double)hsp_value_size(r->precision);
    if (r->size > 0 && count > (double)((mm_bytes_left(r) + 1) / 2))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: %lld x %lld values declared, but the %lld bytes left hold %lld at "
                        "the most", r->path, (long long)r->line, (long long)*m, (long long)*n,
                        (long long)mm_bytes_left(r), (long long)((mm_bytes_left(r) + 1) / 2));
    char what[64];
    snprintf(what, sizeof what, "a %lld x %lld array", (long long)*m, (long long)*n);
    return mm_check_need(r, need, what);
}

/* The file's values, column by column, into M (column-major). */
static hsp_status parse_values(mm_reader *r, hsp_dense *M)
{
    int64_t count = (int64_t)M->nrows * M->ncols;
    for (int64_t k = 0; k < count; k++) {
        const char *p = mm_next_data_line(r);
        double v;
        if (!p)
            return r->error ? r->error
                            : hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends after %lld of %lld values", r->path,
                                       (long long)r->line, (long long)k, (long long)count);
        hsp_status s = mm_read_value(r, &p, &v);
        if (s != HSP_OK) return s;
        if (*mm_skip_blanks(p))
            return hsp_fail(HSP_ERR_PARSE, "%s:%lld: unexpected text '%.20s' after the value (one a line)", r->path,
                            (long long)r->line, mm_skip_blanks(p));
        if (M->precision == HSP_DOUBLE) ((double *)M->values)[k] = v;
        else ((float *)M->values)[k] = (float)v;
    }
    if (mm_next_data_line(r))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: more values than the %lld declared", r->path, (long long)r->line,
                        (long long)count);
    return r->error;
}

/* Banner, size line and values into *out (its values allocated here). */
static hsp_status parse_array(mm_reader *r, hsp_dense *out)
{
    mm_banner b;
    int64_t m, n;
    const char *line = mm_next_line(r);
    if (!line) return r->error ? r->error : hsp_fail(HSP_ERR_PARSE, "%s:1: empty file", r->path);
    hsp_status s = mm_parse_banner(r, line, "array", &b);
    if (s == HSP_OK) s = parse_shape(r, &m, &n);
    if (s != HSP_OK) return s;
    *out = (hsp_dense){(int32_t)m, (int32_t)n, m > 1 ? m : 1, HSP_COL_MAJOR, r->precision, NULL};
    size_t bytes = (size_t)(m * n > 0 ? m * n : 1) * hsp_value_size(r->precision);
    if (posix_memalign(&out->values, 64, bytes) != 0) /* on a cache line: each row of B in the fewest lines */
        return hsp_fail(HSP_ERR_NOMEM, "%s: no memory for %lld x %lld values", r->path, (long long)m, (long long)n);
    return parse_values(r, out);
}

hsp_status hsp_mm_read_dense(const char *path, hsp_precision precision, hsp_dense *out)
{
    if (!out || !path) return hsp_fail(HSP_ERR_ARG, "hsp_mm_read_dense: path or out is NULL");
    *out = (hsp_dense){0};
    if (precision != HSP_FLOAT && precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "hsp_mm_read_dense: unknown precision %d", (int)precision);
    mm_reader r;
    hsp_status s = mm_open(&r, path, precision, 0, 0);
    if (s == HSP_OK) s = mm_close(&r, parse_array(&r, out));
    if (s != HSP_OK) hsp_dense_free(out);
    return s;
}

/* M's values to f, column by column; nonzero when a write failed. */
static int write_values(FILE *f, const void *arg, char *buf)
{
    const hsp_dense *M = arg;
    char *p = buf;
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%d %d\n", M->nrows, M->ncols);
    for (int32_t j = 0; j < M->ncols; j++)
        for (int32_t i = 0; i < M->nrows; i++) {
            int64_t k = M->order == HSP_ROW_MAJOR ? i * M->ld + j : j * M->ld + i;
            double v = M->precision == HSP_DOUBLE ? ((const double *)M->values)[k] : ((const float *)M->values)[k];
            p = mm_put_value(p, v, M->precision), *p++ = '\n';
            if (p - buf > MM_CHUNK) fwrite(buf, 1, (size_t)(p - buf), f), p = buf;
        }
    fwrite(buf, 1, (size_t)(p - buf), f);
    return ferror(f);
}

hsp_status hsp_mm_write_dense(const char *path, const hsp_dense *M)
{
    if (!path) return hsp_fail(HSP_ERR_ARG, "hsp_mm_write_dense: path is NULL");
    hsp_status s = hsp_dense_check(M, "hsp_mm_write_dense: M");
    return s == HSP_OK ? mm_write_file(path, write_values, M) : s;
}

void hsp_dense_free(hsp_dense *M)
{
    if (!M) return;
    free(M->values);
    M->values = NULL;
}
