/* hsp_petsc.c: the aijhsp matrix types (hsp_petsc.h).  seqaijhsp is SeqAIJ
 * with a product set-up of its own: C = A*B, A^T*B and P^T*A*P of SeqAIJ
 * operands go to hspgemm (hsp_multiply_plan, hsp_rap), whose plan the
 * product keeps for its numeric phases (hsp_multiply_reuse, hsp_rap_reuse);
 * the operands' arrays are read in place (row pointers widened to 64 bits)
 * and C is set from hspgemm's CSR (of A's rows with entries only, where
 * few hold any).  mpiaijhsp is MPIAIJ whose A*B and P^T*A*P are
 * hsp_petsc_mpi.c's and whose A^T*B (and A*B and P^T*A*P with
 * -hsp_backend) takes PETSc's "backend" algorithm, which makes it from
 * products of the ranks' local blocks, made seqaijhsp here.  Every other
 * product is PETSc's own.
 * What both kinds share (hspgemm's context, the counts, what C was made
 * from) is hsp_petsc_context.c's. */
#include <string.h>
#include "hsp_petsc_impl.h"

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#error "the hspgemm plugin needs PETSc with real double scalars"
#endif

/* What the process shares: the set-ups of SeqAIJ and MPIAIJ products (for
 * the products left to PETSc). */
static PetscErrorCode (*seqaij_products)(Mat);
static PetscErrorCode (*mpiaij_products)(Mat);

/* The plugin's options, read at registration so that -help lists them and
 * bad values stop the program there rather than at its first product
 * (deep in a preconditioner's set-up), checked as hspgemm checks them
 * (hsp_options_check: src/options.def, whose petsc column names them; their
 * defaults here, the cpu device and a rank's share of the cores, are the
 * plugin's); hsp_petsc_context reads them again. */
static PetscErrorCode options_check(void)
{
    char device[64] = "cpu";
    PetscInt threads = 0, small = 0;
    PetscBool backend = PETSC_FALSE, known = PETSC_FALSE;
    const char *const names[] = {"auto", "cpu", "opencl", "hsa"};
    hsp_options o;

    PetscFunctionBegin;
    PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "hspgemm's products of aijhsp matrices (libhspgemm_petsc)", "Mat");
    PetscCall(PetscOptionsString("-hsp_device", "hspgemm's device: cpu, auto, opencl[:N][,nosvm][,nofp64] or "
                                 "hsa[:N][,nosvm|,svm]", "PetscHspgemmRegister", device, device, sizeof device, NULL));
    PetscCall(PetscOptionsInt("-hsp_threads", "hspgemm's CPU threads a rank (unset: the machine's cores shared "
                              "by its ranks, at most those the rank may run on; 0: one a core)", "PetscHspgemmRegister",
                              threads, &threads, NULL));
    PetscCall(PetscOptionsInt("-hsp_small_nnz", "with a GPU device, products of at most so many operand entries on "
                              "the CPU threads (0: 2^18; -1: all on the device)", "PetscHspgemmRegister", small,
                              &small, NULL));
    PetscCall(PetscOptionsBool("-hsp_backend", "A*B and P^T*A*P on several ranks by PETSc's backend algorithm "
                               "(its local products by hspgemm) instead of one hspgemm product a rank",
                               "PetscHspgemmRegister", backend, &backend, NULL));
    PetscOptionsEnd();
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        known = known || (!strncmp(device, names[k], strlen(names[k])) &&
                          strchr(":,", device[strlen(names[k])]) != NULL);
    PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
               "hspgemm: -hsp_device %s: a device is cpu, auto, opencl[:N][,...] or hsa[:N][,...] (hspgemm "
               "devices lists them)", device);
    hsp_options_init(&o);
    o.device = device, o.threads = (int)threads, o.small_nnz = (int64_t)small;
    PetscCheck(hsp_options_check(&o) == HSP_OK, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
               "hspgemm: -hsp_threads %" PetscInt_FMT " -hsp_small_nnz %" PetscInt_FMT ": %s", threads, small,
               hsp_errmsg());
    PetscFunctionReturn(0);
}

/* A SeqAIJ matrix seen as hspgemm's CSR: its columns and values in place,
 * its row pointers widened; with rows, its rows with entries only (rows[k]
 * is row k's, nrows rows in all): the columns and values of those rows lie
 * in order in the same arrays. */
typedef struct {
    Mat M;
    hsp_csr csr;
    PetscInt n, *rows, nrows;
    const PetscInt *ia, *ja;
    const PetscScalar *a;
    PetscScalar *zeros; /* its values where M has none yet */
} operand;

