/* hsp_petsc_mpi.c: A*B and P^T*A*P of MPIAIJ matrices (mpiaijhsp), each
 * rank's share as one hspgemm product with a plan.  A rank's rows of A, its
 * diagonal and off-diagonal blocks side by side, multiply the rows of B they
 * need stacked in the same order: B's own rows, and those of other ranks
 * for A's off-diagonal columns, which PETSc gathers
 * (MatGetBrowsOfAcols_MPIXAIJ, again for new values).  The rows of A*B are
 * the rank's rows of C, set into C's two blocks whole.  P^T*A*P is R*(A*P)
 * with R the transpose of the rank's rows of P; its rows that other ranks
 * own go to them by PETSc's COO assembly (MatSetValuesCOO) of a matrix of
 * those alone, and each rank adds what it got to its own rows.  No MPI call
 * of our own. */
#include "hsp_petsc_impl.h"

/* PETSc 3.18 exports it without declaring it in an installed header: the
 * rows of P for the columns of A's off-diagonal block (dof 1), made
 * (MAT_INITIAL_MATRIX) or given new values (MAT_REUSE_MATRIX).  Each row
 * holds the owner's diagonal block's columns, then its off-diagonal
 * block's, all numbered globally. */
PETSC_EXTERN PetscErrorCode MatGetBrowsOfAcols_MPIXAIJ(Mat A, Mat P, PetscInt dof, MatReuse reuse, Mat *P_oth);

/* An MPIAIJ matrix's rows on this rank, read in place: its diagonal block d
 * (columns start.. start+nd-1) and off-diagonal block o, whose column k is
 * garray[k] globally (sorted; the first `below` lie below start).  The
 * rank's columns, numbered compactly, are o's below, then d's, then o's
 * above: global order. */
typedef struct {
    Mat d, o;
    const PetscInt *garray;
    PetscInt n, start, nd, no, below;
    const PetscInt *di, *dj, *oi, *oj;
    const PetscScalar *da, *oa;
} blocks;

static PetscErrorCode blocks_open(Mat M, blocks *b)
{
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(MatMPIAIJGetSeqAIJ(M, &b->d, &b->o, &b->garray));
    PetscCall(MatGetRowIJ(b->d, 0, PETSC_FALSE, PETSC_FALSE, &b->n, &b->di, &b->dj, &done));
    PetscCall(MatGetRowIJ(b->o, 0, PETSC_FALSE, PETSC_FALSE, &b->n, &b->oi, &b->oj, &done));
    PetscCall(MatSeqAIJGetArrayRead(b->d, &b->da));
    PetscCall(MatSeqAIJGetArrayRead(b->o, &b->oa));
    b->start = M->cmap->rstart, b->nd = M->cmap->n, b->no = b->o->cmap->n;
    for (b->below = 0; b->below < b->no && b->garray[b->below] < b->start; b->below++) continue;
    PetscFunctionReturn(0);
}

static PetscErrorCode blocks_close(blocks *b)
{
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(MatSeqAIJRestoreArrayRead(b->d, &b->da));
    PetscCall(MatSeqAIJRestoreArrayRead(b->o, &b->oa));
    PetscCall(MatRestoreRowIJ(b->d, 0, PETSC_FALSE, PETSC_FALSE, &b->n, &b->di, &b->dj, &done));
    PetscCall(MatRestoreRowIJ(b->o, 0, PETSC_FALSE, PETSC_FALSE, &b->n, &b->oi, &b->oj, &done));
    PetscFunctionReturn(0);
}

/* The global number of the rank's compact column c. */
static PetscInt global_of(const blocks *b, PetscInt c)
{
    return c < b->below ? b->garray[c] : c < b->below + b->nd ? b->start + c - b->below : b->garray[c - b->nd];
}

/* Row i of b in column order into cols and vals (zeros where b has no
 * values yet), its columns numbered globally or compactly; the count of its
 * entries. */
