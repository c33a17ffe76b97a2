"""hspgemm.spmm (a sparse matrix times a dense one) against scipy's A @ X, and its errors."""
import numpy as np
import pytest
import scipy.sparse as sp

import hspgemm

DEVICE = "cpu"


def operand(m, n, dtype, seed=3):
    """An m x n random CSR array with every third row empty and row 1 full."""
    rng = np.random.default_rng(seed)
    A = sp.random_array((m, n), density=0.05, format="lil", dtype=dtype, rng=rng)
    A[1, :] = rng.uniform(-1, 1, n)
    A = sp.csr_array(A)
    return sp.csr_array(sp.diags_array((np.arange(m) % 3 != 0).astype(dtype)) @ A)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("L", [1, 7, 8, 13])
def test_against_scipy(dtype, order, L):
    A = operand(120, 90, dtype)
    X = np.asarray(np.random.default_rng(L).uniform(-1, 1, (90, L)), dtype=dtype, order=order)
    Y = hspgemm.spmm(A, X, device=DEVICE)
    assert Y.dtype == dtype and Y.shape == (120, L)
    assert Y.flags.f_contiguous if order == "F" and L > 1 else Y.flags.c_contiguous
    assert Y.ctypes.data % 64 == 0  # on a cache line, so that a large product may be stored past the caches
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Y, A @ X, rtol=tol, atol=tol)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("L", [8, 32])
def test_stored_past_the_caches(monkeypatch, order, L):
    """C stored past the caches (HSPGEMM_SPMM_STREAM=always, as for a product larger than half the
    last-level cache): the array made here, and an out that begins 16 bytes past a cache line."""
    monkeypatch.setenv("HSPGEMM_SPMM_STREAM", "always")
    A = operand(120, 90, np.float64)
    X = np.asarray(np.random.default_rng(L).uniform(-1, 1, (90, L)), order=order)
    np.testing.assert_allclose(hspgemm.spmm(A, X, device=DEVICE), A @ X, rtol=1e-12, atol=1e-12)
    raw = np.empty(120 * L + 8)
    skip = (16 - raw.ctypes.data % 64) % 64 // 8
    out = raw[skip:skip + 120 * L].reshape((120, L), order=order)
    assert hspgemm.spmm(A, X, out=out, device=DEVICE) is out
    np.testing.assert_allclose(out, A @ X, rtol=1e-12, atol=1e-12)


def test_vector_alpha_beta_out_and_stats():
    A = operand(60, 40, np.float64)
    x = np.linspace(-1, 1, 40)
    y = hspgemm.spmm(A, x, device=DEVICE)
    assert y.shape == (60,)
    np.testing.assert_allclose(y, A @ x, rtol=1e-12, atol=1e-12)
    X = np.ones((40, 3), order="F")
    out = np.full((60, 3), 2.0, order="F")
    got, st = hspgemm.spmm(A, X, alpha=0.5, beta=-1.0, out=out, device=DEVICE, stats=True)
    assert got is out
    np.testing.assert_allclose(out, 0.5 * (A @ X) - 2.0, rtol=1e-12, atol=1e-12)
    assert st["flops"] == 2 * A.nnz * 3 and st["format"] == "csr" and st["ms"] >= 0


