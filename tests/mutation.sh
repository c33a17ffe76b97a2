#!/bin/sh
# mutation.sh: plants small bugs (mutants), one at a time, in a scratch copy
# of the source tree and runs the test programs against each, stopping at the
# first that fails.  Every mutant must be caught: one that no test catches,
# or whose pattern no longer matches the source exactly once ("did not
# apply"), makes the run fail.  The real tree is never written.
#
# usage: tests/mutation.sh [--check] [SRCDIR]    (make mutation runs it)
#   --check              only check that every mutant applies to SRCDIR
#   MUTANTS="a b"        the mutants to plant (default: all, names below)
#   MUTATION_ORDER=suite run the tests in the suite's order (the TESTS of
#                        Makefile.am) rather than each mutant's likely
#                        catchers first, then the rest; =first runs only
#                        the likely catchers (quick, but a miss is not final)
#   MUTATION_CONFIGURE   options for configure in the scratch copy
#   MUTATION_JOBS        make -j (default 2); MUTATION_TIMEOUT: seconds a
#                        test may take before it counts as caught by a hang
#                        (default 1800)
#   MUTATION_LOGS        where the build and test logs go (default
#                        ./mutation-logs); MUTATION_KEEP=1 keeps the copy
set -u

check_only=0
if [ "${1:-}" = "--check" ]; then check_only=1; shift; fi
srcdir=$(cd "${1:-$(dirname "$0")/..}" && pwd) || exit 2
jobs=${MUTATION_JOBS:-2}
limit=${MUTATION_TIMEOUT:-1800}
logs=${MUTATION_LOGS:-$(pwd)/mutation-logs}

