/* _core.c: the Python package's bridge to libhspgemm.  Matrices cross it as
 * (nrows, ncols, indptr, indices, data) with int64 indptr, int32 indices and
 * float32 or float64 data; the caller's arrays are read in place through the
 * buffer protocol, and a matrix the library made comes back as three Array
 * objects over its own arrays (no copy), freed by hsp_csr_free when the last
 * numpy array over them goes.  The GIL is released while the library works;
 * a context serves one call at a time (a lock per context).  Errors raise
 * _core.Error(status, name, message), which hspgemm/__init__.py maps to the
 * package's exception classes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <string.h>
#include <hspgemm.h>

static PyObject *core_error;

/* Raise _core.Error(s, the name of s, message); returns NULL. */
static PyObject *raise_message(hsp_status s, const char *message)
{
    PyObject *args = Py_BuildValue("(iss)", (int)s, hsp_strerror(s), message);
    if (args) PyErr_SetObject(core_error, args);
    Py_XDECREF(args);
    return NULL;
}

/* Raise _core.Error for status s with the library's message; returns NULL. */
static PyObject *raise_status(hsp_status s) { return raise_message(s, hsp_errmsg()); }

/* ---- Owner and Array: a library matrix's arrays as Python buffers ---------- */

typedef struct {
    PyObject_HEAD
    hsp_csr *csr;
} Owner;

static void owner_dealloc(Owner *o)
{
    hsp_csr_free(o->csr);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyTypeObject OwnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspgemm._core.Owner",
    .tp_basicsize = sizeof(Owner),
    .tp_dealloc = (destructor)owner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A matrix made by libhspgemm, freed when no Array over it is left.",
};

typedef struct {
    PyObject_HEAD
    PyObject *owner;
    void *data;
    Py_ssize_t n, itemsize;
    char *format;
} Array;

static void array_dealloc(Array *a)
{
    Py_XDECREF(a->owner);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

/* The buffer of a's items: one dimension, writable. */
static int array_getbuffer(Array *a, Py_buffer *view, int flags)
{
    *view = (Py_buffer){.buf = a->data, .obj = (PyObject *)a, .len = a->n * a->itemsize, .itemsize = a->itemsize,
                        .format = (flags & PyBUF_FORMAT) ? a->format : NULL, .ndim = 1,
                        .shape = (flags & PyBUF_ND) ? &a->n : NULL,
                        .strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &a->itemsize : NULL};
    Py_INCREF(a);
    return 0;
}

static PyBufferProcs array_buffer = {(getbufferproc)array_getbuffer, NULL};

static PyTypeObject ArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspgemm._core.Array",
    .tp_basicsize = sizeof(Array),
    .tp_dealloc = (destructor)array_dealloc,
    .tp_as_buffer = &array_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One array of a libhspgemm matrix, as a buffer.",
};

/* An Array over n items of data, kept alive with owner. */
static PyObject *new_array(PyObject *owner, void *data, Py_ssize_t n, Py_ssize_t itemsize, char *format)
{
    Array *a = PyObject_New(Array, &ArrayType);
    if (!a) return NULL;
    Py_INCREF(owner);
    a->owner = owner, a->data = data, a->n = n, a->itemsize = itemsize, a->format = format;
    return (PyObject *)a;
}

/* (nrows, ncols, indptr, indices, data) over M's arrays, which owner keeps. */
static PyObject *matrix_view(PyObject *owner, const hsp_csr *M)
{
    int dbl = M->precision == HSP_DOUBLE;
    PyObject *p = new_array(owner, M->rowptr, (Py_ssize_t)M->nrows + 1, 8, "q");
    PyObject *c = new_array(owner, M->colidx, (Py_ssize_t)M->nnz, 4, "i");
    PyObject *v = new_array(owner, M->values, (Py_ssize_t)M->nnz, dbl ? 8 : 4, dbl ? "d" : "f");
    PyObject *out = p && c && v ? Py_BuildValue("(iiOOO)", M->nrows, M->ncols, p, c, v) : NULL;
    Py_XDECREF(p), Py_XDECREF(c), Py_XDECREF(v);
    return out;
}

/* matrix_view of M, which the result owns from here on (freed at once on
 * failure). */
static PyObject *matrix_out(hsp_csr *M)
{
    Owner *o = PyObject_New(Owner, &OwnerType);
    if (!o) {
        hsp_csr_free(M);
        return NULL;
    }
    o->csr = M;
    PyObject *out = matrix_view((PyObject *)o, M);
    Py_DECREF(o);
    return out;
}

/* ---- matrices in ---------------------------------------------------------- */

/* A caller's matrix read in place: the hsp_csr over its buffers. */
typedef struct {
    hsp_csr csr;
    Py_buffer buf[3];
    int nbuf;
} matrix_in;

static void release_in(matrix_in *m)
{
    for (int k = 0; k < m->nbuf; k++) PyBuffer_Release(&m->buf[k]);
    m->nbuf = 0;
}

/* Take the next buffer of m from obj, C-contiguous and of one dimension;
 * its format letter, or 0 with an exception set. */
static char take_buffer(matrix_in *m, PyObject *obj, const char *what)
{
    Py_buffer *b = &m->buf[m->nbuf];
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    m->nbuf++;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (b->ndim != 1 || strlen(f) != 1) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous one-dimensional array", what);
        return 0;
    }
    return *f;
}

/* Is letter f with this item size one of the letters given with size? */
static int is_type(const Py_buffer *b, char f, const char *letters, Py_ssize_t size)
{
    return strchr(letters, f) && b->itemsize == size;
}

/* Fill m from (nrows, ncols, indptr, indices, data): indptr int64, indices
 * int32, data float32 or float64.  0, or -1 with an exception set (and no
 * buffer held). */
