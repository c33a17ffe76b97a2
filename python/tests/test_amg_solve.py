"""hspgemm.amg_solver: the library's AMG solve (hsp_amg_solve, hsp_amg_apply) behind PyAMG's
MultilevelSolver interface.  Every solution is checked by its own residual, computed here by scipy
in float64; the iteration counts against PyAMG's on the same hierarchy options."""
import threading

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import hspgemm

DEVICE = "cpu"
SMOOTHERS = [None, ("gauss_seidel", {"sweep": "symmetric", "iterations": 2}), ("jacobi", {"omega": 1.0}),
             "l1_jacobi", ("chebyshev", {"degree": 3})]


def rel_residual(A, x, b):
    """|b - A x| / |b| in float64, from A's and x's own values."""
    A64, x64, b64 = A.astype(np.float64), np.asarray(x, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(b64 - A64 @ x64) / np.linalg.norm(b64)


@pytest.fixture(scope="module")
def poisson():
    A = hspgemm.generate("poisson2d5:40")
    return A, np.random.default_rng(3).standard_normal(A.shape[0])


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-8), (np.float32, 1e-5)])
@pytest.mark.parametrize("smoother", SMOOTHERS, ids=lambda s: str(s if s is None or isinstance(s, str) else s[0]))
@pytest.mark.parametrize("accel", ["cg", None])
@pytest.mark.parametrize("cycle", ["V", "W"])
def test_solves_to_tolerance(poisson, dtype, tol, smoother, accel, cycle):
    A, b = poisson
    A = A.astype(dtype)
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, presmoother=smoother)
    assert len(s.levels) >= 3
    residuals = ["old"]
    x, info = s.solve(b, tol=tol, maxiter=300, accel=accel, cycle=cycle, residuals=residuals, return_info=True)
    assert x.dtype == dtype and x.shape == b.shape and info == 0
    r = rel_residual(A, x, b.astype(dtype))  # the b solved: in A's precision
    assert r <= tol, r
    t = s.timings
    assert t["converged"] is True and 0 < t["iterations"] < 300 and t["solve_ms"] > 0 and t["setup_ms"] > 0
    # float32: the library's residual is of its double iterate, before x is rounded to float32
    near = 0.1 if dtype == np.float32 else 1e-6
    floor = 1e-6 if dtype == np.float32 else 0.0  # float32's rounding of x: about 1e-7 of |b|
    assert t["residual"] == pytest.approx(r, rel=near, abs=floor)
    assert len(residuals) == t["iterations"] + 1 and "old" not in residuals
    assert residuals[0] == pytest.approx(np.linalg.norm(b), rel=1e-6)  # |b - A 0|, not relative
    assert residuals[-1] == pytest.approx(r * np.linalg.norm(b), rel=near, abs=floor * np.linalg.norm(b))
    assert residuals[-2] > tol * np.linalg.norm(b)  # it stopped at the first below
    if accel is None:  # the cycles alone: the residual falls every iteration
        assert all(later < earlier for earlier, later in zip(residuals, residuals[1:]))


def test_x0_and_relative_tolerance(poisson):
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE)
    x0 = np.random.default_rng(4).standard_normal(A.shape[0])
    kept = x0.copy()
    res = []
    x = s.solve(b, x0=x0, tol=1e-8, accel="cg", residuals=res)
    assert (x0 == kept).all(), "x0 changed"
    assert res[0] == pytest.approx(np.linalg.norm(b - A @ x0), rel=1e-12)
    assert rel_residual(A, x, b) <= 1e-8
    exact = spla.spsolve(sp.csc_matrix(A), b)
    res = []
    s.solve(b, x0=exact, tol=1e-8, accel="cg", residuals=res)
    assert s.timings["iterations"] == 0 and len(res) == 1
    counts = []
    for scale in (1.0, 1e6, 1e-6):  # the tolerance is relative to |b|
        s.solve(scale * b, tol=1e-8, accel="cg")
        counts.append(s.timings["iterations"])
    assert counts[0] == counts[1] == counts[2]
    x = s.solve(b.reshape(-1, 1), tol=1e-8, accel="cg")
    assert x.shape == (A.shape[0], 1)
    res = []
    x = s.solve(np.zeros(A.shape[0]), residuals=res)
    assert (x == 0).all() and res == [0.0]


