#!/usr/bin/env python3
"""doc.py: regenerates the tables of `hspgemm bench` figures in Markdown files
from the CSVs (and the JSON beside each) the runs wrote.

usage: doc.py [--check] FILE.md ...

A table sits between two marker lines:

    <!-- bench-table KIND GLOB -->
    ...lines this script writes...
    <!-- end bench-table -->

KIND is products, resident, realloc, galerkin, amg, solve or spmm (per matrix, L
and layout: hspgemm's ms, each peer's, cuSPARSE's device-only in a resident run,
and the fastest peer's over hspgemm's); GLOB, relative to the Markdown file's
folder, names one or more CSVs, runs of one command.  The lines between the
markers are replaced by the table, a line of summary figures and an italic line
naming the command, commits, machine, dates and number of runs.
With --check nothing is written: the script prints a unified diff for each file
whose tables differ from what the CSVs give and exits 1 (0 when all agree).
Exit status 2: bad usage, a file that cannot be read, an unknown KIND, a GLOB
that matches nothing or an unclosed marker.

This module is also what compare.py and plot.py read runs with.  Standard
library only."""
import csv
import difflib
import glob
import json
import math
import os
import re
import statistics
import sys

USAGE = "usage: doc.py [--check] FILE.md ..."

# The kind of CSV each --suite writes.
SUITE_KIND = {"default": "products", "paper": "products", "quick": "products",
              "galerkin": "galerkin", "galerkin-paper": "galerkin",
              "realloc": "realloc", "amg": "amg", "solve": "solve", "solve-quick": "solve",
              "spmm": "spmm"}

# The columns without which a CSV of each kind is of no use (the rest may be absent).
NEEDED = {"products": ("matrix", "ms"),
          "realloc": ("matrix", "precision", "ms_realloc", "ms_copy"),
          "galerkin": ("problem", "level", "order", "ms"),
          "amg": ("problem", "ms", "pyamg_ms"),
          "solve": ("problem", "program", "total_ms"),
          "spmm": ("matrix", "cols", "ms")}

# The columns that name a row, per kind: rows of two runs with these equal are the same.
KEY = {"products": ("matrix",), "realloc": ("matrix", "precision"),
       "galerkin": ("problem", "level", "order"), "amg": ("problem",),
       "solve": ("problem", "program"), "spmm": ("matrix", "cols", "layout")}

# Peers of a products or galerkin run: the name in the `failed` column, the label
# and the column of its median time.
PRODUCT_PEERS = (("graphblas", "graphblas", "graphblas_ms"),
                 ("scipy", "scipy", "scipy_ms"),
                 ("cusparse", "cusparse", "cusparse_ms"),
                 ("mkl", "mkl", "mkl_ms"),
                 ("mkl", "mkl sorted", "mkl_sorted_ms"))
GALERKIN_PEERS = (("graphblas", "graphblas", "graphblas_ms"),
                  ("scipy", "scipy", "scipy_ms"),
                  ("cusparse", "cusparse", "cusparse_ms"),
                  ("cusparse", "cusparse device", "cusparse_device_ms"),
                  ("mkl", "mkl", "mkl_ms"))
# Peers of an spmm run (cusparse device-only where the run is resident, see peer_column).
SPMM_PEERS = (("scipy", "scipy", "scipy_ms"),
              ("mkl", "mkl", "mkl_ms"),
              ("cusparse", "cusparse", "cusparse_ms"))

# The paper's realloc-over-copy figures (Liu and Vinter, section 5.6).
PAPER_DEVICE = "AMD A10-7850K APU"
PAPER_MEAN = 1.2
PAPER_MAX = {"float": 1.6, "double": 1.8}

MIB = 1024.0 * 1024.0
GIB = MIB * 1024.0

START = re.compile(r"^<!--\s*bench-table\s+(\S+)\s+(\S+)\s*-->$")
END = re.compile(r"^<!--\s*end\s+bench-table\s*-->$")
TABLE_KINDS = ("products", "resident", "realloc", "galerkin", "amg", "solve", "spmm")


class BenchError(Exception):
    """A message for the user: a file that cannot be read or holds what it should not."""


# ---- reading runs ---------------------------------------------------------------------------

def json_path(csv_path):
    """The name of the JSON file that describes the run of CSV_PATH."""
    root, ext = os.path.splitext(csv_path)
    return (root if ext == ".csv" else csv_path) + ".json"


def read_meta(csv_path):
    """The JSON beside CSV_PATH as a dict, {} when there is none."""
    path = json_path(csv_path)
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise BenchError("%s: %s" % (path, e.strerror or e))
    except (ValueError, UnicodeDecodeError) as e:
        raise BenchError("%s: not valid JSON: %s" % (path, e))
    if not isinstance(meta, dict):
        raise BenchError("%s: not a JSON object" % path)
    return meta


