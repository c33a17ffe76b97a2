/* mmio.c: reading and writing coordinate Matrix Market files.  The reader
 * takes real, integer and pattern fields, general, symmetric and
 * skew-symmetric matrices, comments and blank lines, and names the line of
 * any error (a value that overflows the precision read, inf or nan among
 * them); duplicates are summed. */
#include <errno.h>
#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

enum { CHUNK = 1 << 22 };

/* A file read in large chunks, a line at a time. */
typedef struct {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap, len, pos;
    int64_t line, bytes_read, size;
    hsp_precision precision; /* of the matrix read: its values must fit */
    int64_t mem_limit;       /* bytes reading may take; 0: the machine's memory */
    hsp_progress progress;
} reader;

/* The next line without its newline, or NULL at the end of the file. */
static char *next_line(reader *r)
{
    for (;;) {
        char *start = r->buf + r->pos, *nl = memchr(start, '\n', r->len - r->pos);
        if (nl || (feof(r->f) && r->pos < r->len)) {
            char *end = nl ? nl : r->buf + r->len;
            *end = '\0';
            r->pos = (size_t)(end - r->buf) + (nl != NULL);
            if (!nl) r->pos = r->len;
            r->line++;
            return start;
        }
        if (feof(r->f) || ferror(r->f)) return NULL;
        memmove(r->buf, start, r->len - r->pos); /* keep the partial line */
        r->len -= r->pos, r->pos = 0;
        if (r->cap - r->len < CHUNK) {
            char *p = realloc(r->buf, r->cap * 2 + 1);
            if (!p) return NULL;
            r->buf = p, r->cap = r->cap * 2 + 1;
        }
        size_t got = fread(r->buf + r->len, 1, r->cap - r->len - 1, r->f);
        r->len += got, r->bytes_read += (int64_t)got;
        r->buf[r->len] = '\0';
        hsp_progress_update(&r->progress, r->bytes_read);
    }
}

/* Skip blanks. */
static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    return p;
}

/* A decimal integer at *p (advanced past it); 0 when there is none. */
static int read_integer(const char **p, int64_t *out)
{
    const char *s = skip_blanks(*p);
    int neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    if (*s < '0' || *s > '9') return 0;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (INT64_MAX - 9) / 10) return 0;
        v = v * 10 + (*s - '0');
    }
    if (*s && *s != ' ' && *s != '\t' && *s != '\r') return 0;
    *out = neg ? -v : v;
    *p = s;
    return 1;
}

/* A number at *p (advanced past it); 0 when there is none. */
static int read_real(const char **p, double *out)
{
    char *end;
    const char *s = skip_blanks(*p);
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || (*end && *end != ' ' && *end != '\t' && *end != '\r')) return 0;
    *p = end;
    return 1;
}

/* What the banner says. */
typedef struct {
    int pattern, symmetric, skew;
} banner;