/* Leave out M's empty rows where at most this share of them hold entries:
 * PETSc's off-diagonal blocks on several ranks have half a million rows
 * and a few thousand entries, and a product's cost in hspgemm and in
 * PETSc's C grows with the rows (33 ms for such an empty product). */
#define SPARSE_ROWS 0.25

/* x->csr's rows: M's, or those with entries (x->rows) where few hold any,
 * or like's (A's for its product C, whose other rows are empty). */
static PetscErrorCode rows_of(operand *x, PetscBool compress, const operand *like)
{
    PetscInt full = 0;

    PetscFunctionBegin;
    for (PetscInt i = 0; compress && i < x->n; i++) full += x->ia[i + 1] > x->ia[i];
    x->rows = NULL, x->nrows = x->n;
    if (like && like->rows) {
        PetscCall(PetscMalloc1(like->nrows, &x->rows));
        PetscCall(PetscArraycpy(x->rows, like->rows, like->nrows));
        x->nrows = like->nrows;
    } else if (compress && full <= SPARSE_ROWS * x->n) {
        PetscCall(PetscMalloc1(full, &x->rows));
        x->nrows = 0;
        for (PetscInt i = 0; i < x->n; i++)
            if (x->ia[i + 1] > x->ia[i]) x->rows[x->nrows++] = i;
    }
    PetscCall(PetscMalloc1(x->nrows + 1, &x->csr.rowptr));
    x->csr.nrows = (int32_t)x->nrows;
    x->csr.rowptr[0] = 0;
    for (PetscInt k = 0; k < x->nrows; k++) x->csr.rowptr[k + 1] = x->ia[(x->rows ? x->rows[k] : k) + 1];
    PetscFunctionReturn(0);
}

/* M as an operand; only its rows with entries where compress and few hold
 * any, or like's rows where like is given; zeros for its values where it has
 * none yet (PETSc's own symbolic phases make a product without them). */
static PetscErrorCode operand_open(Mat M, operand *x, PetscBool compress, const operand *like)
{
    PetscBool done;

    PetscFunctionBegin;
    PetscCheck(sizeof(PetscInt) == sizeof(int32_t), PetscObjectComm((PetscObject)M), PETSC_ERR_SUP,
               "hspgemm: PETSc's 64-bit indices are not supported");
    x->M = M;
    PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &x->n, &x->ia, &x->ja, &done));
    PetscCheck(done, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "hspgemm: cannot read the rows of a %s matrix",
               ((PetscObject)M)->type_name);
    PetscCall(MatSeqAIJGetArrayRead(M, &x->a));
    x->zeros = NULL;
    if (!x->a) PetscCall(PetscCalloc1(x->ia[x->n] + 1, &x->zeros));
    x->csr = (hsp_csr){(int32_t)M->rmap->n, (int32_t)M->cmap->n, x->ia[x->n], HSP_DOUBLE, NULL,
                       (int32_t *)x->ja, x->a ? (void *)x->a : x->zeros};
    PetscCall(rows_of(x, compress, like));
    PetscFunctionReturn(0);
}

static PetscErrorCode operand_close(operand *x)
{
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(PetscFree(x->csr.rowptr));
    PetscCall(PetscFree(x->rows));
    PetscCall(PetscFree(x->zeros));
    PetscCall(MatSeqAIJRestoreArrayRead(x->M, &x->a));
    PetscCall(MatRestoreRowIJ(x->M, 0, PETSC_FALSE, PETSC_FALSE, &x->n, &x->ia, &x->ja, &done));
    PetscFunctionReturn(0);
}

/* A product's data: hspgemm's plan, made at the first numeric phase that
 * computes C's values (a product used once, as many in PCGAMG's set-up,
 * keeps none), and what C's values were made from.  empty: A*B of an
 * operand without entries, C without any. */
typedef struct {
    hsp_plan *plan;
    PetscBool empty;
    hsp_petsc_made made;
} product_data;

static PetscErrorCode product_data_free(void *data)
{
    product_data *d = data;

    PetscFunctionBegin;
    hsp_plan_free(d->plan);
    PetscCall(PetscFree(d));
    PetscFunctionReturn(0);
}

/* A*B where A or B has no entries: C, empty, without hspgemm's pipeline
 * (PETSc's off-diagonal blocks on several ranks are often empty, and a
 * product of half a million rows costs tens of milliseconds there). */
static hsp_status empty_product(const hsp_csr *A, const hsp_csr *B, hsp_csr **C)
{
    return hsp_csr_create(A->nrows, B->ncols, 0, HSP_DOUBLE, C);
}

/* C by hspgemm, and its plan where plan is not NULL: A*B, A^T*B (A
 * transposed first), or P^T*A*P (A and B are A and P); an empty C where A*B
 * has an operand without entries. */