def kind_of_header(header):
    """The kind of CSV whose first line holds HEADER, None when it is none of them."""
    if "ms_realloc" in header:
        return "realloc"
    if "program" in header and "total_ms" in header:
        return "solve"
    if "problem" in header and "pyamg_ms" in header:
        return "amg"
    if "problem" in header and "order" in header:
        return "galerkin"
    if "matrix" in header and "cols" in header:
        return "spmm"
    if "matrix" in header and "ms" in header:
        return "products"
    return None


def kind_of(path, meta, header):
    """The kind of the run in PATH: from its JSON's suite, else from its CSV's header."""
    suite = meta.get("suite")
    if suite is not None:
        if suite not in SUITE_KIND:
            raise BenchError("%s: unknown suite '%s'" % (json_path(path), suite))
        return SUITE_KIND[suite]
    kind = kind_of_header(header)
    if kind is None:
        raise BenchError("%s: not a CSV of hspgemm bench (no JSON beside it, and its header"
                         " is none of products, realloc, galerkin, amg, solve or spmm)" % path)
    return kind


def read_csv(path):
    """The header and the rows (dicts, with '#file' and '#line') of the CSV file PATH."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = []
            for row in reader:
                clean = {k: (v or "").strip() for k, v in row.items() if k is not None}
                clean["#file"] = path
                clean["#line"] = reader.line_num
                rows.append(clean)
    except OSError as e:
        raise BenchError("%s: %s" % (path, e.strerror or e))
    except (csv.Error, UnicodeDecodeError) as e:
        raise BenchError("%s: not a readable CSV: %s" % (path, e))
    return header, rows


def read_run(path):
    """The run in the CSV file PATH: {'path', 'meta', 'kind', 'header', 'rows'}."""
    header, rows = read_csv(path)
    if not header:
        raise BenchError("%s: empty file" % path)
    meta = read_meta(path)
    kind = kind_of(path, meta, header)
    missing = [c for c in NEEDED[kind] if c not in header]
    if missing:
        raise BenchError("%s: a %s CSV without the column%s %s" % (
            path, kind, "s" if len(missing) > 1 else "", ", ".join(missing)))
    for row in rows:
        if "matrix" in row:
            row["matrix"] = os.path.basename(row["matrix"]) or row["matrix"]
        if kind == "spmm" and not row.get("layout"):
            row["layout"] = "row"  # runs from before --layout: row-major
    return {"path": path, "meta": meta, "kind": kind, "header": header, "rows": rows}


def read_runs(paths):
    """The runs in PATHS, all of one kind; BenchError otherwise."""
    runs = [read_run(p) for p in paths]
    kinds = sorted(set(r["kind"] for r in runs))
    if len(kinds) > 1:
        raise BenchError("runs of different kinds (%s): %s" % (
            ", ".join(kinds), ", ".join(r["path"] for r in runs)))
    return runs


def number(row, col):
    """The number in column COL of ROW, None when the field is empty or the column absent."""
    text = row.get(col, "")
    if text == "":
        return None
    try:
        x = float(text)
    except ValueError:
        raise BenchError("%s:%d: column %s: '%s' is not a number" % (
            row["#file"], row["#line"], col, text))
    return x if math.isfinite(x) else None


def timing(row, col):
    """(median, least, largest) of the times in COL, COL_min and COL_max of ROW; None
    without a median, the bounds None where they are empty."""
    med = number(row, col)
    if med is None:
        return None
    return (med, number(row, col + "_min"), number(row, col + "_max"))


def ratio(num, den):
    """NUM / DEN of two (median, least, largest): the median ratio and its range from
    the least and largest of each; None where either is missing."""
    if num is None or den is None or den[0] <= 0:
        return None
    low = high = None
    if None not in (num[1], den[2]) and den[2] > 0:
        low = num[1] / den[2]
    if None not in (num[2], den[1]) and den[1] > 0:
        high = num[2] / den[1]
    return (num[0] / den[0], low, high)


def total(figures):
    """The sum of (median, least, largest) FIGURES; None if one is missing."""
    if not figures or None in figures:
        return None
    med = sum(f[0] for f in figures)
    low = None if any(f[1] is None for f in figures) else sum(f[1] for f in figures)
    high = None if any(f[2] is None for f in figures) else sum(f[2] for f in figures)
    return (med, low, high)


def across(figures):
    """One figure from one per run: a lone run's own (median, least, largest), else the
    median over the runs that have it and their range; None when none has it."""
    got = [f for f in figures if f is not None]
    if not got:
        return None
    if len(figures) == 1:
        return got[0]
    medians = [f[0] for f in got]
    return (statistics.median(medians), min(medians), max(medians))


def failed_peers(row):
    """The names of the peers that failed on ROW."""
    return set(p.strip() for p in row.get("failed", "").split(";") if p.strip())


def row_key(kind, row):
    """The tuple that names ROW among the rows of a KIND run."""
    return tuple(row.get(c, "") for c in KEY[kind])


def rows_by_key(run):
    """The rows of RUN by their key (the first row of a key wins)."""
    table = {}
    for row in run["rows"]:
        table.setdefault(row_key(run["kind"], row), row)
    return table


def keys_in_order(runs, key_of):
    """The distinct keys KEY_OF gives the rows of RUNS, in the order they first appear."""
    keys = []
    seen = set()
    for run in runs:
        for row in run["rows"]:
            k = key_of(row)
            if k not in seen:
                seen.add(k)
                keys.append(k)
    return keys


def is_resident(row):
    """Whether ROW's times are device-only (hspgemm bench --resident)."""
    return row.get("resident", "") in ("1", "true", "yes")