def test_maxiter_reached_is_a_status(poisson):
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE)
    res = []
    x, info = s.solve(b, tol=1e-14, maxiter=2, residuals=res, return_info=True)
    assert info == 2 and s.timings["converged"] is False and len(res) == 3
    assert rel_residual(A, x, b) == pytest.approx(res[-1] / np.linalg.norm(b), rel=1e-9)
    x = s.solve(b, maxiter=0)
    assert (x == 0).all() and s.timings["iterations"] == 0
    x = s.solve(b, tol=1e-8, maxiter=None, accel="cg")  # PyAMG CG's 1.3 n + 2
    assert rel_residual(A, x, b) <= 1e-8


def test_defaults_are_pyamgs(poisson):
    """solve's defaults: PyAMG 5.4's (tol 1e-5, maxiter 100, V-cycles without acceleration)."""
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE)
    res = []
    x = s.solve(b, residuals=res)
    r = rel_residual(A, x, b)
    assert r <= 1e-5 and res[-2] > 1e-5 * np.linalg.norm(b)
    res_v = []
    s.solve(b, tol=1e-5, accel=None, cycle="V", residuals=res_v)
    assert res == res_v
    pyamg = pytest.importorskip("pyamg")
    import inspect
    theirs = inspect.signature(pyamg.multilevel.MultilevelSolver.solve).parameters
    ours = inspect.signature(hspgemm.Solver.solve).parameters
    assert list(ours) == list(theirs)
    assert {k: v.default for k, v in ours.items()} == {k: v.default for k, v in theirs.items()}


@pytest.mark.parametrize("float_levels,rel", [(False, 1e-10), (True, 1e-5)])
def test_preconditioner_in_scipy_cg(poisson, float_levels, rel):
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, float_levels=float_levels)
    M = s.aspreconditioner()
    assert M.shape == A.shape
    rng = np.random.default_rng(5)
    u, v = rng.standard_normal((2, A.shape[0]))
    # symmetric, so CG's; float levels to float32's rounding (their Galerkin products' sums)
    assert np.dot(M @ u, v) == pytest.approx(np.dot(u, M @ v), rel=rel)
    assert np.dot(M @ u, u) > 0
    counts = []
    for M in (s.aspreconditioner(), s.aspreconditioner(cycle="W"), None):
        it = []
        x, info = spla.cg(A, b, rtol=1e-8, M=M, maxiter=1000, callback=lambda xk: it.append(1))
        assert info == 0 and rel_residual(A, x, b) <= 1e-8
        counts.append(len(it))
    assert counts[0] < 20 and counts[1] <= counts[0] and counts[2] > 3 * counts[0], counts
    # one cycle is the solve's first stationary iteration from zero
    z = s.aspreconditioner() @ b
    x = s.solve(b, maxiter=1, tol=0.0)
    np.testing.assert_allclose(z, x, rtol=1e-12, atol=1e-14)


FORWARD_BACKWARD = (("gauss_seidel", {"sweep": "forward"}), ("gauss_seidel", {"sweep": "backward"}))
SYMMETRIC = (("gauss_seidel", {"sweep": "symmetric"}),) * 2