static hsp_status make(hsp_context *ctx, MatProductType type, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                       hsp_plan **plan)
{
    hsp_csr *T = NULL;
    hsp_status s = HSP_OK;

    if (type == MATPRODUCT_PtAP) return hsp_rap(ctx, NULL, A, B, HSP_RAP_R_AP, C, plan, NULL);
    if (type == MATPRODUCT_AtB) s = hsp_transpose(A, &T), A = T;
    if (s == HSP_OK && (!A->nnz || !B->nnz)) s = empty_product(A, B, C);
    else if (s == HSP_OK) s = plan ? hsp_multiply_plan(ctx, A, B, C, plan, NULL) : hsp_multiply(ctx, A, B, C, NULL);
    hsp_csr_free(T);
    return s;
}

/* C's values (C's pattern given) by a product with a plan, made now: the
 * first reuse of a product; its pattern must be C's. */
static PetscErrorCode planned(hsp_context *ctx, MatProductType type, const hsp_csr *A, const hsp_csr *B, hsp_csr *C,
                              hsp_plan **plan)
{
    hsp_csr *fresh = NULL;
    PetscErrorCode e;

    PetscFunctionBegin;
    HSP_CHECK(PETSC_COMM_SELF, make(ctx, type, A, B, &fresh, plan));
    e = hsp_petsc_same_pattern(fresh, C);
    if (!e) PetscCall(PetscArraycpy((double *)C->values, (const double *)fresh->values, C->nnz));
    hsp_csr_free(fresh);
    if (e) hsp_plan_free(*plan), *plan = NULL;
    PetscCall(e);
    PetscFunctionReturn(0);
}

/* C's values anew by the plan that make made. */
static hsp_status remake(hsp_context *ctx, MatProductType type, hsp_plan *plan, const hsp_csr *A, const hsp_csr *B,
                         hsp_csr *C)
{
    hsp_csr *T = NULL;
    hsp_status s = HSP_OK;

    if (type == MATPRODUCT_PtAP) return hsp_rap_reuse(ctx, plan, NULL, A, B, C);
    if (type == MATPRODUCT_AtB) s = hsp_transpose(A, &T), A = T;
    if (s == HSP_OK) s = hsp_multiply_reuse(ctx, plan, A, B, C);
    hsp_csr_free(T);
    return s;
}

/* The numeric phase of an empty product (an operand had no entries): one of
 * them still has none, C stays empty. */
static PetscErrorCode still_empty(Mat A, Mat B)
{
    MatInfo a, b;

    PetscFunctionBegin;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &a));
    PetscCall(MatGetInfo(B, MAT_LOCAL, &b));
    PetscCheck(!a.nz_used || !b.nz_used, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "hspgemm: A has %.0f entries and B %.0f; the symbolic phase found one of them empty", a.nz_used,
               b.nz_used);
    PetscFunctionReturn(0);
}

/* C's values from A and B by the plan (made at the first reuse), straight
 * into C's array, unless they are the symbolic phase's, made from the same A
 * and B as they stand. */
static PetscErrorCode numeric_of(Mat A, Mat B, Mat C)
{
    Mat_Product *product = C->product;
    product_data *d = product->data;
    PetscBool keep;
    hsp_context *ctx;
    operand a, b, c;
    PetscScalar *v;

    PetscFunctionBegin;
    PetscCall(hsp_petsc_made_keep(&d->made, A, B, C, &keep));
    if (keep) PetscFunctionReturn(0);
    if (d->empty) {
        PetscCall(still_empty(A, B));
        PetscFunctionReturn(0);
    }
    PetscCall(hsp_petsc_context(PetscObjectComm((PetscObject)C), &ctx));
    PetscCall(PetscLogEventBegin(hsp_petsc_events[1], C, 0, 0, 0));
    PetscCall(operand_open(A, &a, product->type == MATPRODUCT_AB, NULL));
    PetscCall(operand_open(B, &b, PETSC_FALSE, NULL));
    PetscCall(operand_open(C, &c, PETSC_FALSE, product->type == MATPRODUCT_AB ? &a : NULL));
    PetscCall(MatSeqAIJGetArrayWrite(C, &v));
    c.csr.values = v;
    if (d->plan) HSP_CHECK(PetscObjectComm((PetscObject)C), remake(ctx, product->type, d->plan, &a.csr, &b.csr, &c.csr));
    else PetscCall(planned(ctx, product->type, &a.csr, &b.csr, &c.csr, &d->plan));
    PetscCall(MatSeqAIJRestoreArrayWrite(C, &v));
    PetscCall(operand_close(&c));
    PetscCall(operand_close(&a));
    PetscCall(operand_close(&b));
    hsp_petsc_count(COUNT_NUMERIC);
    PetscCall(PetscLogEventEnd(hsp_petsc_events[1], C, 0, 0, 0));
    PetscFunctionReturn(0);
}

