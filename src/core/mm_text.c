/* mm_text.c: the text of Matrix Market files (see mm_text.h). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mm_text.h"

hsp_status mm_open(mm_reader *r, const char *path, hsp_precision precision, int64_t mem_limit, int progress)
{
    struct stat st;
    *r = (mm_reader){.path = path, .cap = MM_CHUNK + 1, .precision = precision, .mem_limit = mem_limit};
    if (!(r->f = fopen(path, "rb"))) return hsp_fail(HSP_ERR_IO, "%s: %s", path, strerror(errno));
    if (!(r->buf = malloc(r->cap))) {
        fclose(r->f);
        return hsp_fail(HSP_ERR_NOMEM, "%s: no memory to read", path);
    }
    r->size = fstat(fileno(r->f), &st) == 0 ? (int64_t)st.st_size : 0;
    hsp_progress_start(&r->progress, path, r->size, progress);
    return HSP_OK;
}

hsp_status mm_close(mm_reader *r, hsp_status s)
{
    if (s == HSP_OK && ferror(r->f)) s = hsp_fail(HSP_ERR_IO, "%s: read error", r->path);
    hsp_progress_done(&r->progress);
    fclose(r->f);
    free(r->buf);
    return s;
}

/* The next line without its newline, or NULL at the end of the file. */
char *mm_next_line(mm_reader *r)
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
        if (r->cap - r->len < MM_CHUNK) {
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

/* The next line that is neither a comment nor blank, or NULL at the end. */
char *mm_next_data_line(mm_reader *r)
{
    char *line;
    while ((line = mm_next_line(r))) {
        const char *p = mm_skip_blanks(line);
        if (*p && *p != '%') return line;
    }
    return NULL;
}

int64_t mm_bytes_left(const mm_reader *r)
{
    return r->size - (r->bytes_read - (int64_t)(r->len - r->pos));
}

/* Skip blanks. */
const char *mm_skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    return p;
}

/* A decimal integer at *p (advanced past it); 0 when there is none. */
int mm_read_integer(const char **p, int64_t *out)
{
    const char *s = mm_skip_blanks(*p);
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
int mm_read_real(const char **p, double *out)
{
    char *end;
    const char *s = mm_skip_blanks(*p);
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || (*end && *end != ' ' && *end != '\t' && *end != '\r')) return 0;
    *p = end;
    return 1;
}

hsp_status mm_read_value(const mm_reader *r, const char **p, double *v)
{
    const char *value = mm_skip_blanks(*p);
    if (!mm_read_real(p, v))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: missing or malformed value", r->path, (long long)r->line);
    if (!isfinite(*v) || (r->precision == HSP_FLOAT && fabs(*v) > FLT_MAX))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the value '%.*s' is not a finite %s", r->path, (long long)r->line,
                        (int)(*p - value), value, r->precision == HSP_FLOAT ? "float" : "double");
    return HSP_OK;
}

hsp_status mm_check_need(const mm_reader *r, double need, const char *what)
{
    double have = (double)(r->mem_limit > 0 ? r->mem_limit : hsp_available_memory());
    if (have <= 0 || need <= have) return HSP_OK;
    return hsp_fail(HSP_ERR_NOMEM, "%s:%lld: %s needs %.0f bytes (%.1f GiB) to read, more than %s (%.0f bytes)",
                    r->path, (long long)r->line, what, need, need / (1 << 30),
                    r->mem_limit > 0 ? "the memory limit" : "the memory available", have);
}

hsp_status mm_parse_banner(const mm_reader *r, const char *line, const char *format, mm_banner *b)
{
    char word[5][32];
    int n = sscanf(line, "%31s %31s %31s %31s %31s", word[0], word[1], word[2], word[3], word[4]), array;
    if (n < 1 || strcasecmp(word[0], "%%MatrixMarket"))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: no %%%%MatrixMarket banner", r->path,
                        (long long)r->line);
    if (n != 5 || strcasecmp(word[1], "matrix"))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the banner needs 'matrix FORMAT FIELD SYMMETRY'",
                        r->path, (long long)r->line);
    if (strcasecmp(word[2], format))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: format '%s' is not supported here (%s only)",
                        r->path, (long long)r->line, word[2], format);
    array = !strcasecmp(format, "array");
    *b = (mm_banner){!strcasecmp(word[3], "pattern"), !strcasecmp(word[4], "symmetric"),
                     !strcasecmp(word[4], "skew-symmetric")};
    if ((b->pattern && array) || (!b->pattern && strcasecmp(word[3], "real") && strcasecmp(word[3], "integer")))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: field '%s' is not supported (real, integer%s)",
                        r->path, (long long)r->line, word[3], array ? "" : ", pattern");
    if ((array && (b->symmetric || b->skew)) || (!b->symmetric && !b->skew && strcasecmp(word[4], "general")))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "%s:%lld: symmetry '%s' is not supported (general%s)",
                        r->path, (long long)r->line, word[4], array ? "" : ", symmetric, skew-symmetric");
    return HSP_OK;
}

/* Append the decimal digits of v to p; return the new end. */
char *mm_put_integer(char *p, int64_t v)
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
char *mm_put_value(char *p, double v, hsp_precision precision)
{
    if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && 1 / v < 0))
        return mm_put_integer(p, (int64_t)v);
    return p + sprintf(p, precision == HSP_DOUBLE ? "%.17g" : "%.9g", v);
}

/* Where a regular file (or a new one) is written: a new file beside it,
 * renamed over it once whole, so that a failed write leaves what was there;
 * a device, a pipe or a symbolic link is written in place. */
static int in_place(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

hsp_status mm_write_file(const char *path, int (*put)(FILE *f, const void *arg, char *buf), const void *arg)
{
    static atomic_int serial;
    char *tmp = malloc(strlen(path) + 64), *buf = malloc(MM_CHUNK + 256);
    if (!tmp || !buf) return free(tmp), free(buf), hsp_fail(HSP_ERR_NOMEM, "%s: no memory to write", path);
    int direct = in_place(path);
    if (direct) strcpy(tmp, path);
    else sprintf(tmp, "%s.%ld.%d.tmp", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    FILE *f = fopen(tmp, direct ? "wb" : "wbx");
    int bad = !f, err = errno;
    if (f) {
        bad = put(f, arg, buf), err = errno;
        bad |= ferror(f), bad |= fclose(f) != 0;
        if (bad && !err) err = errno;
    }
    if (!bad && !direct && rename(tmp, path) != 0) bad = 1, err = errno;
    if (bad && f && !direct) remove(tmp);
    free(tmp), free(buf);
    return bad ? hsp_fail(HSP_ERR_IO, "%s: %s failed: %s", path, f ? "write" : "open", strerror(err)) : HSP_OK;
}