@pytest.mark.parametrize("accel", ["cg", None])
@pytest.mark.parametrize("sweeps", [None, FORWARD_BACKWARD, SYMMETRIC], ids=["default", "fb", "symmetric"])
def test_iterations_as_pyamg(accel, sweeps):
    """poisson2d5:64, CG to 1e-8 (and V-cycles alone): on one hierarchy (one thread: the Gauss-Seidel
    exactly PyAMG's), PyAMG's MultilevelSolver over it (pyamg_solver: its own smoothers and pinv)
    with the same sweeps (the default: forward before, backward after) makes the same iterations
    and residuals; PyAMG's own hierarchy of the same options (max_coarse 10, no
    improve_candidates; its P's rho estimated apart) within 2 iterations."""
    pyamg = pytest.importorskip("pyamg")
    A = hspgemm.generate("poisson2d5:64")
    b = np.random.default_rng(6).standard_normal(A.shape[0])
    h = hspgemm.amg_setup(A, strength="symmetric", coarse_size=10, device=DEVICE, threads=1)  # PyAMG's default
    pre, post = FORWARD_BACKWARD if sweeps is None else sweeps
    ours = hspgemm.amg_solver(h) if sweeps is None else hspgemm.amg_solver(h, presmoother=pre, postsmoother=post)
    same = hspgemm.pyamg_solver(h, presmoother=pre, postsmoother=post)
    own = pyamg.smoothed_aggregation_solver(A, max_coarse=10, improve_candidates=None, presmoother=pre,
                                            postsmoother=post)
    assert [L.A.shape for L in ours.levels] == [L.A.shape for L in own.levels]
    assert ours.grid_complexity() == pytest.approx(own.grid_complexity())
    assert ours.operator_complexity() == pytest.approx(same.operator_complexity())
    res_ours, res_same, res_own = [], [], []
    ours.solve(b, tol=1e-8, accel=accel, residuals=res_ours)
    same.solve(b, tol=1e-8, accel=accel, residuals=res_same)
    own.solve(b, tol=1e-8, accel=accel, residuals=res_own)
    assert len(res_ours) == len(res_same), (len(res_ours) - 1, len(res_same) - 1)
    np.testing.assert_allclose(res_ours, res_same, rtol=1e-6)
    assert abs(len(res_ours) - len(res_own)) <= 2, (len(res_ours) - 1, len(res_own) - 1)


def test_one_side_given():
    """A smoother given on one side only is the other's adjoint: PyAMG's "gauss_seidel" (forward)
    before gives the default cycle, ("gauss_seidel", {"sweep": "symmetric"}) after the symmetric one."""
    A = hspgemm.generate("poisson2d5:32")
    b = np.random.default_rng(8).standard_normal(A.shape[0])
    h = hspgemm.amg_setup(A, coarse_size=10, device=DEVICE, threads=1)
    runs = {}
    for name, kw in (("default", {}), ("forward", {"presmoother": "gauss_seidel"}),
                     ("fb", dict(zip(("presmoother", "postsmoother"), FORWARD_BACKWARD))),
                     ("symmetric", {"postsmoother": SYMMETRIC[0]}), ("both", dict(zip(("presmoother", "postsmoother"), SYMMETRIC)))):
        runs[name] = []
        hspgemm.amg_solver(h, **kw).solve(b, tol=1e-8, accel="cg", residuals=runs[name])
    assert runs["default"] == runs["forward"] == runs["fb"]
    assert runs["symmetric"] == runs["both"] != runs["default"]


def test_jacobi_as_pyamg():
    """PyAMG's jacobi (omega / rho(D^-1 A)): the same iterations to within one (rho estimated apart)."""
    pyamg = pytest.importorskip("pyamg")
    A = hspgemm.generate("poisson2d5:64")
    b = np.random.default_rng(7).standard_normal(A.shape[0])
    jacobi = ("jacobi", {"omega": 4.0 / 3.0, "iterations": 2})
    ours = hspgemm.amg_solver(A, max_coarse=10, device=DEVICE, presmoother=jacobi, postsmoother=jacobi)
    theirs = pyamg.smoothed_aggregation_solver(A, max_coarse=10, improve_candidates=None, presmoother=jacobi,
                                               postsmoother=jacobi)
    res_ours, res_theirs = [], []
    ours.solve(b, tol=1e-8, accel="cg", residuals=res_ours)
    theirs.solve(b, tol=1e-8, accel="cg", residuals=res_theirs)
    assert abs(len(res_ours) - len(res_theirs)) <= 1, (len(res_ours) - 1, len(res_theirs) - 1)


