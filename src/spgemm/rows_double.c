/* rows_double.c: the row methods for double values (see rows_impl.h). */
#define VT double
#define RF(name) name##_d
#include "spgemm/rows_impl.h"