# The mutants: name, file, the exact text replaced (it must occur once in the
# file), its replacement, and the tests likely to catch it (tried first).
all_mutants() {
    # rows whose bound is W times a power of two go one bin too high
    mutant bins-pow2 src/spgemm/bins.h '(uint64_t)(u - 1) / (uint64_t)bins->width' \
        '(uint64_t)u / (uint64_t)bins->width' 'tests/t_bins tests/t_multiply'
    # -o writes A instead of C
    mutant cli-writes-a cli/cmd_multiply.c 'hsp_mm_write(a->output, C)' 'hsp_mm_write(a->output, A)' 'tests/t_cli.sh'
    # a values-only reuse in float adds to C's old values
    mutant plan-float-stale src/spgemm/plan.c 'k++) row[k - start] = 0;' 'k++) if (sizeof(VT) == 8) row[k - start] = 0;' \
        'tests/t_rap'
    # bin 1's chunks all start at the bin's first row
    mutant single-chunk-offset src/spgemm/stages.c 'r->first + chunk * r->rows_per_chunk' 'r->first + chunk' \
        'tests/t_multiply@bufsvm.dev tests/t_multiply@nosvm.dev'
    # the prolongator's smoothing weight halved
    # a connection on the threshold is weak (PyAMG's is strong)
    mutant strength-threshold src/amg/aggregate.c 'a2 >= strong_bound(classical, theta2, ni, j->norm[c])' \
        'a2 > strong_bound(classical, theta2, ni, j->norm[c])' 'tests/t_amg'
    # classical strength measured one way (PyAMG's: row i's largest alone), not both ways
    mutant strength-classical-one-way src/amg/aggregate.c 'theta2 * larger(ni, nj)' 'theta2 * ni' 'tests/t_amg'
    # on the device, classical strength measured by row i's largest alone
    mutant strength-classical-device kernels/amg.cl 'theta * theta * fmax(rmax[i], rmax[j])' \
        'theta * theta * rmax[i]' 'tests/t_amg@nosvm.dev'
    # classical AMG: a strong F neighbour's coupling lumped into the diagonal where it could be spread
    mutant classical-lump-strong src/amg/classical.c 'if (sum == 0) return a;' 'if (sum != 0) return a;' \
        'tests/t_classical'
    # classical AMG: a truncated row not scaled back to the sum of all its weights
    mutant classical-truncate-unscaled src/amg/classical.c 'part = sum_of(w, kept), scale = part != 0 ? all / part : 1;' \
        'part = sum_of(w, kept), scale = part != 0 ? (part + 0 * all) / part : 1;' 'tests/t_classical'
    # classical AMG: strength by |a_ij|, not by the coupling's sign against the diagonal's
    mutant classical-strength-abs src/amg/classical.c 'sign * value(A, k) >= j->theta * most' \
        'fabs(value(A, k)) >= j->theta * most' 'tests/t_classical'
    # classical AMG: the points left by the first pass all F, even those with no C point to interpolate from
    mutant classical-left-fine src/amg/classical.c 'cf[i] = fine ? FINE : 0;' 'cf[i] = FINE;' 'tests/t_classical'
    # the diagonal's error names the first row of the chunk where a row lacks one
    mutant diagonal-bad-row src/amg/aggregate.c 'j->bad[c] = i;' 'j->bad[c] = first;' 'tests/t_amg tests/t_amg_solve'
    mutant amg-omega-half src/amg/amg.c 'P, omega / rho, find};' 'P, omega / rho / 2, find};' 'tests/t_amg'
    # parallel aggregation: a node joins its first neighbour's aggregate, not the one of largest key
    mutant parallel-join-first src/amg/aggregate.c '&& (parallel || best < 0); k++)' \
        '&& (parallel < 0 || best < 0); k++)' \
        'tests/t_amg'
    # parallel aggregation: the roots visited by ascending keys, not descending
    mutant parallel-ascending src/amg/aggregate.c 'int32_t i = order ? order[at] : at;' \
        'int32_t i = order ? order[S->n - 1 - at] : at;' \
        'tests/t_amg'
    # on the device, parallel aggregation's keys left in the rows' order (the host's greedy roots)
    mutant parallel-device-order src/amg/gpu_amg.c 'return s == HSP_OK && parallel ?' \
        'return s == HSP_OK && parallel && 0 ?' \
        'tests/t_amg@nosvm.dev'
    # float levels: the stationary cycles run from x on the float copy (its solution, not A's)
    mutant float-levels-stationary src/amg/solve.c 'int corrections = s->sd->op.M != s->sd->level[0].A.M;' \
        'int corrections = 0;' 'tests/t_amg_solve'
    # float levels: a re-setup keeps the old float copy of A
    mutant float-levels-stale src/amg/amg.c 'if (e == HSP_OK) e = float_source(ctx, A, amg->state, &amg->level[0].A);' \
        'if (e == HSP_OK) amg->level[0].A = amg->state->fine_values ? &amg->state->fine_float : A;' 'tests/t_amg_solve'
    # a float coarsest level, symmetric to float's rounding, is taken as nonsymmetric (LU, twice the work)
    mutant coarse-float-symmetry src/amg/coarse.c '(p == HSP_DOUBLE ? 1e-12 : 1e-5)' \
        '(p == HSP_DOUBLE ? 1e-12 : 1e-12)' 'tests/t_amg_solve'
    # the checks over a run of entries miss a column out of range
    mutant check-run-range src/core/csr.c 'out |= (uint32_t)at[p] >= ncols,' 'out |= (uint32_t)at[p] > ncols + ncols,' \
        'tests/t_csr'
    # the checks over a run of entries take descents anywhere (unsorted rows, duplicates pass)
    mutant check-run-descents src/core/csr.c 'return !bad && descents == starts;' \
        'return !bad && descents >= starts;' 'tests/t_csr'
    # Chebyshev's interval PyAMG's whatever chebyshev_lower says
    mutant chebyshev-lower-ignored src/amg/smooth.c 'double lo = o->chebyshev_lower * v->rho,' \
        'double lo = (o->chebyshev_lower > 0) * v->rho / 30,' 'tests/t_amg_solve'
    # the dense Cholesky's block rows leave out the last column left of the block
    mutant cholesky-block-inner src/amg/coarse.c 'row[j] -= dot(row, b->f + (size_t)j * b->n, b->lo);' \
        'row[j] -= dot(row, b->f + (size_t)j * b->n, b->lo - (b->lo > 0));' 'tests/t_amg_solve'
    # float levels: CG's products on the float copy, not the caller's A
    mutant float-levels-outer src/amg/solve.c 'hsp_solve_spmv(s->sd, &s->sd->op, s->v[P]' \
        'hsp_solve_spmv(s->sd, &s->sd->level[0].A, s->v[P]' 'tests/t_amg_solve'
    # a resident hierarchy's coarse levels fit the caller's candidates, not the R of the level before
    mutant resident-coarse-candidates src/amg/amg_resident.c 'device_level(ctx, amg, l, l ? B : o->B, &next)' \
        'device_level(ctx, amg, l, o->B, &next)' 'tests/t_amg@nosvm.dev'
    # a long row that grows keeps all but its last entry
    mutant grow-drops-last src/spgemm/rows_impl.h 'hsp_job_grow(job, o->buf, need, used)' \
        'hsp_job_grow(job, o->buf, need, used - 1)' 'tests/t_multiply'
    # the hash accumulator overwrites a column's sum
    mutant hash-overwrites src/spgemm/rows_impl.h 'sum[h] += a * op->bval[q];' 'sum[h] = a * op->bval[q];' 'tests/t_multiply'
    # the dense accumulator's first product of a column adds to what was there
    mutant dense-stale src/spgemm/rows_impl.h 'acc[c] = a * bval[q];' 'acc[c] += a * bval[q];' 'tests/t_multiply'
    # the heap kernel's sift-down never looks at the last cursor
    mutant heap-kernel-bound kernels/heap.cl 'for (int c = 2 * x + 1; c < n; x = c' \
        'for (int c = 2 * x + 1; c < n - 1; x = c' 'tests/t_opencl@bufsvm.dev tests/t_multiply@bufsvm.dev'
    # stage 1's teams count one product too many in each long row of A
    mutant bound-team-sum kernels/bound.cl 'if (r >= 0 && !lane) ub[r] = lsum[lid];' \
        'if (r >= 0 && !lane) ub[r] = lsum[lid] + 1;' 'tests/t_multiply@bufsvm.dev'
    # stage 1's walk four entries at a time counts one product too many in each four
    mutant bound-four-loads kernels/bound.cl 'brp[c2 + 1] - brp[c2] + brp[c3 + 1] - brp[c3];' \
        'brp[c2 + 1] - brp[c2] + brp[c3 + 1] - brp[c3] + 1;' 'tests/t_multiply@bufsvm.dev'
    # the dense kernels' search of a B row takes a row whose first column is the window's start as past it
    mutant dense-bound-ends kernels/dense.cl 'if (first >= c) return lo;' 'if (first > c) return lo;' \
        'tests/t_multiply@bufsvm.dev'
    # ESC's keyed rows fetch each value from the wrong place: the place's top bit dropped
    mutant esc-keyed-place kernels/esc.cl 'lval[x - x % seg + (lkey[x] & (seg - 1))]' \
        'lval[x - x % seg + (lkey[x] & (seg / 2 - 1))]' 'tests/t_multiply@bufsvm.dev'
    # the network's steps in registers sort the last stage's eight-entry blocks in alternate directions
    mutant esc-sort8-last kernels/esc.cl 'int up = k == seg || ((x0 + e) & k) == 0;' 'int up = ((x0 + e) & k) == 0;' \
        'tests/t_multiply@bufsvm.dev'
    # ESC's merges stop a round short: rows of 2^r + 1 to 2^(r+1) entries left in two sorted halves
    mutant esc-merge-rounds kernels/esc.cl 'merged > 1 ? 32 - clz(merged - 1) : 0' \
        'merged > 1 ? 31 - clz(merged - 1) : 0' 'tests/t_warp@bufsvm.dev'
    # ESC's merges end each entry's places where the next entry's end
    mutant esc-merge-ends kernels/esc.cl 'for (int e = 0; e <= lid && e < k; e++) end += lends[e];' \
        'for (int e = 0; e <= lid + 1 && e < k; e++) end += lends[e];' 'tests/t_warp@bufsvm.dev'
    # the dense runs' sums land one rank too far: each column's sum at the next column's place
    mutant dense-run-rank kernels/dense.cl 'popcount(lbits[c >> 5] & (bit - 1))' 'popcount(lbits[c >> 5] & bit)' \
        'tests/t_multiply@bufsvm.dev'
    # RMerge's full rounds each leave out the B row of their first A entry
    mutant rmerge-round-short kernels/rmerge.cl 'from = max(0, to - (w - 1));' 'from = max(0, to - (w - 2));' \
        'tests/t_multiply@nosvm.dev tests/t_multiply@bufsvm.dev'
    # RMerge's result so far loses its last entry when it moves to the region's end
    mutant rmerge-move-short kernels/rmerge.cl 'int x = n - 1 - k * w - lane, c = 0;' \
        'int x = n - 2 - k * w - lane, c = 0;' 'tests/t_multiply@nosvm.dev tests/t_multiply@bufsvm.dev'
    # ESC's warp-sorted rows: the second entry of a row's first work-item never starts a run
    mutant esc-warp-head kernels/esc.cl 'h[1] = c[1] != INT_MAX && c[1] != c[0];' \
        'h[1] = c[1] != INT_MAX && c[1] != c[0] && lane;' 'tests/t_warp@bufsvm.dev'
    # ESC's warp rows key each product by its column alone: every value fetched from the row's first
    mutant esc-key-place kernels/esc.cl 'key[e] = q >= 0 ? bcol[q] << bits | x : INT_MAX;' \
        'key[e] = q >= 0 ? bcol[q] << bits : INT_MAX;' 'tests/t_warp@bufsvm.dev'
    # a B too wide for the warp's keys still sorted within a warp
    mutant esc-key-columns src/spgemm/gpu_rows.c 'return (int64_t)job->B->ncols * n2 <= INT32_MAX;' \
        'return (int64_t)job->B->ncols * n2 <= 2 * (int64_t)INT32_MAX + 9;' 'tests/t_warp@bufsvm.dev'
    # the device's sample of meeting products counts none (and the host's every one)
    mutant sample-shared-none kernels/bins.cl 'shared += cx == cy, x += cx <= cy' 'shared += 0, x += cx <= cy' \
        'tests/t_warp@bufsvm.dev'
    # ESC's warp rows: the scan of the entries' B row lengths skips the work-item at each distance
    mutant esc-entry-scan kernels/esc.cl 'sum += lane >= d ? below : 0;' 'sum += lane > d ? below : 0;' \
        'tests/t_warp@bufsvm.dev'
    # ESC's warp rows: the products past the first entries' walk from one entry too far
    mutant esc-entry-rest kernels/esc.cl 'walk_from(acol, brp, p0 + items, end, covered)' \
        'walk_from(acol, brp, p0 + items + 1, end, covered)' 'tests/t_warp@bufsvm.dev'
    # ESC's warp rows: the network starts a stage late, as if runs of twice the width were sorted
    mutant esc-run-start kernels/esc.cl 'k0 = 2 * esc_traders_min(w, items, xi);' \
        'k0 = 4 * esc_traders_min(w, items, xi);' 'tests/t_warp@bufsvm.dev'
    # the SpMM kernel skips each row's first entry
    mutant spmm-kernel-first kernels/spmm.cl 'spmm_entries_sum(first + lane * step,' \
        'spmm_entries_sum(first + (lane + 1) * step,' \
        'tests/t_spmm@nosvm.dev'
    # the SpMM kernel's lanes of an entry add a neighbour's sum in place of their partner's
    mutant spmm-lanes-sum kernels/spmm.cl 'if (lane < apart) lsum[lid] += lsum[lid + apart * unit];' \
        'if (lane < apart) lsum[lid] += lsum[lid + apart * unit - 1];' 'tests/t_spmm@nosvm.dev'
    # a pair of entries of C sums the first column's products into the second
    mutant spmm-pair-second kernels/spmm.cl 't0 += a[u] * bk[u][0], t1 += a[u] * bk[u][second];' \
        't0 += a[u] * bk[u][0], t1 += a[u] * bk[u][0];' 'tests/t_spmm@nosvm.dev'
    # a row's entries left over past the passes of SPMM_AHEAD lose their last
    mutant spmm-walk-rest kernels/spmm.cl 'for (; p < end; p += stride) {' 'for (; p + stride < end; p += stride) {' \
        'tests/t_spmm@nosvm.dev'
    # by blocks, a block's launch waits for B only up to the row before the last its rows reach
    mutant spmm-blocks-reach src/spmm/gpu_spmm.c 'return rows ? byte_of(B, rows - 1,' \
        'return rows > 1 ? byte_of(B, rows - 2,' 'tests/t_spmm@nosvm.dev'
    # the root search takes a work-group as settled when its own nodes are decided, whatever its neighbours
    mutant mis-settled-own kernels/amg.cl '    for (long k = arp[i]; k < arp[i + 1] && !open; k++) open =' \
        '    for (long k = arp[i]; k < arp[i + 1] && 0; k++) open =' 'tests/t_amg@nosvm.dev'
    # the device's Lanczos steps leave out the last step's vector from the next
    mutant lanczos-orth-prev kernels/amg.cl 'w[i] -= alpha * v[i] + beta * prev[i]' \
        'w[i] -= alpha * v[i]' 'tests/t_amg@nosvm.dev'
    # on the device, a node left after its root's neighbours joins the
    # aggregate of its last strong neighbour with one, not the first
    mutant agg-join-last kernels/amg.cl 'near[j] >= 0 && (best < 0 || key[j] > key[best])' \
        'near[j] >= 0 && (best < 0 || key[j] < key[best])' 'tests/t_amg@nosvm.dev'
    # the sum of a long row's pieces leaves out its first piece
    mutant spmm-pieces-first kernels/spmm.cl 'for (int q = first + lane; q < first + n; q += lanes)' \
        'for (int q = first + lane + 1; q < first + n; q += lanes)' 'tests/t_spmm@nosvm.dev'
    # a work-item of the sum of a long row's pieces takes every other of its share
    mutant spmm-parts-stride kernels/spmm.cl 'for (int q = first + lane; q < first + n; q += lanes)' \
        'for (int q = first + lane; q < first + n; q += 2 * lanes)' 'tests/t_spmm@nosvm.dev'
    # in the launch of the pieces and the other rows together, pieces first, the rows start a work-group late
    mutant spmm-both-start kernels/spmm.cl 'row_g = rows_first ? g : g - pieces_g;' \
        'row_g = rows_first ? g : g - pieces_g + 1;' 'tests/t_spmm@nosvm.dev'
    # the same, rows first: the pieces start a work-group late
    mutant spmm-both-rows-first kernels/spmm.cl 'int piece_g = rows_first ? g - row_groups : g,' \
        'int piece_g = rows_first ? g - row_groups - 1 : g,' 'tests/t_spmm@nosvm.dev'
    # a work-group of several pieces (one or two columns) looks only at its first for a row's last piece
    mutant spmm-pieces-any kernels/spmm.cl 'for (int q = 0; q < per; q++) any |=' 'for (int q = 0; q < 1; q++) any |=' \
        'tests/t_spmm@nosvm.dev'
    # column-major C's tiles by transposes: each column's 8 sums go to the column after it
    mutant spmm-tile-transpose src/spmm/spmm_rows.h 'SF(store_c)(c + q * ld, col, blocks, r->stream);' \
        'SF(store_c)(c + ((q + 1) % VL) * ld, col, blocks, r->stream);' 'tests/t_spmm'
    # NVIDIA's short rows by RMerge where A's rows hold 4 entries or more on average, not 8
    mutant short-rmerge-mean src/spgemm/gpu_stages.c 'enum { RMERGE_SHORT_MEAN = 8 };' \
        'enum { RMERGE_SHORT_MEAN = 4 };' 'tests/t_warp@bufsvm.dev'
    # C stored past the caches: the values stored so are twice the sums
    mutant spmm-stream-value src/spmm/spmm_rows.h 'SPMM_STREAM(c + k * VL, v[k]);' \
        'SPMM_STREAM(c + k * VL, v[k] + v[k]);' 'tests/t_spmm'
    # C stored past the caches at any value's alignment, not from a cache line's start
    mutant spmm-stream-line src/spmm/spmm_rows.h 'if (stream && !((uintptr_t)c & 63) && n * sizeof *v % 64 == 0) {' \
        'if (stream && !((uintptr_t)c & 7)) {' 'tests/t_spmm'
    # the CPU threads' copy by length: C's rows of 8 to 32 columns stored at the copy's rows, not A's
    mutant spmm-by-length-row src/spmm/spmm_rows.h '*ci = (SF(vec) *)(c + (order ? order[i] : i) * cs);' \
        '*ci = (SF(vec) *)(c + (order ? i : i) * cs);' 'tests/t_spmm'
    # ... and of other widths
    mutant spmm-by-length-pass src/spmm/spmm_rows.h 'SF(spmm_row)(r, i, 1, 1, order ? order[i] : i);' \
        'SF(spmm_row)(r, i, 1, 1, order ? i : i);' 'tests/t_spmm'
    # ... and of one column
    mutant spmm-by-length-one src/spmm/spmm_rows.h 'SF(spmm_store)(r, order ? order[i] : i, 0, 1, &sum);' \
        'SF(spmm_store)(r, order ? i : i, 0, 1, &sum);' 'tests/t_spmm'
    # each run of rows by length written from the order's start, not its own
    mutant spmm-by-length-runs src/spmm/ellr.c 'order[first + at[most - length_to(A, i, cap)]++] = i;' \
        'order[at[most - length_to(A, i, cap)]++] = i;' 'tests/t_spmm'
    # the copy by length kept where neighbouring rows share many columns, not few
    mutant spmm-by-length-share src/spmm/ellr.c 'neighbours_share(A) < BY_LENGTH_SHARED;' \
        'neighbours_share(A) >= 0;' 'tests/t_spmm'
    # the long rows' arrays looked for in A's index where its order begins (the GPU's copy by length)
    mutant spmm-index-pieces src/spmm/ellr.h 'return hsp_ellr_order_at(a) + (a->order ? a->nrows : 0);' \
        'return hsp_ellr_order_at(a) + (a->order ? 0 : a->nrows);' 'tests/t_spmm@nosvm.dev'
    # A's lengths not copied into its index (ELLPACK-R on a GPU)
    mutant spmm-index-lengths src/spmm/ellr.c '        if (part[k]) memcpy(at, from[k], (size_t)part[k] * sizeof *at);' \
        '        if (part[k] && k) memcpy(at, from[k], (size_t)part[k] * sizeof *at);' 'tests/t_spmm@nosvm.dev'
    # one column of C from the CSR copy of A by lanes whatever the number of A's rows
    mutant spmm-row-lanes-rows src/spmm/spmm.c 'A->nrows < FEW_ROWS_A_UNIT * (int64_t)dev->compute_units;' \
        'A->nrows > 0 * dev->compute_units;' 'tests/t_spmm@nosvm.dev'
    # one column of C from the CSR copy of A where its rows hold more than 8 entries on average, not 16
    mutant spmm-row-lanes-mean src/spmm/spmm.c 'ROW_LANES_MEAN = 2 * HSP_ELLR_LANE_MEAN };' \
        'ROW_LANES_MEAN = HSP_ELLR_LANE_MEAN };' 'tests/t_spmm@nosvm.dev'
    # two columns read from ELLPACK-R only where A's rows hold more than 32 entries on average, not 8
    mutant spmm-two-columns-ellr src/spmm/spmm.c 'A->nnz > HSP_ELLR_LANE_MEAN * (int64_t)A->nrows;' \
        'A->nnz > 4 * HSP_ELLR_LANE_MEAN * (int64_t)A->nrows;' 'tests/t_spmm@nosvm.dev'
    # the OpenCL device's compute units not read (0): no rows are few
    mutant opencl-compute-units src/device/opencl/opencl.c 'info->compute_units = (int)units;' \
        'info->compute_units = 0;' 'tests/t_spmm@nosvm.dev'
    # the copy of A's rows by length writes each row's C at its place in the copy, not A's row
    mutant spmm-order-row kernels/spmm.cl 'return ordered ? (long)order[i] : i;' 'return i;' 'tests/t_spmm@nosvm.dev'
    # the copy of rows by length takes its row pointers from A's rows in A's order
    mutant ellr-order-rows src/spmm/ellr.c 'rowptr[i] + A->rowptr[E->order[i] + 1] - A->rowptr[E->order[i]];' \
        'rowptr[i] + A->rowptr[i + 1] - A->rowptr[i];' 'tests/t_spmm@nosvm.dev'
    # stage 2's scan of the bins' figures drops the stretches of work-groups before each
    mutant bin-scan-carry kernels/bins.cl 'base[g * nbins + b] = (int)(at + before);' \
        'base[g * nbins + b] = (int)before;' 'tests/t_resident@nosvm.dev'
    # stage 4's copy in C's order takes each entry from the row before its own
    mutant arrange-rows-bisect kernels/arrange.cl 'if (lcrp[mid] <= e) lo = mid;' 'if (lcrp[mid] < e) lo = mid;' \
        'tests/t_resident@nosvm.dev'
    # stage 4's copy in C's order ends a work-group's entries at its size's rows, not its own (per)
    mutant arrange-rows-per kernels/arrange.cl 'lcrp[per] = crp[min(r0 + per, m)];' 'lcrp[per] = crp[min(r0 + n, m)];' \
        'tests/t_resident@nosvm.dev'
    # the scan of the work-groups' row sums drops the stretches before each
    mutant part-scan-carry kernels/bins.cl 'if (j < n) part[j] = at + before;' 'if (j < n) part[j] = before;' \
        'tests/t_resident@nosvm.dev'
    mutant sample-shared-all src/spgemm/sample.c 'n += cp == cq, p += cp <= cq' 'n += 1, p += cp <= cq' \
        'tests/t_warp@bufsvm.dev'
    # hash2's count takes every product of a row for a new column
    mutant hash2-count-all kernels/hash.cl 'else if (seen == -1) atomic_inc(count);' 'else atomic_inc(count);' \
        'tests/t_multiply@nosvm.dev tests/t_multiply@bufsvm.dev'
    # a prepared A's entries all land in the first slot of their row
    mutant ellr-slot-step src/spmm/ellr.c 'col[at + q * step] = A->colidx[first + q];' \
        'col[at + q] = A->colidx[first + q];' 'tests/t_spmm@bufsvm.dev'
    # SpMM's full passes over row-major B leave out their first column
    mutant spmm-pass-first src/spmm/spmm_rows.h 'for (int k = 0; k < w; k++) sum[k] += a * bp[k];' \
        'for (int k = 1; k < w; k++) sum[k] += a * bp[k];' 'tests/t_spmm'
    # SpMM's row-major copy of column-major B leaves out B's last column where the columns are not whole vectors
    mutant spmm-copy-last-column src/spmm/spmm_rows.h 'for (; j < ncols; j++)' 'for (; j + 1 < ncols; j++)' \
        'tests/t_spmm'
    # the copy's transposes leave the second row of each pair of rows as it was in one stage
    mutant spmm-copy-transpose src/spmm/spmm_rows.h '#define SPMM_HIGH(e, d) ((e) & (d) ? VL + (e) : (e) | (d))' \
        '#define SPMM_HIGH(e, d) ((e) & (d) ? VL + (e) : (e))' 'tests/t_spmm'
    # a slab of column-major B leaves out the last row of B that its entries read
    mutant spmm-slab-last-row src/spmm/spmm.c 'r.k->copy(&c, lo, sr->hi[s] + 1);' 'r.k->copy(&c, lo, sr->hi[s]);' \
        'tests/t_spmm'
    # blocks joined into a slab keep the first block's last row of B
    mutant spmm-slab-join src/spmm/spmm.c 'h = sr->hi[b] > hi ? sr->hi[b] : hi;' 'h = hi;' 'tests/t_spmm'
    # the row kernels of vectors narrower than 8 values store only the first 8 columns' vectors of a row
    mutant spmm-vecs-width src/spmm/spmm_rows.h 'SF(store_c)((VT *)ci, sum, w / VL, r->stream && beta == 0);' \
        'SF(store_c)((VT *)ci, sum, w / 8, r->stream && beta == 0);' 'tests/t_spmm'
    # SpMM's chains of sums drop a row's last entry where it has n % chains of them left over
    mutant spmm-chain-rest src/spmm/spmm_rows.h 'for (int c = 0; c + 1 < chains; c++) /* the last' \
        'for (int c = 0; c + 2 < chains; c++) /* the last' 'tests/t_spmm'
    # SpMM's rows of 8, 16 or 32 columns of row-major C add beta times their sums for beta C
    mutant spmm-vecs-beta src/spmm/spmm_rows.h 'alpha * sum[v] + beta * ci[v];' \
        'alpha * sum[v] + beta * sum[v];' 'tests/t_spmm'
    # a skew-symmetric file's entries lose their mirror
    mutant mmio-skew-mirror src/core/mmio.c 'if ((b->symmetric || b->skew) && i != j)' 'if (b->symmetric && i != j)' \
        'tests/t_mmio'
    # a row index of 0 is read as row -1
    mutant mmio-index-zero src/core/mmio.c 'if (i < 1 || i > t->rows' 'if (i < 0 || i > t->rows' 'tests/t_mmio'
    # the transpose's row pointers one row late
    mutant transpose-rowptr src/core/transpose.c 'r->T->rowptr[j] = place;' 'r->T->rowptr[j + 1] = place;' 'tests/t_rap'
    # the CSR checker takes unsorted columns (refuses duplicates only)
    mutant csr-unsorted src/core/csr.c 'bad |= c[p] <= c[p - 1];' 'bad |= c[p] == c[p - 1];' 'tests/t_csr'
    # a plan that fails to be made leaks the product it was made of
    # a block pair's pattern product leaves out the last column of B's block rows
    mutant bitmap-pattern-column src/bitmap/bitmap_multiply.c '((b >> (B * t)) & 0xff)' '((b >> (B * t)) & 0x7f)' \
        'tests/t_bitmap'
    # a block pair's values skip the row of B's block that an entry of A's block meets
    mutant bitmap-value-row src/bitmap/bitmap_multiply.c 'bv + __builtin_popcountll(b & (((uint64_t)1 << (B * t)) - 1))' \
        'bv + __builtin_popcountll(b & (((uint64_t)1 << (B * t)) >> 1))' 'tests/t_bitmap'
    # the device's block product adds into the entry of C before the right one
    mutant bitmap-kernel-entry kernels/bitmap.cl 'cval[at[J] + popcount(c & ((1UL << cbit) - 1))]' \
        'cval[at[J] + popcount(c & ((1UL << cbit) >> 1))]' 'tests/t_bitmap@nosvm.dev'
    # the device writes the block columns of a block row of C over 512 blocks from last to first
    mutant bitmap-kernel-order kernels/bitmap.cl 'if (yes) ckey[cb + done + at]' 'if (yes) ckey[cb + n - 1 - done - at]' \
        'tests/t_bitmap@nosvm.dev'
    mutant plan-leak src/spgemm/plan.c '!= HSP_OK) hsp_csr_free(*C), *C = NULL;' '!= HSP_OK) *C = NULL;' 'tests/t_faults'
    # the AMG solve's W-cycle visits each coarser level once (a V-cycle)
    mutant solve-w-once src/amg/cycle.c 'int visits = o->cycle == HSP_CYCLE_W && l + 2 < sd->nlevels ? 2 : 1;' \
        'int visits = 1;' 'tests/t_amg_solve'
    # forward-backward Gauss-Seidel sweeps forward after the coarse correction too
    mutant solve-sweep-post-forward src/amg/smooth.c 'if (!halves || at == HSP_SMOOTH_POST) gauss_seidel(sd->ctx, v, x, b, 1, 0);' \
        'if (!halves || at == HSP_SMOOTH_POST) gauss_seidel(sd->ctx, v, x, b, halves && at == HSP_SMOOTH_POST ? 0 : 1, 0);' \
        'tests/t_amg_solve'
    # the residual after a forward sweep from zero leaves out the columns of the parts before
    mutant solve-zero-residual-parts src/amg/smooth.c 'if (M->colidx[k] > i || M->colidx[k] < lo) sum' \
        'if (M->colidx[k] > i) sum' 'tests/t_amg_solve'
    # ... or counts the diagonal in
    mutant solve-zero-residual-diagonal src/amg/smooth.c 'M->colidx[k - 1] > i; k--)' 'M->colidx[k - 1] >= i; k--)' \
        'tests/t_amg_solve'
    # Chebyshev's later steps take half the residual's share
    mutant solve-chebyshev-step src/amg/smooth.c '2 * next / delta' 'next / delta' 'tests/t_amg_solve'
    # hybrid Gauss-Seidel keeps all ghost rows' values but the first from before a sweep
    mutant solve-ghost-first src/amg/smooth.c 'for (int64_t k = 0; k < v->nghost; k++)' \
        'for (int64_t k = 1; k < v->nghost; k++)' 'tests/t_amg_solve'
    # the coarse correction prolonged at half its size
    mutant solve-prolong-half src/amg/cycle.c 'hsp_solve_spmv(sd, &v->P, next->x, x, 1, x, NULL, 0);' \
        'hsp_solve_spmv(sd, &v->P, next->x, x, 0.5, x, NULL, 0);' 'tests/t_amg_solve'
    # CG's new direction keeps half the old one's share
    mutant solve-cg-beta src/amg/solve_ops.c 'hsp_vec_direction(sd->ctx, n, z, sd->scalar[num] / sd->scalar[den], p);' \
        'hsp_vec_direction(sd->ctx, n, z, sd->scalar[num] / sd->scalar[den] / 2, p);' 'tests/t_amg_solve'
    # the device SpMV's team adds each item's sum to its own where it should add its partner's
    mutant solve-spmv-team-sum kernels/solve.cl 'if (lane < d) l[t] += l[t + d];' 'if (lane < d) l[t] += l[t];' \
        'tests/t_amg@nosvm.dev tests/t_amg_solve@nosvm.dev'
    # the device SpMV's items of a row skip every other run of entries
    mutant solve-spmv-stride kernels/solve.cl 'k < arp[i + 1]; k += team) sum' 'k < arp[i + 1]; k += 2 * team) sum' \
        'tests/t_amg@nosvm.dev tests/t_amg_solve@nosvm.dev'
    # CG's alpha and beta on the device the other way up
    mutant solve-device-coefficient kernels/solve.cl 'if (num >= 0) a = sums[num] / sums[den];' \
        'if (num >= 0) a = sums[den] / sums[num];' 'tests/t_amg@nosvm.dev tests/t_amg_solve@nosvm.dev'
    # the device smoother's step replaces x where it should add to it
    mutant solve-device-step kernels/solve.cl '            u[i] += s;' '            u[i] = s;' \
        'tests/t_amg@nosvm.dev tests/t_amg_solve@nosvm.dev'
    # the coarsest level's LU solve leaves out the first row swap
    mutant solve-lu-first-swap src/amg/coarse.c 'for (int32_t c = 0; f->perm && c < n; c++) {' \
        'for (int32_t c = 1; f->perm && c < n; c++) {' 'tests/t_amg_solve'
    # hsp_pool_chunks gives each thread a range of its own first (its chunks then out of order)
    mutant pool-chunks-ranges src/core/pool.c 'run_ranges(pool, nchunks, 1, fn, arg);' \
        'run_ranges(pool, nchunks, pool->nthreads, fn, arg);' 'tests/t_pool tests/t_multiply'
    # hsp_pool_chunks_kept: every thread starts at the first range, not its own
    mutant pool-kept-own src/core/pool.c 'int k = (tid + j) % run->ranges;' 'int k = j;' 'tests/t_pool'
    # the split of rows leaves out each row's own weight where it seeks a cut
    mutant pool-split-each src/core/pool.c 'prefix[mid] - prefix[0] + each * mid < target' \
        'prefix[mid] - prefix[0] < target' 'tests/t_pool'
}