static int matrix_in_parse(PyObject *t, matrix_in *m, const char *name)
{
    PyObject *indptr, *indices, *data;
    int nrows, ncols;
    char fp, fc, fv;
    memset(m, 0, sizeof *m);
    if (!PyArg_ParseTuple(t, "iiOOO;a matrix is (nrows, ncols, indptr, indices, data)", &nrows, &ncols, &indptr,
                          &indices, &data))
        return -1;
    if (!(fp = take_buffer(m, indptr, "indptr")) || !(fc = take_buffer(m, indices, "indices"))
        || !(fv = take_buffer(m, data, "data")))
        goto fail;
    if (!is_type(&m->buf[0], fp, "lq", 8) || !is_type(&m->buf[1], fc, "i", 4)
        || !(is_type(&m->buf[2], fv, "d", 8) || is_type(&m->buf[2], fv, "f", 4))) {
        PyErr_Format(PyExc_TypeError, "%s: indptr must be int64, indices int32, data float32 or float64", name);
        goto fail;
    }
    Py_ssize_t np = m->buf[0].len / 8, nc = m->buf[1].len / 4, nv = m->buf[2].len / m->buf[2].itemsize;
    if (nrows < 0 || ncols < 0 || np != (Py_ssize_t)nrows + 1 || nc != nv) {
        PyErr_Format(PyExc_ValueError, "%s: %d x %d with %zd row pointers, %zd indices and %zd values", name,
                     nrows, ncols, np, nc, nv);
        goto fail;
    }
    m->csr = (hsp_csr){nrows, ncols, nc, fv == 'd' ? HSP_DOUBLE : HSP_FLOAT, m->buf[0].buf, m->buf[1].buf,
                       m->buf[2].buf};
    return 0;
fail:
    release_in(m);
    return -1;
}

/* The matrix of optional argument t (None gives NULL, no buffer held). */
static int matrix_in_optional(PyObject *t, matrix_in *m, const char *name, const hsp_csr **out)
{
    memset(m, 0, sizeof *m);
    *out = NULL;
    if (t == Py_None) return 0;
    if (matrix_in_parse(t, m, name) < 0) return -1;
    *out = &m->csr;
    return 0;
}

/* ---- stats ------------------------------------------------------------------ */

/* {bin: method name} of the bins that ran by a method of their own choice. */
static PyObject *bin_methods(const hsp_stats *st)
{
    PyObject *d = PyDict_New();
    for (int b = 0; d && b < HSP_MAX_BINS; b++) {
        PyObject *key = st->bin_method[b] ? PyLong_FromLong(b) : NULL;
        PyObject *name = key ? PyUnicode_FromString(hsp_method_name(st->bin_method[b])) : NULL;
        if (st->bin_method[b] && (!name || PyDict_SetItem(d, key, name) < 0)) Py_CLEAR(d);
        Py_XDECREF(key), Py_XDECREF(name);
    }
    return d;
}

/* One product's figures as a dict, with the keys of the CLI's JSON. */
static PyObject *stats_dict(const hsp_stats *st, hsp_precision precision)
{
    PyObject *bins = bin_methods(st);
    if (!bins) return NULL;
    return Py_BuildValue(
        "{s:L,s:L,s:s,s:s,s:L,s:L,s:L,s:i,s:s,s:[sss],s:L,s:L,s:L,s:L,s:[dddd],s:d,s:d,s:d,s:d,s:d,s:O,s:s,s:s,s:N,"
        "s:O,s:L}",
        "nnz_c", (long long)st->nnz_c, "flops", (long long)st->flops, "device", st->device, "grow",
        hsp_grow_name(st->grow), "grow_events", (long long)st->grow_events, "grow_bytes_copied",
        (long long)st->grow_bytes_copied, "grow_moves", (long long)st->grow_moves, "threads", st->threads,
        "precision", precision == HSP_DOUBLE ? "double" : "float", "methods", hsp_method_name(st->method[0]),
        hsp_method_name(st->method[1]), hsp_method_name(st->method[2]), "peak_temp_bytes",
        (long long)st->peak_temp_bytes, "peak_device_bytes", (long long)st->peak_device_bytes, "bytes_to_device",
        (long long)st->bytes_to_device, "bytes_to_host", (long long)st->bytes_to_host, "ms_stage",
        st->ms_stage[0], st->ms_stage[1], st->ms_stage[2], st->ms_stage[3], "ms_total", st->ms_total,
        "ms_other", st->ms_other,
        "ms_device", st->ms_device, "ms_host", st->ms_host, "ms_overlap", st->ms_overlap, "resident",
        st->resident ? Py_True : Py_False, "device_note", st->device_note, "profile", st->profile, "bin_methods",
        bins, "bitmap", st->bitmap ? Py_True : Py_False, "blocks_c", (long long)st->blocks_c);
}

/* ---- Context ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    hsp_context *ctx;
    PyThread_type_lock lock; /* one call at a time */
    PyObject *device;        /* the device string hsp_options points to (NULL: the default's) */
    int closed;              /* close() was called: no call is taken */
    Py_ssize_t dependents;   /* hierarchies and prepared matrices made on it that are alive: the
                                library frees them before their context, so ctx waits for them */
} Context;

static const char *grow_name(int k) { return hsp_grow_name((hsp_grow)k); }
static const char *method_name(int k) { return hsp_method_name((hsp_method)k); }

/* The value of option what = name among the count named by name_of; else -1
 * with an argument error naming the option and the names it takes. */
static int enum_named(const char *name, const char *(*name_of)(int), int count, const char *what)
{
    char message[512];
    int len = snprintf(message, sizeof message, "%s = '%.100s': give ", what, name);
    for (int k = 0; k < count; k++)
        if (!strcmp(name, name_of(k))) return k;
    for (int k = 0; k < count && len < (int)sizeof message; k++)
        len += snprintf(message + len, sizeof message - len, "%s'%s'", k == 0 ? "" : k == count - 1 ? " or " : ", ",
                        name_of(k));
    raise_message(HSP_ERR_ARG, message);
    return -1;
}

/* The option of the table (options.def) whose Python keyword is key, or NULL. */
static const hsp_option_info *python_option(const char *key)
{
    int n;
    const hsp_option_info *t = hsp_option_table(&n);
    for (int k = 0; k < n; k++)
        if (t[k].python && !strcmp(t[k].python, key)) return &t[k];
    return NULL;
}

/* An int from v into *out; -1 with an exception where it is none or too large. */
static int int_of(PyObject *v, int *out)
{
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < INT_MIN || x > INT_MAX) return PyErr_SetString(PyExc_OverflowError, "an option passes a C int"), -1;
    *out = (int)x;
    return 0;
}

