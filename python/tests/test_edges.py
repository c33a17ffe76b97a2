"""Edges that users of the package met (issue 34), each against what scipy does or should."""
import inspect
import os
import typing

import numpy as np
import pytest
import scipy.sparse as sp

import hspgemm

DEVICE = "cpu"


def random_csr(m, n, density, seed, dtype=np.float64):
    return sp.random_array((m, n), density=density, format="csr", dtype=dtype, rng=np.random.default_rng(seed))


def arrays_of(M):
    """Copies of M's arrays (COO: its coordinates) and of the flags scipy keeps on it."""
    arrays = M.coords + (M.data,) if M.format == "coo" else (M.indptr, M.indices, M.data)
    flags = {k: v for k, v in vars(M).items() if k.startswith("_has_")}
    return [a.copy() for a in arrays], flags


def assert_unchanged(M, before):
    arrays, flags = arrays_of(M)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, before[0])), "the caller's arrays changed"
    assert flags == before[1], "the caller's flags changed"


def assert_same_csr(C, S):
    """C equals scipy's S entry for entry: the same pattern (sorted) and values."""
    S = S.copy()
    S.sort_indices()
    assert C.shape == S.shape and C.dtype == S.dtype
    assert np.array_equal(C.indptr, S.indptr) and np.array_equal(C.indices, S.indices)
    rtol = 1e-5 if C.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C.data.astype(np.float64), S.data.astype(np.float64), rtol=rtol)


# ---- 1. index arrays that are not int32 ----------------------------------------------------------

def test_int64_column_beyond_int32_refused():
    """Column 2^32 + 1 of 4 became column 1 when cast to int32: now refused, naming A and the row."""
    A = sp.csr_array(([5.0], np.array([2**32 + 1], dtype=np.int64), np.array([0, 1], dtype=np.int64)), shape=(1, 4))
    B = sp.diags_array([1.0, 2, 3, 4]).tocsr()
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"A: row 0: column 4294967297 out of range \[0, 4\)"):
        hspgemm.matmul(A, B, device=DEVICE)
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"B: row 0: column 4294967297 out of range \[0, 4\)"):
        hspgemm.matmul(sp.eye_array(1, format="csr"), A, device=DEVICE)
    with pytest.raises(hspgemm.InvalidMatrixError, match="A: row 0: column 4294967297"):
        hspgemm.transpose(A)


def test_int64_indices_in_range_work():
    A = random_csr(40, 30, 0.2, 1)
    A64 = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)), shape=A.shape)
    assert_same_csr(hspgemm.matmul(A64, A.T, device=DEVICE), A @ A.T)
    assert_same_csr(hspgemm.transpose(A64), sp.csr_array(A.T))


# ---- 2. corrupt CSC, COO, CSR and BSR operands ---------------------------------------------------

def test_corrupt_csc_refused_not_crashed():
    """A CSC row index out of range crashed scipy's conversion to CSR."""
    A = random_csr(50, 50, 0.1, 2).tocsc()
    A.indices[0] = 99
    before = arrays_of(A)
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"A: column 0: row 99 out of range \[0, 50\)"):
        hspgemm.matmul(A, random_csr(50, 50, 0.1, 3), device=DEVICE)
    assert_unchanged(A, before)
    A = random_csr(50, 50, 0.1, 2).tocsc()
    A.indptr[3] = A.indptr[5] + 1  # column 3's entries end before they begin
    with pytest.raises(hspgemm.InvalidMatrixError, match="B: column 3: column pointers"):
        hspgemm.matmul(random_csr(50, 50, 0.1, 3), A, device=DEVICE)


def test_corrupt_coo_refused():
    """A COO row index of -1 lost the entry, or aborted in free()."""
    A = random_csr(50, 50, 0.1, 4).tocoo()
    A.coords[0][3] = -1
    before = arrays_of(A)
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"A: entry 3: row -1 out of range \[0, 50\)"):
        hspgemm.matmul(A, random_csr(50, 50, 0.1, 5), device=DEVICE)
    assert_unchanged(A, before)
    A = random_csr(50, 50, 0.1, 4).tocoo()
    A.coords[1][7] = 50
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"P: entry 7: column 50 out of range \[0, 50\)"):
        hspgemm.rap(random_csr(50, 50, 0.1, 5), A, device=DEVICE)
    A.row = A.row[:-1]
    with pytest.raises(hspgemm.InvalidMatrixError, match="A: .* row indices, .* column indices and .* values"):
        hspgemm.transpose(A)