@pytest.mark.parametrize("m,k,L", [(30, 20, 0), (0, 20, 3), (30, 0, 3), (30, 0, 0), (0, 0, 0)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_empty_shapes_as_scipy(m, k, L, order):
    """X of no columns, A of no rows or no columns: scipy's shapes (an (m, 0) array for X of no
    columns: it raised), zeros where A has no columns; a prepared A too."""
    A = operand(m, k, np.float64) if m and k else sp.csr_array((m, k))
    X = np.ones((k, L), order=order)
    Y = hspgemm.spmm(A, X, device=DEVICE)
    assert Y.shape == (A @ X).shape == (m, L) and not Y.any()
    with hspgemm.Context(device=DEVICE) as ctx:
        out = np.full((m, L), 2.0, order=order)
        assert ctx.spmm(ctx.prepare(A), X, beta=1.0, out=out) is out
    np.testing.assert_array_equal(out, A @ X + 2.0)


def test_errors_leave_out_untouched():
    A = operand(30, 20, np.float64)
    with pytest.raises(hspgemm.ShapeError):
        hspgemm.spmm(A, np.ones((19, 2)), device=DEVICE)
    with pytest.raises(hspgemm.ArgumentError):
        hspgemm.spmm(A, np.ones((20, 2)), beta=1.0, device=DEVICE)
    out = np.full((30, 2), 7.0)
    with pytest.raises(hspgemm.ArgumentError):
        hspgemm.spmm(A, np.ones((20, 2)), out=out.astype(np.float32), device=DEVICE)
    with pytest.raises(hspgemm.ArgumentError):
        hspgemm.spmm(A, np.ones((20, 2, 2)), device=DEVICE)
    assert np.all(out == 7.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prepared(dtype):
    """A prepared once (in CSR on the CPU threads): products against scipy's, its info, and A changed
    afterwards."""
    A = sp.csr_array(sp.random_array((200, 150), density=0.03, format="csr", dtype=dtype,
                                     rng=np.random.default_rng(5)))
    X = np.asarray(np.random.default_rng(6).uniform(-1, 1, (150, 8)), dtype=dtype)
    want = A @ X
    with hspgemm.Context(device=DEVICE, threads=2) as ctx:
        P = ctx.prepare(A)
        info = P.info()
        assert P.shape == (200, 150) and P.dtype == dtype
        form = "csr" if DEVICE == "cpu" else "ellr"  # the CPU threads read CSR
        assert info["format"] == form and info["height"] == (0 if form == "csr" else 8) and info["nnz"] == A.nnz
        assert (info["slots"] == 0 if form == "csr" else info["slots"] >= A.nnz)
        assert info["width"] == max(np.diff(A.indptr))
        # rows of about 4 of 150 random columns: the CPU threads keep a copy by length and its order;
        # a GPU a CSR copy beside ELLPACK-R
        assert info["copy_bytes"] == info["csr_bytes"] + (4 * 200 if DEVICE == "cpu" else 0)
        A.data[:] = 1e30  # the prepared copy keeps its own entries
        tol = 1e-5 if dtype == np.float32 else 1e-12
        for order in "CF":
            Y, st = ctx.spmm(P, np.asarray(X, order=order), stats=True)
            assert st["format"] == form
            np.testing.assert_allclose(Y, want, rtol=tol, atol=tol)
        with pytest.raises(hspgemm.ShapeError):
            ctx.spmm(P, np.ones((149, 2), dtype=dtype))


def test_prepared_long_row_and_errors():
    """A row that would pad the slots past twice the entries keeps A in CSR; a closed context refuses."""
    A = sp.lil_array((64, 500))
    A[0, :] = 1.0
    for i in range(1, 64):
        A[i, i] = 2.0
    A = sp.csr_array(A)
    with hspgemm.Context(device=DEVICE, threads=2) as ctx:
        P = ctx.prepare(A)
        assert P.info()["format"] == "csr"
        np.testing.assert_allclose(ctx.spmm(P, np.ones(500)), A @ np.ones(500))
    with pytest.raises(hspgemm.Error):
        ctx.prepare(A)  # the context is closed


def test_blocks_and_cpu_share():
    """Context(spmm_blocks=, spmm_cpu_share=): an OpenCL device with buffers makes C in blocks;
    a device of system SVM leaves X's last columns to the CPU threads, the cpu device all of
    them; each C against scipy."""
    A = operand(200, 150, np.float64)
    X = np.random.default_rng(5).uniform(-1, 1, (150, 6))
    opencl = [d for d in hspgemm.devices() if d["name"].startswith("opencl") and d["usable"]]
    cases = [("cpu", {"spmm_cpu_share": 0.5}, "cpu_cols", 6)]
    cases += [(d["name"] + ",nosvm", {"spmm_blocks": 3}, "blocks", 3) for d in opencl if d["memory"] != "system SVM"][:1]
    cases += [(d["name"], {"spmm_cpu_share": 0.5}, "cpu_cols", 3) for d in opencl if d["memory"] == "system SVM"][:1]
    for device, options, key, want in cases:
        with hspgemm.Context(device, small_nnz=-1, **options) as ctx:
            Y, st = ctx.spmm(A, X, stats=True)
        np.testing.assert_allclose(Y, A @ X, rtol=1e-12, atol=1e-12)
        assert st[key] == want, (device, st)
    with pytest.raises(hspgemm.ArgumentError):
        hspgemm.Context("cpu", spmm_cpu_share=2.0)
