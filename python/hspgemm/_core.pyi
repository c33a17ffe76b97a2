"""The types of hspgemm._core, the package's bridge to libhspgemm (hspgemm/_core.c).

A matrix goes in as (nrows, ncols, indptr, indices, data): buffers of int64, int32 and float32 or
float64; one the library made comes out so with _Array buffers over its own arrays.  _Array and
_Hierarchy are the types of what the functions return, not names of the module.
"""
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
    def __init__(self, device: str = "auto", threads: int = 0, grow: str = "realloc",
                 methods: tuple[str, str, str] = ("default", "default", "default"), mem_limit: int = 0,
                 small_nnz: int = 0, device_timeout: float = 0.0, unsorted: bool = False,
                 drop_zeros: bool = False, deterministic: bool = False, profile: str | None = None) -> None: ...
    def multiply(self, A: _MatrixIn, B: _MatrixIn, stats: bool = False, /) -> tuple[_MatrixOut, _Stats | None]: ...
    def rap(self, R: _MatrixIn | None, A: _MatrixIn, P: _MatrixIn, order: int = 0, stats: bool = False, /
            ) -> tuple[_MatrixOut, list[_Stats] | None]: ...
    def amg_setup(self, A: _MatrixIn, theta: float, omega: float, max_levels: int, coarse_size: int, order: int,
                  /) -> _Hierarchy: ...
    def close(self) -> None: ...

@final
class _Hierarchy:
    """An AMG hierarchy made by Context.amg_setup."""
    def level(self, k: int, /) -> tuple[_MatrixOut | None, _MatrixOut | None, _MatrixOut | None, int,
                                        dict[str, Any]]: ...
    def info(self) -> dict[str, Any]: ...
    def resetup(self, A: _MatrixIn, /) -> None: ...

def transpose(A: _MatrixIn, /) -> _MatrixOut: ...
def generate(spec: str, seed: int = 1, double: bool = True, /) -> _MatrixOut: ...
def devices() -> list[dict[str, Any]]: ...
def release_memory() -> None: ...