/* The numeric phase: C's values from the product's operands. */
static PetscErrorCode product_numeric(Mat C)
{
    PetscFunctionBegin;
    PetscCall(numeric_of(C->product->A, C->product->B, C));
    PetscFunctionReturn(0);
}

/* C, of nrows rows, from hspgemm's c, whose row k is C's row rows[k] (or k
 * where rows is NULL; the others empty): its sizes, type, rows' lengths,
 * columns and values (copied whole: no entry inserted one by one). */
static PetscErrorCode matrix_of(Mat C, const hsp_csr *c, const PetscInt *rows, PetscInt nrows)
{
    PetscInt *lengths;
    PetscScalar *v;

    PetscFunctionBegin;
    PetscCall(MatSetSizes(C, nrows, c->ncols, nrows, c->ncols));
    PetscCall(MatSetType(C, MATSEQAIJHSP));
    PetscCall(PetscCalloc1(nrows, &lengths));
    for (PetscInt k = 0; k < c->nrows; k++) lengths[rows ? rows[k] : k] = (PetscInt)(c->rowptr[k + 1] - c->rowptr[k]);
    PetscCall(MatSeqAIJSetPreallocation(C, 0, lengths));
    PetscCall(PetscFree(lengths));
    PetscCall(MatSeqAIJSetColumnIndices(C, (PetscInt *)c->colidx));
    PetscCall(MatSeqAIJGetArrayWrite(C, &v));
    PetscCall(PetscArraycpy(v, (const PetscScalar *)c->values, c->nnz));
    PetscCall(MatSeqAIJRestoreArrayWrite(C, &v));
    PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* The symbolic phase: C by hspgemm, its values too (the numeric phase that
 * follows keeps them if the operands stay as they are), no plan yet. */
static PetscErrorCode product_symbolic(Mat C)
{
    Mat_Product *product = C->product;
    MPI_Comm comm = PetscObjectComm((PetscObject)C);
    hsp_context *ctx;
    product_data *d;
    operand a, b;
    hsp_csr *c = NULL;
    hsp_status s;

    PetscFunctionBegin;
    PetscCall(hsp_petsc_context(comm, &ctx));
    PetscCall(PetscLogEventBegin(hsp_petsc_events[0], C, 0, 0, 0));
    PetscCall(operand_open(product->A, &a, product->type == MATPRODUCT_AB, NULL));
    PetscCall(operand_open(product->B, &b, PETSC_FALSE, NULL));
    s = make(ctx, product->type, &a.csr, &b.csr, &c, NULL);
    if (s == HSP_OK) PetscCall(matrix_of(C, c, a.rows, product->type == MATPRODUCT_AB ? a.n : c->nrows));
    PetscCall(PetscNew(&d));
    d->empty = s == HSP_OK && !c->nnz && (!a.csr.nnz || !b.csr.nnz) && product->type != MATPRODUCT_PtAP;
    hsp_csr_free(c);
    PetscCall(operand_close(&a));
    PetscCall(operand_close(&b));
    if (s != HSP_OK) PetscCall(product_data_free(d));
    HSP_CHECK(comm, s);
    product->data = d;
    product->destroy = product_data_free;
    PetscCall(hsp_petsc_made_now(&d->made, product->A, product->B, C));
    C->ops->productnumeric = product_numeric;
    hsp_petsc_old_numeric(C, numeric_of);
    hsp_petsc_count(product->type == MATPRODUCT_PtAP ? COUNT_PTAP : COUNT_AB);
    hsp_petsc_memory_back();
    PetscCall(PetscLogEventEnd(hsp_petsc_events[0], C, 0, 0, 0));
    PetscFunctionReturn(0);
}

/* Is M of the base type (MATSEQAIJ, MATMPIAIJ) or a type built on it? */
static PetscBool is_of(Mat M, MatType base)
{
    PetscBool yes = PETSC_FALSE;
    PetscCallAbort(PETSC_COMM_SELF, PetscObjectBaseTypeCompare((PetscObject)M, base, &yes));
    return yes;
}

/* A product of a seqaijhsp: A*B, A^T*B and P^T*A*P of SeqAIJ operands by
 * hspgemm, the rest as SeqAIJ does them. */
static PetscErrorCode seq_products(Mat C)
{
    Mat_Product *product = C->product;
    MatProductType t = product->type;

    PetscFunctionBegin;
    if ((t == MATPRODUCT_AB || t == MATPRODUCT_AtB || t == MATPRODUCT_PtAP) && is_of(product->A, MATSEQAIJ) &&
        is_of(product->B, MATSEQAIJ)) {
        C->ops->productsymbolic = product_symbolic;
        PetscFunctionReturn(0);
    }
    PetscCall(seqaij_products(C));
    PetscFunctionReturn(0);
}

/* C = A*B of a SeqAIJ A and a SeqDense B by hsp_spmm, straight into C's
 * array (column-major, as B's). */
static PetscErrorCode dense_numeric(Mat C)
{
    Mat A = C->product->A, B = C->product->B;
    hsp_context *ctx;
    operand a;
    const PetscScalar *bv;
    PetscScalar *cv;
    PetscInt ldb, ldc;
    hsp_status s;

    PetscFunctionBegin;
    PetscCall(hsp_petsc_context(PetscObjectComm((PetscObject)C), &ctx));
    PetscCall(PetscLogEventBegin(hsp_petsc_events[1], C, 0, 0, 0));
    PetscCall(operand_open(A, &a, PETSC_FALSE, NULL));
    PetscCall(MatDenseGetLDA(B, &ldb));
    PetscCall(MatDenseGetLDA(C, &ldc));
    PetscCall(MatDenseGetArrayRead(B, &bv));
    PetscCall(MatDenseGetArrayWrite(C, &cv));
    s = hsp_spmm(ctx, 1.0, &a.csr,
                 &(hsp_dense){(int32_t)B->rmap->n, (int32_t)B->cmap->n, PetscMax(ldb, 1), HSP_COL_MAJOR, HSP_DOUBLE,
                              (void *)bv},
                 0.0,
                 &(hsp_dense){(int32_t)C->rmap->n, (int32_t)C->cmap->n, PetscMax(ldc, 1), HSP_COL_MAJOR, HSP_DOUBLE,
                              cv},
                 NULL);
    PetscCall(MatDenseRestoreArrayWrite(C, &cv));
    PetscCall(MatDenseRestoreArrayRead(B, &bv));
    PetscCall(operand_close(&a));
    HSP_CHECK(PetscObjectComm((PetscObject)C), s);
    PetscCall(PetscLogEventEnd(hsp_petsc_events[1], C, 0, 0, 0));
    PetscFunctionReturn(0);
}

/* C, dense, of A's rows and B's columns (the values: dense_numeric). */
static PetscErrorCode dense_symbolic(Mat C)
{
    Mat A = C->product->A, B = C->product->B;

    PetscFunctionBegin;
    PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
    PetscCall(MatSetType(C, MATSEQDENSE));
    PetscCall(MatSetUp(C));
    C->ops->productnumeric = dense_numeric;
    hsp_petsc_count(COUNT_AB);
    PetscFunctionReturn(0);
}

/* A product of an aijhsp matrix and a dense one: A*B on one rank by
 * hsp_spmm, the rest as AIJ does them with dense matrices (PETSc's set-up,
 * composed on A under its base type's name), not PETSc's fallback of a
 * product a column. */
static PetscErrorCode dense_products(Mat C)
{
    Mat_Product *product = C->product;
    PetscBool seq = is_of(product->A, MATSEQAIJ);
    PetscErrorCode (*f)(Mat) = NULL;
    char name[128];

    PetscFunctionBegin;
    if (seq && product->type == MATPRODUCT_AB && is_of(product->B, MATSEQDENSE)) {
        C->ops->productsymbolic = dense_symbolic;
        PetscFunctionReturn(0);
    }
    PetscCall(PetscSNPrintf(name, sizeof name, "MatProductSetFromOptions_%s_%s_C", seq ? MATSEQAIJ : MATMPIAIJ,
                            seq ? MATSEQDENSE : MATMPIDENSE));
    PetscCall(PetscObjectQueryFunction((PetscObject)product->A, name, &f));
    if (f) PetscCall((*f)(C));
    PetscFunctionReturn(0);
}

static PetscErrorCode mpi_products(Mat C);
static PetscErrorCode convert_named(Mat A, MatType type, MatReuse reuse, Mat *out);
typedef struct kind kind;
static const kind *const seq_kind;
static PetscErrorCode convert(const kind *k, PetscBool into, Mat A, MatReuse reuse, Mat *out);

/* M's local blocks made seqaijhsp, where M is MPIAIJ (assembled: the blocks
 * exist) and they are not yet. */
static PetscErrorCode local_blocks(Mat M)
{
    PetscBool mpi;
    Mat block[2];

    PetscFunctionBegin;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATMPIAIJ, &mpi));
    if (!mpi) PetscFunctionReturn(0);
    PetscCall(MatMPIAIJGetSeqAIJ(M, &block[0], &block[1], NULL));
    for (int k = 0; k < 2; k++)
        if (block[k] && block[k]->ops->productsetfromoptions != seq_products)
            PetscCall(convert(seq_kind, PETSC_TRUE, block[k], MAT_INPLACE_MATRIX, &block[k]));
    PetscFunctionReturn(0);
}