# How many times the text $MUT_OLD occurs in file $1.
occurrences() {
    awk 'BEGIN { o = ENVIRON["MUT_OLD"]; n = 0 }
         { s = $0; while ((i = index(s, o)) > 0) { n++; s = substr(s, i + length(o)) } }
         END { print n }' "$1"
}

# File $1 with $MUT_OLD replaced by $MUT_NEW, onto stdout.
replaced() {
    awk 'BEGIN { o = ENVIRON["MUT_OLD"]; r = ENVIRON["MUT_NEW"] }
         { i = index($0, o); if (i) $0 = substr($0, 1, i - 1) r substr($0, i + length(o)); print }' "$1"
}

selected() {
    [ -z "${MUTANTS:-}" ] && return 0
    for want in $MUTANTS; do [ "$want" = "$1" ] && return 0; done
    return 1
}

row() { printf '%-20s %-20s %-32s %8s\n' "$1" "$2" "$3" "$4"; }

# What make check's log $1 shows of a failed test: its first failed
# assertion and how many failed, else its last error (a crash: the status).
first_failure() {
    n=$(grep -c '^FAIL:' "$1")
    { grep -m 1 '^FAIL:' "$1" || grep '^ERROR:' "$1" | tail -n 1; } | cut -c 1-150
    [ "$n" -gt 1 ] && echo "  ($n failed)"
}