def test_sweeps_count():
    """{"iterations": n} are the sweeps: more sweeps, fewer cycles; pre and post apart."""
    A = hspgemm.generate("poisson2d5:40")
    b = np.ones(A.shape[0])
    counts = []
    for pre, post in ((1, 1), (2, 2), (3, 1)):
        s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, presmoother=("l1_jacobi", {"iterations": pre}),
                               postsmoother=("l1_jacobi", {"iterations": post}))
        s.solve(b, tol=1e-8)
        counts.append(s.timings["iterations"])
    assert counts[0] > counts[1] and counts[0] > counts[2], counts


def test_float32_hierarchy_takes_float64_b(poisson):
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, precision="float32")
    x = s.solve(b, tol=1e-5, accel="cg")
    assert x.dtype == np.float32 and rel_residual(A, x, b) <= 1e-5
    z = s.aspreconditioner() @ b
    assert z.dtype == np.float32 and np.isfinite(z).all()


def _buffer_devices():
    """The first OpenCL device without system SVM, as ",nosvm": a resident hierarchy aggregated there."""
    return [d["name"] + ",nosvm" for d in hspgemm.devices()
            if d["name"].startswith("opencl") and d["usable"] and d["memory"] != "system SVM"][:1]


@pytest.mark.parametrize("device", ["cpu"] + _buffer_devices())
def test_resident_hierarchy_solves_as_the_host_one(poisson, device):
    """A resident hierarchy: on cpu (host arrays in place) solved on the threads as the host's, exactly;
    on a device with buffers (memory of its own) solved there, by default with Chebyshev, in as many
    iterations (one more or less) as the host's hierarchy with Chebyshev on the threads."""
    A, b = poisson
    on_device = device != "cpu"
    host = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, presmoother="chebyshev" if on_device else None,
                              float_levels=False, aggregation="parallel" if on_device else "auto")  # resident's
    resident = hspgemm.amg_solver(A, coarse_size=30, device=device, resident=True)
    x, y = host.solve(b, tol=1e-8, accel="cg"), resident.solve(b, tol=1e-8, accel="cg")
    assert rel_residual(A, y, b) <= 1e-8
    assert resident.timings["on_device"] == on_device and not host.timings["on_device"]
    assert resident.timings["smoother"] == ("chebyshev" if on_device else "gauss_seidel")
    if not on_device:
        assert host.timings["iterations"] == resident.timings["iterations"]
        np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-12)
    else:
        assert abs(host.timings["iterations"] - resident.timings["iterations"]) <= 1
    with pytest.raises(hspgemm.UnsupportedError if on_device else AssertionError, match="gauss-seidel"):
        hspgemm.amg_solver(resident.hierarchy, presmoother=("gauss_seidel", {"sweep": "symmetric"})).solve(b)
        raise AssertionError("gauss-seidel ran on the CPU threads")


def test_float_levels():
    """amg_solver's default: float32 levels below a float64 A (level 0's A itself), solved to tol by
    the residual in float64 (the cycles alone too, past the float32 copy's own solution), in the
    iterations of float64 levels, one more or less; amg_setup's default: A's precision."""
    rng = np.random.default_rng(5)
    D = sp.diags_array(rng.uniform(0.5, 2.0, 3600))
    A = sp.csr_array(D @ hspgemm.generate("poisson2d5:60") @ D)  # values float32 does not hold
    b = rng.standard_normal(A.shape[0])
    f = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE)
    d = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, float_levels=False)
    assert f.levels[0].A.dtype == np.float64 and f.levels[0].P.dtype == np.float32
    assert all(level.A.dtype == np.float32 for level in f.levels[1:])
    assert all(level.A.dtype == np.float64 for level in d.levels)
    for accel, tol in (("cg", 1e-8), (None, 1e-11)):
        x = f.solve(b, tol=tol, maxiter=300, accel=accel)
        assert x.dtype == np.float64 and rel_residual(A, x, b) <= tol
        d.solve(b, tol=tol, maxiter=300, accel=accel)
        assert abs(f.timings["iterations"] - d.timings["iterations"]) <= 1
    assert hspgemm.amg_setup(A, coarse_size=30, device=DEVICE).levels[1].A.dtype == np.float64


