"""hspgemm.matmul, rap and transpose against scipy's own products, and their errors."""
import os
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import hspgemm

DEVICE = "cpu"


def random_csr(m, n, density, seed, dtype=np.float64, empty_rows=False):
    """An m x n random CSR array; with empty_rows every third row is empty."""
    rng = np.random.default_rng(seed)
    M = sp.random_array((m, n), density=density, format="csr", dtype=dtype, rng=rng)
    if empty_rows and m:
        M = sp.csr_array(sp.diags_array((np.arange(m) % 3 != 0).astype(dtype)) @ M)
    return M


def assert_product(C, ref, dtype):
    """C is a sorted csr_array of dtype equal to the dense ref (within dtype's rounding)."""
    assert isinstance(C, sp.csr_array) and C.dtype == dtype
    assert C.shape == ref.shape and C.has_sorted_indices
    for i in range(C.shape[0]):
        row = C.indices[C.indptr[i]:C.indptr[i + 1]]
        assert np.all(np.diff(row) > 0), f"row {i} is not strictly increasing"
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C.toarray(), ref, rtol=tol, atol=tol * max(1.0, np.abs(ref).max(initial=0)))


SHAPES = [(1, 1, 1), (30, 40, 20), (200, 200, 200), (100, 7, 300), (0, 5, 4), (5, 0, 4), (300, 300, 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_random_shapes(m, k, n, dtype):
    A = random_csr(m, k, 0.1, m + k, dtype, empty_rows=True)
    B = random_csr(k, n, 0.1, k + n, dtype)
    assert_product(hspgemm.matmul(A, B, device=DEVICE), (A.astype(np.float64) @ B.astype(np.float64)).toarray(),
                   dtype)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "matrix"])
def test_input_formats(fmt):
    A, B = random_csr(60, 50, 0.1, 1), random_csr(50, 70, 0.1, 2)
    convert = (lambda M: sp.csr_matrix(M)) if fmt == "matrix" else (lambda M: M.asformat(fmt))
    C = hspgemm.matmul(convert(A), convert(B), device=DEVICE)
    assert type(C) is (sp.csr_matrix if fmt == "matrix" else sp.csr_array)  # scipy's container
    assert_product(sp.csr_array(C), (A @ B).toarray(), np.float64)