def peer_column(row, col):
    """The column of a peer's time to set against hspgemm's in ROW: cuSPARSE's device-only
    time when hspgemm's is device-only too."""
    if col == "cusparse_ms" and is_resident(row):
        return "cusparse_device_ms"
    return col


def peer_speedup(row, col):
    """The peer's time in COL over hspgemm's in ROW, as (median, least, largest)."""
    return ratio(timing(row, peer_column(row, col)), timing(row, "ms"))


def peers_with_values(runs, peers):
    """The PEERS (name, label, column) that have a time in some row of RUNS."""
    return [p for p in peers
            if any(timing(row, peer_column(row, p[2])) for run in runs for row in run["rows"])]


def peer_label(runs, peer):
    """The label of PEER for RUNS: cusparse is 'cusparse device' in resident runs."""
    if peer[2] == "cusparse_ms" and any(is_resident(r) for run in runs for r in run["rows"]):
        return "cusparse device"
    return peer[1]


def measures(runs):
    """The figures each row of RUNS (of one kind) gives, as (label, function of a row to
    (median, least, largest) or None): hspgemm's time, then each peer's speedup."""
    kind = runs[0]["kind"]
    if kind == "realloc":
        return [("realloc ms", lambda r: timing(r, "ms_realloc")),
                ("copy ms", lambda r: timing(r, "ms_copy")),
                ("speedup copy/realloc", realloc_speedup)]
    if kind == "amg":
        return [("hspgemm ms", lambda r: timing(r, "ms")),
                ("pyamg x", lambda r: ratio(timing(r, "pyamg_ms"), timing(r, "ms")))]
    if kind == "solve":
        return [("total ms", lambda r: timing(r, "total_ms")),
                ("setup ms", lambda r: timing(r, "setup_ms")),
                ("solve ms", lambda r: timing(r, "solve_ms")),
                ("x", lambda r: None if number(r, "x") is None else (number(r, "x"), None, None))]
    peers = {"products": PRODUCT_PEERS, "spmm": SPMM_PEERS}.get(kind, GALERKIN_PEERS)
    found = [("hspgemm ms", lambda r: timing(r, "ms"))]
    for peer in peers_with_values(runs, peers):
        found.append((peer_label(runs, peer) + " x",
                      lambda r, col=peer[2]: peer_speedup(r, col)))
    return found


def realloc_speedup(row):
    """Copy's time over realloc's in ROW: the CSV's speedup, its range from the runs."""
    figure = ratio(timing(row, "ms_copy"), timing(row, "ms_realloc"))
    given = number(row, "speedup")
    if figure is not None and given is not None:
        figure = (given, figure[1], figure[2])
    return figure


# ---- formatting -----------------------------------------------------------------------------

def fmt_ms(x):
    """A time in ms to about 3 significant digits: 0.21, 7.11, 36.7, 415."""
    if x is None:
        return "-"
    if x == 0 or abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    if abs(x) >= 1:
        return "%.2f" % x
    return "%.*f" % (1 - int(math.floor(math.log10(abs(x)))), x)


def fmt_x(x):
    """A ratio with two decimals."""
    return "-" if x is None else "%.2f" % x


def fmt_figure(figure, fmt):
    """FIGURE (median, least, largest) as 'median (least-largest)', the range left out when
    unknown."""
    if figure is None:
        return "-"
    text = fmt(figure[0])
    if figure[1] is not None and figure[2] is not None:
        text += " (%s-%s)" % (fmt(figure[1]), fmt(figure[2]))
    return text