def test_corrupt_csr_and_bsr_refused():
    A = random_csr(30, 30, 0.2, 6)
    A.indptr[4] = A.indptr[6] + 1
    with pytest.raises(hspgemm.InvalidMatrixError, match="A: row 4: row pointers"):
        hspgemm.matmul(A, A, device=DEVICE)
    A = random_csr(30, 30, 0.2, 6)
    A.indptr[-1] = A.indices.size + 1
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"A: indptr\[30\]"):
        hspgemm.matmul(A, A, device=DEVICE)
    A = random_csr(30, 30, 0.2, 6).tobsr(blocksize=(3, 3))
    A.indices[2] = 10
    with pytest.raises(hspgemm.InvalidMatrixError, match=r"A: block row \d+: block column 10 out of range \[0, 10\)"):
        hspgemm.matmul(A, A, device=DEVICE)


# ---- 3. scipy's flags are not trusted ------------------------------------------------------------

def test_columns_relabelled_in_place():
    """After A.indices[:] = perm[A.indices] the rows are unsorted though scipy's flags still say
    sorted: the product is scipy's, and A (its arrays and flags) stays as it was."""
    A = random_csr(200, 200, 0.05, 7)
    assert A.has_sorted_indices and A.has_canonical_format  # scipy caches both
    perm = np.random.default_rng(8).permutation(200).astype(A.indices.dtype)
    A.indices[:] = perm[A.indices]
    before = arrays_of(A)
    C, T = hspgemm.matmul(A, A, device=DEVICE), hspgemm.transpose(A)
    assert_unchanged(A, before)
    assert_same_csr(C, A @ A)
    assert_same_csr(T, sp.csr_array(A.T))


def test_duplicates_under_a_stale_canonical_flag_summed():
    A = sp.csr_array((np.array([1.0, 2.0, 3.0, 4.0]), np.array([1, 1, 0, 2]), np.array([0, 2, 4])), shape=(2, 3))
    A.has_canonical_format = True  # a stale flag: row 0 holds column 1 twice
    before = arrays_of(A)
    C = hspgemm.matmul(A, sp.eye_array(3, format="csr"), device=DEVICE)
    np.testing.assert_array_equal(C.toarray(), [[0.0, 3.0, 0.0], [3.0, 0.0, 4.0]])
    assert C.nnz == 3
    assert_unchanged(A, before)


# ---- 4. explicit zeros ---------------------------------------------------------------------------

def cancelling_operands():
    """A and B of entries +-1, whose product has many sums that cancel to exactly 0."""
    rng = np.random.default_rng(9)
    A, B = random_csr(300, 200, 0.05, 10), random_csr(200, 300, 0.05, 11)
    A.data[:] = rng.choice([-1.0, 1.0], A.nnz)
    B.data[:] = rng.choice([-1.0, 1.0], B.nnz)
    return A, B


def test_zeros_kept_by_default_dropped_as_scipy():
    """drop_zeros=True gives scipy's nnz and pattern; by default (the library's) the zeros stay."""
    A, B = cancelling_operands()
    S = A @ B
    C = hspgemm.matmul(A, B, device=DEVICE, drop_zeros=True)
    assert_same_csr(C, S)
    K = hspgemm.matmul(A, B, device=DEVICE)
    assert K.nnz > C.nnz and np.count_nonzero(K.data == 0) == K.nnz - C.nnz
    assert (K != S).nnz == 0
    with hspgemm.Context(DEVICE) as ctx:
        assert ctx.matmul(A, B).nnz == K.nnz
    P = random_csr(300, 40, 0.05, 12)
    P.data[:] = np.where(P.data > 0.5, 1.0, -1.0)
    G = hspgemm.rap(A @ A.T, P, device=DEVICE, drop_zeros=True)
    assert_same_csr(G, P.T @ (A @ A.T) @ P)
    assert hspgemm.rap(A @ A.T, P, device=DEVICE).nnz >= G.nnz