def test_long_rows_grow():
    """Rows with many more products than a first buffer holds grow (both grow modes)."""
    A = random_csr(50, 4000, 0.3, 3)
    B = random_csr(4000, 3000, 0.05, 4)
    for grow in ("realloc", "copy"):
        C = hspgemm.matmul(A, B, device=DEVICE, grow=grow, methods="dense")
        assert_product(C, (A @ B).toarray(), np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bitmap(dtype):
    """methods="bitmap": blocked into 8x8 bitmaps, scipy's product; the stats say so."""
    A, B = random_csr(130, 70, 0.1, 11, dtype), random_csr(70, 90, 0.2, 12, dtype)
    with hspgemm.Context(DEVICE, methods="bitmap") as ctx:
        C, stats = ctx.matmul(A, B, stats=True)
    assert_product(C, (A @ B).toarray(), dtype)
    assert stats["bitmap"] and stats["blocks_c"] > 0 and stats["nnz_c"] == C.nnz


@pytest.mark.parametrize("methods", [None, "bitmap"])
def test_pattern(methods):
    """pattern=True: the pattern of A @ B with every value 1."""
    A, B = random_csr(90, 60, 0.1, 13), random_csr(60, 80, 0.15, 14)
    with hspgemm.Context(DEVICE, methods=methods, pattern=True) as ctx:
        C = ctx.matmul(A, B)
    ones = (abs(A) @ abs(B)).astype(bool).astype(np.float64)
    assert (C != ones).nnz == 0 and np.all(C.data == 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unsorted(dtype):
    """unsorted=True: C says its indices are unsorted, has rows out of order, and once sorted is
    the sorted product bit for bit; it goes back in as an operand; rap stays sorted."""
    A, B = random_csr(300, 200, 0.1, 5, dtype), random_csr(200, 400, 0.1, 6, dtype)
    S = hspgemm.matmul(A, B, device=DEVICE)
    with hspgemm.Context(DEVICE, unsorted=True) as ctx:
        U = ctx.matmul(A, B)
        assert not U.has_sorted_indices
        assert any(np.any(np.diff(U.indices[U.indptr[i]:U.indptr[i + 1]]) < 0) for i in range(U.shape[0]))
        U2 = U.copy()
        U2.sort_indices()
        assert np.array_equal(U2.indptr, S.indptr) and np.array_equal(U2.indices, S.indices)
        assert np.array_equal(U2.data, S.data)
        ref = (A.astype(np.float64) @ B.astype(np.float64) @ B.T.astype(np.float64)).toarray()
        np.testing.assert_allclose(ctx.matmul(U, B.T).toarray(), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
        P = random_csr(300, 40, 0.05, 7, dtype)
        assert_product(ctx.rap(A @ A.T, P), (P.T @ (A @ A.T) @ P).toarray(), dtype)
    M = hspgemm.matmul(A, B, device=DEVICE, unsorted=True)
    assert not M.has_sorted_indices and abs(M - S).max() == 0


def test_duplicates_and_unsorted_input_summed():
    rows, cols = np.array([0, 0, 1, 0, 2]), np.array([2, 0, 1, 2, 0])
    A = sp.coo_array((np.array([1.0, 2.0, 3.0, 4.0, 5.0]), (rows, cols)), shape=(3, 3))
    kept = (A.row.copy(), A.col.copy(), A.data.copy())
    C = hspgemm.matmul(A, sp.eye_array(3, format="csr"), device=DEVICE)
    assert_product(C, A.toarray(), np.float64)
    assert all(np.array_equal(a, b) for a, b in zip(kept, (A.row, A.col, A.data))), "the caller's COO changed"


def test_caller_arrays_untouched_and_result_not_copied():
    A = random_csr(100, 100, 0.05, 5)
    before = [x.copy() for x in (A.indptr, A.indices, A.data)]
    C = hspgemm.matmul(A, A, device=DEVICE)
    assert all(np.array_equal(x, y) for x, y in zip(before, (A.indptr, A.indices, A.data)))
    for x in (C.indices, C.data):  # numpy arrays over the library's own arrays, not copies
        while isinstance(x, np.ndarray) and x.base is not None:
            x = x.base
        assert isinstance(x, memoryview) and type(x.obj).__name__ == "Array"


def test_precision():
    A32 = random_csr(40, 40, 0.1, 6, np.float32)
    A64 = A32.astype(np.float64)
    assert hspgemm.matmul(A32, A32, device=DEVICE).dtype == np.float32
    assert hspgemm.matmul(A32, A64, device=DEVICE).dtype == np.float64
    assert hspgemm.matmul(A64, A64, device=DEVICE, precision="float32").dtype == np.float32
    Ai = sp.csr_array(np.array([[1, 2], [0, 3]], dtype=np.int64))
    assert_product(hspgemm.matmul(Ai, Ai, device=DEVICE), np.array([[1.0, 8.0], [0.0, 9.0]]), np.float64)
    with pytest.raises(ValueError, match="precision"):
        hspgemm.matmul(A64, A64, device=DEVICE, precision="int8")


def test_cancellation_kept_unless_dropped():
    """A sum that cancels is kept as an explicit zero, as the C library keeps it; drop_zeros=True leaves
    it out, as scipy does."""
    A = sp.csr_array(np.array([[1.0, 1.0]]))
    B = sp.csr_array(np.array([[1.0], [-1.0]]))
    assert hspgemm.matmul(A, B, device=DEVICE, drop_zeros=True).nnz == 0
    C = hspgemm.matmul(A, B, device=DEVICE)
    assert C.nnz == 1 and C.data[0] == 0.0


def test_stats():
    A = random_csr(200, 200, 0.05, 7)
    C, st = hspgemm.matmul(A, A, device=DEVICE, threads=2, stats=True)
    assert st["nnz_c"] == C.nnz and st["device"] == "cpu" and st["threads"] == 2
    assert st["precision"] == "double" and len(st["ms_stage"]) == 4 and len(st["methods"]) == 3
    assert st["flops"] == 2 * int(((A != 0).astype(int) @ (np.diff(A.indptr)[:, None])).sum())
    assert 0 <= st["ms_other"] <= st["ms_total"]


def test_deterministic():
    A = random_csr(300, 300, 0.05, 9)
    with hspgemm.Context(DEVICE, deterministic=True) as ctx:
        C1, C2 = ctx.matmul(A, A), ctx.matmul(A, A)
    assert (C1.indices == C2.indices).all() and (C1.data.view(np.uint64) == C2.data.view(np.uint64)).all()


def test_profile(tmp_path):
    """A profile's methods reach the bins of an OpenCL device, C unchanged."""
    A = random_csr(2000, 2000, 0.005, 21)
    with pytest.raises(hspgemm.Error, match="nonexistent"):
        hspgemm.Context("cpu", profile=str(tmp_path / "nonexistent"))
    opencl = [d["name"] for d in hspgemm.devices() if d["name"].startswith("opencl") and d["usable"]]
    if not opencl:
        pytest.skip("no OpenCL device: profiles hold a GPU device's methods")
    with hspgemm.Context(opencl[-1], small_nnz=-1, profile="none") as ctx:
        C0, st0 = ctx.matmul(A, A, stats=True)
    assert st0["profile"] == "" and "esc" not in st0["bin_methods"].values()
    f = tmp_path / "profile"
    f.write_text(f"# a test\ndevice double {st0['device']}\nrows 0 1000000 esc\n")
    with hspgemm.Context(opencl[-1], small_nnz=-1, profile=str(f)) as ctx:
        C1, st1 = ctx.matmul(A, A, stats=True)
    assert st1["profile"] == str(f) and set(st1["bin_methods"].values()) == {"esc"}
    assert set(st1["bin_methods"]) == set(st0["bin_methods"])
    np.testing.assert_allclose(C1.toarray(), C0.toarray(), rtol=1e-12)


def test_errors():
    A = random_csr(223, 472, 0.05, 8)
    with pytest.raises(hspgemm.ShapeError, match="223 x 472") as e:
        hspgemm.matmul(A, A, device=DEVICE)
    assert e.value.status == "shape mismatch" or e.value.status
    with pytest.raises(TypeError, match="scipy.sparse"):
        hspgemm.matmul(A.toarray(), A.T, device=DEVICE)
    with pytest.raises(TypeError, match="complex"):
        hspgemm.matmul(A.astype(np.complex128), A.T, device=DEVICE)
    bad = sp.csr_array((np.ones(2), np.array([0, 9]), np.array([0, 1, 2])), shape=(2, 3))  # column 9 of 3
    with pytest.raises(hspgemm.InvalidMatrixError, match="row 1"):
        hspgemm.matmul(bad, sp.eye_array(3, format="csr"), device=DEVICE)
    with pytest.raises(hspgemm.Error):
        hspgemm.Context(device="frobnicate")
    with pytest.raises(ValueError, match="method"):
        hspgemm.Context(device=DEVICE, methods="fastest")


def test_context_reuse_and_close():
    A = random_csr(80, 80, 0.1, 9)
    with hspgemm.Context(device=DEVICE, threads=2) as ctx:
        for _ in range(3):
            assert_product(ctx.matmul(A, A), (A @ A).toarray(), np.float64)
    with pytest.raises(ValueError, match="closed"):
        ctx.matmul(A, A)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="the process may run on one CPU only")
def test_threads_0_counts_the_cpus_the_process_may_run_on():
    """threads=0 made where the process may run on one CPU (taskset, mpiexec's binding): one
    thread, not one per online CPU."""
    allowed = os.sched_getaffinity(0)
    A = random_csr(200, 200, 0.05, 9)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        ctx = hspgemm.Context(device=DEVICE, threads=0)
    finally:
        os.sched_setaffinity(0, allowed)
    with ctx:
        _, st = ctx.matmul(A, A, stats=True)
    assert st["threads"] == 1


def test_threads_share_a_context():
    """Calls from several Python threads on one context take turns, each right."""
    A = random_csr(300, 300, 0.02, 10)
    ref = (A @ A).toarray()
    results = []
    with hspgemm.Context(device=DEVICE) as ctx:
        threads = [threading.Thread(target=lambda: results.append(ctx.matmul(A, A))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(results) == 4
    for C in results:
        assert_product(C, ref, np.float64)


@pytest.mark.parametrize("order", ["r-ap", "ra-p"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rap(order, dtype):
    A = random_csr(120, 120, 0.05, 11, dtype)
    P = random_csr(120, 30, 0.1, 12, dtype)
    ref = (P.T.astype(np.float64) @ A.astype(np.float64) @ P.astype(np.float64)).toarray()
    assert_product(hspgemm.rap(A, P, order=order, device=DEVICE), ref, dtype)
    R = random_csr(25, 120, 0.1, 13, dtype)
    C, st = hspgemm.rap(A, P, R, order=order, device=DEVICE, stats=True)
    assert_product(C, (R.astype(np.float64) @ A.astype(np.float64) @ P.astype(np.float64)).toarray(), dtype)
    assert len(st) == 2 and st[1]["nnz_c"] == C.nnz
    with pytest.raises(ValueError, match="order"):
        hspgemm.rap(A, P, order="rap", device=DEVICE)


def test_transpose():
    for dtype in (np.float32, np.float64):
        A = random_csr(70, 40, 0.1, 14, dtype)
        T = hspgemm.transpose(A)
        assert_product(T, A.T.toarray(), dtype)


def test_devices():
    devs = hspgemm.devices()
    assert devs[0]["name"] == "cpu" and devs[0]["usable"] and not devs[0]["is_gpu"]
    assert {"description", "wavefront", "local_mem", "fp64", "memory", "note"} <= set(devs[0])


def test_gil_released_during_a_product():
    """Another Python thread runs while a product works: the library holds no GIL."""
    A = hspgemm.generate("rmat:15,8")
    started, count = threading.Event(), 0
    with hspgemm.Context(device=DEVICE, threads=1) as ctx:
        ctx.matmul(A, A)  # warm
        worker = threading.Thread(target=lambda: (started.set(), ctx.matmul(A, A)))
        worker.start()
        started.wait()
        while worker.is_alive():
            count += 1
        worker.join()
    assert count > 500000, f"the main thread ran {count} loops during the product (held: under 100000)"


def test_ctrl_c_during_a_product_is_raised(child_process):
    """SIGINT during a long loop of products ends it with KeyboardInterrupt, soon."""
    import signal
    import subprocess
    import sys
    import time
    code = ("import hspgemm, sys\nA = hspgemm.generate('rmat:15,8')\nprint('ready', flush=True)\n"
            "while True:\n    hspgemm.matmul(A, A, device='cpu')\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         **child_process)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err
    assert time.monotonic() - t < 10
