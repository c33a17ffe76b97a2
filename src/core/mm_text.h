/* mm_text.h: the text of Matrix Market files (private to the library): a
 * file read a line at a time in large chunks, numbers parsed and checked,
 * the banner, numbers written, and a file written whole or not at all.
 * mmio.c reads and writes coordinate files with it, mm_dense.c array files. */
#ifndef HSP_MM_TEXT_H
#define HSP_MM_TEXT_H

#include <stdio.h>
#include "core/internal.h"

enum { MM_CHUNK = 1 << 22 };

/* A file read in large chunks, a line at a time. */
typedef struct {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap, len, pos;
    int64_t line, bytes_read, size;
    hsp_precision precision; /* of the matrix read: its values must fit */
    int integer;             /* the banner's field is integer: each value a whole number */
    int64_t mem_limit;       /* bytes reading may take; 0: the memory available */
    hsp_status error;        /* why mm_next_line stopped before the end, else HSP_OK */
    hsp_progress progress;
} mm_reader;

/* Open path (a file, not a directory) to read a matrix of precision (a
 * progress display where progress is set); nothing is left open on failure.
 * mm_close closes it and returns s, or the read error where s is HSP_OK. */
hsp_status mm_open(mm_reader *r, const char *path, hsp_precision precision, int64_t mem_limit, int progress);
hsp_status mm_close(mm_reader *r, hsp_status s);
/* The next line without its newline, or NULL at the end of the file; the
 * next that is neither a comment nor blank.  A line that holds a NUL byte
 * or a carriage return before its end (CR line endings) is refused: NULL,
 * the error in r->error; so is running out of memory for a long line. */
char *mm_next_line(mm_reader *r);
char *mm_next_data_line(mm_reader *r);
/* The bytes left to read. */
int64_t mm_bytes_left(const mm_reader *r);
const char *mm_skip_blanks(const char *p);
/* A decimal integer at *p (advanced past it); 0 when there is none. */
int mm_read_integer(const char **p, int64_t *out);
/* The value at *p (advanced past it): a decimal number that fits r's
 * precision, or inf, infinity or nan (signed or not, any case: what the
 * writers write for values that are not finite); a whole number where the
 * field is integer.  Hexadecimal is refused; the error names the line. */
hsp_status mm_read_value(const mm_reader *r, const char **p, double *v);

/* Refuse a file whose declared what needs more than need bytes to read:
 * more than r's mem_limit, else than the memory available; the error names
 * the line, the bytes and the limit. */
hsp_status mm_check_need(const mm_reader *r, double need, const char *what);

/* What the banner says. */
typedef struct {
    int pattern, symmetric, skew;
} mm_banner;
/* Parse "%%MatrixMarket matrix FORMAT FIELD SYMMETRY", whose FORMAT must be
 * format ("coordinate" or "array"; an array is real or integer, general);
 * r->integer says whether the field is integer. */
hsp_status mm_parse_banner(mm_reader *r, const char *line, const char *format, mm_banner *b);

/* Append the decimal digits of v, or value v (whole numbers as integers,
 * others with the digits to read back the same float or double); return
 * the new end. */
char *mm_put_integer(char *p, int64_t v);
char *mm_put_value(char *p, double v, hsp_precision precision);
/* Write path by put(f, arg, buf), which returns nonzero on failure (buf:
 * MM_CHUNK + 256 bytes); a regular file through a new file beside it,
 * renamed over it once whole, so that a failed write leaves what was there;
 * "-" the standard output. */
hsp_status mm_write_file(const char *path, int (*put)(FILE *f, const void *arg, char *buf), const void *arg);

#endif
