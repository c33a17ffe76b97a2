#!/usr/bin/env python3
"""plot.py: draws the figures of `hspgemm bench` runs as one SVG.

usage: plot.py [-o OUT.svg] [--title=T] FILE.csv [FILE.csv ...]

The CSVs are runs of one suite (several runs of one command give the median of
their figures, the error bars their range; one run's error bars are the range of
its timed runs).  products: per matrix, hspgemm's speedup over each peer that ran
(peer ms / hspgemm ms; log scale, a line at 1x).  realloc: per matrix, the
speedup of realloc over copy in float and in double, beside the paper's figures
(on an A10-7850K APU) as lines.  galerkin: per problem and order, the sum over
the levels of hspgemm's ms and each peer's.  amg: per problem, the setup ms of
hspgemm and of PyAMG.  solve: per problem, the time to solution (setup + solve
ms, log scale) of hspgemm and of each peer that ran.  Under the title: the device, threads, precision, commit
and date, from the JSON beside each CSV.  OUT is by default the first CSV's name
with .svg; the same CSVs give the same file byte for byte.  Exit status 2 on bad
usage, a file that cannot be read or a missing matplotlib.  Needs doc.py, beside
this script, and matplotlib."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc  # noqa: E402  (beside this script: reads the runs)

USAGE = "usage: plot.py [-o OUT.svg] [--title=T] FILE.csv [FILE.csv ...]"

TITLES = {"products": "hspgemm's speedup over each peer (peer ms / hspgemm ms)",
          "realloc": "Growing long rows: speedup of realloc over copy (copy ms / realloc ms)",
          "galerkin": "Galerkin product R·A·P: ms, summed over the levels",
          "amg": "AMG setup: ms",
          "solve": "AMG time to solution: ms (setup + solve to 1e-8)"}


class UsageError(Exception):
    """A bad command line."""


def parse_args(argv):
    """The output file, the title and the CSV files of the command line ARGV."""
    out, title, files = None, None, []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "-o":
            if not args:
                raise UsageError("-o needs a file name")
            out = args.pop(0)
        elif a.startswith("-o") and len(a) > 2:
            out = a[2:]
        elif a.startswith("--title="):
            title = a[len("--title="):]
        elif a.startswith("-") and a != "-":
            raise UsageError("unknown option '%s'" % a)
        else:
            files.append(a)
    if not files:
        raise UsageError("no CSV file given")
    if out is None:
        root, ext = os.path.splitext(files[0])
        out = (root if ext == ".csv" else files[0]) + ".svg"
    return out, title, files


# ---- what each kind of run shows: groups along x, series of bars ---------------------------

def per_run_rows(runs, key):
    """The row of each run in RUNS with KEY (None where absent)."""
    return doc.rows_of(runs, key)


def products_series(runs):
    """Groups (matrices) and series (one per peer) of speedups for products runs."""
    keys = doc.keys_in_order(runs, lambda r: doc.row_key("products", r))
    series = []
    for peer in doc.peers_with_values(runs, doc.PRODUCT_PEERS):
        figures = []
        for key in keys:
            rows = per_run_rows(runs, key)
            figures.append(doc.across([doc.peer_speedup(r, peer[2]) if r else None
                                       for r in rows]))
        series.append((doc.peer_label(runs, peer), figures))
    return [k[0] for k in keys], series


def realloc_series(runs):
    """Groups (matrices) and series (one per precision) of realloc's speedup over copy."""
    matrices = doc.keys_in_order(runs, lambda r: r["matrix"])
    precisions = doc.keys_in_order(runs, lambda r: r["precision"])
    series = []
    for precision in precisions:
        figures = []
        for matrix in matrices:
            rows = per_run_rows(runs, (matrix, precision))
            figures.append(doc.across([doc.realloc_speedup(r) if r else None for r in rows]))
        series.append((precision, figures))
    return matrices, series


def galerkin_series(runs):
    """Groups (problem and order) and series (hspgemm, each peer) of ms summed over levels."""
    keys = doc.keys_in_order(runs, lambda r: (r["problem"], r["order"]))
    columns = [("hspgemm", "ms")] + [(p[1], p[2]) for p in
                                     doc.peers_with_values(runs, doc.GALERKIN_PEERS)]
    series = []
    for label, col in columns:
        figures = []
        for key in keys:
            sums = [doc.total([doc.timing(r, col) for r in run["rows"]
                               if (r["problem"], r["order"]) == key]) for run in runs]
            figures.append(doc.across(sums))
        series.append((label, figures))
    return ["%s\n%s" % k for k in keys], series


def amg_series(runs):
    """Groups (problems) and series (hspgemm, PyAMG) of setup ms."""
    keys = doc.keys_in_order(runs, lambda r: doc.row_key("amg", r))
    series = []
    for label, col in (("hspgemm", "ms"), ("PyAMG", "pyamg_ms")):
        figures = []
        for key in keys:
            rows = per_run_rows(runs, key)
            figures.append(doc.across([doc.timing(r, col) if r else None for r in rows]))
        series.append((label, figures))
    return [k[0] for k in keys], series


def solve_series(runs):
    """Groups (problems) and series (hspgemm, each peer that ran) of total ms to solution."""
    problems = doc.keys_in_order(runs, lambda r: r["problem"])
    series = []
    for program in doc.solve_programs(runs):
        figures = []
        for problem in problems:
            rows = per_run_rows(runs, (problem, program))
            figures.append(doc.across([doc.timing(r, "total_ms") if r else None for r in rows]))
        if any(figures):
            series.append((program, figures))
    return problems, series