# ---- 5. value types ------------------------------------------------------------------------------

def test_bool_operands_give_a_bool_pattern():
    A = random_csr(80, 60, 0.05, 13) > 0
    B = random_csr(60, 70, 0.05, 14) > 0
    A.data[:5] = False  # explicit False entries contribute nothing, as in scipy
    C = hspgemm.matmul(A, B, device=DEVICE)
    assert C.dtype == np.bool_ and C.data.all()
    assert_same_csr(C, A @ B)
    assert hspgemm.matmul(A, B.astype(np.float64), device=DEVICE).dtype == np.float64
    S, P = A @ A.T, random_csr(80, 20, 0.1, 15) > 0
    assert_same_csr(hspgemm.rap(S, P, device=DEVICE), P.T @ S @ P)
    assert_same_csr(hspgemm.transpose(A), sp.csr_array(A.T))  # its False entries kept, as scipy's


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # numpy's, of numpy.matrix
def test_containers_follow_scipy():
    """A csr_matrix (spmatrix) left operand gives a csr_matrix, on which * is the matrix product
    (it gave a csr_array, where * is elementwise), a csr_array one a csr_array, as scipy's A @ B
    and P.T @ A @ P; the same values.  spmm follows scipy's types too: bool and bool give bool,
    a numpy.matrix X a numpy.matrix."""
    A = random_csr(40, 40, 0.1, 21)
    M, P = sp.csr_matrix(A), random_csr(40, 10, 0.2, 22)
    cases = [(hspgemm.matmul(M, M, device=DEVICE), M @ M), (hspgemm.matmul(M, A, device=DEVICE), M @ A),
             (hspgemm.matmul(A, M, device=DEVICE), A @ M),
             (hspgemm.matmul(sp.csc_matrix(A), A, device=DEVICE), M @ A),
             (hspgemm.rap(A, sp.csr_matrix(P), device=DEVICE), sp.csr_matrix(P).T @ A @ sp.csr_matrix(P)),
             (hspgemm.rap(M, P, sp.csr_matrix(P.T), device=DEVICE), sp.csr_matrix(P.T) @ M @ P),
             (hspgemm.transpose(M), M.T.tocsr()), (hspgemm.matmul(M > 0, M > 0, device=DEVICE), (M > 0) @ (M > 0)),
             (hspgemm.Context(DEVICE).matmul(M, M), M @ M)]
    for C, S in cases:
        assert type(C) is type(S.tocsr()), (type(C), type(S))
        assert C.dtype == S.dtype and abs(C - S).max() < 1e-12
    C = hspgemm.matmul(M, M, device=DEVICE)
    assert abs(C * M - M @ M @ M).max() < 1e-12  # * is the product of matrices
    X = np.ones((40, 3))
    assert isinstance(hspgemm.spmm(M, np.asmatrix(X), device=DEVICE), np.matrix)
    Y = hspgemm.spmm(A > 0, X > 0, device=DEVICE)
    assert Y.dtype == np.bool_ and np.array_equal(Y, (A > 0) @ (X > 0))
    assert hspgemm.spmm(A.astype(np.int32), X.astype(np.int32), device=DEVICE).dtype == np.float64


def test_float16_as_float32():
    """float16 values (scipy holds them, though its astype refuses) are exact in float32."""
    A = random_csr(40, 40, 0.1, 15, np.float32)
    A16 = sp.csr_array((A.data.astype(np.float16), A.indices, A.indptr), shape=A.shape)
    C = hspgemm.matmul(A16, A16, device=DEVICE)
    assert C.dtype == np.float32
    A32 = sp.csr_array((A16.data.astype(np.float32), A.indices, A.indptr), shape=A.shape)
    assert_same_csr(C, A32 @ A32)


@pytest.mark.skipif(np.dtype(np.longdouble).itemsize <= 8, reason="long double is double here")
def test_longdouble_refused():
    A = random_csr(10, 10, 0.3, 16).astype(np.longdouble)
    with pytest.raises(TypeError, match=r"A: float128 .*float64"):
        hspgemm.matmul(A, A.astype(np.float64), device=DEVICE)