static PetscErrorCode backend_setup(Mat C);

/* What the values of C, a product by PETSc's backend algorithm, were made
 * from (composed on C; made at the first call). */
static PetscErrorCode backend_made(Mat C, hsp_petsc_made **m)
{
    PetscContainer box;

    PetscFunctionBegin;
    PetscCall(PetscObjectQuery((PetscObject)C, "HspBackendMade", (PetscObject *)&box));
    if (box) {
        PetscCall(PetscContainerGetPointer(box, (void **)m));
        PetscFunctionReturn(0);
    }
    PetscCall(PetscNew(m));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &box));
    PetscCall(PetscContainerSetPointer(box, *m));
    PetscCall(PetscContainerSetUserDestroy(box, PetscContainerUserDestroyDefault));
    PetscCall(PetscObjectCompose((PetscObject)C, "HspBackendMade", (PetscObject)box));
    PetscCall(PetscContainerDestroy(&box));
    PetscFunctionReturn(0);
}

/* backend_symbolic's numeric phase: PETSc's, after the symbolic phase anew
 * (on every rank, where one needs it) where an operand was replaced since
 * (MatProductReplaceMats), its pattern changed, or it changed before this
 * first numeric phase. */
static PetscErrorCode backend_numeric(Mat C)
{
    Mat_Product *product = C->product;
    hsp_petsc_made *m, was;
    PetscBool keep, anew;
    PetscErrorCode (*numeric)(Mat);

    PetscFunctionBegin;
    PetscCall(backend_made(C, &m));
    was = *m;
    PetscCall(hsp_petsc_made_keep(m, product->A, product->B, C, &keep));
    PetscCall(hsp_petsc_made_now(m, product->A, product->B, C));
    anew = m->id[0] != was.id[0] || m->id[1] != was.id[1] || m->pattern[0] != was.pattern[0] ||
           m->pattern[1] != was.pattern[1] || (was.fresh && !keep);
    m->fresh = PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &anew, 1, MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)C)));
    if (anew) {
        PetscCall((*product->destroy)(product->data));
        product->data = NULL, product->destroy = NULL;
        PetscCall(local_blocks(product->A));
        PetscCall(local_blocks(product->B));
        PetscCall(backend_setup(C));
    }
    PetscCall(PetscObjectQueryFunction((PetscObject)C, "HspBackendNumeric_C", &numeric));
    PetscCall((*numeric)(C));
    PetscFunctionReturn(0);
}