static PetscInt row_of(const blocks *b, PetscInt i, PetscBool global, int32_t *cols, double *vals)
{
    PetscInt k = 0, p = b->oi[i];

    for (; p < b->oi[i + 1] && b->oj[p] < b->below; p++, k++)
        cols[k] = (int32_t)(global ? b->garray[b->oj[p]] : b->oj[p]), vals[k] = b->oa ? b->oa[p] : 0;
    for (PetscInt q = b->di[i]; q < b->di[i + 1]; q++, k++)
        cols[k] = (int32_t)((global ? b->start : b->below) + b->dj[q]), vals[k] = b->da ? b->da[q] : 0;
    for (; p < b->oi[i + 1]; p++, k++)
        cols[k] = (int32_t)(global ? b->garray[b->oj[p]] : b->nd + b->oj[p]), vals[k] = b->oa ? b->oa[p] : 0;
    return k;
}

/* x, made where *x is NULL, else of as many entries (or an error naming
 * what): nrows rows of ncols columns and nnz entries. */
static PetscErrorCode csr_get(const char *what, PetscInt nrows, PetscInt ncols, PetscInt nnz, hsp_csr **x)
{
    PetscFunctionBegin;
    if (*x) {
        PetscCheck((*x)->nnz == nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
                   "hspgemm: %s has %" PetscInt_FMT " entries on this rank; the symbolic phase found %lld", what,
                   nnz, (long long)(*x)->nnz);
        PetscFunctionReturn(0);
    }
    PetscCheck(hsp_csr_create((int32_t)nrows, (int32_t)ncols, nnz, HSP_DOUBLE, x) == HSP_OK, PETSC_COMM_SELF,
               PETSC_ERR_MEM, "hspgemm: %s", hsp_errmsg());
    PetscFunctionReturn(0);
}

/* M's rows on this rank as one CSR (made, or given M's values), its columns
 * numbered globally or compactly. */
static PetscErrorCode rows_into(const char *what, Mat M, PetscBool global, hsp_csr **x)
{
    blocks b;

    PetscFunctionBegin;
    PetscCall(blocks_open(M, &b));
    PetscCall(csr_get(what, b.n, global ? M->cmap->N : b.nd + b.no, b.di[b.n] + b.oi[b.n], x));
    (*x)->rowptr[0] = 0;
    for (PetscInt i = 0; i < b.n; i++)
        (*x)->rowptr[i + 1] = (*x)->rowptr[i] + row_of(&b, i, global, (*x)->colidx + (*x)->rowptr[i],
                                                       (double *)(*x)->values + (*x)->rowptr[i]);
    PetscCall(blocks_close(&b));
    PetscFunctionReturn(0);
}

/* B's rows from other ranks for A's off-diagonal columns (PETSc's matrix),
 * and the order of each row's entries by column. */
typedef struct {
    Mat rows;
    PetscInt *order;
} others;

/* o's rows gathered (or their values again), and their order made once. */
static PetscErrorCode others_get(Mat A, Mat B, others *o, const PetscInt **oi, const PetscInt **oj,
                                 const PetscScalar **oa)
{
    PetscInt n, *sorted;
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(MatGetBrowsOfAcols_MPIXAIJ(A, B, 1, o->rows ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &o->rows));
    PetscCall(MatGetRowIJ(o->rows, 0, PETSC_FALSE, PETSC_FALSE, &n, oi, oj, &done));
    PetscCall(MatSeqAIJGetArrayRead(o->rows, oa));
    if (o->order) PetscFunctionReturn(0);
    PetscCall(PetscMalloc1((*oi)[n], &o->order));
    PetscCall(PetscMalloc1((*oi)[n], &sorted));
    for (PetscInt t = 0; t < (*oi)[n]; t++) o->order[t] = t, sorted[t] = (*oj)[t];
    for (PetscInt i = 0; i < n; i++)
        PetscCall(PetscSortIntWithArray((*oi)[i + 1] - (*oi)[i], sorted + (*oi)[i], o->order + (*oi)[i]));
    PetscCall(PetscFree(sorted));
    PetscFunctionReturn(0);
}