@pytest.mark.parametrize("device", _buffer_devices())
def test_float_levels_refused_on_a_device_of_its_own(poisson, device):
    A, _ = poisson
    with pytest.raises(hspgemm.UnsupportedError, match="float_levels"):
        hspgemm.amg_solver(A, device=device, resident=True, float_levels=True)


def test_hierarchy_given(poisson):
    A, b = poisson
    h = hspgemm.amg_setup(A, coarse_size=30, device=DEVICE)
    s = hspgemm.amg_solver(h, presmoother="l1_jacobi")
    assert s.hierarchy is h and s.levels is h.levels and s.timings["setup_ms"] == h.ms_total
    assert rel_residual(A, s.solve(b, tol=1e-8, accel="cg"), b) <= 1e-8
    with pytest.raises(hspgemm.ArgumentError, match="set up already"):
        hspgemm.amg_solver(h, coarse_size=10)
    with pytest.raises(hspgemm.ArgumentError, match="set up already"):
        hspgemm.amg_solver(h, resident=True)
    # a re-setup: the solve takes the new values, and so do the levels copied anew when read
    A1 = h.levels[1].A.copy()
    hspgemm.amg_resetup(h, 3 * A)
    x = s.solve(b, tol=1e-8, accel="cg")
    assert rel_residual(3 * A, x, b) <= 1e-8
    np.testing.assert_allclose(h.levels[1].A.toarray(), 3 * A1.toarray(), rtol=1e-12)
    rows = "/".join(str(level.A.shape[0]) for level in h.levels)
    assert f"({rows} rows)" in repr(s) and f"({rows} rows)" in repr(h)
    assert s.grid_complexity() == pytest.approx(sum(L.A.shape[0] for L in h.levels) / A.shape[0])


@pytest.mark.parametrize("kw,call,error,match", [
    ({"presmoother": "sor"}, None, hspgemm.ArgumentError, "'gauss_seidel', 'block_gauss_seidel', 'jacobi'"),
    ({"presmoother": ("gauss_seidel", {"sweep": "sideways"})}, None, hspgemm.ArgumentError, "'forward', 'backward'"),
    ({"presmoother": ("gauss_seidel", {"sweep": "forward"}), "postsmoother": ("gauss_seidel", {"sweep": "forward"})},
     None, hspgemm.ArgumentError, "forward before the coarse correction and backward after"),
    ({"presmoother": ("gauss_seidel", {"sweep": "backward"})}, None, hspgemm.ArgumentError, "forward before"),
    ({"presmoother": ("jacobi", {"weight": 1.0})}, None, hspgemm.ArgumentError, "not 'weight'"),
    ({"presmoother": ("jacobi", {"withrho": False})}, None, hspgemm.ArgumentError, "withrho=True only"),
    ({"presmoother": ("chebyshev", {"upper_bound": 2.0})}, None, hspgemm.ArgumentError, "upper_bound"),
    ({"presmoother": ("chebyshev", {"lower_bound": 0.0})}, None, hspgemm.ArgumentError, "lower_bound"),
    ({"presmoother": ("chebyshev", {"lower_bound": "0.2"})}, None, TypeError, "lower_bound"),
    ({"presmoother": "jacobi", "postsmoother": "l1_jacobi"}, None, hspgemm.ArgumentError, "one method"),
    ({"presmoother": ["jacobi", "l1_jacobi"]}, None, hspgemm.ArgumentError, "one setting for every level"),
    ({"coarse_solver": "gauss_seidel"}, None, hspgemm.ArgumentError, "factors the coarsest"),
    ({"cycle_type": "V"}, None, hspgemm.ArgumentError, "unknown option"),
    ({"presmoother": ("jacobi", {"omega": 2.5})}, {}, hspgemm.ArgumentError, "omega"),
    ({"presmoother": ("chebyshev", {"degree": 40})}, {}, hspgemm.ArgumentError, "degree"),
    ({"presmoother": ("jacobi", {"iterations": 101})}, {}, hspgemm.ArgumentError, "pre"),
    ({}, {"accel": "gmres"}, hspgemm.ArgumentError, "'cg' or None"),
    ({}, {"cycle": "F"}, hspgemm.ArgumentError, "'V' or 'W'"),
    ({}, {"callback": print}, hspgemm.ArgumentError, "callback"),
    ({}, {"cycles_per_level": 2}, hspgemm.ArgumentError, "cycles_per_level"),
    ({}, {"tol": -1.0}, hspgemm.ArgumentError, "tol"),
    ({}, {"maxiter": -1}, hspgemm.ArgumentError, "maxiter"),
    ({}, {"maxiter": 2.5}, TypeError, "maxiter"),
    ({}, {"b": np.ones(5)}, hspgemm.ShapeError, "give 1600 values"),
    ({}, {"x0": np.ones((1600, 2))}, hspgemm.ShapeError, "x0"),
    ({}, {"b": np.full(1600, np.nan)}, hspgemm.ArgumentError, "finite"),
    ({}, {"b": np.ones(1600, dtype=complex)}, TypeError, "real"),
])
def test_bad_arguments(poisson, kw, call, error, match):
    A, b = poisson
    if call is None:
        with pytest.raises(error, match=match):
            hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, **kw)
        return
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE, **kw)
    call = {"b": b, **call}
    x0 = np.ones(A.shape[0])
    call.setdefault("x0", x0)
    with pytest.raises(error, match=match):
        s.solve(**call)
    assert (x0 == 1).all()


