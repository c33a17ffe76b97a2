"""Objects made on a context (hierarchies, prepared matrices) outliving it: closing the context,
deleting them after, and the interpreter's exit must not hang.  Freeing them touches their
context's device (PoCL's buffers): the context waits for the last of them.  And a product in a
child of fork() (multiprocessing's 'fork' start method) after one in the parent.  The scenarios
that hung run in a child interpreter with a timeout, so that a regression fails instead of
hanging."""
import subprocess
import sys

import numpy as np
import pytest

import hspgemm

TIMEOUT = 120  # seconds; each scenario takes about one (its kernels are built and cached first)


def _pocl():
    """The name of the PoCL device (buffer SVM: arrays of its own that a free drops), or None."""
    names = [d["name"] for d in hspgemm.devices()
             if d["name"].startswith("opencl") and d["usable"] and d["memory"] == "buffer SVM"]
    return names[0] if names else None


POCL = _pocl()
needs_pocl = pytest.mark.skipif(POCL is None, reason="no PoCL OpenCL device (buffer SVM)")


def run_scenario(code, child_process):
    """code run by a child interpreter (child_process: the fixture's keywords); it must print
    "done" and exit 0 within TIMEOUT."""
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT,
                           **child_process)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung: no exit within {TIMEOUT} s; output: {e.stdout!r} {e.stderr!r}")
    assert p.returncode == 0 and p.stdout.split() == ["done"], (p.returncode, p.stdout, p.stderr)


@pytest.fixture(scope="module")
def warm_pocl():
    """The PoCL device's kernels built once in this process (cached on disk), so that the child
    interpreters' time is the scenario's alone."""
    A = hspgemm.generate("poisson2d5:40")
    with hspgemm.Context(device=POCL + ",nosvm") as ctx:
        ctx.amg_setup(A, coarse_size=40, resident=True)
    with hspgemm.Context(device=POCL) as ctx:
        ctx.spmm(ctx.prepare(A), np.ones((A.shape[1], 3)))
    return POCL


@needs_pocl
def test_resident_hierarchy_deleted_after_its_context_closed(warm_pocl, child_process):
    """A resident hierarchy made in a with block and deleted after it (it hung: its free locked the
    freed context's mutex)."""
    run_scenario(f"""
import hspgemm
A = hspgemm.generate("poisson2d5:40")
with hspgemm.Context(device="{warm_pocl},nosvm") as ctx:
    h = ctx.amg_setup(A, coarse_size=40, resident=True)
del h
print("done")""", child_process)


@needs_pocl
@pytest.mark.parametrize("ending", ["", "del ctx\ndel P\n"], ids=["at-exit", "context-deleted-first"])
def test_prepared_matrix_outliving_its_context(warm_pocl, ending, child_process):
    """ctx.prepare(A) and ctx.spmm(P, X) on PoCL, then the script ends (it hung at exit, at times),
    or the context is deleted before P."""
    run_scenario(f"""
import hspgemm, numpy as np
A = hspgemm.generate("poisson2d5:40")
ctx = hspgemm.Context(device="{warm_pocl}")
P = ctx.prepare(A)
Y = ctx.spmm(P, np.ones((A.shape[1], 3)))
{ending}print("done")""", child_process)


@needs_pocl
@pytest.mark.parametrize("ending", ["", "del ctx\ndel M\ndel s\n",
                                    "del s, h\ntry:\n    M @ b\nexcept hspgemm.ArgumentError as e:\n"
                                    "    assert 'closed' in str(e)\n"],
                         ids=["at-exit", "context-deleted-first", "solver-deleted-first"])
def test_solver_outliving_its_context(warm_pocl, ending, child_process):
    """amg_solver over a resident hierarchy made on PoCL with buffers in a with block: solved
    there, refused after the block (closed), then deleted after its context, before it or at the
    interpreter's exit; its preconditioner keeps the hierarchy too."""
    run_scenario(f"""
import hspgemm, numpy as np
A = hspgemm.generate("poisson2d5:40")
b = np.ones(A.shape[0])
with hspgemm.Context(device="{warm_pocl},nosvm") as ctx:
    h = ctx.amg_setup(A, coarse_size=40, resident=True)
    s = hspgemm.amg_solver(h)
    M = s.aspreconditioner()
    x = s.solve(b, tol=1e-8, accel="cg")
    assert np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b)
try:
    s.solve(b)
    raise SystemExit("solved on a closed context")
except hspgemm.ArgumentError as e:
    assert "closed" in str(e), e
{ending}print("done")""", child_process)


@pytest.mark.parametrize("device", ["cpu"] + ([POCL] if POCL else []))
def test_objects_after_close(device):
    """After close(): the context takes no call, nor a hierarchy's re-setup on it (a clear error);
    a hierarchy's levels are still there, and a prepared matrix works on another context."""
    A = hspgemm.generate("poisson2d5:20")
    X = np.ones((A.shape[1], 2))
    with hspgemm.Context(device=device) as ctx:
        h = ctx.amg_setup(A, coarse_size=40)
        P = ctx.prepare(A)
    with pytest.raises(hspgemm.ArgumentError, match="closed"):
        ctx.spmm(P, X)
    with pytest.raises(hspgemm.ArgumentError, match="closed"):
        hspgemm.amg_resetup(h, 2 * A)
    assert h.levels[1].A.nnz > 0
    with hspgemm.Context(device="cpu") as other:
        np.testing.assert_allclose(other.spmm(P, X), A @ X)


def test_product_in_a_forked_child(child_process):
    """A product in the parent (the module's context and its thread pool made), then products in
    a multiprocessing child with the 'fork' start method (it hung: the child has none of the
    pool's workers), the same values as the parent's."""
    run_scenario("""
import multiprocessing, sys, warnings
import numpy as np, hspgemm
warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12's: fork() of a process with threads
A = hspgemm.generate("poisson3d7:20")
X = np.ones((A.shape[1], 4))
C, Y = hspgemm.matmul(A, A, device="cpu", threads=3), hspgemm.spmm(A, X, device="cpu", threads=3)

def child():
    same = (hspgemm.matmul(A, A, device="cpu", threads=3) != C).nnz == 0
    sys.exit(0 if same and np.array_equal(hspgemm.spmm(A, X, device="cpu", threads=3), Y) else 1)

p = multiprocessing.get_context("fork").Process(target=child)
p.start()
p.join(60)
if p.is_alive():
    p.kill()
print("done" if p.exitcode == 0 else f"child: exit code {p.exitcode} (None: hung)")""", child_process)