static PetscErrorCode others_put(others *o, const PetscInt **oi, const PetscInt **oj, const PetscScalar **oa)
{
    PetscInt n;
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(MatSeqAIJRestoreArrayRead(o->rows, oa));
    PetscCall(MatRestoreRowIJ(o->rows, 0, PETSC_FALSE, PETSC_FALSE, &n, oi, oj, &done));
    PetscFunctionReturn(0);
}

/* The rows of B that A's rows on this rank meet, one per column of A in its
 * compact numbering (B's own rows between the others' below and above),
 * their columns numbered globally; made, or given new values. */
static PetscErrorCode stacked_into(Mat A, Mat B, others *o, hsp_csr **x)
{
    blocks a, b;
    const PetscInt *oi, *oj;
    const PetscScalar *oa;
    int64_t *p;

    PetscFunctionBegin;
    PetscCall(blocks_open(A, &a));
    PetscCall(blocks_open(B, &b));
    PetscCall(others_get(A, B, o, &oi, &oj, &oa));
    PetscCall(csr_get("B", a.nd + a.no, B->cmap->N, b.di[b.n] + b.oi[b.n] + oi[a.no], x));
    p = (*x)->rowptr, p[0] = 0;
    for (PetscInt r = 0; r < a.nd + a.no; r++) {
        int32_t *cols = (*x)->colidx + p[r];
        double *vals = (double *)(*x)->values + p[r];
        PetscInt k = r < a.below ? r : r - a.nd; /* the others' row, unless B's own */

        if (r >= a.below && r < a.below + a.nd) {
            p[r + 1] = p[r] + row_of(&b, r - a.below, PETSC_TRUE, cols, vals);
            continue;
        }
        for (PetscInt t = oi[k]; t < oi[k + 1]; t++)
            cols[t - oi[k]] = (int32_t)oj[o->order[t]], vals[t - oi[k]] = oa[o->order[t]];
        p[r + 1] = p[r] + oi[k + 1] - oi[k];
    }
    PetscCall(others_put(o, &oi, &oj, &oa));
    PetscCall(blocks_close(&a));
    PetscCall(blocks_close(&b));
    PetscFunctionReturn(0);
}

/* A product's data.  A*B: own is hspgemm's C, the rank's rows of C.  P^T*A*P:
 * hspgemm's C holds the rows of R*A*P (compact numbering of P's columns);
 * those of other ranks go through sent (their values in coo, its rows here
 * in got), and own is the rank's rows and got's, merged (at: where each
 * entry of the rank's rows, then of got, lands in own). */
typedef struct {
    others others;
    hsp_csr *A, *B, *P, *R, *C;
    hsp_plan *plan;
    Mat sent;
    PetscScalar *coo;
    hsp_csr *got, *own;
    PetscInt *at, first, mine; /* C's rows of this rank: mine rows from first */
    hsp_petsc_made made;
} mpi_data;

static PetscErrorCode mpi_data_free(void *data)
{
    mpi_data *d = data;

    PetscFunctionBegin;
    PetscCall(MatDestroy(&d->others.rows));
    PetscCall(PetscFree(d->others.order));
    hsp_plan_free(d->plan);
    if (d->own != d->C) hsp_csr_free(d->own);
    hsp_csr_free(d->A), hsp_csr_free(d->B), hsp_csr_free(d->P), hsp_csr_free(d->R), hsp_csr_free(d->C);
    hsp_csr_free(d->got);
    PetscCall(MatDestroy(&d->sent));
    PetscCall(PetscFree(d->coo));
    PetscCall(PetscFree(d->at));
    PetscCall(PetscFree(d));
    PetscFunctionReturn(0);
}

/* The copies of the operands' rows, dropped after the symbolic phase: a
 * product used once (most of PCGAMG's set-up) keeps none beside the later
 * products; a reuse makes them again, as it gives them new values. */