def test_not_positive_definite_under_cg():
    A = hspgemm.generate("poisson2d5:20")
    s = hspgemm.amg_solver(-A, coarse_size=30, device=DEVICE, presmoother="l1_jacobi")
    with pytest.raises(hspgemm.Error, match="positive"):
        s.solve(np.ones(A.shape[0]), accel="cg", tol=1e-8)


def test_solver_outlives_its_context_and_hierarchy(poisson):
    A, b = poisson
    ctx = hspgemm.Context(device=DEVICE, threads=2)
    s = hspgemm.amg_solver(ctx.amg_setup(A, coarse_size=30))
    M = s.aspreconditioner()
    del ctx  # the solver keeps its hierarchy, which keeps the context
    assert rel_residual(A, s.solve(b, tol=1e-8, accel="cg"), b) <= 1e-8
    with hspgemm.Context(device=DEVICE) as ctx:
        closed = hspgemm.amg_solver(ctx.amg_setup(A, coarse_size=30))
    with pytest.raises(hspgemm.ArgumentError, match="closed"):
        closed.solve(b)
    with pytest.raises(hspgemm.ArgumentError, match="closed"):
        closed.aspreconditioner() @ b
    del closed, s
    assert np.isfinite(M @ b).all()  # the operator keeps the hierarchy too


def test_solves_from_threads(poisson):
    """Solves of one solver from several threads (the GIL released, the context's lock taken): each
    its own right side, each solved."""
    A, b = poisson
    s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE)
    rights = [np.random.default_rng(10 + k).standard_normal(A.shape[0]) for k in range(4)]
    out = [None] * 4

    def work(k):
        out[k] = s.solve(rights[k], tol=1e-8, accel="cg")
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert rel_residual(A, out[k], rights[k]) <= 1e-8