/* Set option t of o from v (its type the package's to check); -1 with an
 * exception when v is not of its kind.  A text's bytes are v's. */
static int set_option(hsp_options *o, const hsp_option_info *t, PyObject *v)
{
    void *p = (char *)o + t->offset;
    const char *m[3];
    int k;
    switch (t->kind) {
    case HSP_OPTION_TEXT:
        *(const char **)p = v == Py_None ? NULL : PyUnicode_AsUTF8(v);
        return v != Py_None && !*(const char **)p ? -1 : 0;
    case HSP_OPTION_INT: return int_of(v, p);
    case HSP_OPTION_INT64:
    case HSP_OPTION_BYTES: return (*(int64_t *)p = PyLong_AsLongLong(v)) == -1 && PyErr_Occurred() ? -1 : 0;
    case HSP_OPTION_REAL: return (*(double *)p = PyFloat_AsDouble(v)) == -1 && PyErr_Occurred() ? -1 : 0;
    case HSP_OPTION_FLAG: return (*(int *)p = PyObject_IsTrue(v)) < 0 ? -1 : 0;
    case HSP_OPTION_GROW:
        if (!PyUnicode_Check(v)) return PyErr_SetString(PyExc_TypeError, "grow: give a str"), -1;
        return (k = enum_named(PyUnicode_AsUTF8(v), grow_name, 2, "grow")) < 0 ? -1 : (o->grow = (hsp_grow)k, 0);
    case HSP_OPTION_METHODS:
        if (!PyArg_ParseTuple(v, "sss", &m[0], &m[1], &m[2])) return -1;
        o->bitmap = !strcmp(m[0], "bitmap") && !strcmp(m[1], "bitmap") && !strcmp(m[2], "bitmap");
        for (int g = 0; g < 3 && !o->bitmap; g++) {
            if ((k = enum_named(m[g], method_name, HSP_NMETHODS, "methods")) < 0) return -1;
            o->method[g] = (hsp_method)k;
        }
        return 0;
    }
    return 0;
}

/* Context(**options): the keywords of the option table, each defaulting to hsp_options_init's. */
static int context_init(Context *self, PyObject *args, PyObject *kw)
{
    PyObject *key, *v;
    Py_ssize_t at = 0;
    hsp_options o;
    hsp_options_init(&o);
    if (PyTuple_GET_SIZE(args)) return PyErr_SetString(PyExc_TypeError, "Context takes keywords only"), -1;
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "the context is open already");
        return -1;
    }
    PyObject *device = kw ? PyDict_GetItemString(kw, "device") : NULL; /* kept: the context points to it */
    Py_XSETREF(self->device, Py_XNewRef(device));
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) return -1;
    while (kw && PyDict_Next(kw, &at, &key, &v)) {
        const hsp_option_info *t = python_option(PyUnicode_AsUTF8(key));
        if (!t) return PyErr_Format(PyExc_TypeError, "Context: no option '%U'", key), -1;
        if (set_option(&o, t, v) < 0) return -1;
    }
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_context_create(&o, &self->ctx); /* it copies the profile's name */
    Py_END_ALLOW_THREADS
    self->closed = 0;
    return s == HSP_OK ? 0 : (raise_status(s), -1);
}

/* options() -> {keyword: default} of Context's options, from the option table
 * and hsp_options_init: the package's one source of its defaults. */
