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
#include "core/mm_text.h"

hsp_status mm_open(mm_reader *r, const char *path, hsp_precision precision, int64_t mem_limit, int progress)
{
    struct stat st;
    *r = (mm_reader){.path = path, .cap = MM_CHUNK + 1, .precision = precision, .mem_limit = mem_limit};
    if (!(r->f = fopen(path, "rb"))) return hsp_fail(HSP_ERR_IO, "%s: %s", path, strerror(errno));
    int dir = fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode);
    if (dir || !(r->buf = malloc(r->cap))) {
        fclose(r->f);
        return dir ? hsp_fail(HSP_ERR_IO, "%s: is a directory, not a Matrix Market file", path)
                   : hsp_fail(HSP_ERR_NOMEM, "%s: no memory to read", path);
    }
    r->size = (int64_t)st.st_size;
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

/* Is line (len bytes, its newline cut) text the reader takes: no NUL byte
 * (the text after it would go unread) and no carriage return but one just
 * before the newline (CR line endings would make the file one line)?  Else
 * r->error says why. */
static int plain_text(mm_reader *r, const char *line, size_t len)
{
    const char *cr = memchr(line, '\r', len);
    if (strlen(line) < len)
        r->error = hsp_fail(HSP_ERR_PARSE, "%s:%lld: a NUL byte at column %zu: not a text file", r->path,
                            (long long)r->line, strlen(line) + 1);
    else if (cr && cr < line + len - 1)
        r->error = hsp_fail(HSP_ERR_PARSE, "%s:%lld: a carriage return inside the line: CR line endings (classic "
                            "Mac OS) are not supported; convert them to newlines (tr '\\r' '\\n')", r->path,
                            (long long)r->line);
    return r->error == HSP_OK;
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
            return plain_text(r, start, (size_t)(end - start)) ? start : NULL;
        }
        if (feof(r->f) || ferror(r->f)) return NULL;
        memmove(r->buf, start, r->len - r->pos); /* keep the partial line */
        r->len -= r->pos, r->pos = 0;
        if (r->cap - r->len < MM_CHUNK) {
            char *p = realloc(r->buf, r->cap * 2 + 1);
            if (!p) {
                r->error = hsp_fail(HSP_ERR_NOMEM, "%s:%lld: no memory for a line of %zu bytes", r->path,
                                    (long long)r->line + 1, r->len);
                return NULL;
            }
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

/* Is the number text (len bytes) inf, infinity or nan, signed or not? */
static int non_finite_word(const char *text, size_t len)
{
    if (*text == '-' || *text == '+') text++, len--;
    return (len == 3 && (!strncasecmp(text, "inf", 3) || !strncasecmp(text, "nan", 3))) ||
           (len == 8 && !strncasecmp(text, "infinity", 8));
}

/* Is the number text (len bytes) a whole number: digits, signed or not? */
static int whole_number(const char *text, size_t len)
{
    size_t sign = *text == '-' || *text == '+';
    return len > sign && strspn(text + sign, "0123456789") == len - sign;
}

/* Characters of a value a message shows: an overlong one is cut. */
enum { SHOWN = 40 };

hsp_status mm_read_value(const mm_reader *r, const char **p, double *v)
{
    char *end;
    const char *value = mm_skip_blanks(*p);
    *v = strtod(value, &end);
    size_t len = (size_t)(end - value);
    int shown = len < SHOWN ? (int)len : SHOWN;
    const char *cut = len > SHOWN ? "..." : "", *why = NULL;
    if (end == value || (*end && *end != ' ' && *end != '\t' && *end != '\r'))
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: missing or malformed value", r->path, (long long)r->line);
    if (memchr(value, 'x', len) || memchr(value, 'X', len)) why = "is hexadecimal: Matrix Market numbers are decimal";
    else if (r->integer && !whole_number(value, len)) why = "is not a whole number, in a file whose field is integer";
    else if (!non_finite_word(value, len) && (!isfinite(*v) || (r->precision == HSP_FLOAT && fabs(*v) > FLT_MAX)))
        why = r->precision == HSP_FLOAT ? "is not a finite float" : "is not a finite double";
    if (why)
        return hsp_fail(HSP_ERR_PARSE, "%s:%lld: the value '%.*s%s' %s", r->path, (long long)r->line, shown, value,
                        cut, why);
    *p = end;
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

hsp_status mm_parse_banner(mm_reader *r, const char *line, const char *format, mm_banner *b)
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
    r->integer = !strcasecmp(word[3], "integer");
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
    int out = !strcmp(path, "-"), direct = out || in_place(path);
    if (direct) strcpy(tmp, path);
    else sprintf(tmp, "%s.%ld.%d.tmp", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    FILE *f = out ? stdout : fopen(tmp, direct ? "wb" : "wbx");
    int bad = !f, err = errno;
    if (f) { /* errno of the first call that failed: put's writes, the flush of what they buffered, the close */
        errno = 0;
        bad = put(f, arg, buf) || ferror(f), err = errno;
        if (!bad && fflush(f) != 0) bad = 1, err = errno;
        if (!out && fclose(f) != 0 && !bad) bad = 1, err = errno;
    }
    if (!bad && !direct && rename(tmp, path) != 0) bad = 1, err = errno;
    if (bad && f && !direct) remove(tmp);
    free(tmp), free(buf);
    return bad ? hsp_fail(HSP_ERR_IO, "%s: %s failed: %s", out ? "the standard output" : path, f ? "write" : "open",
                          err ? strerror(err) : "I/O error")
               : HSP_OK;
}
