/* hsp_petsc_impl.h: what the plugin's two files share: hspgemm's context,
 * the counts of products, PETSc's error for hspgemm's failure, and the
 * MPIAIJ products (hsp_petsc_mpi.c) that hsp_petsc.c's set-up selects. */
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

/* hspgemm's context, made at the first product from the options. */
PETSC_INTERN PetscErrorCode hsp_petsc_context(MPI_Comm comm, hsp_context **ctx);
/* One more product of the kind counted (COUNT_AB, ...). */
PETSC_INTERN void hsp_petsc_count(int which);
/* The states of a product's operands, A's and B's. */
PETSC_INTERN PetscErrorCode hsp_petsc_states(Mat_Product *product, PetscObjectState state[2]);
/* The symbolic phase of A*B or P^T*A*P of MPIAIJ matrices (hsp_petsc_mpi.c). */
PETSC_INTERN PetscErrorCode hsp_petsc_mpi_symbolic(Mat C);

#endif