def fmt_across(figures, fmt):
    """FIGURES, one per run, as one figure (see across), saying how many runs had it when
    some did not."""
    text = fmt_figure(across(figures), fmt)
    got = sum(f is not None for f in figures)
    if 0 < got < len(figures):
        text += ", %d of %d runs" % (got, len(figures))
    return text


def fmt_mib(nbytes):
    """A byte count in MiB, no decimals."""
    return "-" if nbytes is None else "%.0f" % (nbytes / MIB)


def table_lines(header, body):
    """A Markdown table of HEADER and the rows of BODY (lists of cells)."""
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
    out = [line(header), line(["---"] * len(header))]
    out.extend(line(cells) for cells in body)
    return out


def geomean(values):
    """The geometric mean of the positive VALUES, None if there are none."""
    got = [v for v in values if v is not None and v > 0]
    if not got:
        return None
    return math.exp(sum(math.log(v) for v in got) / len(got))


def fmt_per_run(values, runs):
    """VALUES (ratios), one per run, as '1.05x' or '1.05x, 1.32x (one per run)'."""
    text = ", ".join("-" if v is None else fmt_x(v) + "x" for v in values)
    return text if len(runs) == 1 else text + " (one per run)"


# ---- the tables -----------------------------------------------------------------------------

def rows_of(runs, key):
    """The row of each run of RUNS with KEY, None where a run lacks it."""
    return [rows_by_key(run).get(key) for run in runs]


def peer_cell(rows, peer, label):
    """The cell of PEER's speedup over hspgemm across ROWS (one per run, None where absent)."""
    figures = [peer_speedup(r, peer[2]) if r else None for r in rows]
    if any(figures):
        return fmt_across(figures, fmt_x)
    if any(r and peer[0] in failed_peers(r) for r in rows):
        return "failed"
    return "-"


def faster_peer(row, peers):
    """The speedup over hspgemm in ROW of the fastest of PEERS (the least median), None if
    none has a time."""
    got = [f for f in (peer_speedup(row, p[2]) for p in peers) if f is not None]
    return min(got, key=lambda f: f[0]) if got else None


def faster_peer_geomean(rows, peers):
    """The geometric mean over ROWS (of one run) of the fastest peer's time over hspgemm's."""
    return geomean([f[0] for f in (faster_peer(r, peers) for r in rows) if f])


def products_table(runs):
    """The lines of a products table and its geometric means over the faster peer."""
    peers = peers_with_values(runs, PRODUCT_PEERS)
    header = ["matrix", "hspgemm ms"] + [peer_label(runs, p) + " x" for p in peers]
    body = []
    for key in keys_in_order(runs, lambda r: row_key("products", r)):
        rows = rows_of(runs, key)
        ms = [timing(r, "ms") if r else None for r in rows]
        body.append([key[0], fmt_across(ms, fmt_ms)]
                    + [peer_cell(rows, p, peer_label(runs, p)) for p in peers])
    lines = table_lines(header, body)
    if peers:
        means = [faster_peer_geomean(run["rows"], peers) for run in runs]
        lines += ["", "Geometric mean of x over the faster peer: %s." % fmt_per_run(means, runs)]
    return lines


def resident_table(runs):
    """The lines of a resident table: hspgemm's device-only times against cuSPARSE's, with its
    memory pool (x) and, beside, with cudaMalloc for each product (no pool)."""
    if not any(is_resident(r) for run in runs for r in run["rows"]):
        raise BenchError("not a run of hspgemm bench --resident (no row has resident 1): %s"
                         % ", ".join(run["path"] for run in runs))
    header = ["matrix", "hspgemm ms", "cusparse device ms", "x", "cusparse no pool ms", "hspgemm MiB",
              "cusparse MiB"]
    body = []
    for key in keys_in_order(runs, lambda r: row_key("products", r)):
        rows = rows_of(runs, key)
        ours = [timing(r, "ms") if r else None for r in rows]
        theirs = [timing(r, "cusparse_device_ms") if r else None for r in rows]
        nopool = [timing(r, "cusparse_nopool_ms") if r else None for r in rows]
        x = [ratio(t, o) for t, o in zip(theirs, ours)]
        body.append([key[0], fmt_across(ours, fmt_ms),
                     fmt_across(theirs, fmt_ms), fmt_across(x, fmt_x), fmt_across(nopool, fmt_ms),
                     fmt_mib(median_of(rows, "peak_device_bytes")),
                     fmt_mib(median_of(rows, "cusparse_peak_device_bytes"))])
    means = [geomean([f[0] for f in (ratio(timing(r, "cusparse_device_ms"), timing(r, "ms"))
                                     for r in run["rows"]) if f]) for run in runs]
    return table_lines(header, body) + [
        "", "Geometric mean of x (cuSPARSE device-only / hspgemm): %s." % fmt_per_run(means, runs)]


