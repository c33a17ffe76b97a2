/* profile.c: tuned profiles (doc/devices.md, "Tuning"), text files of methods per bin,
 * a section per device and precision, read when a context takes its device
 * and written by hsp_tune:
 *
 *   # a comment, as is the rest of any line from '#'
 *   device double NVIDIA H100 80GB HBM3 (NVIDIA CUDA)
 *   rows 2 40 hash      bins of short and medium rows whose bounds u lie in 2..40
 *   long auto           the long rows
 *
 * A section begins at its "device PRECISION DESCRIPTION" line (the
 * description as `hspgemm devices` prints it) and ends at the next. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "core/internal.h"
#include "spgemm/bins.h"
#include "spgemm/profile.h"
#include "spgemm/spgemm_device.h"

enum { LINE_BYTES = 1024 };

int hsp_profile_path(const char *option, char *path, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    if (option && !strcmp(option, "none")) return 0;
    if (option) n = snprintf(path, len, "%s", option);
    else if (xdg && *xdg) n = snprintf(path, len, "%s/hspgemm/profile", xdg);
    else if (home && *home) n = snprintf(path, len, "%s/.config/hspgemm/profile", home);
    else return 0;
    return n >= 0 && (size_t)n < len;
}

/* line without its comment and its spaces at either end. */
static char *trimmed(char *line)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    while (*line == ' ' || *line == '\t') line++;
    size_t n = strlen(line);
    while (n && strchr(" \t\r\n", line[n - 1])) line[--n] = '\0';
    return line;
}

/* The method named by text, or -1. */
static int method_named(const char *text)
{
    for (int m = HSP_METHOD_HEAP; m < HSP_NMETHODS; m++)
        if (!strcmp(text, hsp_method_name((hsp_method)m))) return m;
    return -1;
}

/* What a reading of a profile file is for: the device, its bins and the
 * context's options; the methods taken go to out. */
typedef struct {
    const char *path;
    int line;
    const hsp_device *dev;
    const hsp_bins *bins;
    const hsp_options *o;
    int precision;  /* of the section read: 0 float, 1 double, -1 before the first */
    int ours;       /* the section is the device's */
    int taken;      /* a method was taken */
    hsp_profile *out;
} reading;

static hsp_status bad_line(const reading *r, const char *what)
{
    return hsp_fail(HSP_ERR_ARG, "profile %s, line %d: %s", r->path, r->line, what);
}

/* Method m for group g (0 short, 1 medium, 2 long) of r's device into *to,
 * unless the options name that group's method or m is not exact where the
 * context must be. */
static hsp_status take(reading *r, int g, int m, hsp_method *to)
{
    const hsp_device *dev = r->dev;
    if (r->o->method[g]) return HSP_OK;
    if (!(dev->spgemm->methods[g] & 1u << m))
        return hsp_fail(HSP_ERR_UNSUPPORTED, "profile %s, line %d: method %s cannot run on the %s rows of device %s",
                        r->path, r->line, hsp_method_name((hsp_method)m), hsp_group_name(g + 2), dev->description);
    if (r->o->deterministic && !(dev->spgemm->exact[g] & 1u << m)) return HSP_OK;
    *to = (hsp_method)m, r->taken = 1;
    return HSP_OK;
}

/* A "rows LO HI METHOD" line: the bins of short and medium rows within LO..HI. */
static hsp_status rows_line(reading *r, const char *args)
{
    long long lo, hi;
    char name[32], extra;
    int m = -1;
    if (sscanf(args, "%lld %lld %31s %c", &lo, &hi, name, &extra) != 3 || lo < 0 || hi < lo ||
        (m = method_named(name)) < 0)
        return bad_line(r, "give rows LO HI METHOD: bounds 0 <= LO <= HI and a method (heap, esc, merge, hash, "
                           "dense, auto, rmerge)");
    hsp_status s = HSP_OK;
    for (int b = 0; r->ours && s == HSP_OK && b < r->bins->nbins; b++) {
        int group = r->bins->group[b];
        if ((group == HSP_GROUP_SHORT || group == HSP_GROUP_MEDIUM) && lo <= r->bins->lo[b] && r->bins->hi[b] <= hi)
            s = take(r, group - HSP_GROUP_SHORT, m, &r->out->bin[r->precision][b]);
    }
    return s;
}

/* Split line (comment and spaces gone) after its first word, the keyword
 * left in line; returns the rest. */
static char *split(char *line)
{
    char *args = line + strcspn(line, " \t");
    if (*args) *args++ = '\0';
    return args + strspn(args, " \t");
}

/* A device line's arguments: its precision (0 float, 1 double; -1 where
 * they name none), and its description into *desc. */
static int device_args(const char *args, const char **desc)
{
    size_t n = strcspn(args, " \t");
    int dbl = n == 6 && !strncmp(args, "double", 6);
    if (!dbl && (n != 5 || strncmp(args, "float", 5))) return -1;
    *desc = args + n + strspn(args + n, " \t");
    return dbl;
}