def test_complex_refused_saying_what_to_do():
    A = random_csr(10, 10, 0.3, 16)
    with pytest.raises(TypeError, match="B: complex128 .*real and imaginary parts"):
        hspgemm.matmul(A, A.astype(np.complex128), device=DEVICE)


# ---- 6. error classes and messages ---------------------------------------------------------------

def test_bad_options_raise_argument_error_naming_them():
    A = hspgemm.generate("poisson2d5:8")
    cases = [(lambda: hspgemm.Context(DEVICE, grow="fast"), r"grow = 'fast': give 'realloc' or 'copy'"),
             (lambda: hspgemm.Context(DEVICE, methods="fastest"), r"methods = 'fastest': give .*'heap'.*'auto'"),
             (lambda: hspgemm.matmul(A, A, device=DEVICE, methods=("heap", "esc")), "methods: give one name or three"),
             (lambda: hspgemm.matmul(A, A, device=DEVICE, precision="int8"),
              "precision = 'int8': give 'float32' or 'float64'"),
             (lambda: hspgemm.rap(A, A, device=DEVICE, order="rap"), r"order = 'rap': give 'r-ap' .*or 'ra-p'"),
             (lambda: hspgemm.amg_setup(A, device=DEVICE, order="rap"), "order = 'rap'"),
             (lambda: hspgemm.Context(DEVICE, threads=-1), r"threads = -1"),
             (lambda: hspgemm.amg_setup(A, theta=-1, device=DEVICE), "theta = -1: give a number >= 0"),
             (lambda: hspgemm.amg_setup(A, omega=0, device=DEVICE), "omega = 0"),
             (lambda: hspgemm.amg_setup(A, max_levels=0, device=DEVICE), "max_levels = 0"),
             (lambda: hspgemm.amg_setup(A, coarse_size=0, device=DEVICE), "coarse_size = 0")]
    for call, message in cases:
        with pytest.raises(hspgemm.ArgumentError, match=message):
            call()
    ctx = hspgemm.Context(DEVICE)
    ctx.close()
    with pytest.raises(hspgemm.ArgumentError, match="the context is closed"):
        ctx.matmul(A, A)
    with pytest.raises(hspgemm.ShapeError, match="two dimensions"):
        hspgemm.matmul(sp.coo_array(np.ones(3)), A, device=DEVICE)


def test_shape_errors_name_every_operand():
    """rap's ShapeError names its three operands and their shapes (it named two), spmm's A's and
    X's (it gave none)."""
    A = hspgemm.generate("poisson2d5:20")
    P = random_csr(400, 50, 0.05, 18)
    with pytest.raises(hspgemm.ShapeError, match=r"^P.T @ A @ P: P.T is 50 x 100, A is 400 x 400, P is 100 x 50: "
                                                 r"ncols\(P.T\) != nrows\(A\)$"):
        hspgemm.rap(A, P[:100], device=DEVICE)
    with pytest.raises(hspgemm.ShapeError, match=r"^R @ A @ P: R is 50 x 100, A is 400 x 400, P is 400 x 50: "
                                                 r"ncols\(R\) != nrows\(A\)$"):
        hspgemm.rap(A, P, P.T[:, :100], device=DEVICE)
    with pytest.raises(hspgemm.ShapeError, match=r"^R @ A @ P: R is 50 x 400, A is 400 x 400, P is 100 x 50: "
                                                 r"ncols\(A\) != nrows\(P\)$"):
        hspgemm.rap(A, P[:100], P.T, device=DEVICE)
    with pytest.raises(hspgemm.ShapeError, match=r"^A @ X: A is 400 x 400, X is 399 x 2: ncols\(A\) != nrows\(X\)$"):
        hspgemm.spmm(A, np.ones((399, 2)), device=DEVICE)
    with hspgemm.Context(DEVICE) as ctx, pytest.raises(hspgemm.ShapeError, match=r"X is a vector of 3:"):
        ctx.spmm(ctx.prepare(A), np.ones(3))