# Run tests (each through make check) until one fails; its name into $caught.
run_tests() {
    caught=MISSED
    for t in "$@"; do
        base=${t##*/}
        $timeout make check TESTS="$t" > "$logs/$name.$base.make.log" 2>&1
        status=$?
        [ $status -eq 0 ] && continue
        caught=$base
        [ $status -eq 124 ] && caught="$base (timeout)"
        detail=$(first_failure "$logs/$name.$base.make.log")
        return
    done
}

# Plant mutant $name in the copy, build, run the tests, put the file back.
plant() {
    start=$(date +%s)
    cp "$file" "$work/orig"
    replaced "$work/orig" > "$file"
    detail=
    if ! make -j"$jobs" check TESTS= > "$logs/$name.build.log" 2>&1; then
        caught="DID NOT BUILD"
        failed=1
    else
        order=$first
        [ "${MUTATION_ORDER:-}" = suite ] && order=
        [ "${MUTATION_ORDER:-}" = first ] || for t in $suite; do
            case " $order " in *" $t "*) continue ;; esac
            order="$order $t"
        done
        run_tests $order
        if [ "$caught" = MISSED ]; then failed=1; else catchers="$catchers ${caught%% *}"; fi
    fi
    cp "$work/orig" "$file"
    row "$name" "$file" "$caught" $(($(date +%s) - start))
    [ -n "$detail" ] && details="$details$name: $detail
"
}