static void operands_drop(mpi_data *d)
{
    hsp_csr_free(d->A), hsp_csr_free(d->B), hsp_csr_free(d->P), hsp_csr_free(d->R);
    d->A = d->B = d->P = d->R = NULL;
}

/* Did this step succeed on every rank?  e is this rank's error (raised here
 * already); where another rank's step failed, an error here too, so that no
 * rank goes on alone into a step that needs all (PETSc's collective calls). */
static PetscErrorCode agree(MPI_Comm comm, PetscErrorCode e)
{
    PetscMPIInt rank, size, first;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(MPIU_Allreduce(&(PetscMPIInt){e ? rank : size}, &first, 1, MPI_INT, MPI_MIN, comm));
    PetscCall(e);
    PetscCheck(first == size, PETSC_COMM_SELF, PETSC_ERR_LIB,
               "hspgemm: the product failed on rank %d (its message there); every rank stops", first);
    PetscFunctionReturn(0);
}

/* This rank's product, R*(A*P) or A*B, into *C, with a plan where plan is
 * not NULL. */
static hsp_status local_make(hsp_context *ctx, PetscBool ptap, const mpi_data *d, hsp_csr **C, hsp_plan **plan)
{
    if (ptap) return hsp_rap(ctx, d->R, d->A, d->B, HSP_RAP_R_AP, C, plan, NULL);
    return plan ? hsp_multiply_plan(ctx, d->A, d->B, C, plan, NULL) : hsp_multiply(ctx, d->A, d->B, C, NULL);
}

/* This rank's product made anew with a plan, at the first reuse (a product
 * used once keeps none): its pattern must be the symbolic phase's. */
static PetscErrorCode planned(hsp_context *ctx, PetscBool ptap, mpi_data *d)
{
    hsp_csr *fresh = NULL;
    PetscErrorCode e;

    PetscFunctionBegin;
    HSP_CHECK(PETSC_COMM_SELF, local_make(ctx, ptap, d, &fresh, &d->plan));
    e = hsp_petsc_same_pattern(fresh, d->C);
    if (e) {
        hsp_csr_free(fresh), hsp_plan_free(d->plan), d->plan = NULL;
        PetscCall(e);
    }
    if (d->own == d->C) d->own = fresh;
    hsp_csr_free(d->C), d->C = fresh;
    PetscFunctionReturn(0);
}

/* The rest of the operands (B's rows stacked, the others' gathered: all
 * ranks; for P^T*A*P, P's rows and R, their transpose) and this rank's
 * product: made (the symbolic phase, no plan), made with its plan (the
 * first reuse), or its values anew by the plan. */
static PetscErrorCode product_local(hsp_context *ctx, Mat A, Mat B, MatProductType type, mpi_data *d)
{
    PetscBool ptap = type == MATPRODUCT_PtAP;
    hsp_status s = HSP_OK;

    PetscFunctionBegin;
    PetscCall(stacked_into(A, B, &d->others, &d->B));
    if (ptap) {
        PetscCall(rows_into("P", B, PETSC_FALSE, &d->P));
        hsp_csr_free(d->R), d->R = NULL;
        PetscCheck(hsp_transpose(d->P, &d->R) == HSP_OK, PETSC_COMM_SELF, PETSC_ERR_MEM, "hspgemm: %s",
                   hsp_errmsg());
    }
    if (!d->C)
        s = local_make(ctx, ptap, d, &d->C, NULL);
    else if (!d->plan)
        PetscCall(planned(ctx, ptap, d));
    else
        s = ptap ? hsp_rap_reuse(ctx, d->plan, d->R, d->A, d->B, d->C)
                 : hsp_multiply_reuse(ctx, d->plan, d->A, d->B, d->C);
    HSP_CHECK(PETSC_COMM_SELF, s);
    PetscFunctionReturn(0);
}

/* This rank's rows of A*B or R*A*P, made or their values anew, the ranks
 * agreeing after each step of their own: A's rows (read and checked before
 * any gathering), then the rest. */
