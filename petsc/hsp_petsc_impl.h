/* hsp_petsc_impl.h: what the plugin's files share: hspgemm's context, the
 * counts of products and the rest of hsp_petsc_context.c, PETSc's error for
 * hspgemm's failure, and the MPIAIJ products (hsp_petsc_mpi.c) that
 * hsp_petsc.c's set-up selects. */
#ifndef HSP_PETSC_IMPL_H
#define HSP_PETSC_IMPL_H

#include <petsc/private/matimpl.h>
#include "hsp_petsc.h"
#include "hspgemm.h"

/* PETSc's error for hspgemm's last failure, our message inside. */
#define HSP_CHECK(comm, s) PetscCheck((s) == HSP_OK, comm, PETSC_ERR_LIB, "hspgemm: %s", hsp_errmsg())

/* -log_view's events HspSymbolic and HspNumeric: the plugin's own time in
 * the symbolic and numeric phases. */
PETSC_INTERN PetscLogEvent hsp_petsc_events[2];
/* The counts PetscHspgemmGetCounts returns. */
enum { COUNT_AB, COUNT_PTAP, COUNT_NUMERIC };

/* The ranks on this rank's machine counted (at registration: collective on
 * PETSC_COMM_WORLD), which share its cores among their threads. */
PETSC_INTERN PetscErrorCode hsp_petsc_node_share(void);
/* hspgemm's context, made at the first product from the options. */
PETSC_INTERN PetscErrorCode hsp_petsc_context(MPI_Comm comm, hsp_context **ctx);
/* One more product of the kind counted (COUNT_AB, ...). */
PETSC_INTERN void hsp_petsc_count(int which);
/* The memory a symbolic phase freed handed back to the system, so that the
 * set-up's peak is its products' own, not theirs stacked on what earlier
 * ones left: the large arrays hspgemm keeps for its next matrices
 * (hsp_release_memory), and where the context has worker threads, the free
 * memory of every malloc heap (malloc_trim), which a worker's heap keeps
 * otherwise.  With one thread the freed memory is the main heap's, which
 * PETSc takes again: trimming it costs the faults of taking it back
 * (doc/petsc.md: the figures). */
PETSC_INTERN void hsp_petsc_memory_back(void);
/* What C's values were made from by a symbolic phase: the operands (PETSc's
 * object ids, never reused in a process) and the states of A, B and C then. */
typedef struct {
    PetscObjectId id[2];
    PetscObjectState state[3];
    PetscObjectState pattern[2]; /* A's and B's nonzero states (MatGetNonzeroState) */
    PetscBool fresh;             /* no numeric phase since */
} hsp_petsc_made;
/* m: C's values are A*B's (or A^T*B's, P^T*A*P's) as they stand now, or,
 * where A or B has no values yet, to be computed by the numeric phase. */
PETSC_INTERN PetscErrorCode hsp_petsc_made_now(hsp_petsc_made *m, Mat A, Mat B, Mat C);
/* May this numeric phase keep C's values?  Only the first after the symbolic
 * phase, with the same A and B, none of A, B and C changed since; a later one
 * always computes them (MatProductReplaceMats may bring another operand of
 * equal state, and the user may have changed C). */
PETSC_INTERN PetscErrorCode hsp_petsc_made_keep(hsp_petsc_made *m, Mat A, Mat B, Mat C, PetscBool *keep);
/* Has x (a product made anew) c's pattern?  An error saying an operand's
 * pattern changed where not. */
PETSC_INTERN PetscErrorCode hsp_petsc_same_pattern(const hsp_csr *x, const hsp_csr *c);
/* numeric(A, B, C) as C's numeric phase in PETSc's older interface too
 * (MatMatMultNumeric and its kin), which PETSc's triple products of mixed
 * types call with operands of their own; AIJ's would call itself. */
PETSC_INTERN void hsp_petsc_old_numeric(Mat C, PetscErrorCode (*numeric)(Mat, Mat, Mat));
/* The symbolic phase of A*B or P^T*A*P of MPIAIJ matrices (hsp_petsc_mpi.c). */
PETSC_INTERN PetscErrorCode hsp_petsc_mpi_symbolic(Mat C);

#endif
