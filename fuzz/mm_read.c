/* fuzz/mm_read.c: the Matrix Market readers on any bytes.  A file the
 * coordinate reader takes must give a valid CSR matrix in both precisions,
 * which hsp_mm_write writes and hsp_mm_read reads back bit for bit; one the
 * array reader takes, a dense matrix that hsp_mm_write_dense writes and
 * hsp_mm_read_dense reads back bit for bit.  Reading is held to 64 MiB
 * (hsp_mm_read_limit), so that a small file declaring a huge shape is refused
 * rather than allocated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"

enum { LIMIT = 64 << 20 };

/* An anonymous file holding size bytes of data; its path in path. */
static int memory_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) fuzz_fail("cannot make a memory file");
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

/* A's round trip through hsp_mm_write and hsp_mm_read. */
static void round_trip(const hsp_csr *A)
{
    char path[64];
    int fd = memory_file(NULL, 0, path, sizeof path);
    hsp_csr *B = NULL;
    if (hsp_mm_write(path, A) != HSP_OK) fuzz_fail("hsp_mm_write failed: %s", hsp_errmsg());
    if (hsp_mm_read_limit(path, A->precision, 0, LIMIT, &B) != HSP_OK)
        fuzz_fail("what hsp_mm_write wrote does not read back: %s", hsp_errmsg());
    if (!ref_identical(A, B)) fuzz_fail("the matrix read back differs from the one written");
    hsp_csr_free(B);
    close(fd);
}

/* D's round trip through hsp_mm_write_dense and hsp_mm_read_dense. */
static void dense_round_trip(const hsp_dense *D)
{
    char path[64];
    int fd = memory_file(NULL, 0, path, sizeof path);
    hsp_dense E;
    if (hsp_mm_write_dense(path, D) != HSP_OK) fuzz_fail("hsp_mm_write_dense failed: %s", hsp_errmsg());
    if (hsp_mm_read_dense(path, D->precision, &E) != HSP_OK)
        fuzz_fail("what hsp_mm_write_dense wrote does not read back: %s", hsp_errmsg());
    size_t bytes = (size_t)D->nrows * (size_t)D->ncols * (D->precision == HSP_DOUBLE ? 8 : 4);
    if (E.nrows != D->nrows || E.ncols != D->ncols || (bytes && memcmp(D->values, E.values, bytes)))
        fuzz_fail("the dense matrix read back differs from the one written");
    hsp_dense_free(&E);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = memory_file(data, size, path, sizeof path);
    for (int p = 0; p < 2; p++) {
        hsp_csr *A = NULL;
        hsp_status s = hsp_mm_read_limit(path, p ? HSP_FLOAT : HSP_DOUBLE, 0, LIMIT, &A);
        fuzz_expect_status(s, A);
        if (s != HSP_OK) continue;
        if (hsp_csr_check(A) != HSP_OK) fuzz_fail("the matrix read is not valid CSR: %s", hsp_errmsg());
        round_trip(A);
        hsp_csr_free(A);
    }
    for (int p = 0; p < 2; p++) {
        hsp_dense D = {0};
        hsp_status s = hsp_mm_read_dense(path, p ? HSP_FLOAT : HSP_DOUBLE, &D);
        fuzz_expect_status(s, D.values);
        if (s == HSP_OK) dense_round_trip(&D);
        hsp_dense_free(&D);
    }
    close(fd);
    return 0;
}
