"""doc_examples.py: the code blocks of README.md and doc/*.md, run as a reader runs them.

    python3 tests/doc_examples.py BUILD FILE.md ...      TAP lines for the sh, console and c blocks,
                                                         and README's list of the pages of doc/

A block's language says what it is: ``sh`` (commands, run in a scratch folder where ``hspgemm``
and ``./hspgemm`` are this build's), ``console`` (``$ `` lines run, the lines after each compared
with what it prints, numbers masked: they vary with the machine), ``c`` (a whole program, with
``main``, compiled against this build and run with ``A.mtx C.mtx``, A.mtx a small matrix made
anew (not what a sh block before wrote), its C.mtx, where it writes one, A*A as ``hspgemm
square`` gives it; or fragments, which a page's
blocks make one program of, in order, inside main), ``python`` (run by the Python package's
tests, python/tests/test_doc_examples.py, with this module), ``text`` (not code).  A comment
``<!-- not run: WHY -->`` before a block makes it a TAP skip saying why; ``<!-- c before: CODE
-->`` puts CODE before a C fragment (what the reader need not see).  A block of no language is an
error: every block says what it is.  A ``prints`` block right after a python block is its output.
"""
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)\s*$")


def blocks(path):
    """The blocks of a Markdown file: dicts of lang, code, line, notes (the comments before)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, notes, k = [], [], 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            note = re.match(r"^<!-- (not run|c before): (.*) -->$", lines[k])
            if note:
                notes.append((note.group(1), note.group(2)))
            elif lines[k].strip():
                notes = [] if not lines[k].startswith("<!--") else notes
            k += 1
            continue
        end = k + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        found.append({"lang": m.group(1), "code": "\n".join(lines[k + 1:end]) + "\n", "line": k + 1,
                      "notes": dict(notes), "file": path})
        notes, k = [], end + 1
    return found


def masked(text):
    """Text with its numbers as N and its runs of spaces as one: what a shown output must match."""
    return [re.sub(r" +", " ", re.sub(r"[-+]?\d[\d.]*(e[-+]?\d+)?", "N", line)).strip()
            for line in text.strip("\n").split("\n")]


def run_sh(code, where):
    """Run a sh block in where with this build's hspgemm first on the PATH; (ok, output)."""
    env = dict(os.environ, PATH=f"{where}/bin:{os.environ['PATH']}")
    code = code.replace("./hspgemm", "hspgemm")
    r = subprocess.run(["sh", "-e", "-c", code], cwd=where, env=env, capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def run_console(code, where):
    """Run a console block's $ lines; compare what each prints with the lines shown after it."""
    parts = re.split(r"^\$ (.*)\n", code, flags=re.M)[1:]
    for command, shown in zip(parts[0::2], parts[1::2]):
        ok, out = run_sh(command, where)
        if not ok:
            return False, out
        if shown.strip() and masked(out) != masked(shown):
            return False, "printed:\n" + out
    return True, ""


def compile_c(source, build, src, where, name):
    """Compile a C program against this build; (ok, messages)."""
    with open(f"{where}/{name}.c", "w") as f:
        f.write(source)
    sanitizers = os.environ.get("HSPGEMM_TEST_CFLAGS", "").split()  # the build's, where it has them
    r = subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", *sanitizers, "-o", f"{where}/{name}",
                        f"{where}/{name}.c", f"-I{src}/src", f"-L{build}/.libs", "-lhspgemm",
                        f"-Wl,-rpath,{build}/.libs"], capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def mm_entries(path):
    """A Matrix Market coordinate file's size line and entries, as floats."""
    rows = [line.split() for line in open(path) if not line.startswith("%")]
    return rows[0], {(r[0], r[1]): float(r[2]) for r in rows[1:]}


def same_matrix(a, b):
    """Do two Matrix Market files hold one matrix, values to 1e-12 of the largest?"""
    (size_a, ea), (size_b, eb) = mm_entries(a), mm_entries(b)
    big = max((abs(v) for v in eb.values()), default=0)
    return size_a == size_b and ea.keys() == eb.keys() and all(abs(ea[k] - eb[k]) <= 1e-12 * big for k in eb)


