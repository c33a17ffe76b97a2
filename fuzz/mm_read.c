/* fuzz/mm_read.c: the Matrix Market reader on any bytes.  A file it takes
 * must give a valid CSR matrix in both precisions, which hsp_mm_write writes
 * and hsp_mm_read reads back bit for bit.  Reading is held to 64 MiB
 * (hsp_mm_read_limit), so that a small file declaring a huge shape is refused
 * rather than allocated. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    close(fd);
    return 0;
}