static PyObject *core_options(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    int n;
    const hsp_option_info *t = hsp_option_table(&n);
    hsp_options o;
    hsp_options_init(&o);
    PyObject *d = PyDict_New();
    for (int k = 0; d && k < n; k++) {
        const void *p = (const char *)&o + t[k].offset;
        PyObject *v = NULL;
        if (!t[k].python) continue;
        switch (t[k].kind) {
        case HSP_OPTION_TEXT:
            v = *(const char *const *)p ? PyUnicode_FromString(*(const char *const *)p) : Py_NewRef(Py_None);
            break;
        case HSP_OPTION_INT: v = PyLong_FromLong(*(const int *)p); break;
        case HSP_OPTION_INT64:
        case HSP_OPTION_BYTES: v = PyLong_FromLongLong(*(const int64_t *)p); break;
        case HSP_OPTION_REAL: v = PyFloat_FromDouble(*(const double *)p); break;
        case HSP_OPTION_FLAG: v = PyBool_FromLong(*(const int *)p); break;
        case HSP_OPTION_GROW: v = PyUnicode_FromString(grow_name(o.grow)); break;
        case HSP_OPTION_METHODS:
            v = Py_BuildValue("(sss)", method_name(o.method[0]), method_name(o.method[1]), method_name(o.method[2]));
            break;
        }
        if (!v || PyDict_SetItemString(d, t[k].python, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* Free the library's context (waiting for a call in another thread to end). */
static void context_free_now(Context *self)
{
    if (!self->ctx) return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    hsp_context_free(self->ctx);
    self->ctx = NULL;
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
}

/* Close the context: no call is taken from here on; the library's context is
 * freed now, or where hierarchies or prepared matrices made on it are alive,
 * when the last of them goes (freeing them touches their context). */
static void context_close_now(Context *self)
{
    self->closed = 1;
    if (self->dependents == 0) context_free_now(self);
}

/* A reference to self for an object made on it, which self outlives. */
static Context *context_depend(Context *self)
{
    self->dependents++;
    return (Context *)Py_NewRef(self);
}

/* An object made on c has gone (freed): c's reference to it dropped, and c
 * freed where it was closed and that was the last. */
static void context_release(Context *c)
{
    if (--c->dependents == 0 && c->closed) context_free_now(c);
    Py_DECREF(c);
}

static void context_dealloc(Context *self)
{
    context_free_now(self); /* no dependent is left: each holds a reference */
    if (self->lock) PyThread_free_lock(self->lock);
    Py_XDECREF(self->device);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *context_close(Context *self, PyObject *unused)
{
    (void)unused;
    context_close_now(self);
    Py_RETURN_NONE;
}

/* The context's lock, taken without the GIL; -1 with an exception when closed. */
static int context_enter(Context *self)
{
    if (self->closed || !self->ctx) return raise_message(HSP_ERR_ARG, "the context is closed"), -1;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
    if (self->closed) {
        PyThread_release_lock(self->lock);
        return raise_message(HSP_ERR_ARG, "the context is closed"), -1;
    }
    return 0;
}

/* After a library call: the product's result, or the error; a Ctrl-C that
 * came meanwhile is raised here (the result dropped). */
static PyObject *finish(hsp_status s, hsp_csr *C, PyObject *stats)
{
    if (s != HSP_OK) {
        hsp_csr_free(C);
        Py_XDECREF(stats);
        return raise_status(s);
    }
    if (PyErr_CheckSignals() < 0) {
        hsp_csr_free(C);
        Py_XDECREF(stats);
        return NULL;
    }
    PyObject *m = matrix_out(C);
    PyObject *out = m ? Py_BuildValue("(OO)", m, stats ? stats : Py_None) : NULL;
    Py_XDECREF(m), Py_XDECREF(stats);
    return out;
}

static PyObject *context_multiply(Context *self, PyObject *args)
{
    PyObject *ta, *tb;
    int want_stats = 0;
    matrix_in a, b;
    if (!PyArg_ParseTuple(args, "OO|p", &ta, &tb, &want_stats)) return NULL;
    if (matrix_in_parse(ta, &a, "A") < 0) return NULL;
    if (matrix_in_parse(tb, &b, "B") < 0) return release_in(&a), NULL;
    if (context_enter(self) < 0) return release_in(&a), release_in(&b), NULL;
    hsp_csr *C = NULL;
    hsp_stats st;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_multiply(self->ctx, &a.csr, &b.csr, &C, want_stats ? &st : NULL);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    release_in(&a), release_in(&b);
    return finish(s, C, s == HSP_OK && want_stats ? stats_dict(&st, C->precision) : NULL);
}

static PyObject *context_rap(Context *self, PyObject *args)
{
    PyObject *tr, *ta, *tp;
    int order = 0, want_stats = 0;
    matrix_in r, a, p;
    const hsp_csr *R;
    if (!PyArg_ParseTuple(args, "OOO|ip", &tr, &ta, &tp, &order, &want_stats)) return NULL;
    if (order != HSP_RAP_R_AP && order != HSP_RAP_RA_P)
        return PyErr_Format(PyExc_ValueError, "unknown order %d", order);
    if (matrix_in_optional(tr, &r, "R", &R) < 0) return NULL;
    if (matrix_in_parse(ta, &a, "A") < 0) return release_in(&r), NULL;
    if (matrix_in_parse(tp, &p, "P") < 0) return release_in(&r), release_in(&a), NULL;
    if (context_enter(self) < 0) return release_in(&r), release_in(&a), release_in(&p), NULL;
    hsp_csr *C = NULL;
    hsp_stats st[2];
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_rap(self->ctx, R, &a.csr, &p.csr, (hsp_rap_order)order, &C, NULL, want_stats ? st : NULL);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    release_in(&r), release_in(&a), release_in(&p);
    PyObject *stats = NULL;
    if (s == HSP_OK && want_stats) {
        PyObject *s0 = stats_dict(&st[0], C->precision), *s1 = stats_dict(&st[1], C->precision);
        stats = s0 && s1 ? Py_BuildValue("[OO]", s0, s1) : NULL;
        Py_XDECREF(s0), Py_XDECREF(s1);
        if (!stats) return hsp_csr_free(C), NULL;
    }
    return finish(s, C, stats);
}

/* ---- Prepared: a sparse matrix prepared for SpMM (hsp_ellr) ------------------------ */

typedef struct {
    PyObject_HEAD
    hsp_ellr *ellr;
    hsp_ellr_info info;
    hsp_precision precision;
    Context *context; /* where it was made: freed after it */
} Prepared;

static void prepared_dealloc(Prepared *p)
{
    Py_BEGIN_ALLOW_THREADS
    hsp_ellr_free(p->ellr);
    Py_END_ALLOW_THREADS
    if (p->context) context_release(p->context);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *prepared_info(Prepared *p, PyObject *unused)
{
    (void)unused;
    const hsp_ellr_info *i = &p->info;
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:L,s:L,s:s,s:L,s:L,s:L,s:s}", "nrows", i->nrows, "ncols", i->ncols,
                         "width", i->width, "height", i->height, "nnz", (long long)i->nnz, "slots",
                         (long long)i->slots, "format", i->format, "bytes", (long long)i->bytes, "csr_bytes",
                         (long long)i->csr_bytes, "copy_bytes", (long long)i->copy_bytes, "precision",
                         p->precision == HSP_DOUBLE ? "double" : "float");
}

static PyMethodDef prepared_methods[] = {
    {"info", (PyCFunction)prepared_info, METH_NOARGS,
     "info() -> {nrows, ncols, width, height, nnz, slots, format, bytes, csr_bytes, copy_bytes, precision}"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject PreparedType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspgemm._core.Prepared",
    .tp_basicsize = sizeof(Prepared),
    .tp_dealloc = (destructor)prepared_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sparse matrix prepared for SpMM by Context.prepare (an hsp_ellr of its own arrays).",
    .tp_methods = prepared_methods,
};

/* prepare(A) -> Prepared: A checked once and copied (hsp_ellr_from_csr). */
static PyObject *context_prepare(Context *self, PyObject *args)
{
    PyObject *ta;
    matrix_in a;
    if (!PyArg_ParseTuple(args, "O", &ta) || matrix_in_parse(ta, &a, "A") < 0) return NULL;
    Prepared *p = PyObject_New(Prepared, &PreparedType);
    if (!p) return release_in(&a), NULL;
    p->ellr = NULL, p->precision = a.csr.precision, p->context = context_depend(self);
    if (context_enter(self) < 0) return release_in(&a), Py_DECREF(p), NULL;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_ellr_from_csr(self->ctx, &a.csr, &p->ellr);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    release_in(&a);
    if (s != HSP_OK) return Py_DECREF(p), raise_status(s);
    hsp_ellr_describe(p->ellr, &p->info);
    return (PyObject *)p;
}

/* The leading dimension of a packed dense matrix whose lines hold n values:
 * n, and at least 1 as the library (BLAS) wants, also where n is 0. */
static int64_t packed_ld(int64_t n) { return n > 0 ? n : 1; }

/* spmm(A, X, Y, L, colmajor, alpha, beta, stats): Y = alpha A X + beta Y in
 * place, A a matrix tuple or a Prepared, X and Y dense of L columns over the
 * caller's buffers (row-major, or column-major where colmajor), packed (ld =
 * L, or the rows). */
static PyObject *context_spmm(Context *self, PyObject *args)
{
    PyObject *ta;
    Py_buffer x, y;
    int ncols, colmajor, want_stats = 0;
    double alpha, beta;
    matrix_in a = {0};
    if (!PyArg_ParseTuple(args, "Oy*w*iidd|p", &ta, &x, &y, &ncols, &colmajor, &alpha, &beta, &want_stats))
        return NULL;
    Prepared *prep = PyObject_TypeCheck(ta, &PreparedType) ? (Prepared *)ta : NULL;
    if (prep) a.csr = (hsp_csr){prep->info.nrows, prep->info.ncols, 0, prep->precision, NULL, NULL, NULL};
    else if (matrix_in_parse(ta, &a, "A") < 0) return PyBuffer_Release(&x), PyBuffer_Release(&y), NULL;
    hsp_order order = colmajor ? HSP_COL_MAJOR : HSP_ROW_MAJOR;
    hsp_dense X = {a.csr.ncols, ncols, packed_ld(colmajor ? a.csr.ncols : ncols), order, a.csr.precision, x.buf};
    hsp_dense Y = {a.csr.nrows, ncols, packed_ld(colmajor ? a.csr.nrows : ncols), order, a.csr.precision, y.buf};
    Py_ssize_t item = a.csr.precision == HSP_DOUBLE ? 8 : 4;
    PyObject *out = NULL;
    if (x.len != (Py_ssize_t)a.csr.ncols * ncols * item || y.len != (Py_ssize_t)a.csr.nrows * ncols * item)
        raise_message(HSP_ERR_SHAPE, "spmm: X or Y does not hold the values its shape needs");
    else if (context_enter(self) == 0) {
        hsp_spmm_stats st;
        hsp_status s;
        Py_BEGIN_ALLOW_THREADS
        s = prep ? hsp_spmm_ellr(self->ctx, alpha, prep->ellr, &X, beta, &Y, &st)
                 : hsp_spmm(self->ctx, alpha, &a.csr, &X, beta, &Y, &st);
        PyThread_release_lock(self->lock);
        Py_END_ALLOW_THREADS
        if (s != HSP_OK) raise_status(s);
        else if (!want_stats) out = Py_NewRef(Py_None);
        else out = Py_BuildValue("{s:d,s:L,s:i,s:s,s:s,s:i,s:i}", "ms", st.ms, "flops", (long long)st.flops, "threads",
                                 st.threads, "format", st.format, "device", st.device, "blocks", st.blocks, "cpu_cols",
                                 st.cpu_cols);
    }
    release_in(&a), PyBuffer_Release(&x), PyBuffer_Release(&y);
    return out;
}

static PyObject *context_amg_setup(Context *self, PyObject *args);

static PyMethodDef context_methods[] = {
    {"amg_setup", (PyCFunction)context_amg_setup, METH_VARARGS,
     "amg_setup(A, strength, theta, omega, max_levels, coarse_size, order, resident, B, nullspace, block, "
     "float_levels, aggregation, coarsening) -> Hierarchy"},
    {"multiply", (PyCFunction)context_multiply, METH_VARARGS,
     "multiply(A, B, stats=False) -> (C, stats or None); matrices as (nrows, ncols, indptr, indices, data)"},
    {"spmm", (PyCFunction)context_spmm, METH_VARARGS,
     "spmm(A, X, Y, L, colmajor, alpha, beta, stats=False) -> None or stats: Y = alpha A X + beta Y"},
    {"prepare", (PyCFunction)context_prepare, METH_VARARGS, "prepare(A) -> Prepared, for spmm"},
    {"rap", (PyCFunction)context_rap, METH_VARARGS,
     "rap(R or None, A, P, order=0, stats=False) -> (C, [stats, stats] or None)"},
    {"close", (PyCFunction)context_close, METH_NOARGS,
     "close(): no more calls; the context freed now, or after the last object made on it"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspgemm._core.Context",
    .tp_basicsize = sizeof(Context),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Context(device='auto', threads=0, grow='realloc', methods=(m, m, m), mem_limit=0, small_nnz=0, "
              "device_timeout=0.0, unsorted=False, drop_zeros=False, deterministic=False, profile=None, spmm_blocks=0, "
              "spmm_cpu_share=0.0, pattern=False): an "
              "hsp_context.",
    .tp_methods = context_methods,
    .tp_init = (initproc)context_init,
    .tp_new = PyType_GenericNew,
};

/* ---- Hierarchy: an AMG hierarchy (hsp_amg) ---------------------------------------- */

typedef struct {
    PyObject_HEAD
    hsp_amg *amg;
    Context *context;      /* where it was made, and where a re-setup runs: freed after it */
    matrix_in a[2];        /* level 0's A (the caller's arrays, held): a[cur]; a re-setup's goes to the other */
    int cur;
    hsp_resident *placed;  /* a resident hierarchy's level 0 (A placed), else NULL */
} Hierarchy;

static void hierarchy_dealloc(Hierarchy *h)
{
    Py_BEGIN_ALLOW_THREADS
    hsp_amg_free(h->amg);
    hsp_resident_free(h->placed);
    Py_END_ALLOW_THREADS
    release_in(&h->a[0]), release_in(&h->a[1]);
    if (h->context) context_release(h->context);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

/* Level k: (A, P, R, naggregates, {timings}); A, P, R as matrix tuples over
 * the hierarchy's arrays (None where absent: level 0's A is the caller's, the
 * coarsest has no P and R).  They change with a re-setup: copy them. */
static PyObject *hierarchy_level(Hierarchy *h, PyObject *args)
{
    int k;
    if (!PyArg_ParseTuple(args, "i", &k)) return NULL;
    if (!h->amg || k < 0 || k >= h->amg->nlevels)
        return PyErr_Format(PyExc_IndexError, "level %d of %d", k, h->amg ? h->amg->nlevels : 0);
    const hsp_amg_level *v = &h->amg->level[k];
    PyObject *m[3] = {k > 0 ? matrix_view((PyObject *)h, v->A) : Py_NewRef(Py_None),
                      v->P ? matrix_view((PyObject *)h, v->P) : Py_NewRef(Py_None),
                      v->R ? matrix_view((PyObject *)h, v->R) : Py_NewRef(Py_None)};
    PyObject *out = m[0] && m[1] && m[2]
                        ? Py_BuildValue("(OOOi{s:d,s:d,s:d,s:[dd],s:d,s:d,s:d})", m[0], m[1], m[2],
                                        (int)v->naggregates, "ms_aggregate", v->ms_aggregate, "ms_smooth",
                                        v->ms_smooth, "ms_transpose", v->ms_transpose, "ms_rap", v->ms_rap[0],
                                        v->ms_rap[1], "ms_device", v->ms_device, "ms_host", v->ms_host, "ms_wait",
                                        v->ms_wait)
                        : NULL;
    for (int j = 0; j < 3; j++) Py_XDECREF(m[j]);
    return out;
}

static PyObject *hierarchy_info(Hierarchy *h, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("{s:i,s:d,s:s}", "nlevels", h->amg->nlevels, "ms_total", h->amg->ms_total, "device",
                         h->amg->device);
}

/* The hierarchy of A (held by h), resident when h->placed is to be set:
 * A placed, every level made and kept on the device, then brought home. */
static hsp_status setup_levels(Hierarchy *h, const hsp_csr *A, const hsp_amg_options *o, int resident)
{
    hsp_context *ctx = h->context->ctx;
    if (!resident) return hsp_amg_setup(ctx, A, o, &h->amg);
    hsp_status s = hsp_place(ctx, A, &h->placed);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, h->placed, o, &h->amg);
    return s == HSP_OK ? hsp_amg_home(h->amg) : s;
}

/* A resident hierarchy's values anew for A: A placed, the re-setup on the
 * device, the levels brought home; the A placed before freed once the
 * hierarchy holds the new one. */
static hsp_status resetup_resident(Hierarchy *h, const hsp_csr *A)
{
    hsp_resident *next = NULL;
    hsp_status s = hsp_place(h->context->ctx, A, &next);
    if (s == HSP_OK) s = hsp_amg_resetup_resident(h->context->ctx, h->amg, next);
    if (s == HSP_OK) s = hsp_amg_home(h->amg);
    if (s != HSP_OK) {
        hsp_resident_free(next);
        return s;
    }
    hsp_resident_free(h->placed);
    h->placed = next;
    return HSP_OK;
}

/* resetup(A): the values anew for A of the same pattern, on the context that made the hierarchy. */
static PyObject *hierarchy_resetup(Hierarchy *h, PyObject *args)
{
    PyObject *ta;
    int next = 1 - h->cur;
    if (!PyArg_ParseTuple(args, "O", &ta) || matrix_in_parse(ta, &h->a[next], "A") < 0) return NULL;
    if (context_enter(h->context) < 0) return release_in(&h->a[next]), NULL;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = h->placed ? resetup_resident(h, &h->a[next].csr) : hsp_amg_resetup(h->context->ctx, h->amg, &h->a[next].csr);
    PyThread_release_lock(h->context->lock);
    Py_END_ALLOW_THREADS
    /* level 0 is the new A (even after a later error, unless resident: the
     * placed A, which may use its arrays, changes on success only) */
    if (h->placed ? s == HSP_OK : h->amg->level[0].A == &h->a[next].csr) {
        release_in(&h->a[h->cur]);
        h->cur = next;
    } else {
        release_in(&h->a[next]);
    }
    if (s != HSP_OK) return raise_status(s);
    Py_RETURN_NONE;
}

/* Options of a solve or an apply from (cycle, smoother, pre, post, omega,
 * degree, lower, sweep): the enums' numbers, checked by the library; a degree
 * or lower of 0, the library's default. */
static int solve_options_parse(PyObject *t, hsp_amg_solve_options *o)
{
    int cycle, smoother, sweep, degree;
    double lower;
    hsp_amg_solve_options_init(o);
    if (!PyArg_ParseTuple(t, "iiiididi;solve options are (cycle, smoother, pre, post, omega, degree, lower, sweep)",
                          &cycle, &smoother, &o->pre, &o->post, &o->jacobi_omega, &degree, &lower, &sweep))
        return -1;
    o->cycle = (hsp_cycle)cycle, o->smoother = (hsp_smoother)smoother, o->sweep = (hsp_sweep)sweep;
    if (degree) o->chebyshev_degree = degree;
    if (lower != 0) o->chebyshev_lower = lower;
    return 0;
}

/* The buffers of a solve's right side (read) and solution (written): each of
 * level 0's rows, in its precision.  0, or -1 with an exception (none held). */
static int vectors_in(Hierarchy *h, PyObject *in, PyObject *out, Py_buffer *b, Py_buffer *x)
{
    const hsp_csr *A = h->amg ? h->amg->level[0].A : NULL;
    if (!A) return PyErr_SetString(PyExc_RuntimeError, "the hierarchy has no levels"), -1;
    Py_ssize_t size = A->precision == HSP_DOUBLE ? 8 : 4;
    const char *letter = size == 8 ? "d" : "f";
    if (PyObject_GetBuffer(in, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (PyObject_GetBuffer(out, x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return PyBuffer_Release(b), -1;
    for (int k = 0; k < 2; k++) {
        Py_buffer *v = k ? x : b;
        const char *f = v->format ? v->format : "B";
        if (*f == '<' || *f == '=' || *f == '@') f++;
        if (v->itemsize != size || strcmp(f, letter) || v->len != (Py_ssize_t)A->nrows * size) {
            PyErr_Format(PyExc_ValueError, "%s: give %d values of %s", k ? "x" : "b", (int)A->nrows,
                         size == 8 ? "float64" : "float32");
            return PyBuffer_Release(b), PyBuffer_Release(x), -1;
        }
    }
    if (b->buf == x->buf) {
        PyErr_SetString(PyExc_ValueError, "b and x: give two arrays");
        return PyBuffer_Release(b), PyBuffer_Release(x), -1;
    }
    return 0;
}

/* solve(b, x, tol, maxiter, accel, x0, history_size, (options)) -> {iterations,
 * converged, residual, history, ms_solve}: x solved in place (hsp_amg_solve). */
static PyObject *hierarchy_solve(Hierarchy *h, PyObject *args)
{
    PyObject *in, *out, *opt;
    hsp_amg_solve_options o;
    hsp_amg_solve_info info;
    double tol;
    int maxiter, accel, x0, nhist;
    Py_buffer b, x;
    if (!PyArg_ParseTuple(args, "OOdiipiO", &in, &out, &tol, &maxiter, &accel, &x0, &nhist, &opt)
        || solve_options_parse(opt, &o) < 0)
        return NULL;
    if (nhist < 1) return PyErr_SetString(PyExc_ValueError, "history_size: give 1 or more"), NULL;
    o.tol = tol, o.maxiter = maxiter, o.accel = (hsp_accel)accel, o.x0 = x0;
    double *history = PyMem_Calloc((size_t)nhist, sizeof *history);
    if (!history) return PyErr_NoMemory();
    if (vectors_in(h, in, out, &b, &x) < 0) return PyMem_Free(history), NULL;
    memset(&info, 0, sizeof info);
    info.history = history, info.history_size = nhist;
    if (context_enter(h->context) < 0) {
        PyBuffer_Release(&b), PyBuffer_Release(&x), PyMem_Free(history);
        return NULL;
    }
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_amg_solve(h->context->ctx, h->amg, b.buf, x.buf, &o, &info);
    PyThread_release_lock(h->context->lock);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b), PyBuffer_Release(&x);
    PyObject *result = NULL, *list = NULL;
    if (s != HSP_OK) raise_status(s);
    else if (PyErr_CheckSignals() == 0 && (list = PyList_New(info.history_len))) {
        for (int k = 0; k < info.history_len; k++) PyList_SET_ITEM(list, k, PyFloat_FromDouble(history[k]));
        static const char *const smoothers[] = {"gauss_seidel", "jacobi", "l1_jacobi", "chebyshev"};
        result = Py_BuildValue("{s:i,s:O,s:d,s:O,s:d,s:s,s:O}", "iterations", info.iterations, "converged",
                               info.converged ? Py_True : Py_False, "residual", info.residual, "history", list,
                               "ms_solve", info.ms_solve, "smoother", smoothers[info.smoother & 3], "on_device",
                               info.on_device ? Py_True : Py_False);
    }
    Py_XDECREF(list);
    PyMem_Free(history);
    return result;
}

/* apply(r, z, (options)): z = M r, one cycle (hsp_amg_apply). */
static PyObject *hierarchy_apply(Hierarchy *h, PyObject *args)
{
    PyObject *in, *out, *opt;
    hsp_amg_solve_options o;
    Py_buffer r, z;
    if (!PyArg_ParseTuple(args, "OOO", &in, &out, &opt) || solve_options_parse(opt, &o) < 0
        || vectors_in(h, in, out, &r, &z) < 0)
        return NULL;
    if (context_enter(h->context) < 0) return PyBuffer_Release(&r), PyBuffer_Release(&z), NULL;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_amg_apply(h->context->ctx, h->amg, r.buf, z.buf, &o);
    PyThread_release_lock(h->context->lock);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&r), PyBuffer_Release(&z);
    if (s != HSP_OK) return raise_status(s);
    Py_RETURN_NONE;
}

static PyMethodDef hierarchy_methods[] = {
    {"solve", (PyCFunction)hierarchy_solve, METH_VARARGS,
     "solve(b, x, tol, maxiter, accel, x0, history_size, (cycle, smoother, pre, post, omega, degree)) -> info"},
    {"apply", (PyCFunction)hierarchy_apply, METH_VARARGS,
     "apply(r, z, (cycle, smoother, pre, post, omega, degree)): z = M r, one cycle"},
    {"level", (PyCFunction)hierarchy_level, METH_VARARGS, "level(k) -> (A, P, R, naggregates, timings)"},
    {"info", (PyCFunction)hierarchy_info, METH_NOARGS, "info() -> {nlevels, ms_total, device}"},
    {"resetup", (PyCFunction)hierarchy_resetup, METH_VARARGS, "resetup(A): new values of the same pattern"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject HierarchyType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hspgemm._core.Hierarchy",
    .tp_basicsize = sizeof(Hierarchy),
    .tp_dealloc = (destructor)hierarchy_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An AMG hierarchy made by Context.amg_setup.",
    .tp_methods = hierarchy_methods,
};

/* o->B over the buffer of B (None: NULL), a C-contiguous float64 array of
 * nrows rows of o->nullspace values (the caller releases view where
 * view->obj is set). */
static int candidates_in(PyObject *B, int32_t nrows, Py_buffer *view, hsp_amg_options *o)
{
    view->obj = NULL;
    if (B == Py_None) return 0;
    if (PyObject_GetBuffer(B, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (view->itemsize != 8 || !view->format || strcmp(view->format, "d") || o->nullspace < 1 ||
        view->len != (Py_ssize_t)nrows * o->nullspace * 8) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "B: give a C-contiguous float64 array of %d rows of %d", (int)nrows,
                     (int)o->nullspace);
        return -1;
    }
    o->B = view->buf;
    return 0;
}

/* amg_setup(A, strength, theta, omega, max_levels, coarse_size, order, resident, B, nullspace, block,
 * float_levels, aggregation, coarsening) -> Hierarchy */
static PyObject *context_amg_setup(Context *self, PyObject *args)
{
    PyObject *ta, *tb;
    Py_buffer bview = {0};
    hsp_amg_options o;
    int order, resident, strength, aggregation, coarsening;
    hsp_amg_options_init(&o);
    if (!PyArg_ParseTuple(args, "OiddiiipOiipii", &ta, &strength, &o.theta, &o.omega, &o.max_levels, &o.coarse_size,
                          &order, &resident, &tb, &o.nullspace, &o.block, &o.float_levels, &aggregation, &coarsening))
        return NULL;
    o.strength = (hsp_strength_measure)strength; /* hsp_amg_setup refuses another, */
    o.aggregation = (hsp_aggregation)aggregation; /* another aggregation */
    o.coarsening = (hsp_amg_coarsening)coarsening; /* and another coarsening */
    if (order != HSP_RAP_R_AP && order != HSP_RAP_RA_P)
        return PyErr_Format(PyExc_ValueError, "unknown order %d", order);
    o.order = (hsp_rap_order)order;
    Hierarchy *h = PyObject_New(Hierarchy, &HierarchyType);
    if (!h) return NULL;
    h->amg = NULL, h->cur = 0, h->placed = NULL;
    memset(h->a, 0, sizeof h->a);
    h->context = context_depend(self);
    if (matrix_in_parse(ta, &h->a[0], "A") < 0 || candidates_in(tb, h->a[0].csr.nrows, &bview, &o) < 0)
        return Py_DECREF(h), NULL;
    if (context_enter(self) < 0) return PyBuffer_Release(&bview), Py_DECREF(h), NULL;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = setup_levels(h, &h->a[0].csr, &o, resident);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bview); /* B is read during the setup only */
    if (s != HSP_OK) return Py_DECREF(h), raise_status(s);
    if (PyErr_CheckSignals() < 0) return Py_DECREF(h), NULL;
    return (PyObject *)h;
}

/* ---- module functions ---------------------------------------------------------- */

static PyObject *core_transpose(PyObject *mod, PyObject *args)
{
    PyObject *ta;
    matrix_in a;
    (void)mod;
    if (!PyArg_ParseTuple(args, "O", &ta) || matrix_in_parse(ta, &a, "A") < 0) return NULL;
    hsp_csr *T = NULL;
    hsp_status s = hsp_csr_check(&a.csr);
    if (s == HSP_OK) {
        Py_BEGIN_ALLOW_THREADS
        s = hsp_transpose(&a.csr, &T);
        Py_END_ALLOW_THREADS
    }
    release_in(&a);
    if (s != HSP_OK) return raise_status(s);
    return matrix_out(T);
}

static PyObject *core_generate(PyObject *mod, PyObject *args)
{
    const char *spec;
    unsigned long long seed = 1;
    int dbl = 1;
    (void)mod;
    if (!PyArg_ParseTuple(args, "s|Kp", &spec, &seed, &dbl)) return NULL;
    hsp_csr *M = NULL;
    hsp_status s;
    Py_BEGIN_ALLOW_THREADS
    s = hsp_generate(spec, seed, dbl ? HSP_DOUBLE : HSP_FLOAT, &M);
    Py_END_ALLOW_THREADS
    return s == HSP_OK ? matrix_out(M) : raise_status(s);
}

static PyObject *core_devices(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    int count = 0;
    hsp_status s = hsp_devices(NULL, 0, &count);
    if (s != HSP_OK) return raise_status(s);
    hsp_device_info *list = PyMem_Calloc(count > 0 ? (size_t)count : 1, sizeof *list);
    if (!list) return PyErr_NoMemory();
    if ((s = hsp_devices(list, count, &count)) != HSP_OK) return PyMem_Free(list), raise_status(s);
    PyObject *out = PyList_New(0);
    for (int k = 0; out && k < count; k++) {
        const hsp_device_info *d = &list[k];
        PyObject *e = Py_BuildValue("{s:s,s:s,s:O,s:i,s:L,s:O,s:s,s:O,s:s}", "name", d->name, "description",
                                    d->description, "is_gpu", d->is_gpu ? Py_True : Py_False, "wavefront",
                                    d->wavefront, "local_mem", (long long)d->local_mem, "fp64",
                                    d->fp64 ? Py_True : Py_False, "memory", d->memory, "usable",
                                    d->usable ? Py_True : Py_False, "note", d->note);
        if (!e || PyList_Append(out, e) < 0) Py_CLEAR(out);
        Py_XDECREF(e);
    }
    PyMem_Free(list);
    return out;
}

/* The callable of set_build_hook, or NULL. */
static PyObject *build_callback;

/* The library's build hook: build_callback(started, device, precision,
 * seconds) called with the GIL (the thread opening the device released it). */
static void build_heard(hsp_build_event event, const char *device, hsp_precision precision, const char *cache,
                        double seconds, void *arg)
{
    (void)arg, (void)cache;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *f = Py_XNewRef(build_callback), *r = NULL;
    const char *dtype = precision == HSP_DOUBLE ? "float64" : "float32";
    if (f && !(r = PyObject_CallFunction(f, "Nssd", PyBool_FromLong(event == HSP_BUILD_START), device, dtype, seconds)))
        PyErr_WriteUnraisable(f);
    Py_XDECREF(r), Py_XDECREF(f);
    PyGILState_Release(gil);
}

static PyObject *core_set_build_hook(PyObject *mod, PyObject *callback)
{
    (void)mod;
    if (callback != Py_None && !PyCallable_Check(callback))
        return PyErr_Format(PyExc_TypeError, "set_build_hook: give a callable or None");
    hsp_set_build_hook(callback == Py_None ? NULL : build_heard, NULL);
    Py_XSETREF(build_callback, callback == Py_None ? NULL : Py_NewRef(callback));
    Py_RETURN_NONE;
}

static PyObject *core_release_memory(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    hsp_release_memory();
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"transpose", core_transpose, METH_VARARGS, "transpose(A) -> A^T, rows sorted"},
    {"generate", core_generate, METH_VARARGS, "generate(spec, seed=1, double=True) -> a generated matrix"},
    {"devices", core_devices, METH_NOARGS, "devices() -> a list of dicts, one per device"},
    {"release_memory", core_release_memory, METH_NOARGS, "hsp_release_memory()"},
    {"options", core_options, METH_NOARGS, "options() -> {keyword: default} of Context's options"},
    {"set_build_hook", core_set_build_hook, METH_O,
     "set_build_hook(f): f(started, device, precision, seconds) hears the library's kernel builds; None: nothing"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "hspgemm._core",
                                         "The bridge to libhspgemm (see hspgemm/__init__.py).", -1, core_methods,
                                         NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&OwnerType) < 0 || PyType_Ready(&ArrayType) < 0 || PyType_Ready(&ContextType) < 0
        || PyType_Ready(&HierarchyType) < 0 || PyType_Ready(&PreparedType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    core_error = PyErr_NewException("hspgemm._core.Error", NULL, NULL);
    if (!core_error || PyModule_AddObject(m, "Error", core_error) < 0
        || PyModule_AddObject(m, "Context", (PyObject *)&ContextType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(core_error), Py_INCREF(&ContextType);
    return m;
}