def test_option_types_named():
    """An option of the wrong type raises TypeError naming the option (threads='2' gave
    "'str' object cannot be interpreted as an integer")."""
    cases = [({"threads": "2"}, r"threads = '2': give an integer \(str given\)"),
             ({"threads": 2.5}, "threads = 2.5: give an integer"), ({"mem_limit": "1G"}, "mem_limit = '1G'"),
             ({"small_nnz": None}, "small_nnz = None"),
             ({"device_timeout": "1"}, "device_timeout = '1': give a number"),
             ({"spmm_cpu_share": "0.5"}, "spmm_cpu_share"), ({"device": 0}, "device = 0: give a string"),
             ({"profile": 1}, "profile = 1"), ({"grow": None}, "grow = None")]
    for options, message in cases:
        with pytest.raises(TypeError, match=message):
            hspgemm.Context(**options)
    with pytest.raises(TypeError, match="threads = '2'"):
        hspgemm.matmul(hspgemm.generate("poisson2d5:4"), hspgemm.generate("poisson2d5:4"), threads="2")
    hspgemm.Context(DEVICE, threads=np.int64(1), device_timeout=np.float32(1)).close()  # numpy's numbers are numbers


def test_stats_name_the_cpu_device_alike():
    """spmm's stats name the CPU threads 'cpu' as matmul's do (they said 'CPU threads (2)')."""
    A = hspgemm.generate("poisson2d5:10")
    with hspgemm.Context(DEVICE, threads=2) as ctx:
        _, mm = ctx.matmul(A, A, stats=True)
        _, sm = ctx.spmm(A, np.ones((100, 2)), stats=True)
        _, bm = hspgemm.Context(DEVICE, methods="bitmap").matmul(A, A, stats=True)
    assert mm["device"] == sm["device"] == "cpu" and bm["device"] == "cpu, bitmap blocks"
    assert mm["threads"] == sm["threads"] == 2


# ---- 7. AMG's theta as PyAMG's -------------------------------------------------------------------

@pytest.mark.parametrize("grid", [(200, 200), (30, 30, 30)])
@pytest.mark.parametrize("theta", [0.25, 0.5])
def test_amg_theta_level_sizes_as_pyamg(grid, theta):
    pyamg = pytest.importorskip("pyamg")
    A = pyamg.gallery.poisson(grid, format="csr")
    ours = hspgemm.amg_setup(A, strength="symmetric", theta=theta, device=DEVICE)
    theirs = pyamg.smoothed_aggregation_solver(A, strength=("symmetric", {"theta": theta}), max_coarse=1000)
    assert [level.A.shape[0] for level in ours.levels] == [level.A.shape[0] for level in theirs.levels]


# ---- 8. type hints -------------------------------------------------------------------------------

def test_public_api_annotated():
    """Every parameter and return of the public functions and methods has a type hint, which resolves
    (but pyamg_solver's, PyAMG's class)."""
    funcs = [getattr(hspgemm, name) for name in hspgemm.__all__ if inspect.isfunction(getattr(hspgemm, name))]
    for cls in (hspgemm.Context, hspgemm.Hierarchy):
        funcs += [f for name, f in vars(cls).items() if inspect.isfunction(f) and not name.startswith("_")]
        funcs.append(cls.__init__)
    for f in funcs:
        sig = inspect.signature(f)
        bare = [p.name for p in sig.parameters.values() if p.name != "self" and p.annotation is p.empty]
        assert not bare and sig.return_annotation is not sig.empty, f"{f.__qualname__}: no hint for {bare or 'return'}"
        if f is not hspgemm.pyamg_solver:
            typing.get_type_hints(f)
        assert all(len(str(p.annotation)) < 100 for p in sig.parameters.values()), \
            f"{f.__qualname__}: an annotation expands in its signature: {sig}"  # numpy's DTypeLike did, to 600


