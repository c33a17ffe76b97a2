/* t_order.c: no call depends on the one before it.  A product, a Galerkin
 * product and a resident product, each run first in a context of its own,
 * then after each of the others and after a failed call in one context:
 * every time the same result (the reference's) and the same bytes copied
 * to the device and back, on the device under test ($HSPGEMM_TEST_DEVICE;
 * tests/t_order@nosvm.dev runs it on an OpenCL device with plain buffers, where
 * every product copies). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref.h"
#include "tap.h"

enum { MULTIPLY, RAP, RESIDENT, FAILURE, NCALLS };
static const char *const call_name[NCALLS] = {"a product", "a Galerkin product", "a resident product",
                                              "a failed product"};

/* The operands, the references and what each call copied in a context of
 * its own. */
typedef struct {
    hsp_csr *A, *B, *S, *P, *AB, *PtSP;
    double *mag_ab, *mag_rap;
    int64_t bytes[NCALLS][2]; /* to the device and back, both products of a Galerkin product summed */
} setting;

/* Call k on ctx: its result checked against the reference (why says what
 * differs), its copies into bytes.  A failed product must fail. */
static int call(hsp_context *ctx, setting *t, int k, int64_t bytes[2], char *why, size_t len)
{
    hsp_csr *C = NULL, *bad = NULL;
    hsp_resident *rA = NULL, *rB = NULL, *rC = NULL;
    const hsp_csr *home = NULL;
    hsp_stats st[2];
    memset(st, 0, sizeof st);
    int ok = 0;
    if (k == MULTIPLY)
        ok = hsp_multiply(ctx, t->A, t->B, &C, st) == HSP_OK && ref_compare(C, t->AB, t->mag_ab, why, len);
    if (k == RAP)
        ok = hsp_rap(ctx, NULL, t->S, t->P, HSP_RAP_R_AP, &C, NULL, st) == HSP_OK &&
             ref_compare(C, t->PtSP, t->mag_rap, why, len);
    if (k == RESIDENT)
        ok = hsp_place(ctx, t->A, &rA) == HSP_OK && hsp_place(ctx, t->B, &rB) == HSP_OK &&
             hsp_multiply_resident(ctx, rA, rB, &rC, st) == HSP_OK && hsp_resident_host(rC, &home) == HSP_OK &&
             ref_compare(home, t->AB, t->mag_ab, why, len);
    if (k == FAILURE)
        ok = hsp_multiply(ctx, t->A, t->A, &bad, st) == HSP_ERR_SHAPE && !bad;
    if (!ok && !why[0]) snprintf(why, len, "%s", hsp_errmsg());
    bytes[0] = st[0].bytes_to_device + st[1].bytes_to_device;
    bytes[1] = st[0].bytes_to_host + st[1].bytes_to_host;
    hsp_csr_free(C), hsp_resident_free(rA), hsp_resident_free(rB), hsp_resident_free(rC);
    return ok;
}

/* A context on the device under test, every product on it. */
static hsp_context *context(void)
{
    hsp_options o;
    hsp_context *ctx = NULL;
    hsp_options_init(&o);
    o.device = ref_device(), o.small_nnz = -1;
    return hsp_context_create(&o, &ctx) == HSP_OK ? ctx : NULL;
}

int main(void)
{
    setting t = {.A = ref_random(400, 300, 0, 30, HSP_DOUBLE, 1), .B = ref_random(300, 350, 0, 30, HSP_DOUBLE, 2),
                 .P = ref_random(576, 60, 1, 2, HSP_DOUBLE, 3)};
    hsp_csr *R = NULL, *SP = NULL;
    hsp_generate("poisson2d9:24", 1, HSP_DOUBLE, &t.S);
    hsp_transpose(t.P, &R);
    SP = ref_multiply(t.S, t.P, NULL);
    t.AB = ref_multiply(t.A, t.B, &t.mag_ab), t.PtSP = ref_multiply(R, SP, &t.mag_rap);
    char why[256] = "";
    for (int k = 0; k < NCALLS; k++) { /* each alone, in a context of its own */
        hsp_context *ctx = context();
        why[0] = 0;
        int ok = ctx && call(ctx, &t, k, t.bytes[k], why, sizeof why);
        tap_ok(ok, "%s alone on %s: %lld bytes to the device, %lld back %s", call_name[k], ref_device(),
               (long long)t.bytes[k][0], (long long)t.bytes[k][1], why);
        hsp_context_free(ctx);
    }
    hsp_context *ctx = context();
    for (int before = 0; ctx && before < NCALLS; before++)
        for (int k = 0; k < NCALLS; k++) {
            int64_t bytes[2], ignored[2];
            why[0] = 0;
            call(ctx, &t, before, ignored, why, sizeof why);
            why[0] = 0;
            int ok = call(ctx, &t, k, bytes, why, sizeof why);
            tap_ok(ok && bytes[0] == t.bytes[k][0] && bytes[1] == t.bytes[k][1],
                   "%s after %s: the same result and copies (%lld and %lld bytes) %s", call_name[k],
                   call_name[before], (long long)bytes[0], (long long)bytes[1], why);
        }
    hsp_context_free(ctx);
    hsp_csr_free(t.A), hsp_csr_free(t.B), hsp_csr_free(t.S), hsp_csr_free(t.P), hsp_csr_free(R), hsp_csr_free(SP);
    hsp_csr_free(t.AB), hsp_csr_free(t.PtSP), free(t.mag_ab), free(t.mag_rap);
    return tap_done();
}