/* The numeric phase in PETSc's older interface (hsp_petsc_old_numeric):
 * backend_numeric with the operands given. */
static PetscErrorCode backend_old_numeric(Mat A, Mat B, Mat C)
{
    Mat_Product *product = C->product;
    Mat a = product->A, b = product->B;
    PetscErrorCode e;

    PetscFunctionBegin;
    product->A = A, product->B = B;
    e = backend_numeric(C);
    product->A = a, product->B = b;
    PetscCall(e);
    PetscFunctionReturn(0);
}

/* PETSc's symbolic phase of its "backend" algorithm, its numeric phase
 * composed on C (C's own left as it was), and what C was made from. */
static PetscErrorCode backend_setup(Mat C)
{
    PetscErrorCode (*symbolic)(Mat), (*numeric)(Mat) = C->ops->productnumeric;
    hsp_petsc_made *m;

    PetscFunctionBegin;
    PetscCall(PetscObjectQueryFunction((PetscObject)C, "HspBackendSymbolic_C", &symbolic));
    PetscCall((*symbolic)(C));
    PetscCall(PetscObjectComposeFunction((PetscObject)C, "HspBackendNumeric_C", C->ops->productnumeric));
    C->ops->productnumeric = numeric;
    PetscCall(backend_made(C, &m));
    PetscCall(hsp_petsc_made_now(m, C->product->A, C->product->B, C));
    PetscFunctionReturn(0);
}

/* PETSc's "backend" algorithm (-hsp_backend, and A^T*B on several ranks),
 * with what PETSc 3.18's lacks: its local products keep the blocks of the
 * operands it was set up with, and its first numeric phase the values they
 * had then, so a reuse with an operand replaced gives their stale values,
 * and so does a first numeric phase after the operands changed (PETSc's
 * triple products compute an operand between the two phases);
 * backend_numeric sets it up anew for both.  And it has no numeric phase in
 * the older interface. */
