#!/usr/bin/env python3
"""compare.py: sets two runs of one `hspgemm bench` suite side by side.

usage: compare.py A.csv B.csv

For each row both runs hold (a matrix; a matrix and precision for realloc; a
problem, level and order for galerkin; a problem for amg; a problem and program
for solve) it prints hspgemm's median [least-largest] time in A and in B and
their ratio B/A, with a '*' where the two ranges do not overlap; then the same
for the speedup over each peer that both runs hold (realloc: copy's time and
the speedup copy/realloc; amg: PyAMG).  solve: each program's total, setup and
solve ms, and x (its total / hspgemm's, from the CSV).  Rows in one run only
are listed after.  The first lines name each run's command, commit, date and
device, from the JSON beside its CSV.  Exit status 0; 2 on bad usage or a file
that cannot be read or is of no known kind.
Needs doc.py, beside this script."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc  # noqa: E402  (beside this script: reads the runs)

USAGE = "usage: compare.py A.csv B.csv"


def run_line(tag, run):
    """The line that says where RUN (called TAG) comes from."""
    meta = run["meta"]
    if not meta:
        return "%s: %s (no JSON beside it)" % (tag, run["path"])
    return "%s: %s: `%s`, commit %s, %s, %s" % (
        tag, run["path"], meta.get("command", "?"), meta.get("commit", "?"),
        meta.get("date", "?"), doc.device_text([run]))


def fmt_range(figure, fmt, row, label):
    """FIGURE (median, least, largest) of ROW as 'median [least-largest]'; 'failed' or '-'
    without one, as the row's failed column says of the peer LABEL names."""
    if figure is None:
        failed = label.split()[0] in doc.failed_peers(row) or row.get("error")
        return "failed" if failed else "-"
    text = fmt(figure[0])
    if figure[1] is not None and figure[2] is not None:
        text += " [%s-%s]" % (fmt(figure[1]), fmt(figure[2]))
    return text


def apart(a, b):
    """Whether the ranges of figures A and B are known and do not overlap."""
    if None in (a[1], a[2], b[1], b[2]):
        return False
    return a[2] < b[1] or b[2] < a[1]


def key_text(key):
    """A row's key as one word."""
    return " ".join(key)


def compare_lines(label, keys, rows_a, rows_b, measure):
    """The lines of one figure, MEASURE of a row, for KEYS in both runs; [] if none has it."""
    fmt = doc.fmt_ms if label.endswith("ms") else doc.fmt_x
    body = []
    for key in keys:
        a, b = measure(rows_a[key]), measure(rows_b[key])
        if a is None and b is None:
            continue
        ratio = doc.fmt_x(b[0] / a[0]) if a and b and a[0] > 0 else "-"
        mark = "*" if a and b and apart(a, b) else ""
        body.append([key_text(key), fmt_range(a, fmt, rows_a[key], label),
                     fmt_range(b, fmt, rows_b[key], label), ratio, mark])
    if not body:
        return []
    return [""] + columns([label, "A", "B", "B/A", ""], body)


def columns(header, body):
    """HEADER and BODY as lines of left-aligned columns."""
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + body]


def labels_of(runs):
    """The labels of the figures RUNS' rows hold, with their functions."""
    return {label: f for label, f in doc.measures(runs)}


def compare(run_a, run_b):
    """The lines that set RUN_A and RUN_B side by side."""
    kind = run_a["kind"]
    lines = [run_line("A", run_a), run_line("B", run_b)]
    rows_a, rows_b = doc.rows_by_key(run_a), doc.rows_by_key(run_b)
    keys = [k for k in rows_a if k in rows_b]
    in_a, in_b = labels_of([run_a]), labels_of([run_b])
    for label, measure in doc.measures([run_a, run_b]):
        if label in in_a and label in in_b:
            lines += compare_lines(label, keys, rows_a, rows_b, measure)
    only = ["only in A: " + key_text(k) for k in rows_a if k not in rows_b]
    only += ["only in B: " + key_text(k) for k in rows_b if k not in rows_a]
    if only:
        lines += [""] + only
    lines += ["", "(%s; * where the two ranges do not overlap)" % " + ".join(doc.KEY[kind])]
    return lines


def main(argv):
    """Compare the two runs named in ARGV; the exit status."""
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) != 2 or any(a.startswith("-") for a in argv):
        print("compare.py: two CSV files needed\n" + USAGE, file=sys.stderr)
        return 2
    try:
        run_a, run_b = doc.read_run(argv[0]), doc.read_run(argv[1])
        if run_a["kind"] != run_b["kind"]:
            raise doc.BenchError("%s is a run of kind %s, %s of kind %s" % (
                argv[0], run_a["kind"], argv[1], run_b["kind"]))
        lines = compare(run_a, run_b)
    except doc.BenchError as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
