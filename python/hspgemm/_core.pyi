"""The types of hspgemm._core, the package's bridge to libhspgemm (hspgemm/_core.c).

A matrix goes in as (nrows, ncols, indptr, indices, data): buffers of int64, int32 and float32 or
float64; one the library made comes out so with _Array buffers over its own arrays.  _Array,
_Hierarchy and _Prepared are the types of what the functions return, not names of the module.
"""
from collections.abc import Callable
from typing import Any, final

_MatrixIn = tuple[int, int, Any, Any, Any]
_MatrixOut = tuple[int, int, _Array, _Array, _Array]
_Stats = dict[str, Any]

class Error(Exception):
    """A library error; args: (status number, status name, the library's message)."""

@final
class _Array:
    """One array of a matrix the library made, as a buffer (memoryview, numpy.asarray)."""
    def __buffer__(self, flags: int, /) -> memoryview: ...

class Context:
    def __init__(self, *, device: str = ..., threads: int = ..., grow: str = ...,
                 methods: tuple[str, str, str] = ..., mem_limit: int = ..., small_nnz: int = ...,
                 device_timeout: float = ..., unsorted: bool = ..., drop_zeros: bool = ...,
                 deterministic: bool = ..., profile: str | None = ..., spmm_blocks: int = ...,
                 spmm_cpu_share: float = ..., pattern: bool = ...) -> None: ...
    def multiply(self, A: _MatrixIn, B: _MatrixIn, stats: bool = False, /) -> tuple[_MatrixOut, _Stats | None]: ...
    def spmm(self, A: _MatrixIn | _Prepared, X: Any, Y: Any, ncols: int, colmajor: bool, alpha: float,
             beta: float, stats: bool = False, /) -> dict[str, Any] | None: ...
    def prepare(self, A: _MatrixIn, /) -> _Prepared: ...
    def rap(self, R: _MatrixIn | None, A: _MatrixIn, P: _MatrixIn, order: int = 0, stats: bool = False, /
            ) -> tuple[_MatrixOut, list[_Stats] | None]: ...
    def amg_setup(self, A: _MatrixIn, strength: int, theta: float, omega: float, max_levels: int, coarse_size: int,
                  order: int, resident: bool, B: Any, nullspace: int, block: int, float_levels: bool,
                  aggregation: int, coarsening: int, /) -> _Hierarchy: ...
    def close(self) -> None: ...

@final
class _Prepared:
    """A sparse matrix prepared for spmm by Context.prepare (hsp_ellr)."""
    def info(self) -> dict[str, Any]: ...

@final
class _Hierarchy:
    """An AMG hierarchy made by Context.amg_setup."""
    def level(self, k: int, /) -> tuple[_MatrixOut | None, _MatrixOut | None, _MatrixOut | None, int,
                                        dict[str, Any]]: ...
    def info(self) -> dict[str, Any]: ...
    def resetup(self, A: _MatrixIn, /) -> None: ...
    def solve(self, b: Any, x: Any, tol: float, maxiter: int, accel: int, x0: bool, history_size: int,
              options: tuple[int, int, int, int, float, int], /) -> dict[str, Any]:
        """hsp_amg_solve: x (level 0's size, the hierarchy's dtype) solved in place; options are
        (cycle, smoother, pre, post, jacobi_omega, chebyshev_degree); returns {iterations, converged,
        residual, history (relative), ms_solve}."""
    def apply(self, r: Any, z: Any, options: tuple[int, int, int, int, float, int], /) -> None:
        """hsp_amg_apply: z = M r, one cycle from zero."""

def transpose(A: _MatrixIn, /) -> _MatrixOut: ...
def generate(spec: str, seed: int = 1, double: bool = True, /) -> _MatrixOut: ...
def devices() -> list[dict[str, Any]]: ...
def release_memory() -> None: ...
def options() -> dict[str, Any]: ...
def set_build_hook(f: Callable[[bool, str, str, float], object] | None, /) -> None: ...