def run_program(b, build, src, where):
    """Compile a whole C program and run it on A.mtx C.mtx; its C.mtx must be A*A; (ok, messages)."""
    name = f"prog{b['line']}"
    ok, msg = compile_c(b["code"], build, src, where, name)
    if not ok:
        return ok, msg
    small_matrix(where)  # not the one a page's sh block wrote: README's 64,000 rows took 74 s to compare here
    r = subprocess.run([f"{where}/{name}", "A.mtx", "C.mtx"], cwd=where, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(f"{where}/C.mtx"):
        return r.returncode == 0, r.stderr
    subprocess.run([f"{where}/bin/hspgemm", "square", "A.mtx", "-o", "ref.mtx", "--quiet"], cwd=where,
                   check=True, capture_output=True)
    return same_matrix(f"{where}/C.mtx", f"{where}/ref.mtx"), "its C.mtx is not hspgemm square's A*A"


def pages_listed(src, tap):
    """README's table lists each page of doc/, and Makefile.am's DOC_FILES distributes it."""
    readme, make = open(f"{src}/README.md").read(), open(f"{src}/Makefile.am").read()
    dist = re.search(r"^DOC_FILES = (.*?[^\\])$", make, re.M | re.S)
    pages = sorted(f"doc/{f}" for f in os.listdir(f"{src}/doc") if f.endswith(".md"))
    unlisted = [p for p in pages if f"| [{p}]({p}) |" not in readme]
    undist = [p for p in pages if not dist or p not in dist.group(1).split()]
    tap(not unlisted, f"README's table lists every page of doc/ {unlisted or ''}")
    tap(not undist, f"Makefile.am's DOC_FILES distributes every page of doc/ {undist or ''}")


def c_program(fragments):
    """One program of a page's C fragments, in order, each after its c before: code."""
    body = "\n".join(b["notes"].get("c before", "") + "\n" + b["code"] for b in fragments)
    return ("#include <stdio.h>\n#include <stdlib.h>\n#include <hspgemm.h>\n\nint main(void)\n{\n"
            + body + "    return 0;\n}\n")


def small_matrix(where):
    """A.mtx in the scratch folder: a small matrix (900 rows)."""
    subprocess.run([f"{where}/bin/hspgemm", "gen", "poisson2d9", "30", "-o", f"{where}/A.mtx"],
                   check=True, capture_output=True)


def setup(build, where):
    """The scratch folder: bin/hspgemm (this build's) and A.mtx, a small matrix."""
    os.makedirs(f"{where}/bin")
    os.symlink(os.path.abspath(f"{build}/.libs/hspgemm") if os.path.exists(f"{build}/.libs/hspgemm")
               else os.path.abspath(f"{build}/hspgemm"), f"{where}/bin/hspgemm")
    small_matrix(where)


def main(build, src, files):
    """Every block of the files as TAP lines; 1 where one failed."""
    n, failed = 0, False

    def tap(ok, what, detail=""):
        nonlocal n, failed
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} - {what}")
        if not ok:
            failed = True
            print("\n".join("# " + line for line in detail.strip().split("\n")[-12:]))

    build = os.path.abspath(build)
    os.environ["LD_LIBRARY_PATH"] = f"{build}/.libs"
    for path in files:
        where = tempfile.mkdtemp()
        setup(build, where)
        name = os.path.relpath(path, src)
        found = blocks(path)
        for b in found:
            what = f"{name}:{b['line']}: {b['lang'] or 'no language'} block"
            if "not run" in b["notes"]:
                n += 1
                print(f"ok {n} - {what} # SKIP {b['notes']['not run']}")
            elif b["lang"] == "":
                tap(False, what + " says what it is (sh, console, c, python or text)")
            elif b["lang"] == "sh":
                ok, out = run_sh(b["code"], where)
                tap(ok, what + " runs", out)
            elif b["lang"] == "console":
                ok, out = run_console(b["code"], where)
                tap(ok, what + " prints what it shows (numbers aside)", out)
            elif b["lang"] == "c" and "int main(" in b["code"]:
                ok, msg = run_program(b, build, src, where)
                tap(ok, what + " (a program) compiles, runs on A.mtx and writes A*A", msg)
        fragments = [b for b in found if b["lang"] == "c" and "int main(" not in b["code"]]
        if fragments:
            ok, msg = compile_c(c_program(fragments), build, src, where, "fragments")
            if ok:
                quiet = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")  # fragments free nothing
                r = subprocess.run([f"{where}/fragments"], cwd=where, capture_output=True, text=True, env=quiet)
                ok, msg = r.returncode == 0, r.stderr
            tap(ok, f"{name}: its {len(fragments)} C fragments as one program compile and run", msg)
    pages_listed(src, tap)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], os.path.dirname(os.path.dirname(os.path.abspath(__file__))), sys.argv[2:]))