def test_public_docstrings_numpydoc():
    """Every public function, class and method has a docstring in numpydoc's form: a summary line,
    then a Parameters section where it takes any (Context: its __init__'s), a Returns section
    where it returns a value (Prepared.info had none at all); the Examples run.  pyamg_solver's
    is left to the change that reworks it."""
    import doctest
    names = [n for n in hspgemm.__all__ if n != "pyamg_solver" and not n.endswith("Error")]
    objects = [getattr(hspgemm, n) for n in names]
    for cls in (hspgemm.Context, hspgemm.Hierarchy, hspgemm.Prepared):
        objects += [f for n, f in vars(cls).items() if inspect.isfunction(f) and not n.startswith("_")]
    for obj in objects:
        doc = inspect.getdoc(obj)
        assert doc and doc.split("\n")[0].strip(), f"{obj.__qualname__}: no summary line"
        if inspect.isclass(obj) and obj is not hspgemm.Context:
            continue  # made by the package, not by users: its __init__'s parameters are the package's
        f = obj.__init__ if inspect.isclass(obj) else obj
        sig = inspect.signature(f)
        if [p for p in sig.parameters if p != "self"]:
            assert "\nParameters\n----------\n" in doc, f"{obj.__qualname__}: no Parameters section"
        if not inspect.isclass(obj) and sig.return_annotation not in (None, "None"):
            assert "\nReturns\n-------\n" in doc, f"{obj.__qualname__}: no Returns section"
    for obj in (hspgemm.matmul, hspgemm.Context):
        for test in doctest.DocTestFinder(recurse=False).find(obj, globs={}):
            assert doctest.DocTestRunner().run(test).failed == 0, obj.__qualname__


def test_options_are_the_library_table():
    """Context's keywords are the library's option table's (src/options.def, read by _core.options()),
    each defaulting to the library's default in its signature, its docstring and the module functions
    that take it: one default per option (drop_zeros was True here, 0 in C)."""
    import re
    from hspgemm import _core
    table = _core.options()
    sig = inspect.signature(hspgemm.Context.__init__).parameters
    assert sorted(k for k in sig if k != "self") == sorted(table)
    doc = inspect.getdoc(hspgemm.Context)
    for k, want in table.items():
        got = hspgemm._methods(sig[k].default) if k == "methods" else sig[k].default
        assert got == want and type(got) is type(want), f"Context({k}={got!r}): the library's default is {want!r}"
        said = re.search(rf"^{k} : .*, default (.+)$", doc, re.M)
        assert not said or said.group(1).replace('"', "'") == repr(want), f"Context's docstring: {said.group(0)}"
    for f in (hspgemm.matmul, hspgemm.rap, hspgemm.spmm, hspgemm.amg_setup):
        for k, p in inspect.signature(f).parameters.items():
            assert k not in table or k == "methods" or p.default == table[k], f"{f.__name__}({k}={p.default!r})"
    with pytest.raises(TypeError, match="no option 'nonesuch'"):
        _core.Context(nonesuch=1)


# ---- 9. the tests themselves ---------------------------------------------------------------------

def test_pytest_runs_in_the_sources_folder(child_process):
    """python -m pytest run in python/ (where the sources, without the extension, come first on
    sys.path) tests the installed package: conftest.py drops that folder (it failed: ImportError,
    the extension is not built there)."""
    import subprocess
    import sys
    sources = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(child_process["env"], PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "tests/test_amg.py::test_setup_errors"], cwd=sources, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout + p.stderr


# ---- 10. a kernel build is said ------------------------------------------------------------------

def test_kernel_build_logged(child_process, tmp_path):
    """The first context on an OpenCL device builds its kernels, which takes a while and was silent:
    the logger "hspgemm" warns at its start (so that it shows where logging is not set up) and
    says at INFO when it ended; a second context, which finds them cached, logs nothing.  On an
    empty kernel cache (HSPGEMM_CACHE_DIR), in float32 only (",nofp64"); not on PoCL, whose build
    takes minutes."""
    import subprocess
    import sys
    fast = [d["name"] for d in hspgemm.devices() if d["name"].startswith("opencl") and d["usable"]
            and "Portable Computing Language" not in d["description"]]
    if not fast:
        pytest.skip("no OpenCL device but PoCL's, whose kernels take minutes to build")
    code = f"""
import logging, hspgemm
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
for _ in range(2):
    hspgemm.Context("{fast[0]},nofp64").close()"""
    env = dict(child_process["env"], HSPGEMM_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=child_process["cwd"], env=env)
    lines = p.stderr.splitlines()
    assert p.returncode == 0 and len(lines) == 2, p.stderr
    assert lines[0].startswith("WARNING hspgemm: hspgemm is building its float32 kernels for the OpenCL device")
    assert lines[1].startswith("INFO hspgemm: hspgemm built its float32 kernels"), p.stderr