/* Parse "%%MatrixMarket matrix coordinate FIELD SYMMETRY". */
static hsp_status parse_banner(const reader *r, const char *line, banner *b)
{
    char word[5][32];
    int n = sscanf(line, "%31s %31s %31s %31s %31s", word[0], word[1], word[2], word[3], word[4]);
    if (n < 1 || strcasecmp(word[0], "%%MatrixMarket"))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: no %%%%MatrixMarket banner", r->path,
                        (long long)r->line);
    if (n != 5 || strcasecmp(word[1], "matrix"))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the banner needs 'matrix FORMAT FIELD SYMMETRY'",
                        r->path, (long long)r->line);
    if (strcasecmp(word[2], "coordinate"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: format '%s' is not supported (coordinate only)",
                        r->path, (long long)r->line, word[2]);
    b->pattern = !strcasecmp(word[3], "pattern");
    if (!b->pattern && strcasecmp(word[3], "real") && strcasecmp(word[3], "integer"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: field '%s' is not supported (real, integer, "
                        "pattern)", r->path, (long long)r->line, word[3]);
    b->symmetric = !strcasecmp(word[4], "symmetric");
    b->skew = !strcasecmp(word[4], "skew-symmetric");
    if (!b->symmetric && !b->skew && strcasecmp(word[4], "general"))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: symmetry '%s' is not supported (general, "
                        "symmetric, skew-symmetric)", r->path, (long long)r->line, word[4]);
    return HSP_OK;
}

/* The next line that is neither a comment nor blank, or NULL at the end. */
static char *next_data_line(reader *r)
{
    char *line;
    while ((line = next_line(r))) {
        const char *p = skip_blanks(line);
        if (*p && *p != '%') return line;
    }
    return NULL;
}

/* The triplets being read. */
typedef struct {
    int64_t rows, cols, count, cap;
    int32_t *r, *c;
    double *v;
} triplets;

/* Can the file hold the entries it declares (an entry line takes 4 bytes at
 * the least, 6 with a value), and can this machine hold the matrix read:
 * triplets, then CSR?  Checked before anything of that size is allocated. */
static hsp_status check_room(const reader *r, const banner *b, const triplets *t, int64_t declared)
{
    int64_t left = r->size - (r->bytes_read - (int64_t)(r->len - r->pos)), per_line = b->pattern ? 4 : 6;
    if (r->size > 0 && declared > (left + 1) / per_line)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: %lld entries declared, but the %lld bytes left hold %lld at the most",
                        r->path, (long long)r->line, (long long)declared, (long long)left,
                        (long long)((left + 1) / per_line));
    double entries = (double)declared * (b->symmetric || b->skew ? 2 : 1);
    double need = entries * (2 * sizeof(int32_t) + sizeof(double)) + 8.0 * ((double)t->rows + 1)
                  + entries * (sizeof(int32_t) + hsp_value_size(r->precision));
    double have = r->mem_limit > 0 ? (double)r->mem_limit : (double)hsp_physical_memory();
    if (have > 0 && need > have)
        return hsp_fail(HSP_ERR_NOMEM, "%s:%lld: a %lld x %lld matrix of %lld entries needs %.0f bytes (%.1f GiB) to "
                        "read, more than %s (%.0f bytes)", r->path, (long long)r->line, (long long)t->rows,
                        (long long)t->cols, (long long)declared, need, need / (1 << 30),
                        r->mem_limit > 0 ? "the memory limit" : "this machine's memory", have);
    return HSP_OK;
}

/* Parse the size line "M N NNZ" and make room for the entries. */
static hsp_status parse_size(reader *r, const banner *b, triplets *t)
{
    const char *line = next_data_line(r), *p = line;
    int64_t declared;
    if (!line)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends before the size line", r->path,
                        (long long)r->line);
    if (!read_integer(&p, &t->rows) || !read_integer(&p, &t->cols) ||
        !read_integer(&p, &declared) || *skip_blanks(p))
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
static hsp_status parse_entry(reader *r, const banner *b, const char *line, triplets *t,
                              int64_t *k)
{
    const char *p = line;
    int64_t i, j;
    double v = 1.0;
    if (!read_integer(&p, &i) || !read_integer(&p, &j))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: an entry must start with two whole numbers 'I J'",
                        r->path, (long long)r->line);
    const char *value = skip_blanks(p);
    if (!b->pattern && !read_real(&p, &v))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: missing or malformed value", r->path,
                        (long long)r->line);
    if (!isfinite(v) || (r->precision == HSP_FLOAT && fabs(v) > FLT_MAX))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the value '%.*s' is not a finite %s", r->path, (long long)r->line,
                        (int)(p - value), value, r->precision == HSP_FLOAT ? "float" : "double");
    if (*skip_blanks(p))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: unexpected text '%.20s' after the entry", r->path,
                        (long long)r->line, skip_blanks(p));
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
static hsp_status parse_entries(reader *r, const banner *b, triplets *t)
{
    int64_t declared = t->count, k = 0;
    t->count = 0;
    for (int64_t e = 0; e < declared; e++) {
        const char *line = next_data_line(r);
        if (!line)
            return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the file ends after %lld of %lld entries",
                            r->path, (long long)r->line, (long long)e, (long long)declared);
        hsp_status s = parse_entry(r, b, line, t, &k);
        if (s != HSP_OK) return s;
    }
    t->count = k;
    if (next_data_line(r))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: more entries than the %lld declared", r->path,
                        (long long)r->line, (long long)declared);
    return HSP_OK;
}

