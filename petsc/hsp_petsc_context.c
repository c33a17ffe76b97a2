/* hsp_petsc_context.c: what the plugin's SeqAIJ and MPIAIJ products share:
 * hspgemm's context (made at the first product from the -hsp_* options,
 * freed by PetscFinalize) with its threads shared among the ranks of a
 * machine, the counts of products, the record of what a C's values were
 * made from, the check that a product made anew has C's pattern, and the
 * memory a symbolic phase hands back. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <malloc.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include "hsp_petsc_impl.h"

static hsp_context *context;
static PetscInt context_threads; /* its CPU threads */
static PetscInt counts[3];       /* symbolic A*B or A^T*B, symbolic P^T*A*P, numeric */
static PetscMPIInt node_ranks = 1; /* the ranks on this rank's machine (at registration) */
static double cpu_share = 1;         /* of the CPUs this rank may run on, its share (at registration) */
PetscLogEvent hsp_petsc_events[2];

/* This rank's share of the CPUs it may run on: a CPU that k ranks of the
 * machine may run on counts 1/k to each.  Ranks that mpiexec left unbound
 * under taskset -c 0,1 share both CPUs (1 each), ranks bound a core each
 * have theirs (1 each), ranks unbound on the whole machine share it. */
static PetscErrorCode share_cpus(MPI_Comm node)
{
    cpu_set_t mine, *all;
    int ranks_on[CPU_SETSIZE] = {0};

    PetscFunctionBegin;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine)) CPU_SET(0, &mine);
    PetscCall(PetscMalloc1(node_ranks, &all));
    PetscCallMPI(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node));
    for (PetscMPIInt r = 0; r < node_ranks; r++)
        for (int c = 0; c < CPU_SETSIZE; c++) ranks_on[c] += CPU_ISSET(c, &all[r]) != 0;
    cpu_share = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine)) cpu_share += 1.0 / ranks_on[c];
    PetscCall(PetscFree(all));
    PetscFunctionReturn(0);
}

/* At registration (collective on PETSC_COMM_WORLD): the ranks on this
 * rank's machine and this rank's share of its CPUs. */
PetscErrorCode hsp_petsc_node_share(void)
{
    MPI_Comm node;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Comm_size(node, &node_ranks));
    PetscCall(share_cpus(node));
    PetscCallMPI(MPI_Comm_free(&node));
    PetscFunctionReturn(0);
}

static PetscErrorCode context_free(void)
{
    PetscFunctionBegin;
    hsp_context_free(context);
    context = NULL;
    PetscFunctionReturn(0);
}

/* CPU threads for hspgemm: -hsp_threads, else this rank's share of the
 * CPUs it may run on (share_cpus), at least 1: more threads than that
 * would take turns on a CPU with another rank's (2 ranks of 2 threads each
 * under taskset -c 0,1 did).  *fair is then the cores of this machine
 * shared among its ranks, where that is more (mpiexec bound the rank to
 * fewer, or taskset let the ranks run on fewer), else 0.  Unbound (left to
 * the scheduler) where ranks share the machine and this one may run on
 * more CPUs than its threads: mpiexec did not bind it to a share, and
 * every rank's pool would bind its workers to the same first CPUs.  No
 * collective call: a product may run on some ranks only. */
static PetscErrorCode threads_of(PetscInt *threads, PetscBool *unbound, PetscInt *fair)
{
    PetscBool set;
    cpu_set_t mine;
    long cores = sysconf(_SC_NPROCESSORS_ONLN), allowed = cores;
    PetscInt share = cpu_share >= 1 ? (PetscInt)(cpu_share + 1e-9) : 1;
    PetscInt machine = cores > node_ranks ? (PetscInt)(cores / node_ranks) : 1;

    PetscFunctionBegin;
    if (!sched_getaffinity(0, sizeof mine, &mine)) allowed = CPU_COUNT(&mine);
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-hsp_threads", threads, &set));
    if (!set) *threads = share;
    *fair = !set && share < machine ? machine : 0;
    *unbound = node_ranks > 1 && allowed > *threads;
    PetscFunctionReturn(0);
}

/* hspgemm's context, made at the first product from the options:
 * -hsp_device, -hsp_threads, -hsp_small_nnz (hsp_options.small_nnz).  Says
 * so on stderr where mpiexec's binding or taskset left the rank fewer CPUs
 * than its share of the machine, and its threads under -info. */
