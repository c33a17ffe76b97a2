"""hspgemm: sparse matrix products (SpGEMM, C = A*B) on CPU threads and GPUs.

The package is the Python face of libhspgemm: scipy.sparse matrices and
arrays go in (CSR, CSC or COO; float32 or float64, others as matmul says), a
CSR result with sorted indices comes out in the left operand's container, as
scipy's A @ B gives it (a csr_matrix for a scipy.sparse matrix, else a
csr_array), explicit zeros kept as the C library keeps them
(drop_zeros=True leaves them out, as scipy's A @ B does).  Operands
are checked from their own arrays, never from scipy's flags; a CSR operand
with sorted, unique int32 column indices is read in place, others are
converted first, never changed.  C's arrays are the library's own, handed
to numpy without a copy.

    import hspgemm, scipy.sparse as sp
    A = sp.random_array((1000, 1000), density=0.01, format="csr")
    C = hspgemm.matmul(A, A)                    # one call, default device
    with hspgemm.Context(device="cpu", threads=4) as ctx:
        C, stats = ctx.matmul(A, A, stats=True)  # reuse threads and device

The library works without the GIL; a Ctrl-C during a product is raised as
KeyboardInterrupt when the product returns.  Errors raise hspgemm.Error
subclasses carrying the library's message.
"""
from __future__ import annotations  # signatures in help() name the aliases below, not their expansions

import logging
import numbers
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

try:
    from . import _core
except ImportError as e:
    if e.name != __name__:  # _core is there but does not load: its own message says why
        raise
    raise ImportError(f"hspgemm: the extension module hspgemm._core is not built in {__path__[0]} (the package's "
                      "sources, found first from their parent folder): install the package (pip install ./python "
                      "in the repository) and import it from another folder") from None