SERIES = {"products": products_series, "realloc": realloc_series,
          "galerkin": galerkin_series, "amg": amg_series, "solve": solve_series}


# ---- the caption ---------------------------------------------------------------------------

def from_runs(runs, field, column):
    """The distinct values of FIELD in RUNS' JSONs, else of COLUMN in their rows, joined."""
    values = doc.distinct(str(run["meta"].get(field, "")) for run in runs)
    if not values:
        values = doc.distinct(r.get(column, "") for run in runs for r in run["rows"])
    return ", ".join(values) or "?"


def peer_threads(runs):
    """', peers N' for solve RUNS: the threads the peers ran on (their rows'); '' otherwise."""
    if runs[0]["kind"] != "solve":
        return ""
    counts = doc.distinct(r.get("threads", "") for run in runs for r in run["rows"]
                          if r["program"] != "hspgemm")
    return ", peers %s" % ", ".join(counts) if counts else ""


def caption(runs):
    """The line under the title: device, threads, precision, commit and date of RUNS."""
    kind = runs[0]["kind"]
    precision = ("float and double" if kind == "realloc"
                 else from_runs(runs, "precision", "precision"))
    parts = ["device: " + doc.device_text(runs),
             "threads: " + from_runs(runs, "threads", "threads") + peer_threads(runs),
             precision,
             "commit " + from_runs(runs, "commit", "commit"),
             from_runs(runs, "date", "date")]
    if len(runs) > 1:
        parts.append("%d runs: medians, bars their range" % len(runs))
    else:
        parts.append("one run: error bars the timed runs' range")
    return "; ".join(parts)


# ---- drawing -------------------------------------------------------------------------------

def draw_bars(ax, groups, series):
    """Grouped bars of SERIES over GROUPS on AX, with error bars where ranges are known."""
    width = 0.8 / max(1, len(series))
    for s, (label, figures) in enumerate(series):
        xs, heights, below, above = [], [], [], []
        for g, fig in enumerate(figures):
            if fig is None or fig[0] <= 0:
                continue
            xs.append(g - 0.4 + width * (s + 0.5))
            heights.append(fig[0])
            low = fig[1] if fig[1] is not None else fig[0]
            high = fig[2] if fig[2] is not None else fig[0]
            below.append(max(0.0, fig[0] - low))
            above.append(max(0.0, high - fig[0]))
        ax.bar(xs, heights, width, yerr=[below, above], capsize=2, label=label,
               error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 4 else 0, ha="right"
                       if len(groups) > 4 else "center", fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)


def lead(v):
    """The leading digit of the positive number V."""
    return int(round(v / 10 ** math.floor(math.log10(v)))) if v > 0 else 0


def log_axis(ax, fmt):
    """Make AX's y axis logarithmic, its ticks labelled by FMT as plain numbers."""
    from matplotlib.ticker import FuncFormatter
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, pos: fmt % v))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, pos: fmt % v if lead(v) in (2, 3, 5)
                                               else ""))
    ax.tick_params(axis="y", which="minor", labelsize=7)


def paper_lines(ax):
    """The paper's realloc-over-copy figures as horizontal lines on AX."""
    where = "paper, %s" % doc.PAPER_DEVICE
    ax.axhline(doc.PAPER_MEAN, color="0.3", linestyle="--", linewidth=1,
               label="%s: %.1fx on average" % (where, doc.PAPER_MEAN))
    styles = {"float": "C0", "double": "C1"}
    for precision, best in doc.PAPER_MAX.items():
        ax.axhline(best, color=styles[precision], linestyle=":", linewidth=1.2,
                   label="%s: up to %.1fx in %s" % (where, best, precision))


def draw(runs, title, out):
    """Draw RUNS (of one kind) with TITLE into the SVG file OUT."""
    kind = runs[0]["kind"]
    if kind not in SERIES:
        raise doc.BenchError("no plot for %s runs" % kind)
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "hspgemm-bench"
    import matplotlib.pyplot as plt

    groups, series = SERIES[kind](runs)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.1 * len(groups) + 4.0), 4.8))
    draw_bars(ax, groups, series)
    if kind == "products":
        log_axis(ax, "%gx")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("speedup (x, >1: hspgemm faster)")
    elif kind == "realloc":
        ax.axhline(1.0, color="black", linewidth=0.8)
        paper_lines(ax)
        ax.set_ylabel("speedup of realloc over copy (x)")
    else:
        log_axis(ax, "%g")
        ax.set_ylabel("ms (log scale)")
    subtitle = caption(runs)
    if kind == "realloc":
        subtitle = "this run: %s; the dotted and dashed lines: the paper's, on an %s\n%s" % (
            doc.device_text(runs), doc.PAPER_DEVICE, subtitle)
    fig.suptitle(title or TITLES[kind], fontsize=11)
    ax.set_title(subtitle, fontsize=7, wrap=True)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", linewidth=0.3, alpha=0.6)
    fig.tight_layout()
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)


def main(argv):
    """Plot the runs named in ARGV; the exit status."""
    try:
        out, title, files = parse_args(argv)
    except UsageError as e:
        print("plot.py: %s\n%s" % (e, USAGE), file=sys.stderr)
        return 2
    try:
        runs = doc.read_runs(files)
    except doc.BenchError as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot.py: matplotlib is not installed (Debian: apt-get install "
              "python3-matplotlib; run under /usr/bin/python3)", file=sys.stderr)
        return 2
    try:
        draw(runs, title, out)
    except doc.BenchError as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("plot.py: %s: %s" % (out, e.strerror or e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
