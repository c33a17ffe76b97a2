/* mmio.c: reading and writing coordinate Matrix Market files (their text
 * through mm_text.h; dense array files are mm_dense.c's).  The reader
 * takes real, integer and pattern fields, general, symmetric and
 * skew-symmetric matrices, comments and blank lines, and names the line of
 * any error (a value that overflows the precision read, inf or nan among
 * them); duplicates are summed. */
#include <stdlib.h>
#include "core/mm_text.h"

/* The triplets being read. */
typedef struct {
    int64_t rows, cols, count, cap;
    int32_t *r, *c;
    double *v;
} triplets;

/* Can the file hold the entries it declares (an entry line takes 4 bytes at
 * the least: "I J" and its newline; counting a value's 2 more would blame
 * the size line for an entry line that lacks its value), and can this
 * machine hold the matrix read: triplets, then CSR?  Checked before
 * anything of that size is allocated. */
static hsp_status check_room(const mm_reader *r, const mm_banner *b, const triplets *t, int64_t declared)
{
    int64_t left = mm_bytes_left(r), per_line = 4;
    if (r->size > 0 && declared > (left + 1) / per_line)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: %lld entries declared, but the %lld bytes left hold %lld at the most",
                        r->path, (long long)r->line, (long long)declared, (long long)left,
                        (long long)((left + 1) / per_line));
    double entries = (double)declared * (b->symmetric || b->skew ? 2 : 1);
    double need = entries * (2 * sizeof(int32_t) + sizeof(double)) + 8.0 * ((double)t->rows + 1)
                  + entries * (sizeof(int32_t) + hsp_value_size(r->precision));
    char what[96];
    snprintf(what, sizeof what, "a %lld x %lld matrix of %lld entries", (long long)t->rows, (long long)t->cols,
             (long long)declared);
    return mm_check_need(r, need, what);
}

/* Parse the size line "M N NNZ" and make room for the entries. */
static hsp_status parse_size(mm_reader *r, const mm_banner *b, triplets *t)
{
    const char *line = mm_next_data_line(r), *p = line;
    int64_t declared;
    if (!line)
        return r->error ? r->error : hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends before the size line", r->path,
                                              (long long)r->line);
    if (!mm_read_integer(&p, &t->rows) || !mm_read_integer(&p, &t->cols) ||
        !mm_read_integer(&p, &declared) || *mm_skip_blanks(p))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the size line must be 'ROWS COLUMNS ENTRIES'",
                        r->path, (long long)r->line);
    if (t->rows < 0 || t->cols < 0 || declared < 0)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: negative size", r->path, (long long)r->line);
    if (t->rows > INT32_MAX || t->cols > INT32_MAX || declared > INT64_MAX / 2)
        return hsp_fail(HSP_ERR_OVERFLOW, "%s:%lld: %lld x %lld is over 2^31-1 rows or columns",
                        r->path, (long long)r->line, (long long)t->rows, (long long)t->cols);
    if ((b->symmetric || b->skew) && t->rows != t->cols)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: a symmetric matrix must be square, not %lld x %lld",
                        r->path, (long long)r->line, (long long)t->rows, (long long)t->cols);
    hsp_status s = check_room(r, b, t, declared);
    if (s != HSP_OK) return s;
    if (b->symmetric || b->skew) t->cap = 2 * declared;
    else t->cap = declared;
    t->count = declared; /* entries still to read */
    size_t n = (size_t)(t->cap ? t->cap : 1);
    t->r = malloc(n * sizeof *t->r), t->c = malloc(n * sizeof *t->c);
    t->v = malloc(n * sizeof *t->v);
    if (!t->r || !t->c || !t->v)
        return hsp_fail(HSP_ERR_NOMEM, "%s: no memory for %lld entries", r->path, (long long)declared);
    return HSP_OK;
}

/* Parse one entry line "I J [VALUE]" into the triplets at k; returns the
 * number stored (2 for a mirrored off-diagonal entry). */