PetscErrorCode hsp_petsc_context(MPI_Comm comm, hsp_context **ctx)
{
    char device[64] = "cpu";
    PetscInt threads, small = 0, fair = 0;
    PetscBool unbound = PETSC_FALSE;
    hsp_options o;

    PetscFunctionBegin;
    *ctx = context;
    if (context) PetscFunctionReturn(0);
    PetscCall(PetscOptionsGetString(NULL, NULL, "-hsp_device", device, sizeof device, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-hsp_small_nnz", &small, NULL));
    PetscCall(threads_of(&threads, &unbound, &fair));
    if (fair)
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                               "hspgemm: this rank has %" PetscInt_FMT " CPU(s) to itself of the %" PetscInt_FMT
                               " that are its share of the machine (mpiexec's binding, or taskset): hspgemm's products"
                               " use %" PetscInt_FMT " thread(s); mpiexec --bind-to none, or -hsp_threads, to choose\n",
                               threads, fair, threads));
    hsp_options_init(&o);
    o.device = device, o.threads = (int)threads, o.small_nnz = (int64_t)small, o.unbound = unbound;
    HSP_CHECK(comm, hsp_context_create(&o, &context));
    context_threads = threads;
    PetscCall(PetscInfo(NULL, "hspgemm's context: device %s, %" PetscInt_FMT " thread(s)%s\n", device, threads,
                        unbound ? ", left to the scheduler" : ""));
    PetscCall(PetscRegisterFinalize(context_free));
    *ctx = context;
    PetscFunctionReturn(0);
}

/* Has M its values?  A SeqAIJ or MPIAIJ matrix made by PETSc's own symbolic
 * phase has none until its numeric phase. */
static PetscErrorCode has_values(Mat M, PetscBool *has)
{
    Mat block[2] = {M, NULL};
    PetscBool mpi;

    PetscFunctionBegin;
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATMPIAIJ, &mpi));
    if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(M, &block[0], &block[1], NULL));
    *has = PETSC_TRUE;
    for (int k = 0; k < 2 && block[k]; k++) {
        const PetscScalar *a;

        PetscCall(MatSeqAIJGetArrayRead(block[k], &a));
        *has = *has && a;
        PetscCall(MatSeqAIJRestoreArrayRead(block[k], &a));
    }
    PetscFunctionReturn(0);
}

PetscErrorCode hsp_petsc_made_now(hsp_petsc_made *m, Mat A, Mat B, Mat C)
{
    PetscBool has[2];

    PetscFunctionBegin;
    PetscCall(has_values(A, &has[0]));
    PetscCall(has_values(B, &has[1]));
    m->fresh = has[0] && has[1];
    PetscCall(PetscObjectGetId((PetscObject)A, &m->id[0]));
    PetscCall(PetscObjectGetId((PetscObject)B, &m->id[1]));
    PetscCall(PetscObjectStateGet((PetscObject)A, &m->state[0]));
    PetscCall(PetscObjectStateGet((PetscObject)B, &m->state[1]));
    PetscCall(PetscObjectStateGet((PetscObject)C, &m->state[2]));
    PetscCall(MatGetNonzeroState(A, &m->pattern[0]));
    PetscCall(MatGetNonzeroState(B, &m->pattern[1]));
    PetscFunctionReturn(0);
}

PetscErrorCode hsp_petsc_made_keep(hsp_petsc_made *m, Mat A, Mat B, Mat C, PetscBool *keep)
{
    hsp_petsc_made now;

    PetscFunctionBegin;
    PetscCall(hsp_petsc_made_now(&now, A, B, C));
    *keep = m->fresh && now.id[0] == m->id[0] && now.id[1] == m->id[1] && now.state[0] == m->state[0] &&
            now.state[1] == m->state[1] && now.state[2] == m->state[2];
    m->fresh = PETSC_FALSE;
    PetscFunctionReturn(0);
}

PetscErrorCode hsp_petsc_same_pattern(const hsp_csr *x, const hsp_csr *c)
{
    PetscBool same = x->nrows == c->nrows && x->nnz == c->nnz;

    PetscFunctionBegin;
    for (int32_t i = 0; same && i < c->nrows; i++) same = x->rowptr[i + 1] == c->rowptr[i + 1];
    same = same && (!c->nnz || !memcmp(x->colidx, c->colidx, (size_t)c->nnz * sizeof *c->colidx));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "hspgemm: the product's pattern is no longer C's (%lld entries here; C has %lld): an operand's "
               "pattern changed since the symbolic phase", (long long)x->nnz, (long long)c->nnz);
    PetscFunctionReturn(0);
}

void hsp_petsc_old_numeric(Mat C, PetscErrorCode (*numeric)(Mat, Mat, Mat))
{
    MatProductType t = C->product->type;

    if (t == MATPRODUCT_AB) C->ops->matmultnumeric = numeric;
    if (t == MATPRODUCT_AtB) C->ops->transposematmultnumeric = numeric;
    if (t == MATPRODUCT_PtAP) C->ops->ptapnumeric = numeric;
}

void hsp_petsc_count(int which)
{
    counts[which]++;
}

void hsp_petsc_memory_back(void)
{
    hsp_release_memory();
    if (context_threads > 1) malloc_trim(0);
}

PetscErrorCode PetscHspgemmGetCounts(PetscInt *ab, PetscInt *ptap, PetscInt *numeric)
{
    PetscFunctionBegin;
    *ab = counts[0], *ptap = counts[1], *numeric = counts[2];
    PetscFunctionReturn(0);
}