# The mutant function: check that it applies; unless --check, plant it.
mutant() {
    name=$1 file=$2 first=$5
    selected "$name" || return 0
    seen="$seen $name"
    MUT_OLD=$3 MUT_NEW=$4
    export MUT_OLD MUT_NEW
    count=$(occurrences "$file" 2>/dev/null || echo 0)
    if [ "$count" != 1 ]; then
        row "$name" "$file" "DID NOT APPLY ($count matches)" -
        failed=1
        return 0
    fi
    if [ $check_only = 1 ]; then row "$name" "$file" applies -; return 0; fi
    plant
}

failed=0 catchers='' details='' seen=''

# Every name in $MUTANTS must be a mutant of the list.
check_names() {
    for want in ${MUTANTS:-}; do
        case " $seen " in *" $want "*) ;; *) echo "mutation.sh: no mutant named $want" >&2; failed=1 ;; esac
    done
}
header() { row mutant file "caught by" seconds; row -------------------- -------------------- \
    -------------------------------- --------; }
if [ $check_only = 1 ]; then
    cd "$srcdir" || exit 2
    header
    all_mutants
    check_names
    exit $failed
fi

if ! git -C "$srcdir" rev-parse --git-dir > /dev/null 2>&1; then
    echo "mutation.sh: $srcdir is not a git checkout (the copy is of its tracked files)" >&2
    exit 2
