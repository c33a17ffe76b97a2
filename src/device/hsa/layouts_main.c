/* layouts_main.c: the build tool hsa/layouts.  `layouts DIR TARGET...` reads
 * the code objects DIR/TARGET-float.hsaco and DIR/TARGET-double.hsaco (as
 * build-aux/amdgpu-code-objects.sh names them) through comgr and prints C
 * source for kernel_layouts.c: every kernel's layout, each distinct argument
 * list once, and hsp_layout_tables[], one entry per code object.  Run at build
 * time so that the library needs no comgr at run time.  It fails, saying
 * which kernel and kind, on an argument kind that the packing cannot fill,
 * and, naming the kernel, where an object's kernels or their argument
 * counts differ from kernels/kernels.def's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "device/hsa/kernel_meta.h"

static const char *const precision_names[2] = {"float", "double"};

/* The layouts read from one code object. */
typedef struct {
    const char *target;
    int dbl, nkernels;
    hsp_kernel_meta *kernel;
} object_layouts;

/* The first kernels, over all objects, with each distinct argument list. */
typedef struct {
    const hsp_kernel_info **first;
    int n;
} arg_lists;

/* Print "layouts: what: why" on stderr; the exit status for it. */
static int fail(const char *what, const char *why)
{
    fprintf(stderr, "layouts: %s: %s\n", what, why);
    return 1;
}

/* Is s letters, digits, '_' and '.' only (printed in a C string as it is)? */
static int plain(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return 0;
    return 1;
}

/* The bytes of the file at path (*size of them), or NULL. */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    long n = -1;
    if (!f) return NULL;
    if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) && (bytes = malloc((size_t)n)) &&
        fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

/* Nonzero (said on stderr) unless the kernels of the object at path are
 * those of kernels/kernels.def, each with the table's argument count. */
static int check_table(const object_layouts *o, const char *path)
{
    char why[160];
    int known = 0;
    for (int j = 0; j < GK_COUNT; j++) known += gpu_kernel_exists(j);
    for (int j = 0; j < o->nkernels; j++) {
        const hsp_kernel_info *k = &o->kernel[j].info;
        int number = gpu_kernel_number(k->name);
        if (number < 0) {
            snprintf(why, sizeof why, "kernel %s is not in kernels/kernels.def", k->name);
            return fail(path, why);
        }
        if (k->nexplicit != gpu_kernel_of(number)->nargs) {
            snprintf(why, sizeof why, "kernel %s takes %d arguments; kernels/kernels.def says %d", k->name,
                     k->nexplicit, gpu_kernel_of(number)->nargs);
            return fail(path, why);
        }
    }
    snprintf(why, sizeof why, "%d kernels; kernels/kernels.def has %d", o->nkernels, known);
    return o->nkernels == known ? 0 : fail(path, why);
}

/* The layouts of the code object dir/target-precision.hsaco into o; nonzero
 * (said on stderr) when they cannot be read or printed. */
static int read_object(const char *dir, const char *target, int dbl, object_layouts *o)
{
    char path[1024];
    size_t size = 0;
    snprintf(path, sizeof path, "%s/%s-%s.hsaco", dir, target, precision_names[dbl]);
    if (!plain(target)) return fail(target, "not a plain target name");
    unsigned char *image = read_file(path, &size);
    if (!image) return fail(path, "cannot read it");
    hsp_status s = hsp_kernel_meta_read(image, size, target, &o->kernel, &o->nkernels);
    free(image);
    if (s != HSP_OK) return fail(path, hsp_errmsg());
    if (!o->nkernels) return fail(path, "no kernels");
    for (int j = 0; j < o->nkernels; j++)
        if (!plain(o->kernel[j].name) || !plain(o->kernel[j].symbol)) return fail(path, "a kernel with an odd name");
    o->target = target, o->dbl = dbl;
    return check_table(o, path);
}

/* The index of k's argument list among the distinct lists, or lists->n when
 * it is new. */
static int list_index(const arg_lists *lists, const hsp_kernel_info *k)
{
    int j = 0;
    while (j < lists->n && !(lists->first[j]->nargs == k->nargs &&
                             !memcmp(lists->first[j]->arg, k->arg, (size_t)k->nargs * sizeof *k->arg)))
        j++;
    return j;
}