def spmm_table(runs):
    """The lines of an spmm table: per matrix, L and layout hspgemm's ms, each peer's and the
    fastest peer's over hspgemm's, then their geometric means."""
    peers = peers_with_values(runs, SPMM_PEERS)
    header = ["matrix", "L", "layout", "hspgemm ms"] + [peer_label(runs, p) + " ms" for p in peers]
    body = []
    for key in keys_in_order(runs, lambda r: row_key("spmm", r)):
        rows = rows_of(runs, key)
        cells = list(key) + [fmt_across([timing(r, "ms") if r else None for r in rows], fmt_ms)]
        for p in peers:
            cells.append(fmt_across([timing(r, peer_column(r, p[2])) if r else None for r in rows], fmt_ms))
        if peers:
            cells.append(fmt_across(spmm_x(rows, peers), fmt_x))
        body.append(cells)
    if not peers:
        return table_lines(header, body)
    return table_lines(header + ["x faster peer"], body) + ["", spmm_summary(runs, peers)]


def spmm_x(rows, peers):
    """The fastest of PEERS' time over hspgemm's in each of ROWS (one per run, None where absent)."""
    return [faster_peer(r, peers) if r else None for r in rows]


def spmm_group(row):
    """The L and layout of an spmm ROW: the rows a line of geometric means is over."""
    return row_key("spmm", row)[1:]


def spmm_summary(runs, peers):
    """The line of the geometric means over the matrices of x faster peer, one per run, and the
    least x (median over the runs), per L and layout."""
    keys = keys_in_order(runs, lambda r: row_key("spmm", r))
    parts = []
    for group in keys_in_order(runs, spmm_group):
        means = [faster_peer_geomean([r for r in run["rows"] if spmm_group(r) == group], peers)
                 for run in runs]
        xs = [(across(spmm_x(rows_of(runs, k), peers)), k[0]) for k in keys if k[1:] == group]
        least = min([(x[0], matrix) for x, matrix in xs if x], default=None)
        text = "L=%s, %s: %s" % (group[0], group[1], fmt_per_run(means, runs))
        if least:
            text += ", least %sx (%s)" % (fmt_x(least[0]), least[1])
        parts.append(text)
    return ("Geometric mean over the matrices of x, the faster peer's ms / hspgemm's: %s."
            % "; ".join(parts))


def median_of(rows, col):
    """The median of column COL over ROWS (None where a row is absent or the field empty)."""
    got = [number(r, col) for r in rows if r]
    got = [v for v in got if v is not None]
    return statistics.median(got) if got else None


def realloc_table(runs):
    """The lines of a realloc table and a line per precision set against the paper's."""
    header = ["matrix", "precision", "ms realloc", "ms copy", "speedup", "copied MiB"]
    body = []
    speedups = {}
    precisions = []
    for key in keys_in_order(runs, lambda r: row_key("realloc", r)):
        rows = rows_of(runs, key)
        speedups_of_runs = [realloc_speedup(r) if r else None for r in rows]
        speedup = across(speedups_of_runs)
        copied = fmt_mib(median_of(rows, "bytes_copied_copy"))
        by_realloc = median_of(rows, "bytes_copied_realloc")
        if by_realloc:
            copied += " (realloc %s)" % fmt_mib(by_realloc)
        body.append([key[0], key[1],
                     fmt_across([timing(r, "ms_realloc") if r else None for r in rows], fmt_ms),
                     fmt_across([timing(r, "ms_copy") if r else None for r in rows], fmt_ms),
                     fmt_across(speedups_of_runs, fmt_x), copied])
        if speedup is not None:
            speedups.setdefault(key[1], []).append((speedup[0], key[0]))
            if key[1] not in precisions:
                precisions.append(key[1])
    lines = table_lines(header, body) + [""]
    device = device_text(runs)
    for precision in precisions:
        lines.append(realloc_summary(runs, precision, speedups[precision], device))
    return lines


def realloc_summary(runs, precision, speedups, device):
    """The line that sets the mean and largest speedups in PRECISION against the paper's."""
    means = []
    for run in runs:
        grew = [realloc_speedup(r) for r in run["rows"]
                if r["precision"] == precision and (number(r, "grow_events") or 0) > 0]
        grew = [f[0] for f in grew if f is not None]
        means.append((statistics.mean(grew), None, None) if grew else None)
    mean = across(means)
    best, where = max(speedups)
    figure = "-" if mean is None else fmt_figure(mean, fmt_x)
    figure = figure.replace(" (", "x (", 1) if " (" in figure else figure + "x"
    text = "- %s: mean speedup over the matrices whose rows grew %s, " % (precision, figure)
    text += "largest %sx (%s), on %s; " % (fmt_x(best), where, device)
    paper = PAPER_MAX.get(precision)
    text += "the paper, on an %s: %.1fx on average" % (PAPER_DEVICE, PAPER_MEAN)
    return text + (", up to %.1fx." % paper if paper else ".")


