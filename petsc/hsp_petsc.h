/* hsp_petsc.h: PETSc's AIJ matrices with products by hspgemm (the plugin
 * libhspgemm_petsc).  A matrix of type MATAIJHSP ("aijhsp": "seqaijhsp" on
 * one rank, "mpiaijhsp" on several) is AIJ in every way but that its
 * products C = A*B, A^T*B and P^T*A*P (MatMatMult, MatTransposeMatMult,
 * MatPtAP; MatProduct's AB, AtB and PtAP) run in hspgemm: the symbolic phase
 * makes C with its values, a numeric phase computes them again by hspgemm's
 * plan (made at the first reuse).  On several ranks each rank's rows of
 * A*B, and its share of P^T*A*P, are one hspgemm product of its rows with
 * the rows of other ranks that PETSc gathers; the rows of P^T*A*P other
 * ranks own reach them by PETSc's COO assembly.  A^T*B on several ranks,
 * and A*B and P^T*A*P with -hsp_backend, take PETSc's "backend" algorithm,
 * its local products by hspgemm (an algorithm the caller sets by
 * MatProductSetAlgorithm is PETSc's own).  Other products are PETSc's own.
 * Options: -hsp_device (hspgemm's device, default cpu), -hsp_threads (its
 * CPU threads; default: the cores shared by the ranks of one machine, at
 * most those the rank may run on; unbound, left to the scheduler, where
 * ranks share the machine and this one may run on more CPUs than its
 * threads), -hsp_small_nnz (products of at most so
 * many operand entries on the CPU threads; hsp_options.small_nnz),
 * -hsp_backend (above). */
#ifndef HSP_PETSC_H
#define HSP_PETSC_H

#include <petscmat.h>

#define MATAIJHSP "aijhsp"
#define MATSEQAIJHSP "seqaijhsp"
#define MATMPIAIJHSP "mpiaijhsp"

/* Register the types (once; after PetscInitialize, on every rank of
 * PETSC_COMM_WORLD: it counts the ranks of each machine).  Loading the plugin
 * by PETSc's -dll_append option does it too. */
PETSC_EXTERN PetscErrorCode PetscHspgemmRegister(void);
/* The products hspgemm has made in this process: symbolic phases of A*B or
 * A^T*B and of P^T*A*P, and numeric phases that computed values again. */
PETSC_EXTERN PetscErrorCode PetscHspgemmGetCounts(PetscInt *ab, PetscInt *ptap, PetscInt *numeric);

#endif