static PetscErrorCode product_of(Mat A, Mat B, MatProductType type, mpi_data *d)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)A);
    hsp_context *ctx = NULL;

    PetscFunctionBegin;
    PetscCall(agree(comm, hsp_petsc_context(PETSC_COMM_SELF, &ctx)));
    PetscCall(agree(comm, rows_into("A", A, PETSC_FALSE, &d->A)));
    PetscCall(agree(comm, product_local(ctx, A, B, type, d)));
    PetscFunctionReturn(0);
}

/* sent: the rows of R*A*P that other ranks own, in COO form (global rows
 * and columns), assembled by PETSc where they belong; its rows here are got. */
static PetscErrorCode sent_make(Mat P, mpi_data *d)
{
    blocks p;
    const hsp_csr *c = d->C;
    PetscCount n = c->nnz - (c->rowptr[d->first + d->mine] - c->rowptr[d->first]), k = 0;
    PetscInt *ci, *cj;

    PetscFunctionBegin;
    PetscCall(blocks_open(P, &p));
    PetscCall(PetscMalloc1(n, &ci));
    PetscCall(PetscMalloc1(n, &cj));
    PetscCall(PetscMalloc1(n, &d->coo));
    for (PetscInt r = 0; r < c->nrows; r++)
        for (int64_t t = c->rowptr[r]; t < c->rowptr[r + 1] && (r < d->first || r >= d->first + d->mine); t++, k++)
            ci[k] = global_of(&p, r), cj[k] = c->colidx[t];
    PetscCall(blocks_close(&p));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)P), &d->sent));
    PetscCall(MatSetSizes(d->sent, P->cmap->n, P->cmap->n, P->cmap->N, P->cmap->N));
    PetscCall(MatSetType(d->sent, MATMPIAIJ));
    PetscCall(MatSetPreallocationCOO(d->sent, n, ci, cj));
    PetscCall(PetscFree(ci));
    PetscCall(PetscFree(cj));
    PetscFunctionReturn(0);
}

/* The exchange: the values of the rows of R*A*P that other ranks own
 * (those before the rank's rows, then those after: the COO order) into
 * sent, and the rows of sent here into got. */
static PetscErrorCode exchange(mpi_data *d)
{
    const double *v = d->C->values;
    int64_t before = d->C->rowptr[d->first], after = d->C->rowptr[d->first + d->mine];

    PetscFunctionBegin;
    PetscCall(PetscArraycpy(d->coo, v, before));
    PetscCall(PetscArraycpy(d->coo + before, v + after, d->C->nnz - after));
    PetscCall(MatSetValuesCOO(d->sent, d->coo, INSERT_VALUES));
    PetscCall(rows_into("the rows sent", d->sent, PETSC_TRUE, &d->got));
    PetscFunctionReturn(0);
}

/* own's values: the rank's rows of R*A*P and got's, summed. */
static void own_values(mpi_data *d)
{
    const double *mine = (const double *)d->C->values + d->C->rowptr[d->first], *got = d->got->values;
    int64_t nmine = d->C->rowptr[d->first + d->mine] - d->C->rowptr[d->first];
    double *own = d->own->values;

    for (int64_t t = 0; t < d->own->nnz; t++) own[t] = 0;
    for (int64_t t = 0; t < nmine; t++) own[d->at[t]] += mine[t];
    for (int64_t t = 0; t < d->got->nnz; t++) own[d->at[nmine + t]] += got[t];
}

/* own's pattern: row i the union of R*A*P's row first+i and got's row i
 * (both sorted), and at. */