/* Banner, size line and entries, into triplets. */
static hsp_status parse_file(reader *r, triplets *t)
{
    banner b = {0};
    const char *line = next_line(r);
    if (!line) {
        r->line = 1;
        return hsp_fail(HSP_ERR_PARSE, "%s:1: empty file", r->path);
    }
    hsp_status s = parse_banner(r, line, &b);
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
                                       "machine's memory", (long long)mem_limit);
    reader r = {.path = path, .cap = CHUNK + 1, .precision = precision, .mem_limit = mem_limit};
    struct stat st;
    if (!(r.f = fopen(path, "rb"))) return hsp_fail(HSP_ERR_IO, "%s: %s", path, strerror(errno));
    if (!(r.buf = malloc(r.cap))) {
        fclose(r.f);
        return hsp_fail(HSP_ERR_NOMEM, "%s: no memory to read", path);
    }
    r.size = fstat(fileno(r.f), &st) == 0 ? (int64_t)st.st_size : 0;
    hsp_progress_start(&r.progress, path, r.size, progress);
    triplets t = {0};
    hsp_status s = parse_file(&r, &t);
    if (s == HSP_OK && ferror(r.f)) s = hsp_fail(HSP_ERR_IO, "%s: read error", path);
    hsp_progress_done(&r.progress);
    fclose(r.f);
    free(r.buf);
    if (s == HSP_OK)
        s = hsp_csr_from_double_triplets((int32_t)t.rows, (int32_t)t.cols, t.count, t.r, t.c,
                                         t.v, precision, out);
    free(t.r), free(t.c), free(t.v);
    return s;
}

/* Append the decimal digits of v to p; return the new end. */
static char *put_integer(char *p, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do digits[n++] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (v < 0) *p++ = '-';
    while (n) *p++ = digits[--n];
    return p;
}

/* Append value v: whole numbers as integers, others with enough digits to
 * read back the same float or double. */
static char *put_value(char *p, double v, hsp_precision precision)
{
    if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && 1 / v < 0))
        return put_integer(p, (int64_t)v);
    return p + sprintf(p, precision == HSP_DOUBLE ? "%.17g" : "%.9g", v);
}

/* A's entries to f; nonzero when a write failed. */
static int write_entries(FILE *f, const hsp_csr *A, char *buf)
{
    char *p = buf;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->nrows, A->ncols,
            (long long)A->nnz);
    for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            p = put_integer(p, i + 1), *p++ = ' ';
            p = put_integer(p, A->colidx[k] + 1), *p++ = ' ';
            p = put_value(p, hsp_csr_value(A, k), A->precision), *p++ = '\n';
            if (p - buf > CHUNK) fwrite(buf, 1, (size_t)(p - buf), f), p = buf;
        }
    fwrite(buf, 1, (size_t)(p - buf), f);
    int bad = ferror(f);
    return fclose(f) != 0 || bad;
}

/* Where a regular file (or a new one) is written: a new file beside it,
 * renamed over it once whole, so that a failed write leaves what was there;
 * a device, a pipe or a symbolic link is written in place. */
static int in_place(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

hsp_status hsp_mm_write(const char *path, const hsp_csr *A)
{
    static atomic_int serial;
    if (!path) return hsp_fail(HSP_ERR_ARG, "hsp_mm_write: path is NULL");
    hsp_status s = hsp_csr_check_unordered(A, 0);
    if (s != HSP_OK) return s;
    char *tmp = malloc(strlen(path) + 64), *buf = malloc(CHUNK + 256);
    if (!tmp || !buf) return free(tmp), free(buf), hsp_fail(HSP_ERR_NOMEM, "%s: no memory to write", path);
    int direct = in_place(path);
    if (direct) strcpy(tmp, path);
    else sprintf(tmp, "%s.%ld.%d.tmp", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    FILE *f = fopen(tmp, direct ? "wb" : "wbx");
    int bad = !f || write_entries(f, A, buf), err = errno;
    if (!bad && !direct && rename(tmp, path) != 0) bad = 1, err = errno;
    if (bad && f && !direct) remove(tmp);
    free(tmp), free(buf);
    return bad ? hsp_fail(HSP_ERR_IO, "%s: %s failed: %s", path, f ? "write" : "open", strerror(err)) : HSP_OK;
}