static hsp_status parse_entry(mm_reader *r, const mm_banner *b, const char *line, triplets *t,
                              int64_t *k)
{
    const char *p = line;
    int64_t i, j;
    double v = 1.0;
    if (!mm_read_integer(&p, &i) || !mm_read_integer(&p, &j))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: an entry must start with two whole numbers 'I J'",
                        r->path, (long long)r->line);
    if (!b->pattern) {
        hsp_status s = mm_read_value(r, &p, &v);
        if (s != HSP_OK) return s;
    }
    if (*mm_skip_blanks(p))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: unexpected text '%.20s' after the entry", r->path,
                        (long long)r->line, mm_skip_blanks(p));
    if (i < 1 || i > t->rows || j < 1 || j > t->cols)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: index (%lld, %lld) outside 1..%lld x 1..%lld",
                        r->path, (long long)r->line, (long long)i, (long long)j,
                        (long long)t->rows, (long long)t->cols);
    if (b->skew && i == j)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: a skew-symmetric matrix has no diagonal entry",
                        r->path, (long long)r->line);
    t->r[*k] = (int32_t)(i - 1), t->c[*k] = (int32_t)(j - 1), t->v[(*k)++] = v;
    if ((b->symmetric || b->skew) && i != j)
        t->r[*k] = (int32_t)(j - 1), t->c[*k] = (int32_t)(i - 1), t->v[(*k)++] = b->skew ? -v : v;
    return HSP_OK;
}

/* Read every entry; then check that no entry follows. */
static hsp_status parse_entries(mm_reader *r, const mm_banner *b, triplets *t)
{
    int64_t declared = t->count, k = 0;
    t->count = 0;
    for (int64_t e = 0; e < declared; e++) {
        const char *line = mm_next_data_line(r);
        if (!line)
            return r->error ? r->error
                            : hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends after %lld of %lld entries", r->path,
                                       (long long)r->line, (long long)e, (long long)declared);
        hsp_status s = parse_entry(r, b, line, t, &k);
        if (s != HSP_OK) return s;
    }
    t->count = k;
    if (mm_next_data_line(r))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: more entries than the %lld declared", r->path,
                        (long long)r->line, (long long)declared);
    return r->error;
}

/* Banner, size line and entries, into triplets. */
static hsp_status parse_file(mm_reader *r, triplets *t)
{
    mm_banner b = {0};
    const char *line = mm_next_line(r);
    if (!line) return r->error ? r->error : hsp_fail(HSP_ERR_PARSE, "%s:1: empty file", r->path);
    hsp_status s = mm_parse_banner(r, line, "coordinate", &b);
    if (s == HSP_OK) s = parse_size(r, &b, t);
    if (s == HSP_OK) s = parse_entries(r, &b, t);
    return s;
}

hsp_status hsp_mm_read(const char *path, hsp_precision precision, int progress, hsp_csr **out)
{
    return hsp_mm_read_limit(path, precision, progress, 0, out);
}

hsp_status hsp_mm_read_limit(const char *path, hsp_precision precision, int progress, int64_t mem_limit,
                             hsp_csr **out)
{
    if (!out || !path) return hsp_fail(HSP_ERR_ARG, "hsp_mm_read: path or out is NULL");
    *out = NULL;
    if (precision != HSP_FLOAT && precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "hsp_mm_read: unknown precision %d", (int)precision);
    if (mem_limit < 0) return hsp_fail(HSP_ERR_ARG, "hsp_mm_read: mem_limit = %lld: give bytes, or 0 for the "
                                       "memory available", (long long)mem_limit);
    mm_reader r;
    hsp_status s = mm_open(&r, path, precision, mem_limit, progress);
    if (s != HSP_OK) return s;
    triplets t = {0};
    s = mm_close(&r, parse_file(&r, &t));
    if (s == HSP_OK)
        s = hsp_csr_from_double_triplets((int32_t)t.rows, (int32_t)t.cols, t.count, t.r, t.c,
                                         t.v, precision, out);
    free(t.r), free(t.c), free(t.v);
    return s;
}

/* A's entries to f; nonzero when a write failed. */
static int write_entries(FILE *f, const void *arg, char *buf)
{
    const hsp_csr *A = arg;
    char *p = buf;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->nrows, A->ncols,
            (long long)A->nnz);
    for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            p = mm_put_integer(p, i + 1), *p++ = ' ';
            p = mm_put_integer(p, A->colidx[k] + 1), *p++ = ' ';
            p = mm_put_value(p, hsp_csr_value(A, k), A->precision), *p++ = '\n';
            if (p - buf > MM_CHUNK) fwrite(buf, 1, (size_t)(p - buf), f), p = buf;
        }
    fwrite(buf, 1, (size_t)(p - buf), f);
    return ferror(f);
}

hsp_status hsp_mm_write(const char *path, const hsp_csr *A)
{
    if (!path) return hsp_fail(HSP_ERR_ARG, "hsp_mm_write: path is NULL");
    hsp_status s = hsp_csr_check_unordered(A, 0);
    return s == HSP_OK ? mm_write_file(path, write_entries, A) : s;
}