static PetscErrorCode own_make(mpi_data *d)
{
    const hsp_csr *c = d->C, *g = d->got;
    int64_t base = c->rowptr[d->first], nmine = c->rowptr[d->first + d->mine] - base, k = 0;

    PetscFunctionBegin;
    PetscCall(PetscMalloc1(nmine + g->nnz, &d->at));
    PetscCall(csr_get("C", d->mine, c->ncols, nmine + g->nnz, &d->own)); /* at most; nnz set below */
    d->own->rowptr[0] = 0;
    for (PetscInt i = 0; i < d->mine; i++) {
        int64_t s = c->rowptr[d->first + i], se = c->rowptr[d->first + i + 1], t = g->rowptr[i], te = g->rowptr[i + 1];

        while (s < se || t < te) {
            int32_t col = t == te || (s < se && c->colidx[s] <= g->colidx[t]) ? c->colidx[s] : g->colidx[t];

            if (s < se && c->colidx[s] == col) d->at[s++ - base] = k;
            if (t < te && g->colidx[t] == col) d->at[nmine + t++] = k;
            d->own->colidx[k++] = col;
        }
        d->own->rowptr[i + 1] = k;
    }
    d->own->nnz = k;
    PetscFunctionReturn(0);
}

/* C's two blocks' values from own (rows in order; columns in the rank's
 * range to the diagonal block, the others to the off-diagonal one). */
static PetscErrorCode blocks_values(Mat C, const hsp_csr *own)
{
    Mat cd, co;
    PetscScalar *vd, *vo;
    PetscInt lo = C->cmap->rstart, hi = C->cmap->rend;
    const double *v = own->values;

    PetscFunctionBegin;
    PetscCall(MatMPIAIJGetSeqAIJ(C, &cd, &co, NULL));
    PetscCall(MatSeqAIJGetArrayWrite(cd, &vd));
    PetscCall(MatSeqAIJGetArrayWrite(co, &vo));
    for (int64_t t = 0, kd = 0, ko = 0; t < own->nnz; t++) {
        if (own->colidx[t] >= lo && own->colidx[t] < hi) vd[kd++] = v[t];
        else vo[ko++] = v[t];
    }
    PetscCall(MatSeqAIJRestoreArrayWrite(cd, &vd));
    PetscCall(MatSeqAIJRestoreArrayWrite(co, &vo));
    PetscFunctionReturn(0);
}

/* C (m x n local, M x N global) from own, its rank's rows: each block's rows
 * lengths and columns set whole, then the values, then PETSc's assembly. */
