"""hspgemm.amg_setup, amg_resetup and pyamg_solver: the levels are Galerkin products, and PyAMG's
CG on them converges as on PyAMG's own hierarchy."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspgemm

DEVICE = "cpu"


def dense(M):
    return M.toarray().astype(np.float64)


@pytest.mark.parametrize("spec", ["poisson2d5:32", "poisson3d7:12"])
@pytest.mark.parametrize("order", ["r-ap", "ra-p"])
def test_levels_are_galerkin_products(spec, order):
    A = hspgemm.generate(spec)
    h = hspgemm.amg_setup(A, coarse_size=40, order=order, device=DEVICE)
    assert len(h.levels) >= 3 and h.levels[0].A is A and h.device == "cpu"
    for k, level in enumerate(h.levels[:-1]):
        nxt = h.levels[k + 1]
        assert level.P.shape == (level.A.shape[0], nxt.A.shape[0]) == (level.A.shape[0], level.naggregates)
        assert (level.R != level.P.T).nnz == 0, f"level {k}: R is not P^T"
        np.testing.assert_allclose(dense(nxt.A), dense(level.R) @ dense(level.A) @ dense(level.P), atol=1e-12)
        t = level.timings
        assert t["ms_device"] > 0 and t["ms_host"] >= 0 and 0 <= t["ms_wait"] <= h.ms_total, t
    assert h.levels[-1].P is None and h.levels[-1].R is None
    assert 1.0 < h.operator_complexity() < 2.0


def test_float32_hierarchy():
    A = hspgemm.generate("poisson2d5:24", precision="float32")
    h = hspgemm.amg_setup(A, coarse_size=40, device=DEVICE)
    assert all(level.A.dtype == np.float32 for level in h.levels)


def test_resetup_new_values():
    """2A has A's pattern and D^-1 A: P stays (to rounding: rho's Lanczos estimate runs on
    D^-1/2 A D^-1/2, whose entries round differently), every coarse operator doubles."""
    A = hspgemm.generate("poisson2d9:24")
    h = hspgemm.amg_setup(A, coarse_size=40, device=DEVICE)
    P0, A1 = h.levels[0].P.copy(), h.levels[1].A.copy()
    assert hspgemm.amg_resetup(h, 2 * A) is h
    P = h.levels[0].P
    assert (P.indptr == P0.indptr).all() and (P.indices == P0.indices).all()
    np.testing.assert_allclose(P.data, P0.data, rtol=1e-12)
    np.testing.assert_allclose(dense(h.levels[1].A), 2 * dense(A1), rtol=1e-12)
    moved = A.copy()
    moved.indices[moved.indptr[2] - 1] += 3  # row 1's last column moved right: another pattern, as many entries
    with pytest.raises(hspgemm.ArgumentError, match="row 1"):
        hspgemm.amg_resetup(h, moved)
    grown = A.tolil()
    grown[1, 20] = 1.0
    with pytest.raises(hspgemm.ArgumentError, match="4901 entries"):
        hspgemm.amg_resetup(h, sp.csr_array(grown))
    with pytest.raises(hspgemm.ShapeError):
        hspgemm.amg_resetup(h, hspgemm.generate("poisson2d9:10"))


def test_setup_errors():
    A = hspgemm.generate("poisson2d5:8").tolil()
    A[3, 3] = 0  # no diagonal entry in row 3
    with pytest.raises(hspgemm.Error, match="diagonal"):
        hspgemm.amg_setup(sp.csr_array(A), coarse_size=10, device=DEVICE)
    with pytest.raises(ValueError, match="order"):
        hspgemm.amg_setup(hspgemm.generate("poisson2d5:8"), order="rap", device=DEVICE)


@pytest.mark.parametrize("spec", ["poisson2d5:256", "poisson2d9:48", "poisson3d7:16", "poisson3d27:12"])
def test_pyamg_cg_as_on_pyamg_hierarchy(spec):
    """poisson2d5:256 took 13 iterations against PyAMG's 10 while rho was Gershgorin's bound."""
    pyamg = pytest.importorskip("pyamg")
    A = hspgemm.generate(spec)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    ours = hspgemm.pyamg_solver(A, coarse_size=100, device=DEVICE)
    theirs = pyamg.smoothed_aggregation_solver(
        A, strength=("symmetric", {"theta": 0.0}), aggregate="standard", smooth=("jacobi", {"omega": 4.0 / 3.0}),
        improve_candidates=None, max_coarse=100, max_levels=10)
    res_ours, res_theirs = [], []
    x = ours.solve(b, tol=1e-8, accel="cg", residuals=res_ours, maxiter=200)
    theirs.solve(b, tol=1e-8, accel="cg", residuals=res_theirs, maxiter=200)
    assert np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b) * 1.01
    assert len(res_ours) <= len(res_theirs) + 1, f"{len(res_ours)} iterations against PyAMG's {len(res_theirs)}"
    M = ours.aspreconditioner()
    y, info = spla.cg(A, b, rtol=1e-8, M=M, maxiter=200)
    assert info == 0 and np.linalg.norm(b - A @ y) <= 1e-7 * np.linalg.norm(b)


def _buffer_devices():
    """The device names, with ",nosvm" (memory of its own), of the OpenCL devices without system
    SVM that this build has: where a resident hierarchy is aggregated on the device."""
    return [d["name"] + ",nosvm" for d in hspgemm.devices()
            if d["name"].startswith("opencl") and d["usable"] and d["memory"] != "system SVM"][:1]


@pytest.mark.parametrize("device", ["cpu"] + _buffer_devices())
def test_resident_hierarchy_has_the_hosts_aggregates(device):
    """resident=True: A placed and every level made on the device (aggregation too where it has
    memory of its own), then brought home: the host's level shapes and P patterns, levels that are
    Galerkin products, a re-setup there, and PyAMG's CG on it within one iteration of the host's."""
    A = hspgemm.generate("poisson2d5:40")
    host = hspgemm.amg_setup(A, coarse_size=40, device=device)
    res = hspgemm.amg_setup(A, coarse_size=40, device=device, resident=True)
    assert [lv.A.shape for lv in res.levels] == [lv.A.shape for lv in host.levels] and len(res.levels) >= 3
    for k, (r, h) in enumerate(zip(res.levels[:-1], host.levels[:-1])):
        assert (abs(r.P).sign() != abs(h.P).sign()).nnz == 0, f"level {k}: P's pattern is not the host's"
        np.testing.assert_allclose(dense(res.levels[k + 1].A), dense(r.R) @ dense(r.A) @ dense(r.P), atol=1e-12)
    A1 = res.levels[1].A.copy()
    hspgemm.amg_resetup(res, 2 * A)
    np.testing.assert_allclose(dense(res.levels[1].A), 2 * dense(A1), rtol=1e-12)
    pyamg = pytest.importorskip("pyamg")
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    its = []
    for h in (res, host):
        residuals = []
        hspgemm.pyamg_solver(h).solve(b, tol=1e-8, accel="cg", residuals=residuals, maxiter=200)
        its.append(len(residuals))
    assert its[0] <= its[1] + 1, f"{its[0]} iterations on the resident hierarchy against {its[1]}"
