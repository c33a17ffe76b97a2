/* options.c: the options of a context from their one table (options.def):
 * their defaults, the table as front ends read it, and the checks a context
 * makes of the options it is given (hspgemm.h: hsp_options). */
#include <stdio.h>
#include <string.h>
#include "core/internal.h"

static const hsp_option_info table[] = {
#define HSP_OPTION(member, kind, def, lo, hi, give, flag, flag_lo, flag_hi, takes, help, python, petsc) \
    {#member, HSP_OPTION_##kind, offsetof(hsp_options, member), lo, hi, give, flag, flag_lo, flag_hi, takes, help, \
     python, petsc},
#include "options.def"
#undef HSP_OPTION
};
enum { NOPTIONS = sizeof table / sizeof *table };

/* The end of the last member of the first hsp_options that had a size: the
 * least size a caller's options may have. */
#define OPTIONS_SIZE_FIRST (offsetof(hsp_options, spmm_cpu_share) + sizeof(double))

const hsp_option_info *hsp_option_table(int *count)
{
    if (count) *count = NOPTIONS;
    return table;
}

/* The whole hsp_options of the defaults. */
static void defaults(hsp_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
#define HSP_OPTION(member, kind, def, ...) set_##kind(&o->member, def);
#define set_TEXT(p, v) (*(p) = (v))
#define set_INT set_TEXT
#define set_INT64 set_TEXT
#define set_BYTES set_TEXT
#define set_REAL set_TEXT
#define set_FLAG set_TEXT
#define set_GROW set_TEXT
#define set_METHODS(p, v) for (int g = 0; g < HSP_NMETHODGROUPS; g++) (*(p))[g] = (v)
#include "options.def"
#undef HSP_OPTION
#undef set_TEXT
#undef set_INT
#undef set_INT64
#undef set_BYTES
#undef set_REAL
#undef set_FLAG
#undef set_GROW
#undef set_METHODS
}

void hsp_options_init_size(hsp_options *o, size_t size)
{
    hsp_options full;
    if (!o) return;
    defaults(&full);
    full.size = size;
    memcpy(o, &full, size < sizeof full ? size : sizeof full);
}

/* A number of kind k at p, as a double (0 where k is no number). */
static double number(hsp_option_kind k, const void *p)
{
    switch (k) {
    case HSP_OPTION_INT: return *(const int *)p;
    case HSP_OPTION_INT64:
    case HSP_OPTION_BYTES: return (double)*(const int64_t *)p;
    case HSP_OPTION_REAL: return *(const double *)p;
    default: return 0;
    }
}

/* Check option t of o: an enum among its values, a number in its range, in
 * the table's words. */
static hsp_status check_one(const hsp_option_info *t, const hsp_options *o)
{
    const void *p = (const char *)o + t->offset;
    if (t->kind == HSP_OPTION_GROW && o->grow != HSP_GROW_REALLOC && o->grow != HSP_GROW_COPY)
        return hsp_fail(HSP_ERR_ARG, "unknown grow mode %d", (int)o->grow);
    for (int g = 0; t->kind == HSP_OPTION_METHODS && g < HSP_NMETHODGROUPS; g++)
        if (o->method[g] < HSP_METHOD_DEFAULT || o->method[g] >= HSP_NMETHODS)
            return hsp_fail(HSP_ERR_ARG, "unknown method %d for group %d", (int)o->method[g], g + 3);
    double v = number(t->kind, p);
    if (!t->give || (v >= t->lo && v <= t->hi)) return HSP_OK;
    if (t->kind == HSP_OPTION_REAL) return hsp_fail(HSP_ERR_ARG, "%s = %g: give %s", t->name, v, t->give);
    long long n = t->kind == HSP_OPTION_INT ? *(const int *)p : (long long)*(const int64_t *)p;
    return hsp_fail(HSP_ERR_ARG, "%s = %lld: give %s", t->name, n, t->give);
}

hsp_status hsp_options_take(const hsp_options *given, hsp_options *o)
{
    defaults(o);
    if (!given) return HSP_OK;
    if (given->size < OPTIONS_SIZE_FIRST || given->size > sizeof *o)
        return hsp_fail(HSP_ERR_ARG, "hsp_options.size = %zu: make the options with hsp_options_init (this library "
                        "takes %zu to %zu bytes: a caller built against its hspgemm.h or an older one)",
                        given->size, (size_t)OPTIONS_SIZE_FIRST, sizeof *o);
    memcpy(o, given, given->size);
    o->size = sizeof *o;
    for (int k = 0; k < NOPTIONS; k++) {
        hsp_status s = check_one(&table[k], o);
        if (s != HSP_OK) return s;
    }
    return HSP_OK;
}

hsp_status hsp_options_check(const hsp_options *o)
{
    hsp_options taken;
    return o ? hsp_options_take(o, &taken) : hsp_fail(HSP_ERR_ARG, "hsp_options_check: o is NULL");
}