/* Print the argument list of k as array argsN. */
static void print_args(const hsp_kernel_info *k, int n)
{
    printf("static const hsp_karg args%d[] = {\n", n);
    for (int j = 0; j < k->nargs; j++) {
        const hsp_karg *a = &k->arg[j];
        printf("    {HSP_KARG_");
        for (const char *c = hsp_karg_kind_name(a->kind); *c; c++) putchar(toupper((unsigned char)*c));
        printf(", %u, %u, %u},\n", a->offset, a->size, a->pointee_align);
    }
    printf("};\n");
}

/* Print each distinct argument list, over all objects, once. */
static void print_arg_lists(const object_layouts *o, int nobjects, arg_lists *lists)
{
    for (int j = 0; j < nobjects; j++)
        for (int k = 0; k < o[j].nkernels; k++) {
            const hsp_kernel_info *info = &o[j].kernel[k].info;
            if (!info->nargs || list_index(lists, info) < lists->n) continue;
            print_args(info, lists->n);
            lists->first[lists->n++] = info;
        }
}

/* Print the kernels of o as array TARGET_PRECISION, pointing at the lists. */
static void print_kernels(const object_layouts *o, const arg_lists *lists)
{
    printf("\nstatic const hsp_kernel_info %s_%s[] = {\n", o->target, precision_names[o->dbl]);
    for (int k = 0; k < o->nkernels; k++) {
        const hsp_kernel_info *i = &o->kernel[k].info;
        printf("    {\"%s\", \"%s\", %u, %u, %u, %u, %u, %u, %d, %d, ", i->name, i->symbol, i->kernarg_size,
               i->kernarg_align, i->group_fixed, i->private_fixed, i->max_group_size, i->wavefront, i->nargs,
               i->nexplicit);
        if (i->nargs)
            printf("args%d},\n", list_index(lists, i));
        else
            printf("NULL},\n");
    }
    printf("};\n");
}

/* Print kernel_layouts.c for the nobjects code objects o. */
static int print_source(const object_layouts *o, int nobjects)
{
    int nkernels = 0;
    for (int j = 0; j < nobjects; j++) nkernels += o[j].nkernels;
    arg_lists lists = {malloc((size_t)nkernels * sizeof *lists.first), 0};
    if (!lists.first) return fail("layouts", "out of memory");
    printf("/* kernel_layouts.c: generated by hsa/layouts from the code objects' metadata: do not edit. */\n"
           "#include \"device/hsa/kernel_layout.h\"\n\n");
    print_arg_lists(o, nobjects, &lists);
    printf("\n/* name, symbol, kernarg size and align, group and private fixed, max group size, wavefront,\n"
           " * arguments (all, explicit), argument list */");
    for (int j = 0; j < nobjects; j++) print_kernels(&o[j], &lists);
    printf("\nconst hsp_layout_table hsp_layout_tables[] = {\n");
    for (int j = 0; j < nobjects; j++)
        printf("    {\"%s\", %d, %d, %s_%s},\n", o[j].target, o[j].dbl, o[j].nkernels, o[j].target,
               precision_names[o[j].dbl]);
    printf("};\nconst int hsp_nlayout_tables = sizeof hsp_layout_tables / sizeof hsp_layout_tables[0];\n");
    free(lists.first);
    return fflush(stdout) || ferror(stdout) ? fail("stdout", "write failed") : 0;
}

int main(int argc, char **argv)
{
    int nobjects = 2 * (argc - 2), status = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: layouts DIR TARGET...\n");
        return 2;
    }
    object_layouts *o = calloc((size_t)nobjects, sizeof *o);
    if (!o) return fail("layouts", "out of memory");
    for (int j = 0; j < nobjects && !status; j++) status = read_object(argv[1], argv[2 + j / 2], j % 2, &o[j]);
    if (!status) status = print_source(o, nobjects);
    for (int j = 0; j < nobjects; j++) free(o[j].kernel);
    free(o);
    return status;
}