/* One line of the file (comment and spaces gone). */
static hsp_status profile_line(reading *r, char *line)
{
    char *args = split(line);
    const char *desc;
    if (!*line) return HSP_OK;
    if (!strcmp(line, "device")) {
        if ((r->precision = device_args(args, &desc)) < 0) return bad_line(r, "give device float|double DESCRIPTION");
        r->ours = r->dev && !strcmp(desc, r->dev->description);
        return HSP_OK;
    }
    if (strcmp(line, "rows") && strcmp(line, "long")) return bad_line(r, "give device, rows or long lines");
    if (r->precision < 0) return bad_line(r, "a rows or long line before the first device line");
    if (!strcmp(line, "rows")) return rows_line(r, args);
    int m = method_named(args);
    if (m < 0) return bad_line(r, "give long METHOD (heap, esc, merge, hash, dense, auto, rmerge)");
    return r->ours ? take(r, HSP_NMETHODGROUPS - 1, m, &r->out->long_rows[r->precision]) : HSP_OK;
}

/* Read f, a profile, with r; *r's out gets the device's methods. */
static hsp_status read_profile(FILE *f, reading *r)
{
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    hsp_status s = HSP_OK;
    while (s == HSP_OK && (n = getline(&buf, &cap, f)) > 0) {
        r->line++;
        if (n >= LINE_BYTES) s = bad_line(r, "longer than 1023 bytes");
        else if (memchr(buf, '\0', (size_t)n)) s = bad_line(r, "a NUL byte: not a text file");
        else s = profile_line(r, trimmed(buf));
    }
    if (s == HSP_OK && ferror(f)) s = hsp_fail(HSP_ERR_IO, "profile %s: %s", r->path, strerror(errno));
    free(buf);
    return s;
}

hsp_status hsp_profile_load(const hsp_options *o, const hsp_device *dev, const hsp_bins *bins, hsp_profile *out)
{
    char path[sizeof out->path];
    memset(out, 0, sizeof *out);
    if (!hsp_profile_path(o->profile, path, sizeof path))
        return o->profile && strcmp(o->profile, "none")
                   ? hsp_fail(HSP_ERR_ARG, "profile %.64s...: the path is longer than 255 bytes", o->profile)
                   : HSP_OK;
    FILE *f = fopen(path, "r");
    if (!f && !o->profile && errno == ENOENT) return HSP_OK; /* the user has none */
    if (!f) return hsp_fail(HSP_ERR_IO, "profile %s: %s", path, strerror(errno));
    reading r = {.path = path, .dev = dev, .bins = bins, .o = o, .precision = -1, .out = out};
    hsp_status s = read_profile(f, &r);
    fclose(f);
    if (s != HSP_OK) memset(out, 0, sizeof *out);
    else if (r.taken) snprintf(out->path, sizeof out->path, "%s", path);
    return s;
}

/* Make the folders above path's last name (mkdir -p). */
static hsp_status make_folders(const char *path)
{
    char dir[LINE_BYTES];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(dir, 0777) && errno != EEXIST)
            return hsp_fail(HSP_ERR_IO, "profile %s: cannot make folder %s: %s", path, dir, strerror(errno));
        *p = '/';
    }
    return HSP_OK;
}

/* Copy the lines of old (a checked profile) to out but the section of
 * precision dbl and device description desc. */
static void copy_other_sections(FILE *old, FILE *out, int dbl, const char *desc)
{
    char buf[LINE_BYTES], copy[LINE_BYTES];
    int skipping = 0;
    while (fgets(buf, sizeof buf, old)) {
        snprintf(copy, sizeof copy, "%s", buf);
        char *line = trimmed(copy), *args = split(line);
        const char *d = "";
        if (!strcmp(line, "device")) skipping = device_args(args, &d) == dbl && !strcmp(d, desc);
        if (!skipping) fprintf(out, "%s%s", buf, strchr(buf, '\n') ? "" : "\n"); /* a last line ended */
    }
}

hsp_status hsp_profile_write(const char *option, int dbl, const char *desc, const char *section, char *path,
                             size_t len)
{
    char tmp[LINE_BYTES + 8];
    if (!hsp_profile_path(option, path, len))
        return hsp_fail(HSP_ERR_ARG, "no profile file to write: give one of at most %zu bytes (the user's "
                        "needs HOME or XDG_CONFIG_HOME)", len - 1);
    hsp_status s = option ? HSP_OK : make_folders(path);
    FILE *old = s == HSP_OK ? fopen(path, "r") : NULL;
    if (old) { /* a file that does not parse is left as it is */
        hsp_profile none;
        reading r = {.path = path, .precision = -1, .out = &none};
        s = read_profile(old, &r);
        rewind(old);
    } else if (s == HSP_OK && errno != ENOENT) {
        s = hsp_fail(HSP_ERR_IO, "profile %s: %s", path, strerror(errno));
    }
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *out = s == HSP_OK ? fopen(tmp, "w") : NULL;
    if (s == HSP_OK && !out) s = hsp_fail(HSP_ERR_IO, "profile %s: %s", tmp, strerror(errno));
    if (out) {
        if (old) copy_other_sections(old, out, dbl, desc);
        else fputs("# hspgemm profile: methods per bin, by hspgemm tune (doc/devices.md: Tuning)\n", out);
        fprintf(out, "device %s %s\n%s", dbl ? "double" : "float", desc, section);
        if (fclose(out) || rename(tmp, path)) {
            s = hsp_fail(HSP_ERR_IO, "profile %s: %s", path, strerror(errno));
            remove(tmp);
        }
    }
    if (old) fclose(old);
    return s;
}