def galerkin_table(runs):
    """The lines of a galerkin table: per problem and order, the sums over the levels."""
    peers = peers_with_values(runs, GALERKIN_PEERS)
    header = ["problem", "order", "levels", "hspgemm ms"] + [p[1] + " x" for p in peers]
    body = []
    for key in keys_in_order(runs, lambda r: (r["problem"], r["order"])):
        per_run = [[r for r in run["rows"] if (r["problem"], r["order"]) == key] for run in runs]
        ours = [total([timing(r, "ms") for r in rows]) for rows in per_run]
        cells = [key[0], key[1], str(max(len(rows) for rows in per_run)),
                 fmt_across(ours, fmt_ms)]
        for p in peers:
            theirs = [total([timing(r, p[2]) for r in rows]) for rows in per_run]
            x = [ratio(t, o) for t, o in zip(theirs, ours)]
            failed = any(p[0] in failed_peers(r) for rows in per_run for r in rows)
            cells.append("failed" if not any(x) and failed else fmt_across(x, fmt_x))
        body.append(cells)
    return table_lines(header, body)


def amg_table(runs):
    """The lines of an amg table: hspgemm's setup against PyAMG's."""
    header = ["problem", "hspgemm ms", "PyAMG ms", "x", "levels' rows", "complexity"]
    body = []
    for key in keys_in_order(runs, lambda r: row_key("amg", r)):
        rows = rows_of(runs, key)
        first = next(r for r in rows if r)
        ours = [timing(r, "ms") if r else None for r in rows]
        theirs = [timing(r, "pyamg_ms") if r else None for r in rows]
        x = [ratio(t, o) for t, o in zip(theirs, ours)]
        body.append([key[0], fmt_across(ours, fmt_ms),
                     fmt_across(theirs, fmt_ms), fmt_across(x, fmt_x),
                     both(first.get("rows", ""), first.get("pyamg_rows", "")),
                     both(fmt_x(number(first, "complexity")),
                          fmt_x(number(first, "pyamg_complexity")))])
    means = [geomean([f[0] for f in (ratio(timing(r, "pyamg_ms"), timing(r, "ms"))
                                     for r in run["rows"]) if f]) for run in runs]
    return table_lines(header, body) + [
        "", "Geometric mean of x (PyAMG / hspgemm): %s." % fmt_per_run(means, runs)]


def both(ours, theirs):
    """OURS, and PyAMG's THEIRS after it where the two differ."""
    if theirs in ("", "-") or theirs == ours:
        return ours or "-"
    return "%s; PyAMG %s" % (ours or "-", theirs)


def solve_programs(runs):
    """The programs of solve RUNS in the order they first appear, hspgemm first."""
    programs = keys_in_order(runs, lambda r: r["program"])
    return sorted(programs, key=lambda p: p != "hspgemm")


def solve_x(rows, problem, program):
    """PROGRAM's total ms on PROBLEM over hspgemm's, in one run's ROWS by key; None where
    either has none."""
    theirs, ours = rows.get((problem, program)), rows.get((problem, "hspgemm"))
    if not theirs or not ours:
        return None
    return ratio(timing(theirs, "total_ms"), timing(ours, "total_ms"))


def solve_geomean(rows, problems, program):
    """The geometric mean over PROBLEMS of PROGRAM's x in one run's ROWS by key."""
    return geomean([x[0] for x in (solve_x(rows, q, program) for q in problems) if x])


def solve_coverage(by_key, problems, program):
    """' (n of N problems)' where PROGRAM has an x on only n of the N PROBLEMS in the runs'
    rows BY_KEY (the most of any run); '' where it has one on all."""
    n = max(sum(solve_x(rows, q, program) is not None for q in problems) for rows in by_key)
    return "" if n == len(problems) else " (%d of %d problems)" % (n, len(problems))


def iterations_cell(rows):
    """The median iteration count over ROWS (one per run, None where absent), saying where a
    run did not converge or the program failed."""
    its = median_of(rows, "iterations")
    if its is None:
        return "failed" if any(r and r.get("error") for r in rows) else "-"
    unconverged = sum(1 for r in rows if r and r.get("converged") == "0")
    if not unconverged:
        return "%g" % its
    ran = sum(1 for r in rows if r and number(r, "iterations") is not None)
    return "%g not converged" % its + ("" if unconverged == ran else " in %d of %d runs" % (unconverged, ran))