static PetscErrorCode matrix_of(Mat C, const hsp_csr *own, PetscInt m, PetscInt n, PetscInt M, PetscInt N)
{
    PetscInt *dn, *on, *dj, *oj, lo, hi, kd = 0, ko = 0;
    Mat cd, co;

    PetscFunctionBegin;
    PetscCall(MatSetSizes(C, m, n, M, N));
    PetscCall(MatSetType(C, MATMPIAIJHSP));
    PetscCall(PetscLayoutSetUp(C->cmap));
    lo = C->cmap->rstart, hi = C->cmap->rend;
    PetscCall(PetscCalloc2(m, &dn, m, &on));
    PetscCall(PetscMalloc2(own->nnz, &dj, own->nnz, &oj));
    for (PetscInt i = 0; i < m; i++)
        for (int64_t t = own->rowptr[i]; t < own->rowptr[i + 1]; t++) {
            if (own->colidx[t] >= lo && own->colidx[t] < hi) dn[i]++, dj[kd++] = own->colidx[t] - lo;
            else on[i]++, oj[ko++] = own->colidx[t];
        }
    PetscCall(MatMPIAIJSetPreallocation(C, 0, dn, 0, on));
    PetscCall(MatMPIAIJGetSeqAIJ(C, &cd, &co, NULL));
    PetscCall(MatSeqAIJSetColumnIndices(cd, dj));
    PetscCall(MatSeqAIJSetColumnIndices(co, oj));
    PetscCall(PetscFree2(dn, on));
    PetscCall(PetscFree2(dj, oj));
    PetscCall(blocks_values(C, own));
    PetscCall(MatSetOption(C, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* C's values from A and B (C's product's, or those PETSc's older interface
 * gives) unless every rank keeps the symbolic phase's (hsp_petsc_made_keep):
 * this rank's rows by the plan, for P^T*A*P the other ranks' parts of them
 * added, set into C's blocks. */
static PetscErrorCode numeric_of(Mat A, Mat B, Mat C)
{
    mpi_data *d = C->product->data;
    PetscBool keep, all;

    PetscFunctionBegin;
    PetscCall(hsp_petsc_made_keep(&d->made, A, B, C, &keep));
    PetscCall(MPIU_Allreduce(&keep, &all, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
    if (all) PetscFunctionReturn(0);
    PetscCall(PetscLogEventBegin(hsp_petsc_events[1], C, 0, 0, 0));
    PetscCall(product_of(A, B, C->product->type, d));
    if (C->product->type == MATPRODUCT_PtAP) {
        PetscCall(exchange(d));
        own_values(d);
    }
    PetscCall(blocks_values(C, d->own));
    PetscCall(PetscObjectStateIncrease((PetscObject)C));
    hsp_petsc_count(COUNT_NUMERIC);
    PetscCall(PetscLogEventEnd(hsp_petsc_events[1], C, 0, 0, 0));
    PetscFunctionReturn(0);
}

/* The numeric phase: C's values from the product's operands. */
static PetscErrorCode mpi_numeric(Mat C)
{
    PetscFunctionBegin;
    PetscCall(numeric_of(C->product->A, C->product->B, C));
    PetscFunctionReturn(0);
}

/* Do A's columns on this rank match B's rows? */
static PetscErrorCode sizes_match(Mat A, Mat B)
{
    PetscFunctionBegin;
    PetscCheck(A->cmap->N == B->rmap->N && A->cmap->rstart == B->rmap->rstart && A->cmap->n == B->rmap->n,
               PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "hspgemm: A has %" PetscInt_FMT " columns (%" PetscInt_FMT " here) and B %" PetscInt_FMT
               " rows (%" PetscInt_FMT " here)", A->cmap->N, A->cmap->n, B->rmap->N, B->rmap->n);
    PetscFunctionReturn(0);
}

/* The symbolic phase of A*B or P^T*A*P (A and P: product->A and B): the
 * operands, hspgemm's product and plan, for P^T*A*P the exchange and the
 * merge, then C whole, its values too. */
PetscErrorCode hsp_petsc_mpi_symbolic(Mat C)
{
    Mat_Product *product = C->product;
    Mat A = product->A, B = product->B;
    PetscBool ptap = product->type == MATPRODUCT_PtAP;
    mpi_data *d;

    PetscFunctionBegin;
    PetscCall(agree(PetscObjectComm((PetscObject)C), sizes_match(A, B)));
    PetscCall(PetscLogEventBegin(hsp_petsc_events[0], C, 0, 0, 0));
    PetscCall(PetscNew(&d));
    product->data = d;
    product->destroy = mpi_data_free;
    PetscCall(product_of(A, B, product->type, d));
    d->own = d->C;
    if (ptap) {
        blocks p;

        PetscCall(blocks_open(B, &p));
        d->first = p.below, d->mine = p.nd;
        PetscCall(blocks_close(&p));
        PetscCall(sent_make(B, d));
        PetscCall(exchange(d));
        d->own = NULL;
        PetscCall(own_make(d));
        own_values(d);
    }
    PetscCall(matrix_of(C, d->own, ptap ? B->cmap->n : A->rmap->n, B->cmap->n, ptap ? B->cmap->N : A->rmap->N,
                        B->cmap->N));
    PetscCall(hsp_petsc_made_now(&d->made, A, B, C));
    operands_drop(d);
    C->ops->productnumeric = mpi_numeric;
    hsp_petsc_old_numeric(C, numeric_of);
    hsp_petsc_count(ptap ? COUNT_PTAP : COUNT_AB);
    hsp_petsc_memory_back();
    PetscCall(PetscLogEventEnd(hsp_petsc_events[0], C, 0, 0, 0));
    PetscFunctionReturn(0);
}