static PetscErrorCode backend_symbolic(Mat C)
{
    PetscFunctionBegin;
    PetscCall(backend_setup(C));
    C->ops->productnumeric = backend_numeric;
    hsp_petsc_old_numeric(C, backend_old_numeric);
    PetscFunctionReturn(0);
}

/* Row lengths of the local block M added into len (M's rows). */
static PetscErrorCode add_lengths(Mat M, PetscInt *len)
{
    PetscInt n;
    const PetscInt *ia, *ja;
    PetscBool done;

    PetscFunctionBegin;
    PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscCheck(done, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "hspgemm: cannot read the rows of a block");
    for (PetscInt i = 0; i < n; i++) len[i] += ia[i + 1] - ia[i];
    PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscFunctionReturn(0);
}

/* Does the MPIAIJ P aggregate, at most one entry in each row on every rank
 * (PCGAMG's coarsener multiplies its strength graph by such a P)? */
static PetscErrorCode aggregates(Mat P, PetscBool *yes)
{
    Mat block[2];
    PetscInt m, *len;

    PetscFunctionBegin;
    PetscCall(MatGetLocalSize(P, &m, NULL));
    PetscCall(PetscCalloc1(m + 1, &len));
    PetscCall(MatMPIAIJGetSeqAIJ(P, &block[0], &block[1], NULL));
    for (int k = 0; k < 2; k++)
        if (block[k]) PetscCall(add_lengths(block[k], len));
    *yes = PETSC_TRUE;
    for (PetscInt i = 0; i < m; i++) *yes = *yes && len[i] <= 1;
    PetscCall(PetscFree(len));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, yes, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)P)));
    PetscFunctionReturn(0);
}

/* A product of an mpiaijhsp: A*B and P^T*A*P of MPIAIJ operands by
 * hsp_petsc_mpi.c, one hspgemm product a rank, unless an algorithm was set
 * (MatProductSetAlgorithm) or -hsp_backend asks for PETSc's "backend"
 * algorithm; that, with its local products of seqaijhsp blocks, for those
 * and for A^T*B (by backend_symbolic); the rest as MPIAIJ does them.
 * P^T*A*P where P aggregates is PETSc's own, which was faster there
 * (doc/petsc.md: the coarsener's graph products on 2 ranks).
 * (PETSc 3.18 may call it twice for one product.) */
static PetscErrorCode mpi_products(Mat C)
{
    Mat_Product *product = C->product;
    MatProductType t = product->type;
    PetscBool by_default, backend = PETSC_FALSE, ours, aggregating = PETSC_FALSE;

    PetscFunctionBegin;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-hsp_backend", &backend, NULL));
    PetscCall(PetscStrcmp(product->alg, MATPRODUCTALGORITHMDEFAULT, &by_default));
    ours = by_default && !backend && (t == MATPRODUCT_AB || t == MATPRODUCT_PtAP) && is_of(product->A, MATMPIAIJ) &&
           is_of(product->B, MATMPIAIJ);
    if (ours && t == MATPRODUCT_PtAP) PetscCall(aggregates(product->B, &aggregating));
    if (aggregating) {
        PetscCall(mpiaij_products(C));
        PetscFunctionReturn(0);
    }
    if (ours) {
        C->ops->productsymbolic = hsp_petsc_mpi_symbolic;
        PetscFunctionReturn(0);
    }
    if (t == MATPRODUCT_AB || t == MATPRODUCT_AtB || t == MATPRODUCT_PtAP) {
        PetscCall(local_blocks(product->A));
        PetscCall(local_blocks(product->B));
        if (by_default) PetscCall(MatProductSetAlgorithm(C, "backend"));
    }
    PetscCall(mpiaij_products(C));
    PetscCall(PetscStrcmp(product->alg, "backend", &backend));
    if (backend && C->ops->productsymbolic && (t == MATPRODUCT_AB || t == MATPRODUCT_AtB || t == MATPRODUCT_PtAP)) {
        PetscCall(PetscObjectComposeFunction((PetscObject)C, "HspBackendSymbolic_C", C->ops->productsymbolic));
        C->ops->productsymbolic = backend_symbolic;
    }
    PetscFunctionReturn(0);
}

/* A kind of aijhsp matrix: its base type's name and its own, its product
 * set-up and the base's (kept at the first conversion). */
struct kind {
    const char *base, *name, *dense; /* dense: the dense type of its products with dense matrices */
    PetscErrorCode (*products)(Mat);
    PetscErrorCode (**base_products)(Mat);
};