def test_chebyshev_interval(poisson):
    """Chebyshev's lower_bound reaches the library: over [rho/5, 1.1 rho] degree 2 takes fewer
    iterations than over PyAMG's [rho/30, 1.1 rho] on poisson2d5:40."""
    A, b = poisson
    its = {}
    for lower in (1.0 / 30.0, 0.2):
        s = hspgemm.amg_solver(A, coarse_size=30, device=DEVICE,
                               presmoother=("chebyshev", {"degree": 2, "lower_bound": lower}))
        residuals = []
        s.solve(b, tol=1e-8, maxiter=300, residuals=residuals)
        its[lower] = len(residuals) - 1
    assert its[0.2] < its[1.0 / 30.0], its


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-8), (np.float32, 1e-4)])
def test_classical_coarsening(dtype, tol):
    """coarsening="classical": a Ruge-Stueben hierarchy (C rows of P the identity's, at most 4 entries a
    row) solves the rotated anisotropic problem to tol in fewer iterations than smoothed aggregation;
    a re-setup of scaled values keeps P; theta defaults to 0.25 there."""
    A = hspgemm.generate("aniso2d:64").astype(dtype)
    b = np.random.default_rng(7).standard_normal(A.shape[0]).astype(dtype)
    its = {}
    for coarsening in ("aggregation", "classical"):
        s = hspgemm.amg_solver(A, coarse_size=50, device=DEVICE, coarsening=coarsening)
        x = s.solve(b, tol=tol, maxiter=300)
        assert rel_residual(A, x, b) <= tol
        its[coarsening] = s.timings["iterations"]
    assert its["classical"] < its["aggregation"], its
    h = hspgemm.amg_setup(A, coarse_size=50, device=DEVICE, coarsening="classical")
    P = h.levels[0].P
    assert np.diff(P.indptr).max() <= 4 and P.shape[1] == h.levels[1].A.shape[0]
    assert np.count_nonzero(P.toarray() == 1) >= P.shape[1]  # a C point's row: one 1
    P0 = P.toarray()
    hspgemm.amg_resetup(h, 2 * A)
    np.testing.assert_allclose(h.levels[0].P.toarray(), P0, rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_classical_refusals(poisson):
    A, _ = poisson
    with pytest.raises(hspgemm.ArgumentError, match="coarsening"):
        hspgemm.amg_setup(A, device=DEVICE, coarsening="ruge")
    with pytest.raises(hspgemm.ArgumentError, match="scalar"):
        hspgemm.amg_setup(A, device=DEVICE, coarsening="classical", B=np.ones((A.shape[0], 2)))
    for device in _buffer_devices():
        with pytest.raises(hspgemm.UnsupportedError, match="classical"):
            hspgemm.amg_setup(A, device=device, resident=True, coarsening="classical")


def test_ruge_stuben_solver():
    """hspgemm.ruge_stuben_solver(A) is amg_solver(A, coarsening="classical"), PyAMG's keywords taken
    (strength's theta reaches the set-up); another splitting or interpolation refused."""
    A = hspgemm.generate("aniso2d:64")
    b = np.ones(A.shape[0])
    rs = hspgemm.ruge_stuben_solver(A, device=DEVICE, CF="RS", interpolation="classical", max_coarse=50)
    cl = hspgemm.amg_solver(A, device=DEVICE, coarsening="classical", coarse_size=50)
    x, y = rs.solve(b, tol=1e-8, accel="cg"), cl.solve(b, tol=1e-8, accel="cg")
    assert rel_residual(A, x, b) <= 1e-8 and rs.timings["iterations"] == cl.timings["iterations"]
    np.testing.assert_array_equal(x, y)
    loose = hspgemm.ruge_stuben_solver(A, device=DEVICE, strength=("classical", {"theta": 0.5}),
                                       max_coarse=50)  # level 2: 542 rows -> 1008
    assert [lv.A.shape for lv in loose.levels] != [lv.A.shape for lv in rs.levels]
    with pytest.raises(hspgemm.ArgumentError, match="CF"):
        hspgemm.ruge_stuben_solver(A, CF="CLJP")
    with pytest.raises(hspgemm.ArgumentError, match="interpolation"):
        hspgemm.ruge_stuben_solver(A, interpolation="direct")
    with pytest.raises(hspgemm.ArgumentError, match="scalar"):
        hspgemm.ruge_stuben_solver(A, B=np.ones((A.shape[0], 2)))