__all__ = ["matmul", "spmm", "rap", "Prepared", "transpose", "generate", "devices", "release_memory", "Context",
           "amg_setup", "amg_resetup", "pyamg_solver", "amg_solver", "ruge_stuben_solver", "Solver", "Hierarchy",
           "Level",
           "Error", "ArgumentError", "OutOfMemoryError", "ShapeError", "InvalidMatrixError",
           "SizeOverflowError", "FileError", "ParseError", "DeviceError", "UnsupportedError"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from pyamg.multilevel import MultilevelSolver
    from scipy.sparse.linalg import LinearOperator

# the types of the annotations: what the functions take as a matrix, a product's figures, a
# PyAMG smoother
_Sparse = sp.sparray | sp.spmatrix
_CSR = sp.csr_array | sp.csr_matrix
_Stats = dict[str, Any]
_Smoother = str | tuple[str, dict[str, Any]] | list[str | tuple[str, dict[str, Any]]]
_Strength = str | tuple[str, dict[str, float]]


class Error(Exception):
    """An error of libhspgemm: str(e) is its message, e.status the name of its status."""
    status = "error"


class ArgumentError(Error, ValueError):
    """A bad argument: an unknown device or option name, a value out of range."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed or the memory limit (mem_limit) was reached."""


class ShapeError(Error, ValueError):
    """The operands' shapes do not fit (the message names every operand and its shape)."""


class InvalidMatrixError(Error, ValueError):
    """An operand is not valid CSR (the message names the row)."""


class SizeOverflowError(Error, OverflowError):
    """A count (entries, flops, bytes) would not fit its type."""


class FileError(Error, OSError):
    """A file could not be opened, read or written."""


class ParseError(Error, ValueError):
    """A malformed Matrix Market file."""


class DeviceError(Error, RuntimeError):
    """The device is unavailable or failed."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request this build of the library cannot do."""


_log = logging.getLogger("hspgemm")


def _build_heard(started, device, precision, seconds):
    """The library's news of a kernel build (hsp_set_build_hook) as records of the logger "hspgemm":
    a warning at its start, since it takes a while and is shown so where logging is not set up,
    INFO at its end."""
    if started:
        _log.warning("hspgemm is building its %s kernels for the OpenCL device %r: once per device and driver "
                     "(they are cached, see HSPGEMM_CACHE_DIR), in seconds to minutes", precision, device)
    else:
        _log.info("hspgemm built its %s kernels for %r in %.1f s", precision, device, seconds)


_core.set_build_hook(_build_heard)

# Context's options and their defaults, from the library's option table (src/options.def): each
# keyword below defaults to its entry here, so that the package and the library have one default
_DEFAULTS = _core.options()

# the library's hsp_status values, in order from HSP_ERR_ARG = 1
_ERRORS = [None, ArgumentError, OutOfMemoryError, ShapeError, InvalidMatrixError, SizeOverflowError,
           FileError, ParseError, DeviceError, UnsupportedError]
_INT32_MAX = 2**31 - 1
_ORDERS = {"r-ap": 0, "ra-p": 1}


def _order(order):
    """The library's number of a Galerkin product's order, "r-ap" or "ra-p"."""
    if not isinstance(order, str) or order not in _ORDERS:
        raise ArgumentError(f"order = {order!r}: give 'r-ap' (R @ (A @ P)) or 'ra-p' ((R @ A) @ P)")
    return _ORDERS[order]


_AGGREGATIONS = {"auto": 0, "greedy": 1, "parallel": 2}  # hsp_aggregation


def _aggregation(aggregation):
    """The library's number of an aggregation, "auto", "greedy" or "parallel"."""
    if not isinstance(aggregation, str) or aggregation not in _AGGREGATIONS:
        raise ArgumentError(f"aggregation = {aggregation!r}: give 'auto', 'greedy' or 'parallel'")
    return _AGGREGATIONS[aggregation]


_COARSENINGS = {"aggregation": 0, "classical": 1}  # hsp_amg_coarsening


def _coarsening(coarsening):
    """The library's number of a coarsening, "aggregation" or "classical"."""
    if not isinstance(coarsening, str) or coarsening not in _COARSENINGS:
        raise ArgumentError(f"coarsening = {coarsening!r}: give 'aggregation' (smoothed aggregation) or "
                            "'classical' (Ruge-Stueben)")
    return _COARSENINGS[coarsening]


def _library_error(e):
    """The package's exception for a _core.Error(status, name, message)."""
    status, name, message = e.args
    cls = _ERRORS[status] if 0 < status < len(_ERRORS) else Error
    err = cls(message or name)
    err.status = name
    return err


def _call(f, *args, **kw):
    """f(*args, **kw), a _core call, with the library's errors as the package's exceptions."""
    try:
        return f(*args, **kw)
    except _core.Error as e:
        raise _library_error(e) from None


# the value types that float32 holds exactly (bool as 0 and 1)
_FLOAT32_TYPES = (np.bool_, np.float16, np.float32)


def _dtype(precision, operands):
    """The values' dtype: precision's, or float32 where every operand is float32, float16 or bool,
    else float64."""
    if precision is None:
        return np.float32 if all(M.dtype.type in _FLOAT32_TYPES for M in operands) else np.float64
    names = {"float": np.float32, "float32": np.float32, "single": np.float32,
             "double": np.float64, "float64": np.float64}
    try:
        dtype = names.get(precision) if isinstance(precision, str) else np.dtype(precision).type
    except TypeError:  # not a dtype at all
        dtype = None
    if dtype not in (np.float32, np.float64):
        raise ArgumentError(f"precision = {precision!r}: give 'float32' or 'float64' (or None: from the "
                            f"operands' types)")
    return dtype


def _check_sparse(M, name):
    """M, checked to be a two-dimensional scipy.sparse matrix or array of real values."""
    if not sp.issparse(M):
        raise TypeError(f"{name}: expected a scipy.sparse matrix or array, got {type(M).__name__}")
    if len(M.shape) != 2:
        raise ShapeError(f"{name}: expected two dimensions, got shape {M.shape}")
    if M.shape[0] > _INT32_MAX or M.shape[1] > _INT32_MAX:
        raise SizeOverflowError(f"{name}: {M.shape[0]} x {M.shape[1]} is larger than the library's "
                                f"{_INT32_MAX} rows and columns")
    if M.dtype.kind == "c":
        raise TypeError(f"{name}: {M.dtype} values are not supported: the library's products are real (multiply "
                        f"the real and imaginary parts, {name}.real and {name}.imag, apart)")
    if M.dtype.kind == "f" and M.dtype.itemsize > 8:
        raise TypeError(f"{name}: {M.dtype} (long double) values are not supported: convert them to float64 "
                        f"({name}.astype(numpy.float64)), which rounds them")
    if M.dtype.kind not in "biuf":
        raise TypeError(f"{name}: {M.dtype} values are not supported (real values only: float32, float64, "
                        f"float16, bool or integers)")
    return M


def _shape_words(shape):
    """A shape as the library's messages write it: "m x n", or "a vector of n"."""
    return " x ".join(map(str, shape)) if len(shape) == 2 else f"a vector of {shape[0]}"


def _check_chain(product, operands):
    """Raise ShapeError where the (name, shape) operands of product (their names joined by @)
    do not chain, naming every operand and its shape and the first pair that does not fit."""
    for (left, a), (right, b) in zip(operands, operands[1:]):
        if a[1] != b[0]:
            shapes = ", ".join(f"{name} is {_shape_words(shape)}" for name, shape in operands)
            raise ShapeError(f"{product}: {shapes}: ncols({left}) != nrows({right})")


def _first_outside(idx, n):
    """The position of the first of the indices idx outside [0, n), or None (a min and a max pass)."""
    if len(idx) == 0 or (idx.min() >= 0 and idx.max() < n):
        return None
    return int(np.argmax((idx < 0) | (idx >= n)))


# the axes of a compressed format: what its pointers and its indices count
_AXES = {"csr": ("row", "column"), "csc": ("column", "row"), "bsr": ("block row", "block column")}


def _check_compressed(M, name):
    """Raise InvalidMatrixError at the first fault of CSR, CSC or BSR M's own arrays (pointers from
    0, rising, within its entries; indices in range), in the words of the library's messages."""
    major, minor = _AXES[M.format]
    rows, cols = M.blocksize if M.format == "bsr" else (1, 1)
    nmajor, nminor = M.shape[0] // rows, M.shape[1] // cols
    if M.format == "csc":
        nmajor, nminor = nminor, nmajor
    indptr, indices = M.indptr, M.indices
    if indptr.shape != (nmajor + 1,):
        raise InvalidMatrixError(f"{name}: {indptr.size} {major} pointers for {nmajor} {major}s, not {nmajor + 1}")
    if indptr[0] != 0:
        raise InvalidMatrixError(f"{name}: indptr[0] is {indptr[0]}, not 0")
    nnz = indptr[-1]
    if nnz > min(len(indices), len(M.data)):
        raise InvalidMatrixError(f"{name}: indptr[{nmajor}] is {nnz}, beyond its {len(indices)} indices or "
                                 f"{len(M.data)} values")
    falls = np.diff(indptr) < 0
    if falls.any():
        i = int(np.argmax(falls))
        raise InvalidMatrixError(f"{name}: {major} {i}: {major} pointers {indptr[i]}..{indptr[i + 1]} are not "
                                 f"monotone within nnz {nnz}")
    k = _first_outside(indices[:nnz], nminor)
    if k is not None:
        i = int(np.searchsorted(indptr, k, side="right")) - 1
        raise InvalidMatrixError(f"{name}: {major} {i}: {minor} {indices[k]} out of range [0, {nminor})")


def _check_coo(M, name):
    """Raise InvalidMatrixError at the first fault of COO M's own arrays: lengths that differ, an
    index out of range."""
    row, col = M.coords
    if not len(row) == len(col) == len(M.data):
        raise InvalidMatrixError(f"{name}: {len(row)} row indices, {len(col)} column indices and "
                                 f"{len(M.data)} values")
    for axis, idx, n in (("row", row, M.shape[0]), ("column", col, M.shape[1])):
        k = _first_outside(idx, n)
        if k is not None:
            raise InvalidMatrixError(f"{name}: entry {k}: {axis} {idx[k]} out of range [0, {n})")


def _csr_of(M, name):
    """M as CSR (M itself where it is), its own arrays checked first: scipy's conversion of a
    corrupt CSC or COO reads out of bounds.  DIA, LIL and DOK hold no pointers to go wrong:
    scipy converts them, and their CSR is checked."""
    if M.format == "coo":
        _check_coo(M, name)
    else:
        if M.format not in _AXES:
            M = M.tocsr()
        _check_compressed(M, name)
    return M.tocsr()


def _sorted_unique(indptr, indices):
    """Are the columns of each row strictly increasing (sorted, none twice)?  One vectorized pass:
    up[k] says whether entry k lies above entry k - 1 or begins a row (up[nnz]: the end)."""
    up = np.empty(len(indices) + 1, dtype=bool)
    np.greater(indices[1:], indices[:-1], out=up[1:-1])
    up[indptr.astype(np.intp, copy=False)] = True  # intp: numpy scatters int32 indices twice as slowly
    return bool(up.all())


def _candidates(B, n):
    """B as a C-contiguous float64 array of n rows (a vector: one column), or None."""
    if B is None:
        return None
    B = np.asarray(B)
    if B.ndim == 1:
        B = B.reshape(-1, 1)
    if B.ndim != 2 or B.shape[0] != n or B.shape[1] < 1:
        raise ShapeError(f"B is {'x'.join(map(str, B.shape))}: give {n} rows of candidates (an (n,) or (n, k) array)")
    if np.iscomplexobj(B) or not (np.issubdtype(B.dtype, np.number) or B.dtype == np.bool_):
        raise TypeError(f"B: real values, not {B.dtype}")
    return np.ascontiguousarray(B, dtype=np.float64)


def _count(x, name):
    """The int option x, a TypeError naming it where it is not an integer."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} = {x!r}: give an integer")
    return int(x)


def _canonical(M, dtype, name):
    """M as CSR with sorted, unique columns and values of dtype, as its arrays say (scipy's flags
    may be stale, the arrays changed in place since): M itself where it is so, else a copy
    (sorted, duplicates summed).  M is never changed, nor its flags."""
    C = _csr_of(M, name)
    nnz = C.indptr[-1]
    if not _sorted_unique(C.indptr, C.indices[:nnz]):
        C = sp.csr_array((C.data[:nnz], C.indices[:nnz], C.indptr), shape=C.shape, copy=True)
        C.has_sorted_indices = False  # as found: scipy sorts and sums without asking the arrays again
        C.sum_duplicates()
    return C if C.dtype == dtype else C.astype(dtype)


def _core_matrix(C):
    """The tuple _core reads of a _canonical C: (nrows, ncols, indptr int64, indices int32, data),
    over C's own arrays where they are already so (its indices are in range: int32 holds them)."""
    nnz = C.indptr[-1]
    return (C.shape[0], C.shape[1], np.ascontiguousarray(C.indptr, dtype=np.int64),
            np.ascontiguousarray(C.indices[:nnz], dtype=np.int32), np.ascontiguousarray(C.data[:nnz]))


def _operand(M, dtype, name):
    """Operand name, M, as _core reads it with values of dtype (see _canonical)."""
    return _core_matrix(_canonical(M, dtype, name))


def _container(left):
    """The class of scipy's CSR product whose left operand is left: csr_matrix where left is a
    scipy.sparse matrix (spmatrix: matrix in, matrix out, where * is the matrix product), else
    csr_array."""
    return sp.csr_matrix if isinstance(left, sp.spmatrix) else sp.csr_array


def _result(m, unsorted=False, container=sp.csr_array):
    """A container (csr_array or csr_matrix) over the arrays of a matrix _core returned (no copy
    of its columns or values), its indices sorted unless unsorted."""
    nrows, ncols, indptr, indices, data = m
    indptr, indices, data = (np.asarray(memoryview(x)) for x in (indptr, indices, data))
    if indptr[-1] <= _INT32_MAX:  # scipy wants one index type: int32 row pointers keep the columns uncopied
        indptr = indptr.astype(np.int32)
    C = container((data, indices, indptr), shape=(nrows, ncols), copy=False)
    C.has_sorted_indices = not unsorted
    return C


def _as_scipy_types(C, precision, operands):
    """C as scipy types the product of these operands: where all are bool (and no precision is
    asked), the bool pattern of C's nonzeros; else C itself."""
    if precision is not None or not all(M.dtype == np.bool_ for M in operands):
        return C
    P = C.astype(np.bool_)
    P.eliminate_zeros()
    return P


def _dense_as_scipy(Y, X, operands):
    """spmm's new result Y as scipy's A @ X types it: where the operands are all bool, the bool
    pattern of Y's nonzeros; a numpy.matrix where X is one; else Y itself."""
    if operands and all(M.dtype == np.bool_ for M in operands):
        Y = Y != 0
    return np.asmatrix(Y) if isinstance(X, np.matrix) else Y


def _empty_on_line(shape, dtype, order):
    """np.empty(shape, dtype, order=order) whose first value begins a 64-byte cache line (numpy's
    large arrays begin 16 bytes past one), so that the library may store a large product past the
    caches (doc/library.md, "Sparse times dense")."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(size + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    return raw[skip:skip + size].view(dtype).reshape(shape, order=order)


def _copy_of(m):
    """A csr_array of copies of a matrix tuple's arrays (a hierarchy's, which a re-setup changes)."""
    nrows, ncols, indptr, indices, data = m
    indptr, indices, data = (np.array(memoryview(x)) for x in (indptr, indices, data))
    return sp.csr_array((data, indices, indptr), shape=(nrows, ncols), copy=False)


class Level(NamedTuple):
    """One level of a Hierarchy.

    Attributes
    ----------
    A : csr_array or csr_matrix
        Its operator (level 0's: the matrix given, as CSR).
    P, R : csr_array or None
        The prolongation from the next level and the restriction R = P.T to it; None on the
        coarsest.
    naggregates : int
        The next level's size.
    timings : dict
        The ms of its steps (ms_aggregate, ms_smooth, ms_transpose, ms_rap) and of which side
        did what in its products (ms_device, ms_host, ms_wait: hsp_amg_level's fields).
    """
    A: sp.csr_array | sp.csr_matrix
    P: sp.csr_array | None
    R: sp.csr_array | None
    naggregates: int
    timings: dict[str, Any]


class Hierarchy:
    """A smoothed-aggregation AMG hierarchy (hsp_amg), made by amg_setup.

    amg_resetup(h, A) gives new values of the same pattern.  It keeps the context that made it
    alive (see Context.close).

    Attributes
    ----------
    levels : list of Level
        csr_arrays copied from the library's (level 0's A is the matrix given), at the first
        reading of levels after the setup or a re-setup (a solver that never reads them copies
        nothing: about 0.3 s of poisson2d5:1024's).
    ms_total : float
        The setup's ms.
    device : str
        The device that ran its finest level's products.
    """
    ms_total: float
    device: str

    def __init__(self, core: Any, A: sp.csr_array | sp.csr_matrix) -> None:
        self._core = core
        self._A0 = A
        self._read()

    def _read(self):
        """ms_total and device from the library's hierarchy; levels to be copied anew when read."""
        info = self._core.info()
        self.ms_total, self.device = info["ms_total"], info["device"]
        self._nlevels = info["nlevels"]
        self._levels: list[Level] | None = None

    @property
    def levels(self) -> list[Level]:
        """The levels (list of Level), copied from the library's at the first reading."""
        if self._levels is None:
            levels = []
            for k in range(self._nlevels):
                A, P, R, nagg, ms = self._core.level(k)
                levels.append(Level(self._A0 if k == 0 else _copy_of(A), None if P is None else _copy_of(P),
                                    None if R is None else _copy_of(R), nagg, ms))
            self._levels = levels
        return self._levels

    def operator_complexity(self) -> float:
        """The sum of the levels' entries over level 0's.

        Returns
        -------
        float
        """
        return sum(level.A.nnz for level in self.levels) / self.levels[0].A.nnz

    def _rows(self) -> list[int]:
        """Each level's rows, read without copying the levels."""
        return [self._A0.shape[0]] + [self._core.level(k)[0][0] for k in range(1, self._nlevels)]

    def __repr__(self) -> str:
        rows = self._rows()
        return f"<hspgemm.Hierarchy: {len(rows)} levels ({'/'.join(map(str, rows))} rows), device {self.device}>"


# what an option of each type takes, for the messages of _option
_TAKES = {int: "an integer", float: "a number", str: "a string"}


def _option(value, name, kind):
    """Option name's value as kind (int, float or str), or TypeError naming the option: a string
    of digits is not an integer here, nor a bool a number."""
    if kind is int and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if kind is float and isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    if kind is str and isinstance(value, str):
        return value
    raise TypeError(f"{name} = {value!r}: give {_TAKES[kind]} ({type(value).__name__} given)")


def _methods(methods):
    """The three methods (short, medium, long rows) from None, one name, or three names."""
    if methods is None:
        return _DEFAULTS["methods"]
    if isinstance(methods, str):
        return (methods,) * 3
    methods = tuple(methods)
    if len(methods) != 3 or not all(isinstance(m, str) for m in methods):
        raise ArgumentError(f"methods: give one name or three (short, medium, long rows), not {methods!r}")
    return methods


class Prepared:
    """A sparse matrix that Context.prepare checked and copied for spmm.

    Context.spmm takes it in place of A, without converting or checking A again.  It keeps
    the context that made it alive (see Context.close); it may be used on another context too.

    Attributes
    ----------
    shape : tuple of int
        A's shape, (nrows, ncols).
    dtype : numpy.dtype
        The precision it holds, float32 or float64: the X of a product is taken in it.
    """

    def __init__(self, core, shape, dtype):
        self._core, self.shape, self.dtype = core, tuple(shape), np.dtype(dtype)

    def info(self) -> dict:
        """The form the library keeps the matrix in, as figures.

        Returns
        -------
        dict
            ``nrows``, ``ncols``; ``format``: "ellr" (sliced ELLPACK-R) or "csr" (on the CPU
            threads, and where a few long rows would pad ELLPACK-R's slots past twice the
            entries); ``width``: the longest
            row's entries; ``height``: the rows of a slice (0 in CSR); ``nnz``; ``slots``:
            ELLPACK-R's slots, padding included (0 in CSR); ``bytes`` against ``csr_bytes``, A's
            in CSR; ``copy_bytes``: the CSR copy kept beside it (on a GPU for row-major B of
            several columns; on the CPU threads of its rows by length, where its rows vary in
            length and share few columns with their neighbours), else 0; ``precision``: "float"
            or "double".
        """
        return self._core.info()


class Context:
    """A device and its CPU threads, kept across products (hsp_context).

    A context serves one call at a time (calls from several threads wait their turn); close()
    or a with block frees it.  Hierarchies and Prepared matrices made on it keep it alive:
    after close() it takes no call, and its device and threads are freed when the last of them
    goes.

    Parameters
    ----------
    device : str, default "auto"
        "auto" (an HSA GPU, else an OpenCL GPU, else cpu), "cpu", "opencl[:N]" (with ",nosvm",
        ",nofp64"), "hsa[:N]" (with ",nosvm", ",svm"); see devices().  An opencl device builds
        its kernels when the context opens it, where they are not cached yet (seconds on a GPU,
        minutes on PoCL): the logger "hspgemm" warns at the start and says at INFO when it ends.
    threads : int, default 0
        CPU threads; 0: one per CPU the process may run on (os.sched_getaffinity(0), as
        taskset, cgroup cpusets or mpiexec's binding leave it).
    grow : {"realloc", "copy"}, default "realloc"
        How a long row's buffer grows.
    methods : str or sequence of three str, optional
        The per-row methods of short, medium and long rows: one name or three of "default",
        "heap", "esc", "merge", "hash", "dense", "auto", "rmerge", "hash2"; or "bitmap": matmul
        blocks A and B into 8x8 bitmaps and multiplies them on the GPU device, else the CPU
        threads (stats["bitmap"] True, stats["blocks_c"] C's blocks; doc/library.md: Bitmap-blocked
        matrices).  None: "default".
    mem_limit : int, default 0
        Bytes of temporary and output memory a product may hold; 0: the machine's physical
        memory.
    small_nnz : int, default 0
        With a GPU, products whose operands hold at most this many entries run on the CPU
        threads; 0: 2^18, -1: none.
    device_timeout : float, default 0.0
        Seconds a wait for the hsa device may last; 0: the default, 600.
    unsorted : bool, default False
        matmul may leave the column indices of C's rows in any order, as scipy's A @ B does
        (faster on the cpu device); C.has_sorted_indices says which, and C.sort_indices() orders
        them.  rap and amg_setup always give sorted indices.
    drop_zeros : bool, default False
        True: matmul and rap leave out of C the entries that are exactly 0 (sums that cancel,
        products of stored zeros), as scipy's A @ B does, so that C has the nnz and the pattern
        of scipy's product.  False keeps them (the library's one default), so that C's pattern
        depends on the operands' patterns alone, whatever their values, as plans reuse it.
        amg_setup keeps them always.
    deterministic : bool, default False
        Every entry of C is summed in one fixed order, so that a product gives the same bits on
        every run (GPU devices then take "rmerge" and "merge", not "hash", "hash2" or "dense";
        naming one of those for a GPU raises).
    profile : str, optional
        A profile file that ``hspgemm tune`` wrote: the methods per bin a GPU device takes where
        methods leaves the choice to it.  None: the user's ($XDG_CONFIG_HOME/hspgemm/profile,
        else ~/.config/hspgemm/profile) where it exists; "none": no profile.  stats["profile"]
        names the file a product's methods came from ("" where none).
    spmm_blocks : int, default 0
        spmm on a device reached by transfers (opencl buffers): C made in this many blocks whose
        transfers go beside the other blocks' launches; 0 or 1: none.
    spmm_cpu_share : float, default 0.0
        spmm on a device that reads host memory (system SVM, an APU): the share of X's columns
        the CPU threads make while the device makes the rest; 0: the device alone, 1: the CPU
        threads alone.  The stats' "blocks" and "cpu_cols" say what ran.
    pattern : bool, default False
        matmul gives C's pattern, every value 1 (the entries products land on, whatever
        drop_zeros says); with methods="bitmap" no values are computed, else they are and then
        set to 1.

    Examples
    --------
    >>> import hspgemm
    >>> A = hspgemm.generate("poisson2d5:100")
    >>> with hspgemm.Context(device="cpu", threads=2) as ctx:
    ...     C, stats = ctx.matmul(A, A, stats=True)
    >>> C.shape, stats["threads"]
    ((10000, 10000), 2)
    """

    def __init__(self, device: str = _DEFAULTS["device"], threads: int = _DEFAULTS["threads"],
                 grow: str = _DEFAULTS["grow"], methods: str | Sequence[str] | None = None,
                 mem_limit: int = _DEFAULTS["mem_limit"], small_nnz: int = _DEFAULTS["small_nnz"],
                 device_timeout: float = _DEFAULTS["device_timeout"], unsorted: bool = _DEFAULTS["unsorted"],
                 drop_zeros: bool = _DEFAULTS["drop_zeros"], deterministic: bool = _DEFAULTS["deterministic"],
                 profile: str | None = _DEFAULTS["profile"], spmm_blocks: int = _DEFAULTS["spmm_blocks"],
                 spmm_cpu_share: float = _DEFAULTS["spmm_cpu_share"], pattern: bool = _DEFAULTS["pattern"]) -> None:
        self._ctx = _call(_core.Context, device=_option(device, "device", str),
                          threads=_option(threads, "threads", int), grow=_option(grow, "grow", str),
                          methods=_methods(methods), mem_limit=_option(mem_limit, "mem_limit", int),
                          small_nnz=_option(small_nnz, "small_nnz", int),
                          device_timeout=_option(device_timeout, "device_timeout", float), unsorted=bool(unsorted),
                          drop_zeros=bool(drop_zeros), deterministic=bool(deterministic),
                          profile=None if profile is None else _option(profile, "profile", str),
                          spmm_blocks=_option(spmm_blocks, "spmm_blocks", int),
                          spmm_cpu_share=_option(spmm_cpu_share, "spmm_cpu_share", float), pattern=bool(pattern))
        self._unsorted = bool(unsorted)

    def matmul(self, A: _Sparse, B: _Sparse, *, precision: DTypeLike | None = None,
               stats: bool = False) -> _CSR | tuple[_CSR, _Stats]:
        """C = A @ B on this context's device and threads.

        Parameters
        ----------
        A, B : scipy.sparse matrix or array
            As matmul takes them.
        precision : {"float32", "float64"} or numpy dtype, optional
            As matmul's.
        stats : bool, default False
            Also return a dict of the product's figures.

        Returns
        -------
        C : csr_matrix or csr_array
            As matmul gives it (a csr_matrix where A is a scipy.sparse matrix, else a csr_array).
        stats : dict
            Only with stats=True: the product's figures (the keys of ``hspgemm --stats=json``).

        See Also
        --------
        matmul : the same with the module's context for a set of options.
        """
        A, B = _check_sparse(A, "A"), _check_sparse(B, "B")
        dtype = _dtype(precision, (A, B))
        a = _operand(A, dtype, "A")
        b = a if B is A else _operand(B, dtype, "B")  # A @ A: A checked and converted once
        m, st = _call(self._ctx.multiply, a, b, stats)
        C = _as_scipy_types(_result(m, self._unsorted, _container(A)), precision, (A, B))
        return (C, st) if stats else C

    def prepare(self, A: _Sparse, *, precision: DTypeLike | None = None) -> Prepared:
        """A checked once and copied for Context.spmm (hsp_ellr_from_csr).

        The copy is in a form of the library's own (sliced ELLPACK-R on a GPU device; CSR on the CPU
        threads, or where a few long rows would pad ELLPACK-R too much), which spmm reads again and
        again without converting or checking A;
        A may change or go afterwards.

        Parameters
        ----------
        A : scipy.sparse matrix or array
            Real values, as matmul takes them.
        precision : {"float32", "float64"} or numpy dtype, optional
            The precision kept: None gives float32 where A's values are float32, float16 or bool,
            else float64 (integers among them).

        Returns
        -------
        Prepared
            Taken by spmm in A's place; it keeps this context alive.
        """
        A = _check_sparse(A, "A")
        dtype = _dtype(precision, (A,))
        return Prepared(_call(self._ctx.prepare, _operand(A, dtype, "A")), A.shape, dtype)

    def spmm(self, A: _Sparse | Prepared, X: ArrayLike, *, alpha: float = 1.0, beta: float = 0.0,
             out: np.ndarray | None = None, precision: DTypeLike | None = None,
             stats: bool = False) -> np.ndarray | tuple[np.ndarray, _Stats]:
        """alpha * A @ X + beta * out, a sparse A times a dense X, on this context's device.

        On the CPU threads for "cpu"; a GPU's kernel on an opencl or hsa device (see spmm_blocks
        and spmm_cpu_share).

        Parameters
        ----------
        A : scipy.sparse matrix or array, or Prepared
            The sparse operand; a Prepared (from prepare) takes X in its own precision.
        X : array_like
            A dense vector or matrix (numpy, one or two dimensions, C or Fortran order) of real
            values.
        alpha, beta : float
            The scales; beta needs out, whose values it scales.
        out : numpy.ndarray, optional
            Where the result goes: writable, C- or F-contiguous, of the result's shape and dtype.
        precision : {"float32", "float64"} or numpy dtype, optional
            None: float32 where A and X are float32, float16 or bool, else float64.
        stats : bool, default False
            Also return the product's figures.

        Returns
        -------
        Y : numpy.ndarray
            out where given, else a new array in X's order: (A's rows,) for a vector X, (A's
            rows, X's columns) for a matrix (no columns: (m, 0), as scipy).  Where A and X are both
            bool (and no precision is asked), the bool pattern of the product's nonzeros, as
            scipy's A @ X; integers give float64; a numpy.matrix X gives a numpy.matrix.
        stats : dict
            Only with stats=True: ``ms``, ``flops``, ``threads``, ``format`` (A's form read:
            "csr" or "ellr"), ``device`` (named as matmul's stats name it: "cpu" for the CPU
            threads), ``blocks``, ``cpu_cols``.

        Raises
        ------
        ShapeError
            X's rows are not A's columns (the message gives both shapes).
        ArgumentError
            A bad out or X, beta without out; out is then untouched.
        """
        prepared, given, X0 = isinstance(A, Prepared), out is not None, X
        if not prepared:
            A = _check_sparse(A, "A")
        X = np.asarray(X)
        if X.ndim not in (1, 2) or X.dtype.kind not in "biuf":
            raise ArgumentError(f"X: give a numpy array of one or two dimensions of real values, not "
                                f"{X.ndim} of {X.dtype}")
        _check_chain("A @ X", [("A", A.shape), ("X", X.shape)])
        dtype = A.dtype if prepared else _dtype(precision, (A, X))
        X2 = X.reshape(-1, 1) if X.ndim == 1 else X
        shape = (A.shape[0],) + X.shape[1:]
        if out is None:
            if beta != 0:
                raise ArgumentError("beta: give out, the array it scales")
            colmajor = X2.flags.f_contiguous and not X2.flags.c_contiguous
            out = _empty_on_line(shape, dtype, "F" if colmajor else "C")
        elif not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == dtype and out.flags.writeable
                  and (out.flags.c_contiguous or out.flags.f_contiguous)):
            raise ArgumentError(f"out: give a writable contiguous numpy array of shape {shape} and dtype "
                                f"{np.dtype(dtype).name}")
        Y = out.reshape(-1, 1) if out.ndim == 1 else out
        colmajor = Y.flags.f_contiguous and not Y.flags.c_contiguous
        x = np.asfortranarray(X2, dtype) if colmajor else np.ascontiguousarray(X2, dtype)
        a = A._core if prepared else _operand(A, dtype, "A")
        st = _call(self._ctx.spmm, a, x.T if colmajor else x, Y.T if colmajor else Y,
                   Y.shape[1], colmajor, float(alpha), float(beta), stats)
        if not given:
            out = _dense_as_scipy(out, X0, () if prepared or precision is not None else (A, X))
        return (out, st) if stats else out

    def rap(self, A: _Sparse, P: _Sparse, R: _Sparse | None = None, *, order: str = "r-ap",
            precision: DTypeLike | None = None,
            stats: bool = False) -> _CSR | tuple[_CSR, list[_Stats]]:
        """The Galerkin product R @ A @ P (R = P.T when None) on this context.

        Parameters
        ----------
        A, P : scipy.sparse matrix or array
            The operator and the prolongation.
        R : scipy.sparse matrix or array, optional
            The restriction; None: P.T.
        order : {"r-ap", "ra-p"}, default "r-ap"
            R @ (A @ P) or (R @ A) @ P.
        precision : {"float32", "float64"} or numpy dtype, optional
            As matmul's.
        stats : bool, default False
            Also return the figures of both products.

        Returns
        -------
        C : csr_matrix or csr_array
            As rap gives it, with sorted indices.
        stats : list of two dict
            Only with stats=True: the figures of the first product and of the second.
        """
        order = _order(order)
        operands = [_check_sparse(A, "A"), _check_sparse(P, "P")] + ([] if R is None else [_check_sparse(R, "R")])
        left = ("P.T", P.shape[::-1]) if R is None else ("R", R.shape)
        _check_chain(f"{left[0]} @ A @ P", [left, ("A", A.shape), ("P", P.shape)])
        dtype = _dtype(precision, operands)
        r = None if R is None else _operand(R, dtype, "R")
        m, st = _call(self._ctx.rap, r, _operand(A, dtype, "A"), _operand(P, dtype, "P"), order, stats)
        C = _as_scipy_types(_result(m, container=_container(P if R is None else R)), precision, operands)
        return (C, st) if stats else C

    def amg_setup(self, A: _Sparse, *, strength: _Strength = "classical", theta: float | None = None,
                  omega: float = 4.0 / 3.0, max_levels: int = 10,
                  coarse_size: int = 1000, order: str = "r-ap", precision: DTypeLike | None = None,
                  resident: bool = False, B: ArrayLike | None = None, block: int = 1,
                  float_levels: bool = False, aggregation: str = "auto",
                  coarsening: str = "aggregation") -> Hierarchy:
        """The AMG hierarchy of A (smoothed aggregation, or classical), its products on this context.

        Parameters
        ----------
        A : scipy.sparse matrix or array
            Square, no zero on its diagonal.
        strength : {"classical", "symmetric"} or PyAMG's (name, {"theta": x}), default "classical"
            How a connection's strength is measured.  Classical: a_ij is strong when |a_ij| >=
            theta times the largest |a_ik| off the diagonal of row i and of row j (PyAMG's
            classical measure, taken both ways), a zero never.  Symmetric (PyAMG's default for
            smoothed aggregation): when |a_ij| >= theta sqrt(|a_ii a_jj|); A's stored entries are
            its connections, explicit zeros too (strong at theta 0, as PyAMG takes them), and on
            the coarse levels a product's exact zeros are none.  A row with no strong neighbour
            joins no aggregate, as in PyAMG.
        theta : float, optional
            The threshold: default 0.25 for classical, 0 for symmetric (coarsening="classical": 0.25).
        omega : float, default 4/3
            The weight of P = (I - omega/rho D^-1 A) T.
        max_levels, coarse_size : int, default 10, 1000
            Stop at this many levels, or at a level of at most this many nodes (rows / rows per
            node; PyAMG's max_levels and max_coarse).
        order : {"r-ap", "ra-p"}, default "r-ap"
            The order of the Galerkin products.
        precision : {"float32", "float64"} or numpy dtype, optional
            As matmul's.
        resident : bool, default False
            A placed on the device and every level made there (on a device with memory of its own
            the aggregation too, hsp_amg_setup_resident; with B or block > 1 the aggregates and T
            are made on the host from each level's A brought home, the products there), then
            brought home.
        B : array of shape (n,) or (n, k), optional
            The near-nullspace candidates (k <= 16; PyAMG's B, e.g. the rigid-body modes of
            pyamg.gallery.linear_elasticity): T fits them on each aggregate by a QR (PyAMG's
            fit_candidates; P then has k columns an aggregate) and their R is the next level's
            B, whose nodes then have k rows.  None: the constant vector (as B=np.ones(n)).
        block : int, default 1
            The rows of a node of level 0 (A's block size, as PyAMG aggregates a BSR matrix's
            blocks), dividing n.
        aggregation : {"auto", "greedy", "parallel"}, default "auto"
            The aggregates' roots: greedy in the nodes' order (PyAMG's standard aggregation), or
            parallel, in a hashed order that a GPU finds in a few rounds (the same aggregates on
            the CPU threads, of a symmetric A); auto: greedy, but parallel where a device with
            memory of its own aggregates (resident).
        float_levels : bool, default False
            Where A is float64: the levels made from a float32 copy of A's values, so that P, R
            and the coarse levels are float32 and the products and a solver's cycles read half
            the bytes of values; level 0's A stays A, and Solver.solve's CG and residuals run on
            it in float64 (amg_solver's default: doc/amg.md, "Float levels").  Not with resident
            on a device with memory of its own.
        coarsening : {"aggregation", "classical"}, default "aggregation"
            Smoothed aggregation (PyAMG's smoothed_aggregation_solver), or classical AMG as hypre's
            BoomerAMG on one process (pyamg.ruge_stuben_solver's kind): -a_ij >= theta max_k -a_ik
            strong (signs as a_ii's opposite; strength unused, theta's default 0.25), Ruge and
            Stueben's first-pass C/F splitting and extended+i interpolation truncated to 4 entries
            a row, on the host (not resident on a device with memory of its own), for scalar
            problems (no B, block 1); omega and aggregation unused.  Fewer iterations on
            anisotropic problems (doc/amg.md, "Classical AMG").

        Returns
        -------
        Hierarchy
            Its levels; it keeps this context alive, where amg_resetup runs.

        Notes
        -----
        With strength="symmetric", level 1 is PyAMG's (smoothed_aggregation_solver with the same
        B, strength, max_coarse and improve_candidates=None: its rows, aggregates and T; P but for
        rho's estimate), and at theta 0 so is level 2's size.  Later levels may differ by a few per cent: PyAMG takes a
        coarse node's neighbours in the unsorted order of scipy's product, and at theta > 0 its
        rho estimate differs (doc/python.md: "Python", when the levels are PyAMG's).
        """
        order = _order(order)
        A = _check_sparse(A, "A")
        dtype = _dtype(precision, (A,))
        C = _canonical(A, dtype, "A")
        cand = _candidates(B, C.shape[0])
        classical = _coarsening(coarsening)
        measure, threshold = _strength_of(strength, theta)
        if classical and theta is None and _strength_pair(strength)[1] is None:
            threshold = _THETA_DEFAULT["classical"]  # classical AMG's, whatever the measure's
        theta = threshold
        core = _call(self._ctx.amg_setup, _core_matrix(C), measure, theta, float(omega), int(max_levels),
                     int(coarse_size), order, bool(resident), cand, 1 if cand is None else cand.shape[1],
                     _count(block, "block"), bool(float_levels), _aggregation(aggregation), classical)
        return Hierarchy(core, C)

    def close(self) -> None:
        """Close the context: later calls on it raise ArgumentError.

        Its device and threads are freed now (after a call in another thread ends), or, where
        hierarchies or Prepared matrices made on it are alive, when the last of them goes (the
        library frees them before their context).
        """
        self._ctx.close()

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# the contexts of the module functions, one per set of options, made at first use
_contexts: dict[tuple, "Context"] = {}
_contexts_lock = threading.Lock()


def _shared_context(device, threads, grow, methods, unsorted=_DEFAULTS["unsorted"], drop_zeros=_DEFAULTS["drop_zeros"]):
    """The module functions' context for these options."""
    key = (device, threads, grow, _methods(methods), bool(unsorted), bool(drop_zeros))
    with _contexts_lock:
        if key not in _contexts:
            _contexts[key] = Context(device, threads, grow, key[3], unsorted=key[4], drop_zeros=key[5])
        return _contexts[key]


def matmul(A: _Sparse, B: _Sparse, *, device: str = _DEFAULTS["device"], threads: int = _DEFAULTS["threads"],
           grow: str = _DEFAULTS["grow"],
           precision: DTypeLike | None = None, methods: str | Sequence[str] | None = None, stats: bool = False,
           unsorted: bool = _DEFAULTS["unsorted"],
           drop_zeros: bool = _DEFAULTS["drop_zeros"]) -> _CSR | tuple[_CSR, _Stats]:
    """C = A @ B in CSR with sorted indices (unless unsorted).

    Parameters
    ----------
    A, B : scipy.sparse matrix or array
        CSR, CSC or COO (BSR, DIA, LIL, DOK converted by scipy), of real values; duplicates are
        summed.  Each is checked from its own arrays, never changed.
    device, threads, grow, methods : optional
        As Context's; the module keeps one context per set of options, made at its first use,
        so that later calls reuse its threads and device.
    precision : {"float32", "float64"} or numpy dtype, optional
        None: float32 where both are float32, float16 or bool, else float64.
    stats : bool, default False
        Also return a dict of the product's figures (the keys of ``hspgemm --stats=json``).
    unsorted : bool, default False
        C's rows may keep their column indices in any order, as scipy's A @ B does (faster;
        C.has_sorted_indices is then False).
    drop_zeros : bool, default False
        True: leave out of C its entries that are exactly 0, as scipy's A @ B does (its nnz and
        pattern); False keeps them, as the C library does by default (C's pattern then follows
        from A's and B's patterns alone).

    Returns
    -------
    C : csr_matrix or csr_array
        A csr_matrix where A is a scipy.sparse matrix (spmatrix, on which * is the matrix
        product), else a csr_array, as scipy's A @ B; its arrays are the library's, not copied.
    stats : dict
        Only with stats=True.

    Raises
    ------
    TypeError
        An operand that is not a scipy.sparse matrix or array, or of complex or long double
        values; an option of the wrong type.
    ShapeError
        Shapes that do not chain (the message names every operand and its shape).
    InvalidMatrixError
        An operand whose own arrays are not valid (the message names it and its first bad row).
    ArgumentError
        A bad option value; a closed context.
    OutOfMemoryError
        An allocation failed, or mem_limit was reached.

    Notes
    -----
    Values: float32 and float64 are computed as they are; float16 as float32 (exactly);
    integers as float64 (exact up to 2^53); bool as scipy does: where every operand is bool, C is
    the bool pattern of the product's nonzeros (computed in float32, zeros left out), else bool
    counts as 0 and 1.  long double and complex values raise TypeError (convert them to float64,
    or multiply real and imaginary parts apart).

    Examples
    --------
    >>> import hspgemm, scipy.sparse as sp
    >>> A = sp.random_array((1000, 1000), density=0.01, format="csr", rng=1)
    >>> C = hspgemm.matmul(A, A, device="cpu")
    >>> bool(abs(C - A @ A).max() < 1e-12)
    True
    """
    return _shared_context(device, threads, grow, methods, unsorted, drop_zeros).matmul(A, B, precision=precision,
                                                                                         stats=stats)


def spmm(A: _Sparse, X: ArrayLike, *, alpha: float = 1.0, beta: float = 0.0, out: np.ndarray | None = None,
         device: str = _DEFAULTS["device"], threads: int = _DEFAULTS["threads"], precision: DTypeLike | None = None,
         stats: bool = False) -> np.ndarray | tuple[np.ndarray, _Stats]:
    """alpha * A @ X + beta * out: a sparse A times a dense X.

    Parameters
    ----------
    A : scipy.sparse matrix or array
        Real values, as matmul takes them.
    X : array_like
        A dense vector or matrix (numpy, C or Fortran order) of real values.
    alpha, beta : float
        The scales; beta needs out, whose values it scales.
    out : numpy.ndarray, optional
        Where the result goes (writable, contiguous, the result's shape and dtype).
    device, threads : optional
        As Context's (the module's context for them).
    precision : {"float32", "float64"} or numpy dtype, optional
        None: float32 where A and X are float32, float16 or bool, else float64.
    stats : bool, default False
        Also return the product's figures.

    Returns
    -------
    Y : numpy.ndarray
        As Context.spmm gives it (bool A and X: bool; integers: float64).
    stats : dict
        Only with stats=True.

    See Also
    --------
    Context.spmm, Context.prepare
    """
    return _shared_context(device, threads, _DEFAULTS["grow"], None).spmm(A, X, alpha=alpha, beta=beta, out=out,
                                                                  precision=precision, stats=stats)


def rap(A: _Sparse, P: _Sparse, R: _Sparse | None = None, *, order: str = "r-ap", device: str = _DEFAULTS["device"],
        threads: int = _DEFAULTS["threads"], grow: str = _DEFAULTS["grow"], precision: DTypeLike | None = None,
        methods: str | Sequence[str] | None = None, stats: bool = False,
        drop_zeros: bool = _DEFAULTS["drop_zeros"]) -> _CSR | tuple[_CSR, list[_Stats]]:
    """The Galerkin product R @ A @ P (R = P.T when None) in CSR with sorted indices.

    Parameters
    ----------
    A, P : scipy.sparse matrix or array
        The operator and the prolongation.
    R : scipy.sparse matrix or array, optional
        The restriction; None: P.T.
    order : {"r-ap", "ra-p"}, default "r-ap"
        R @ (A @ P) or (R @ A) @ P.
    device, threads, grow, methods : optional
        As Context's; the module keeps one context per set of options, made at its first use,
        so that later calls reuse its threads and device.
    precision : {"float32", "float64"} or numpy dtype, optional
        As matmul's.
    stats : bool, default False
        Also return the figures of both products.
    drop_zeros : bool, default False
        As matmul's.

    Returns
    -------
    C : csr_matrix or csr_array
        A csr_matrix where R (P when R is None) is a scipy.sparse matrix, else a csr_array, as
        scipy's P.T @ A @ P; values as matmul's (bool operands give a bool pattern).
    stats : list of two dict
        Only with stats=True.

    Raises
    ------
    TypeError
        An operand that is not a scipy.sparse matrix or array, or of complex or long double
        values; an option of the wrong type.
    ShapeError
        Shapes that do not chain (the message names every operand and its shape).
    InvalidMatrixError
        An operand whose own arrays are not valid (the message names it and its first bad row).
    ArgumentError
        A bad option value; a closed context.
    OutOfMemoryError
        An allocation failed, or mem_limit was reached.
    """
    return _shared_context(device, threads, grow, methods, drop_zeros=drop_zeros).rap(
        A, P, R, order=order, precision=precision, stats=stats)


def transpose(A: _Sparse) -> _CSR:
    """A.T in CSR with sorted indices.

    Parameters
    ----------
    A : scipy.sparse matrix or array

    Returns
    -------
    csr_matrix or csr_array
        A csr_matrix where A is a scipy.sparse matrix, else a csr_array; in A's precision as
        matmul's: float32 stays float32, float16 becomes float32, bool stays bool (its entries
        kept), integers become float64.
    """
    M = _check_sparse(A, "A")
    T = _result(_call(_core.transpose, _operand(M, _dtype(None, (M,)), "A")), container=_container(M))
    return T.astype(np.bool_) if M.dtype == np.bool_ else T


def devices() -> list[dict[str, Any]]:
    """The devices of this build.

    Returns
    -------
    list of dict
        One per device: ``name`` (what device= takes), ``description``, ``is_gpu``,
        ``wavefront``, ``local_mem``, ``fp64``, ``memory``, ``usable``, ``note``.
    """
    return _call(_core.devices)


def release_memory() -> None:
    """Hand the large arrays kept from freed results back to the system (hsp_release_memory).

    Returns
    -------
    None
    """
    _core.release_memory()


def generate(spec: str, seed: int = 1, precision: DTypeLike = "float64") -> sp.csr_array:
    """A generated matrix (hsp_generate; ``hspgemm gen`` takes the same specs).

    Parameters
    ----------
    spec : str
        "poisson2d5:N", "poisson2d9:N", "poisson3d7:N", "poisson3d27:N" (grid side N),
        "rmat:SCALE,EDGEFACTOR", "random:N,PER_ROW", "band:N,HALFWIDTH".
    seed : int, default 1
        The seed of the random ones.
    precision : {"float32", "float64"} or numpy dtype, default "float64"

    Returns
    -------
    csr_array
    """
    dtype = _dtype(precision, ())
    return _result(_call(_core.generate, spec, int(seed), dtype == np.float64))


def amg_setup(A: _Sparse, *, strength: _Strength = "classical", theta: float | None = None,
              omega: float = 4.0 / 3.0, max_levels: int = 10,
              coarse_size: int = 1000, order: str = "r-ap", precision: DTypeLike | None = None,
              resident: bool = False, B: ArrayLike | None = None, block: int = 1, float_levels: bool = False,
              aggregation: str = "auto", coarsening: str = "aggregation", device: str = _DEFAULTS["device"],
              threads: int = _DEFAULTS["threads"], grow: str = _DEFAULTS["grow"],
              methods: str | Sequence[str] | None = None) -> Hierarchy:
    """The AMG hierarchy of A (hsp_amg_setup): smoothed aggregation, or classical.

    Parameters
    ----------
    A : scipy.sparse matrix or array
        Square, no zero on its diagonal.
    strength, theta, omega, max_levels, coarse_size, order, precision, resident, B, block, float_levels,
    aggregation, coarsening : optional
        As Context.amg_setup's.
    device, threads, grow, methods : optional
        As Context's; the module keeps one context per set of options, made at its first use,
        so that later calls reuse its threads and device.

    Returns
    -------
    Hierarchy
    """
    return _shared_context(device, threads, grow, methods).amg_setup(
        A, strength=strength, theta=theta, omega=omega, max_levels=max_levels, coarse_size=coarse_size, order=order,
        precision=precision, resident=resident, B=B, block=block, float_levels=float_levels, aggregation=aggregation,
        coarsening=coarsening)


def amg_resetup(hierarchy: Hierarchy, A: _Sparse) -> Hierarchy:
    """The hierarchy's values anew for A of the same pattern (hsp_amg_resetup).

    The aggregates and patterns are kept; every product computes values only, on the context
    that made the hierarchy.

    Parameters
    ----------
    hierarchy : Hierarchy
        Made by amg_setup.
    A : scipy.sparse matrix or array
        Of the pattern and precision of the A the hierarchy was made from (new coefficients).

    Returns
    -------
    Hierarchy
        The hierarchy given, its levels read again.

    Raises
    ------
    ArgumentError
        Another pattern (the message names the first row that differs); the hierarchy's context
        is closed.
    ShapeError
        Another shape.
    """
    M = _check_sparse(A, "A")
    A0 = hierarchy._A0
    if M.shape != A0.shape:
        raise ShapeError(f"A is {M.shape[0]} x {M.shape[1]} but the hierarchy's is {A0.shape[0]} x {A0.shape[1]}")
    C = _canonical(M, A0.dtype.type, "A")
    _call(hierarchy._core.resetup, _core_matrix(C))
    hierarchy._A0 = C
    hierarchy._read()
    return hierarchy


# pyamg.smoothed_aggregation_solver's keywords that mean the same as amg_setup's options here
_PYAMG_NAMES = {"max_coarse": "coarse_size", "smooth": "omega"}
# hsp_strength_measure's values
_MEASURES = {"symmetric": 0, "classical": 1}
_THETA_DEFAULT = {"symmetric": 0.0, "classical": 0.25}


def _one_per_level(value, name, parse):
    """parse(value), or of each entry of a per-level list (PyAMG's), which must all give the same."""
    found = {parse(v) for v in value} if isinstance(value, list) and value else {parse(value)}
    if len(found) > 1:
        raise ArgumentError(f"{name} = {value!r}: hspgemm takes one setting for every level")
    return found.pop()


def _strength_pair(strength):
    """(name, theta or None) of a strength option: "classical", "symmetric", or PyAMG's
    (name, {"theta": x})."""
    if isinstance(strength, str) and strength in _MEASURES:
        return strength, None
    if (isinstance(strength, tuple) and len(strength) == 2 and strength[0] in _MEASURES
            and isinstance(strength[1], dict) and set(strength[1]) <= {"theta"}):
        theta = strength[1].get("theta")
        return strength[0], None if theta is None else float(theta)
    raise ArgumentError(f"strength = {strength!r}: give 'classical' or 'symmetric', or PyAMG's form "
                        "(name, {'theta': x}), the strength measures hspgemm computes")


def _strength_of(strength, theta):
    """hsp_strength_measure's value and the threshold of strength and theta (None: the measure's default)."""
    name, given = _strength_pair(strength)
    if given is not None and theta is not None:
        raise ArgumentError(f"strength = {strength!r} and theta = {theta!r}: give theta once")
    theta = given if given is not None else theta
    return _MEASURES[name], _THETA_DEFAULT[name] if theta is None else float(theta)


def _omega_of(smooth):
    """omega of PyAMG's smooth option: "jacobi" or ("jacobi", {"omega": w}) (its other keys at their defaults)."""
    defaults = {"degree": 1, "filter": False, "weighting": "diagonal"}
    if smooth == "jacobi":
        return 4.0 / 3.0
    if (isinstance(smooth, tuple) and len(smooth) == 2 and smooth[0] == "jacobi" and isinstance(smooth[1], dict)
            and set(smooth[1]) <= {"omega", *defaults}
            and all(smooth[1].get(k, v) == v for k, v in defaults.items())):
        return float(smooth[1].get("omega", 4.0 / 3.0))
    raise ArgumentError(f"smooth = {smooth!r}: give 'jacobi' or ('jacobi', {{'omega': w}}), the smoothing of P "
                        "hspgemm computes")


def _pyamg_options(A, options):
    """amg_setup's options from pyamg_solver's, PyAMG's keywords among them (a clear error for
    what hspgemm does not do), and level 0's improve_candidates (PyAMG's form, or None)."""
    opts = dict(options)
    for pyamg_name, ours in _PYAMG_NAMES.items():
        if pyamg_name in opts and ours in opts:
            raise ArgumentError(f"give {ours} or {pyamg_name} (PyAMG's name for it), not both")
    if "max_coarse" in opts:
        opts["coarse_size"] = opts.pop("max_coarse")
    if "strength" in opts:
        name, theta = _one_per_level(opts.pop("strength"), "strength", _strength_pair)
        opts["strength"] = name if theta is None else (name, {"theta": theta})
    if "smooth" in opts:
        opts["omega"] = _one_per_level(opts.pop("smooth"), "smooth", _omega_of)
    aggregate = opts.pop("aggregate", "standard")
    if _one_per_level(aggregate, "aggregate", lambda a: a if a in ("standard", ("standard", {})) else None) is None:
        raise ArgumentError(f"aggregate = {aggregate!r}: give 'standard', the aggregation hspgemm computes")
    if opts.pop("symmetry", "hermitian") not in ("hermitian", "symmetric"):
        raise ArgumentError("symmetry: give 'hermitian' or 'symmetric' (R = P^T: A real and symmetric)")
    for name, only in (("BH", None), ("diagonal_dominance", False), ("keep", False)):
        if opts.pop(name, only) is not only:
            raise ArgumentError(f"{name}: hspgemm takes {only} only (its levels keep A, P and R)")
    if "block" not in opts and sp.issparse(A) and A.format == "bsr" and A.blocksize[0] == A.blocksize[1] > 1:
        opts["block"] = bs = A.blocksize[0]  # PyAMG aggregates a BSR matrix's blocks, a candidate per block row
        if opts.get("B") is None:
            opts["B"] = np.kron(np.ones((A.shape[0] // bs, 1)), np.eye(bs))
    improve = opts.pop("improve_candidates", None)
    if improve is None:
        return opts, None
    from pyamg.util.utils import levelize_smooth_or_improve_candidates
    levels = levelize_smooth_or_improve_candidates(improve, opts.get("max_levels", 10))
    if any(x not in (None, (None, {})) for x in levels[1:]):
        raise ArgumentError(f"improve_candidates = {improve!r}: hspgemm improves level 0's candidates only "
                            "(PyAMG's default: (('block_gauss_seidel', {'sweep': 'symmetric', 'iterations': 4}), "
                            "None))")
    return opts, None if levels[0] in (None, (None, {})) else levels[0]


def _improved(A, B, method):
    """B (None: the constant vector) relaxed on A x = 0 by method, as PyAMG's improve_candidates does
    on level 0 (its own relaxation, so the same values)."""
    from pyamg.relaxation.utils import relaxation_as_linear_operator
    M = A if sp.issparse(A) and A.format in ("csr", "bsr") else sp.csr_array(A)
    n = M.shape[0]
    B = np.ones((n, 1)) if B is None else np.asarray(B, dtype=np.float64).reshape(n, -1)
    method = method if isinstance(method, tuple) else (method, {})
    return relaxation_as_linear_operator(method, M, np.zeros((n, 1), dtype=M.dtype)) @ B


def pyamg_solver(A: _Sparse | Hierarchy, *, presmoother: _Smoother = ("block_gauss_seidel", {"sweep": "symmetric"}),
                 postsmoother: _Smoother = ("block_gauss_seidel", {"sweep": "symmetric"}),
                 coarse_solver: str | tuple[str, dict[str, Any]] | Callable[..., Any] = "pinv",
                 **options: Any) -> MultilevelSolver:
    """A pyamg MultilevelSolver on hspgemm's hierarchy of A. Needs PyAMG.

    PyAMG's smoothers and coarse solver (the defaults of pyamg.smoothed_aggregation_solver) run
    on the hierarchy, so that ``ml.solve(b, accel="cg")`` and ``ml.aspreconditioner()`` work as
    on PyAMG's own.  For the solve in the library instead, see amg_solver.

    Parameters
    ----------
    A : sparse matrix or Hierarchy
        The matrix, set up here with the options of amg_setup (resident=True and device= among
        them), or a Hierarchy already set up (then no options).
    presmoother, postsmoother : str, tuple or list
        PyAMG's smoothers, as ``pyamg.smoothed_aggregation_solver`` takes them (default
        ``("block_gauss_seidel", {"sweep": "symmetric"})``).
    coarse_solver : str, tuple or callable
        PyAMG's coarse solver (default ``"pinv"``).
    **options
        amg_setup's keywords, or PyAMG's own where they mean the same: B (the near-nullspace
        candidates), max_coarse (coarse_size), max_levels, strength (``"classical"``,
        ``"symmetric"`` or ``(name, {"theta": x})``; hspgemm's classical measure is PyAMG's taken
        both ways), smooth (``"jacobi"`` or ``("jacobi", {"omega": w})``),
        aggregate (``"standard"``), symmetry (``"hermitian"`` or ``"symmetric"``),
        improve_candidates (level 0's, relaxed by PyAMG's own code before the setup: PyAMG's
        default is ``(("block_gauss_seidel", {"sweep": "symmetric", "iterations": 4}), None)``,
        hspgemm's None), BH=None, diagonal_dominance=False and keep=False; a BSR A's square
        blocks are its nodes (block), as in PyAMG.

    Returns
    -------
    pyamg.multilevel.MultilevelSolver
        Its levels are hspgemm's.

    Raises
    ------
    ArgumentError
        For any other option, saying what is taken.
    ImportError
        Where PyAMG is not installed.

    Notes
    -----
    The defaults stay amg_setup's (classical strength at 0.25 where PyAMG's is symmetric at 0,
    coarse_size 1000 where PyAMG's max_coarse is 10, and no improve_candidates): with those of
    PyAMG given, level 1 is PyAMG's (P to rounding but for rho's estimate) and at theta 0 so is
    level 2's size; later levels may differ by a few per
    cent (see amg_setup).
    """
    try:
        from pyamg.multilevel import MultilevelSolver
        from pyamg.relaxation.smoothing import change_smoothers
    except ImportError as e:
        raise ImportError("hspgemm.pyamg_solver needs PyAMG (pip install pyamg)") from e
    if isinstance(A, Hierarchy):
        if options:
            raise ArgumentError(f"options {sorted(options)} with a Hierarchy: it is set up already")
        hierarchy = A
    else:
        opts, improve = _pyamg_options(A, options)
        unknown = set(opts) - set(amg_setup.__kwdefaults__)
        if unknown:
            raise ArgumentError(f"pyamg_solver: unknown option(s) {sorted(unknown)}: give amg_setup's ("
                                f"{', '.join(amg_setup.__kwdefaults__)}) or PyAMG's {sorted(_PYAMG_NAMES)}, "
                                "B, aggregate, symmetry, improve_candidates")
        if improve is not None:
            opts["B"] = _improved(A, opts.get("B"), improve)
        hierarchy = amg_setup(A, **opts)
    levels = []
    for level in hierarchy.levels:
        L = MultilevelSolver.Level()
        L.A = sp.csr_array(level.A)
        if level.P is not None:
            L.P, L.R = level.P, level.R
        levels.append(L)
    ml = MultilevelSolver(levels, coarse_solver=coarse_solver)
    change_smoothers(ml, presmoother, postsmoother)
    return ml


# the smoothers of amg_solver by PyAMG's names (hspgemm's "l1_jacobi" has none there): hsp_smoother's
# number, and each one's keywords with what they take (None: any value of the kind _smoothing checks;
# Gauss-Seidel's sweep: one of _SWEEPS)
_SMOOTHERS: dict[str, tuple[int, dict[str, Any]]] = {
    "gauss_seidel": (0, {"sweep": None}),
    "block_gauss_seidel": (0, {"sweep": None, "blocksize": 1}),
    "jacobi": (1, {"omega": None, "withrho": True}),
    "l1_jacobi": (2, {}),
    "chebyshev": (3, {"degree": None, "lower_bound": None, "upper_bound": 1.1}),
}
_AUTO_SMOOTHER = 4  # hsp_smoother's AUTO: Gauss-Seidel on the CPU threads, Chebyshev on a device
# PyAMG's Gauss-Seidel sweeps, each with its adjoint (the other side's sweep in a symmetric cycle)
_SWEEPS = {"forward": "backward", "backward": "forward", "symmetric": "symmetric"}
# hsp_sweep's numbers by (presmoother's sweep, postsmoother's): the library's two symmetric cycles
_SWEEP_PAIRS = {("symmetric", "symmetric"): 0, ("forward", "backward"): 1}
_DEFAULT_SWEEP = 1  # hsp_sweep's FORWARD_BACKWARD, the library's default
_CYCLES = {"V": 0, "W": 1}
_ACCELS = {"cg": 0, None: 1}
# the coarse solvers of PyAMG that solve the coarsest level exactly, as the library's factor does
_DIRECT_SOLVERS = ("pinv", "pinv2", "lu", "splu", "cholesky")


def _smoother_of(value, name):
    """(smoother number, omega, degree, lower, sweep, iterations) of one PyAMG smoother: "name" or
    ("name", {keywords}), degree and lower Chebyshev's (PyAMG's defaults 3 and 1/30; else 0, the
    library's), sweep Gauss-Seidel's (PyAMG's default "forward"), else None; ArgumentError naming
    what is taken for anything else."""
    method, kw = (value, {}) if isinstance(value, str) else value if (
        isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict)
    ) else (None, {})
    if method not in _SMOOTHERS:
        raise ArgumentError(f"{name} = {value!r}: give one of {', '.join(repr(s) for s in _SMOOTHERS)}, alone or "
                            "with a dict of its keywords, e.g. ('gauss_seidel', {'sweep': 'symmetric', "
                            "'iterations': 2}), ('jacobi', {'omega': 2/3}), ('chebyshev', {'degree': 3})")
    number, takes = _SMOOTHERS[method]
    kw = dict(kw)
    iterations = _count(kw.pop("iterations", 1), f"{name}'s iterations")
    sweep = kw.pop("sweep", "forward") if number == 0 else None  # PyAMG's default sweep is forward
    if number == 0 and (not isinstance(sweep, str) or sweep not in _SWEEPS):
        raise ArgumentError(f"{name} = {value!r}: give Gauss-Seidel's sweep as 'forward', 'backward' or 'symmetric'")
    for key, v in kw.items():
        if key not in takes:
            raise ArgumentError(f"{name} = {value!r}: {method} takes {sorted([*takes, 'iterations'])}, not {key!r}")
        if takes[key] is not None and v != takes[key]:
            raise ArgumentError(f"{name} = {value!r}: hspgemm's {method} has {key}={takes[key]!r} only")
    omega = _option(kw.get("omega", 1.0), f"{name}'s omega", float) if number == 1 else 1.0
    degree = _count(kw.get("degree", 3), f"{name}'s degree") if number == 3 else 0
    lower = _option(kw.get("lower_bound", 1.0 / 30.0), f"{name}'s lower_bound", float) if number == 3 else 0.0
    if number == 3 and not 0 < lower < 1.1:
        raise ArgumentError(f"{name} = {value!r}: give chebyshev's lower_bound in (0, 1.1) (of rho(D^-1 A))")
    return number, float(omega), degree, lower, sweep, iterations


def _adjoint(smoother):
    """The smoother of _smoother_of that makes a symmetric cycle with it: Gauss-Seidel's sweep reversed."""
    return smoother[:4] + (_SWEEPS.get(smoother[4]),) + smoother[5:]


def _smoothing(presmoother, postsmoother):
    """(smoother, pre, post, omega, degree, lower, sweep) of PyAMG's presmoother and postsmoother (both None:
    the library's default, once each: Gauss-Seidel forward before and backward after on the CPU
    threads, Chebyshev on a device that holds the hierarchy; one None is the other's adjoint), which
    must be one method with the same keywords but their iterations, Gauss-Seidel's sweeps symmetric on
    both sides or forward before and backward after (the cycle symmetric so: CG takes it as its
    preconditioner)."""
    if presmoother is None and postsmoother is None:
        return _AUTO_SMOOTHER, 1, 1, 1.0, 0, 0.0, _DEFAULT_SWEEP  # 0: the library's Chebyshev
    pre = None if presmoother is None else _one_per_level(presmoother, "presmoother",
                                                          lambda v: _smoother_of(v, "presmoother"))
    post = _adjoint(pre) if postsmoother is None else _one_per_level(postsmoother, "postsmoother",
                                                                     lambda v: _smoother_of(v, "postsmoother"))
    pre = _adjoint(post) if pre is None else pre
    if pre[:4] != post[:4]:
        raise ArgumentError(f"presmoother = {presmoother!r}, postsmoother = {postsmoother!r}: hspgemm smooths "
                            "with one method before and after the coarse correction (the cycle symmetric): give "
                            "the same method and keywords (their iterations may differ)")
    sweep = _SWEEP_PAIRS.get((pre[4], post[4]), _DEFAULT_SWEEP if pre[0] else None)
    if sweep is None:
        raise ArgumentError(f"presmoother = {presmoother!r}, postsmoother = {postsmoother!r}: hspgemm's Gauss-Seidel "
                            "cycle sweeps forward before the coarse correction and backward after, or symmetric on "
                            "both sides (the cycle symmetric): give {'sweep': 'forward'} and {'sweep': 'backward'}, "
                            "or {'sweep': 'symmetric'} for both")
    return pre[0], pre[5], post[5], pre[1], pre[2], pre[3], sweep


class Solver:
    """An AMG solver of A x = b run by libhspgemm (hsp_amg_solve), made by amg_solver: PyAMG's
    MultilevelSolver where it means the same (solve, aspreconditioner, levels,
    operator_complexity, grid_complexity), the cycles, smoothers and CG in the library: on the
    hierarchy's context's CPU threads, or on its device where that made and holds the hierarchy
    (amg_solver(..., resident=True) on a GPU with memory of its own).

    It keeps its Hierarchy, and so the context that made it, alive; after that context is
    closed its solves raise ArgumentError.

    Attributes
    ----------
    hierarchy : Hierarchy
        The levels it cycles over.
    timings : dict
        setup_ms (the hierarchy's setup), and of the last solve: solve_ms (the library's, the
        first solve's preparation of the levels included), iterations, residual (the final
        |b - A x| / |b|, recomputed from the library's double x: a float32 x returned rounds
        it, about 1e-7 of |b| more) and converged (None before the first solve).
    """
    hierarchy: Hierarchy
    timings: dict[str, Any]

    def __init__(self, hierarchy: Hierarchy, smoothing: tuple[int, int, int, float, int, float, int]) -> None:
        self.hierarchy = hierarchy
        self._smoothing = smoothing
        self.timings = {"setup_ms": hierarchy.ms_total, "solve_ms": None, "iterations": None, "residual": None,
                        "converged": None, "smoother": None, "on_device": None}

    @property
    def levels(self) -> list[Level]:
        """The hierarchy's levels (list of Level; level 0's A is the matrix given)."""
        return self.hierarchy.levels

    def _options(self, cycle):
        """The _core tuple of a cycle's options: (cycle, smoother, pre, post, omega, degree, lower, sweep)."""
        name = str(cycle).upper()
        if name not in _CYCLES:
            raise ArgumentError(f"cycle = {cycle!r}: give 'V' or 'W' (PyAMG's 'F' and 'AMLI' are not in hspgemm)")
        return (_CYCLES[name],) + self._smoothing

    def _vector(self, v, name, copy=False):
        """v as the contiguous one-dimensional array of level 0's size and the hierarchy's dtype that
        _core reads; ShapeError where it is not of shape (n,) or (n, 1)."""
        A = self.hierarchy._A0
        n = A.shape[0]
        v = np.asarray(v)
        if v.shape not in ((n,), (n, 1)):
            raise ShapeError(f"{name} is {'x'.join(map(str, v.shape)) or 'a scalar'}: give {n} values (A is "
                             f"{n} x {n})")
        if np.iscomplexobj(v) or not (np.issubdtype(v.dtype, np.number) or v.dtype == np.bool_):
            raise TypeError(f"{name}: real values, not {v.dtype}")
        out = np.ascontiguousarray(v.reshape(n), dtype=A.dtype)
        return out.copy() if copy and (out is v or np.shares_memory(out, v)) else out

    def solve(self, b: ArrayLike, x0: ArrayLike | None = None, tol: float = 1e-5, maxiter: int | None = 100,
              cycle: str = "V", accel: str | None = None, callback: None = None, residuals: list | None = None,
              cycles_per_level: int = 1, return_info: bool = False) -> np.ndarray | tuple[np.ndarray, int]:
        """Solve A x = b (PyAMG's MultilevelSolver.solve: its keywords and defaults).

        Parameters
        ----------
        b : array of shape (n,) or (n, 1)
            The right side, taken in the hierarchy's precision.
        x0 : array of shape (n,) or (n, 1), optional
            The initial guess (not changed); None: zero.
        tol : float, default 1e-5
            Stop at |b - A x| <= tol |b| (PyAMG's relative residual; CG's from its recurrence, the
            last recomputed from x).
        maxiter : int or None, default 100
            At most this many iterations (0: the initial residual only); None: PyAMG CG's
            1.3 n + 2.
        cycle : {"V", "W"}, default "V"
            The cycle of each iteration (or of each preconditioning with accel="cg").
        accel : {None, "cg"}, default None
            None: the cycles alone (stationary); "cg": CG preconditioned by one cycle.  Other
            Krylov methods: use aspreconditioner() with them.
        callback : None
            Taken for PyAMG's signature only: the iterations run in the library without calls
            back (residuals gives the history); anything but None raises ArgumentError.
        residuals : list, optional
            Filled as PyAMG fills it (its old contents replaced): |b - A x| before the first
            iteration and after each, not relative: iterations + 1 norms.
        cycles_per_level : int, default 1
            PyAMG's (for its F-cycle); 1 only.
        return_info : bool, default False
            Return (x, info) as PyAMG: info 0 where converged, else the iterations made.

        Returns
        -------
        x : ndarray of the hierarchy's dtype, of b's shape
        info : int
            Where return_info is True.

        Raises
        ------
        ArgumentError
            An unknown cycle or accel, a callback, an option out of range, b or x0 not finite, or
            CG's breakdown (A or the cycle not positive definite); the hierarchy's context closed.
        ShapeError
            b or x0 not of level 0's size.
        """
        if callback is not None:
            raise ArgumentError("callback: hspgemm's iterations run in the library, without calls back: give None "
                                "(residuals= gives the history)")
        if cycles_per_level != 1:
            raise ArgumentError(f"cycles_per_level = {cycles_per_level!r}: 1 only (PyAMG's F-cycle is not in hspgemm)")
        if (accel if isinstance(accel, str) or accel is None else object()) not in _ACCELS:
            raise ArgumentError(f"accel = {accel!r}: give 'cg' or None (other Krylov methods: aspreconditioner())")
        options = self._options(cycle)
        bv = self._vector(b, "b")
        x = np.zeros_like(bv) if x0 is None else self._vector(x0, "x0", copy=True)
        n = bv.shape[0]
        if maxiter is None:
            maxiter = int(1.3 * n) + 2
        maxiter = min(_count(maxiter, "maxiter"), _INT32_MAX)
        tol = _option(tol, "tol", float)
        info = _call(self.hierarchy._core.solve, bv, x, tol, maxiter, _ACCELS[accel], x0 is not None,
                     min(max(maxiter, 0), 1 << 20) + 1, options)
        self.timings.update(solve_ms=info["ms_solve"], iterations=info["iterations"], residual=info["residual"],
                            converged=info["converged"], smoother=info["smoother"], on_device=info["on_device"])
        if residuals is not None:
            normb = float(np.linalg.norm(bv.astype(np.float64)))
            residuals[:] = [h * normb for h in info["history"]]
        x = x.reshape(np.shape(b))
        if return_info:
            return x, 0 if info["converged"] else max(info["iterations"], 1)
        return x

    def aspreconditioner(self, cycle: str = "V") -> LinearOperator:
        """One cycle from zero as a scipy LinearOperator (hsp_amg_apply per product), PyAMG's
        aspreconditioner: M for scipy.sparse.linalg.cg(A, b, M=...) and other Krylov methods.

        Parameters
        ----------
        cycle : {"V", "W"}, default "V"

        Returns
        -------
        scipy.sparse.linalg.LinearOperator
            Of shape A's and the hierarchy's dtype; symmetric positive definite where A is.
        """
        from scipy.sparse.linalg import LinearOperator
        options = self._options(cycle)
        core = self.hierarchy._core

        A = self.hierarchy._A0

        def matvec(r):
            z = np.empty(A.shape[0], dtype=A.dtype)
            _call(core.apply, self._vector(r, "r"), z, options)
            return z.reshape(np.shape(r))
        return LinearOperator(A.shape, matvec=matvec, rmatvec=matvec, dtype=A.dtype)

    def operator_complexity(self) -> float:
        """The sum of the levels' entries over level 0's (PyAMG's operator_complexity).

        Returns
        -------
        float
        """
        return self.hierarchy.operator_complexity()

    def grid_complexity(self) -> float:
        """The sum of the levels' rows over level 0's (PyAMG's grid_complexity).

        Returns
        -------
        float
        """
        rows = self.hierarchy._rows()
        return sum(rows) / rows[0]

    def __repr__(self) -> str:
        rows = self.hierarchy._rows()
        return (f"<hspgemm.Solver: {len(rows)} levels ({'/'.join(map(str, rows))} rows), device "
                f"{self.hierarchy.device}>")


def amg_solver(A: _Sparse | Hierarchy, *, device: str = _DEFAULTS["device"], threads: int = _DEFAULTS["threads"],
               resident: bool = False, presmoother: _Smoother | None = None, postsmoother: _Smoother | None = None,
               coarse_solver: str = "pinv", **options: Any) -> Solver:
    """An AMG solver of A x = b whose setup, cycles and CG run in libhspgemm: the one line to change
    from pyamg.smoothed_aggregation_solver(A, ...), its solve and aspreconditioner as PyAMG's.

    Parameters
    ----------
    A : scipy.sparse matrix or array, or Hierarchy
        Square, symmetric positive definite for accel="cg", no zero on its diagonal; or a
        Hierarchy of amg_setup (no setup options then).
    device, threads : optional
        As amg_setup's: the context of the setup (its products) and of every solve (its CPU
        threads; a resident hierarchy on a device with memory of its own is solved there).
    resident : bool, default False
        As amg_setup's.
    presmoother, postsmoother : PyAMG's smoother, optional
        "gauss_seidel" or "block_gauss_seidel" with {"sweep": "forward"} before and {"sweep":
        "backward"} after (the default, once each: hypre's cycle), or {"sweep": "symmetric"} on both
        sides (PyAMG's default: twice the sweeps); on several threads hybrid: Gauss-Seidel within
        each thread's rows; pointwise, so PyAMG's block_gauss_seidel where the blocks are 1 x 1, as
        with the default B), "jacobi" with {"omega": w}
        (w / rho(D^-1 A), PyAMG's withrho; default 1), "l1_jacobi" (hspgemm's: D_l1^-1, no
        eigenvalue needed) or "chebyshev" with {"degree": k, "lower_bound": f} (PyAMG's defaults 3
        and 1/30: over [f rho, 1.1 rho] of D^-1 A where PyAMG's is of A; the default smoothers on
        a device: degree 2 over [rho/5, 1.1 rho]), each with {"iterations": n}: the sweeps before
        and after the coarse correction.  One method for both (where one is None, the other's adjoint: its
        sweep reversed); one setting for every level (a PyAMG list of equal entries is taken).
    coarse_solver : str, default "pinv"
        The coarsest level is factored (Cholesky, else LU; a coarsest level of more than 5000
        rows is smoothed instead): PyAMG's direct solvers ("pinv", "pinv2", "lu", "splu",
        "cholesky") are taken as that.
    **options
        amg_setup's (strength, theta, omega, max_levels, coarse_size, order, precision, B, block,
        float_levels, aggregation, coarsening, grow, methods; coarsening="classical" for
        pyamg.ruge_stuben_solver's kind of hierarchy) or PyAMG's keywords of pyamg_solver (max_coarse, strength,
        smooth, aggregate, symmetry, improve_candidates, ...).  The defaults stay amg_setup's
        (coarse_size 1000 where PyAMG's max_coarse is 10, no improve_candidates) but
        float_levels: True unless resident (the same iterations, 6-21% less time to solution on
        the problems of doc/amg.md, "Float levels").

    Returns
    -------
    Solver

    Raises
    ------
    ArgumentError
        A smoother, coarse solver or option hspgemm does not have (the message says what is taken).
    """
    smoothing = _smoothing(presmoother, postsmoother)
    if not isinstance(coarse_solver, str) or coarse_solver not in _DIRECT_SOLVERS:
        raise ArgumentError(f"coarse_solver = {coarse_solver!r}: hspgemm factors the coarsest level: give one of "
                            f"{', '.join(map(repr, _DIRECT_SOLVERS))} (PyAMG's direct solvers) or leave it")
    if isinstance(A, Hierarchy):
        given = {k for k, v in (("device", device != _DEFAULTS["device"]),
                                ("threads", threads != _DEFAULTS["threads"]), ("resident", resident)) if v}
        if options or given:
            raise ArgumentError(f"options {sorted(set(options) | given)} with a Hierarchy: it is set up already")
        return Solver(A, smoothing)
    opts, improve = _pyamg_options(A, options)
    unknown = set(opts) - set(amg_setup.__kwdefaults__)
    if unknown:
        raise ArgumentError(f"amg_solver: unknown option(s) {sorted(unknown)}: give amg_setup's ("
                            f"{', '.join(amg_setup.__kwdefaults__)}), presmoother, postsmoother, coarse_solver "
                            f"or PyAMG's {sorted(_PYAMG_NAMES)}, B, aggregate, symmetry, improve_candidates")
    if improve is not None:
        opts["B"] = _improved(A, opts.get("B"), improve)
    opts.setdefault("float_levels", not resident)
    return Solver(amg_setup(A, device=device, threads=threads, resident=resident, **opts), smoothing)


# PyAMG's ruge_stuben_solver keywords hspgemm takes as given by default: its splitting and interpolation
_RS_CF = ("RS", ("RS", {}), ("RS", {"second_pass": False}))
_RS_INTERPOLATION = ("classical", "standard", "extended+i")


def ruge_stuben_solver(A: _Sparse, *, CF: Any = "RS", interpolation: str = "classical",
                       **options: Any) -> Solver:
    """amg_solver(A, coarsening="classical", ...): the one line to change from
    pyamg.ruge_stuben_solver(A, ...), a classical (Ruge-Stueben) hierarchy as hypre's BoomerAMG
    makes it, set up, cycled and solved in libhspgemm.

    Parameters
    ----------
    A : scipy.sparse matrix or array
        Square, symmetric positive definite for accel="cg", no zero on its diagonal.
    CF : {"RS", ("RS", {"second_pass": False})}, default "RS"
        PyAMG's splitting: Ruge and Stueben's first pass (the one hspgemm computes, with
        hypre's order among equal counts).
    interpolation : {"classical", "standard", "extended+i"}, default "classical"
        Taken for PyAMG's names; hspgemm interpolates by extended+i (hypre's default: distance
        two through strong F neighbours, 4 entries a row), which takes fewer iterations than
        PyAMG's classical interpolation (doc/amg.md, "Classical AMG").
    **options
        amg_solver's (device, threads, presmoother, postsmoother, coarse_solver, theta or PyAMG's
        strength=("classical", {"theta": x}), max_levels, max_coarse or coarse_size,
        float_levels, ...); the defaults stay amg_solver's (coarse_size 1000 where PyAMG's
        max_coarse is 10; Gauss-Seidel forward before the coarse correction and backward after).

    Returns
    -------
    Solver

    Raises
    ------
    ArgumentError
        Another splitting or interpolation, B or block (scalar problems only), or an option
        amg_solver does not take.
    """
    if not any(CF == c for c in _RS_CF):
        raise ArgumentError(f"CF = {CF!r}: hspgemm splits by Ruge and Stueben's first pass: give 'RS'")
    if interpolation not in _RS_INTERPOLATION:
        raise ArgumentError(f"interpolation = {interpolation!r}: hspgemm interpolates by extended+i: give one of "
                            f"{', '.join(map(repr, _RS_INTERPOLATION))}")
    return amg_solver(A, coarsening="classical", **options)