def total_cell(rows):
    """The total ms (setup + solve) across ROWS (one per run), 'failed' where a program's
    row says why it has none."""
    figures = [timing(r, "total_ms") if r else None for r in rows]
    if any(figures):
        return fmt_across(figures, fmt_ms)
    return "failed" if any(r and r.get("error") for r in rows) else "-"


def solve_table(runs):
    """The lines of a solve table: per problem each program's iterations and time to solution,
    each peer's over hspgemm's, and their geometric means."""
    programs = solve_programs(runs)
    peers = [p for p in programs if p != "hspgemm"]
    header = ["problem"]
    for p in programs:
        header += [p + " it", p + " ms"] + ([p + " x"] if p in peers else [])
    by_key = [rows_by_key(run) for run in runs]
    problems = keys_in_order(runs, lambda r: r["problem"])
    body = []
    for problem in problems:
        cells = [problem]
        for p in programs:
            rows = rows_of(runs, (problem, p))
            cells += [iterations_cell(rows), total_cell(rows)]
            if p in peers:
                cells.append(fmt_across([solve_x(keyed, problem, p) for keyed in by_key], fmt_x))
        body.append(cells)
    means = ["%s %s%s" % (p, fmt_per_run([solve_geomean(keyed, problems, p) for keyed in by_key], runs),
                          solve_coverage(by_key, problems, p)) for p in peers]
    return table_lines(header, body) + [
        "", "it: iterations; ms: setup + solve; x: the peer's ms / hspgemm's. Geometric mean of x "
        "over the problems: %s." % ("; ".join(means) or "no peer ran")]


# ---- the line that says where the figures come from -----------------------------------------

def distinct(values):
    """VALUES without repeats and empties, in their order."""
    out = []
    for v in values:
        if v not in ("", None) and v not in out:
            out.append(v)
    return out


def device_text(runs):
    """The devices RUNS ran on, as their JSONs describe them."""
    names = []
    for run in runs:
        dev = run["meta"].get("device")
        if isinstance(dev, dict):
            text = dev.get("description") or dev.get("name") or ""
            if dev.get("version"):
                text += " (%s)" % dev["version"]
        else:
            text = next((r.get("device", "") for r in run["rows"]), "")
        names.append(text)
    return " and ".join(distinct(names)) or "an unknown device"


def machine_text(meta):
    """The machine of a run's JSON META: CPU model, cores and memory."""
    parts = [str(meta.get("cpu_model") or "unknown CPU")]
    if meta.get("cores"):
        parts.append("%s cores" % meta["cores"])
    if meta.get("memory_bytes"):
        parts.append("%.1f GiB" % (float(meta["memory_bytes"]) / GIB))
    return ", ".join(parts)


def peers_text(runs):
    """The peers that ran in RUNS, with their versions."""
    found = []
    for run in runs:
        peers = run["meta"].get("peers")
        if not isinstance(peers, dict):
            continue
        for name, info in sorted(peers.items()):
            if isinstance(info, dict) and info.get("status") == "ran":
                found.append(("%s %s" % (name, info.get("version", ""))).strip())
    return ", ".join(distinct(found))


def repeat_text(runs):
    """How many timed runs each figure is the median of."""
    counts = []
    for run in runs:
        n = run["meta"].get("repeat")
        if n is None and run["rows"]:
            n = run["rows"][0].get("runs") or None
        counts.append(str(n) if n is not None else None)
    counts = distinct(counts)
    return " and ".join(counts) if counts else "an unknown number"


def without_csv(command):
    """A command line without its --csv=FILE, which names where each run was written."""
    return " ".join(w for w in command.split() if not w.startswith("--csv=")) if command else command


def provenance(runs):
    """The italic line under a table: command, commits, machine, dates and number of runs."""
    metas = [run["meta"] for run in runs]
    commands = distinct(without_csv(m.get("command")) for m in metas)
    if not commands:
        what = "no JSON beside the CSV%s" % ("s" if len(runs) > 1 else "")
    elif len(commands) == 1 and all(m.get("command") for m in metas):
        what = "`%s`" % commands[0]
    else:
        what = "runs of different commands: " + "; ".join("`%s`" % c for c in commands)
    parts = [what]
    commits = distinct(m.get("commit") for m in metas)
    if commits:
        parts.append("commit%s %s" % ("s" if len(commits) > 1 else "", ", ".join(commits)))
    machines = distinct(machine_text(m) for m in metas if m)
    if machines:
        parts.append("; ".join(machines))
    parts.append("device: " + device_text(runs))
    peers = peers_text(runs)
    if peers:
        parts.append("peers: " + peers)
    dates = distinct(m.get("date") for m in metas)
    if dates:
        parts.append(", ".join(dates))
    n = len(runs)
    parts.append("%d run%s of the command, %s the median of %s" % (
        n, "s" if n > 1 else "", "each" if n > 1 else "each figure", repeat_text(runs)))
    broken = [run["path"] for run in runs if run["meta"].get("complete") is False]
    if broken:
        parts.append("incomplete: " + ", ".join(os.path.basename(p) for p in broken))
    return "*" + "; ".join(parts).replace("*", "\\*") + ".*"


