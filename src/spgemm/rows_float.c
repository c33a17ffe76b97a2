/* rows_float.c: the row methods for float values (see rows_impl.h). */
#define VT float
#define RF(name) name##_f
#include "spgemm/rows_impl.h"
