/* nonfinite.c: what a command does with a C that holds values that are not
 * finite (inf or nan: a sum that overflowed its precision, or inf and nan in
 * the operands), which it writes as inf and nan: --nonfinite=warn (the
 * default) says so on stderr, fail makes it an error before C is written,
 * ignore says nothing. */
#include <math.h>
#include "cli.h"

/* Say how many of C's values are not finite and where the first is (0-based
 * row and column, shown 1-based as in the file); 1 where that fails the
 * command. */
static int report(const cli_args *a, int64_t count, int64_t row, int64_t col)
{
    if (!count || a->nonfinite == CLI_NONFINITE_IGNORE) return 0;
    int fail = a->nonfinite == CLI_NONFINITE_FAIL;
    fprintf(stderr, "hspgemm: %s: %s%lld value%s of C %s not finite (inf or nan), the first at row %lld, column %lld: "
            "a sum passed the largest %s, or an operand holds inf or nan%s\n", a->name, fail ? "" : "warning: ",
            (long long)count, count > 1 ? "s" : "", count > 1 ? "are" : "is", (long long)row + 1, (long long)col + 1,
            a->precision == HSP_DOUBLE ? "double" : "float",
            fail ? "; C is not written (--nonfinite=fail)" : " (--nonfinite=fail makes this an error)");
    return fail;
}

int cli_check_finite(const cli_args *a, const hsp_csr *C)
{
    int64_t count = 0, row = 0, col = 0;
    for (int32_t i = 0; i < C->nrows; i++)
        for (int64_t k = C->rowptr[i]; k < C->rowptr[i + 1]; k++) {
            double v = C->precision == HSP_DOUBLE ? ((const double *)C->values)[k] : ((const float *)C->values)[k];
            if (!isfinite(v) && !count++) row = i, col = C->colidx[k];
        }
    return report(a, count, row, col);
}

int cli_check_finite_dense(const cli_args *a, const hsp_dense *C)
{
    int64_t count = 0, row = 0, col = 0, step[2] = {C->order == HSP_ROW_MAJOR ? C->ld : 1,
                                                    C->order == HSP_ROW_MAJOR ? 1 : C->ld};
    for (int32_t i = 0; i < C->nrows; i++)
        for (int32_t j = 0; j < C->ncols; j++) {
            int64_t k = i * step[0] + j * step[1];
            double v = C->precision == HSP_DOUBLE ? ((const double *)C->values)[k] : ((const float *)C->values)[k];
            if (!isfinite(v) && !count++) row = i, col = j;
        }
    return report(a, count, row, col);
}