# ---- the Markdown files ---------------------------------------------------------------------

TABLES = {"products": products_table, "resident": resident_table, "realloc": realloc_table,
          "galerkin": galerkin_table, "amg": amg_table, "solve": solve_table, "spmm": spmm_table}
CSV_KIND = {"products": "products", "resident": "products", "realloc": "realloc",
            "galerkin": "galerkin", "amg": "amg", "solve": "solve", "spmm": "spmm"}


def table_for(md_path, lineno, kind, pattern):
    """The generated lines of the table KIND over the CSVs PATTERN names (relative to the
    folder of MD_PATH, whose line LINENO holds the marker)."""
    where = "%s:%d" % (md_path, lineno)
    if kind not in TABLES:
        raise BenchError("%s: unknown table kind '%s' (%s)" % (where, kind, ", ".join(TABLE_KINDS)))
    folder = os.path.dirname(md_path)
    paths = sorted(glob.glob(os.path.join(folder, pattern)))
    if not paths:
        raise BenchError("%s: '%s' matches no file" % (where, pattern))
    try:
        runs = read_runs(paths)
        if runs[0]["kind"] != CSV_KIND[kind]:
            raise BenchError("a %s table needs %s CSVs, not %s ones" % (
                kind, CSV_KIND[kind], runs[0]["kind"]))
        lines = TABLES[kind](runs)
    except BenchError as e:
        raise BenchError("%s: %s" % (where, e))
    return lines + ["", provenance(runs)]


def regenerate(md_path, text):
    """TEXT, the Markdown file MD_PATH's, with the lines of each bench-table made anew."""
    lines = text.splitlines(keepends=True)
    out = []
    open_at = None
    for lineno, line in enumerate(lines, 1):
        bare = line.strip()
        if open_at is None:
            out.append(line)
            start = START.match(bare)
            if start:
                out.extend(l + "\n" for l in table_for(md_path, lineno, *start.groups()))
                open_at = lineno
            elif END.match(bare):
                raise BenchError("%s:%d: end bench-table without a bench-table before it"
                                 % (md_path, lineno))
            elif bare.startswith("<!--") and "bench-table" in bare:
                raise BenchError("%s:%d: bad marker; it is <!-- bench-table KIND GLOB -->"
                                 % (md_path, lineno))
        elif END.match(bare):
            out.append(line)
            open_at = None
        elif START.match(bare):
            raise BenchError("%s:%d: bench-table marker without <!-- end bench-table -->"
                             % (md_path, open_at))
    if open_at is not None:
        raise BenchError("%s:%d: bench-table marker without <!-- end bench-table -->"
                         % (md_path, open_at))
    return "".join(out)


def read_text(path):
    """The text of the file PATH."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise BenchError("%s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError as e:
        raise BenchError("%s: not UTF-8: %s" % (path, e))


def write_text(path, text):
    """Write TEXT to the file PATH."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise BenchError("%s: %s" % (path, e.strerror or e))


def diff_text(path, old, new):
    """A unified diff from OLD, the text of PATH, to NEW."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        path, path + " (from the CSVs)"))


def parse_args(argv):
    """Whether --check was given, and the Markdown files; exits 2 on bad usage."""
    check = False
    files = []
    for a in argv:
        if a == "--check":
            check = True
        elif a in ("-h", "--help"):
            print(__doc__.split("\n\n")[1])
            sys.exit(0)
        elif a.startswith("-"):
            usage_error("unknown option '%s'" % a)
        else:
            files.append(a)
    if not files:
        usage_error("no Markdown file given")
    return check, files


def usage_error(message):
    """Print MESSAGE and the usage, and exit 2."""
    print("doc.py: %s\n%s" % (message, USAGE), file=sys.stderr)
    sys.exit(2)


def main(argv):
    """Regenerate (or check) the tables of each file named in ARGV; the exit status."""
    check, files = parse_args(argv)
    differ = False
    for path in files:
        try:
            old = read_text(path)
            new = regenerate(path, old)
            if new == old:
                continue
            if check:
                sys.stdout.write(diff_text(path, old, new))
                differ = True
            else:
                write_text(path, new)
                print("doc.py: updated %s" % path)
        except BenchError as e:
            print("doc.py: %s" % e, file=sys.stderr)
            return 2
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