fi
timeout=
command -v timeout > /dev/null && timeout="timeout $limit"
work=$(mktemp -d "${TMPDIR:-/tmp}/hspgemm-mutation.XXXXXX") || exit 2
[ "${MUTATION_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$logs" "$work/tree" || exit 2
t0=$(date +%s)

# The tracked files as they are in the working tree (uncommitted changes
# included: git stash create makes a commit of them and touches nothing).
rev=$(git -C "$srcdir" stash create) || exit 2
git -C "$srcdir" archive "${rev:-HEAD}" | tar -x -C "$work/tree" || exit 2
cd "$work/tree" || exit 2
echo "mutation: a copy of $srcdir in $work/tree; logs in $logs"
if ! { autoreconf -fi && ./configure ${MUTATION_CONFIGURE:-}; } > "$logs/configure.log" 2>&1; then
    echo "mutation: configure failed (see $logs/configure.log)" >&2
    exit 1
fi
if ! make -j"$jobs" check TESTS= > "$logs/build.log" 2>&1; then
    echo "mutation: the copy does not build (see $logs/build.log)" >&2
    exit 1
fi
suite=$(printf 'mutation-tests:\n\t@echo $(TESTS)\n' | make -s -f Makefile -f - mutation-tests)
header
all_mutants
check_names

# A test that caught a mutant must pass on the unmutated copy, else its
# catch means nothing.
for t in $(printf '%s\n' $catchers | sort -u); do
    name=baseline
    make -j"$jobs" check TESTS= > "$logs/baseline.build.log" 2>&1 &&
        $timeout make check TESTS="tests/$t" > "$logs/baseline.$t.make.log" 2>&1 && continue
    echo "mutation: tests/$t fails with no mutant planted; its catches mean nothing" >&2
    failed=1
done
[ -n "$details" ] && printf '\nfirst failure of each catching test:\n%s' "$details"
echo "mutation: $(($(date +%s) - t0)) s in all; $([ $failed = 0 ] && echo 'every mutant caught' ||
    echo 'FAILED: a mutant missed, not applied or not built, or a catching test fails without mutants')"
exit $failed