static const kind kinds[2] = {{MATSEQAIJ, MATSEQAIJHSP, MATSEQDENSE, seq_products, &seqaij_products},
                              {MATMPIAIJ, MATMPIAIJHSP, MATMPIDENSE, mpi_products, &mpiaij_products}};
static const kind *const seq_kind = &kinds[0], *const mpi_kind = &kinds[1];

/* f composed on M under "prefix_first_second_C" (removed where f is NULL). */
static PetscErrorCode compose(Mat M, const char *prefix, const char *first, const char *second, PetscVoidFunction f)
{
    char name[128];

    PetscFunctionBegin;
    PetscCall(PetscSNPrintf(name, sizeof name, "%s_%s_%s_C", prefix, first, second));
    PetscCall(PetscObjectComposeFunction_Private((PetscObject)M, name, f));
    PetscFunctionReturn(0);
}

/* A matrix of k's base type made of kind k (into), or one of kind k made
 * of its base type again; in place, or a copy. */
static PetscErrorCode convert(const kind *k, PetscBool into, Mat A, MatReuse reuse, Mat *out)
{
    Mat B = *out;

    PetscFunctionBegin;
    if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    if (into && !*k->base_products) *k->base_products = B->ops->productsetfromoptions;
    B->ops->productsetfromoptions = into ? k->products : *k->base_products;
    PetscCall(PetscObjectChangeTypeName((PetscObject)B, into ? k->name : k->base));
    PetscCall(compose(B, "MatConvert", k->base, k->name, into ? (PetscVoidFunction)convert_named : NULL));
    PetscCall(compose(B, "MatConvert", k->name, k->base, into ? (PetscVoidFunction)convert_named : NULL));
    PetscCall(compose(B, "MatProductSetFromOptions", k->name, k->base, into ? (PetscVoidFunction)k->products : NULL));
    PetscCall(compose(B, "MatProductSetFromOptions", k->base, k->name, into ? (PetscVoidFunction)k->products : NULL));
    PetscCall(compose(B, "MatProductSetFromOptions", k->name, k->dense, into ? (PetscVoidFunction)dense_products : NULL));
    *out = B;
    PetscFunctionReturn(0);
}

/* The conversion PETSc finds by name (MatConvert), either way: into an
 * aijhsp kind where the type asked for is one ("aijhsp" or its seq or mpi
 * name), else back to the base; the kind is A's, seq or mpi. */
static PetscErrorCode convert_named(Mat A, MatType type, MatReuse reuse, Mat *out)
{
    PetscBool into, seq;

    PetscFunctionBegin;
    PetscCall(PetscStrendswith(type, "hsp", &into));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seq));
    PetscCall(convert(seq ? seq_kind : mpi_kind, into, A, reuse, out));
    PetscFunctionReturn(0);
}

/* A new matrix of either kind: its base type's, then made of the kind. */
static PetscErrorCode MatCreate_SeqAIJHSP(Mat A)
{
    PetscFunctionBegin;
    PetscCall(MatSetType(A, MATSEQAIJ));
    PetscCall(convert(seq_kind, PETSC_TRUE, A, MAT_INPLACE_MATRIX, &A));
    PetscFunctionReturn(0);
}
static PetscErrorCode MatCreate_MPIAIJHSP(Mat A)
{
    PetscFunctionBegin;
    PetscCall(MatSetType(A, MATMPIAIJ));
    PetscCall(convert(mpi_kind, PETSC_TRUE, A, MAT_INPLACE_MATRIX, &A));
    PetscFunctionReturn(0);
}

PetscErrorCode PetscHspgemmRegister(void)
{
    static PetscBool done;

    PetscFunctionBegin;
    if (done) PetscFunctionReturn(0);
    done = PETSC_TRUE;
    PetscCall(hsp_petsc_node_share());
    PetscCall(MatRegister(MATSEQAIJHSP, MatCreate_SeqAIJHSP));
    PetscCall(MatRegister(MATMPIAIJHSP, MatCreate_MPIAIJHSP));
    PetscCall(MatRegisterRootName(MATAIJHSP, MATSEQAIJHSP, MATMPIAIJHSP));
    PetscCall(PetscLogEventRegister("HspSymbolic", MAT_CLASSID, &hsp_petsc_events[0]));
    PetscCall(PetscLogEventRegister("HspNumeric", MAT_CLASSID, &hsp_petsc_events[1]));
    PetscCall(options_check());
    PetscFunctionReturn(0);
}

/* What PETSc calls when -dll_append loads libhspgemm_petsc. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_hspgemm_petsc(void);
PetscErrorCode PetscDLLibraryRegister_hspgemm_petsc(void)
{
    return PetscHspgemmRegister();
}
