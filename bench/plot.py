#!/usr/bin/env python3
"""bench/plot.py -- PNGs from the bench tables: `make plots` (or: python3 bench/plot.py DIR).

For every <gpu>.<bench>.csv in DIR (default bench/results) that holds a table it knows,
writes DIR/<gpu>.<bench>.png:
  reduce     GB/s against n (f32, i32): gp_reduce, CUB, the device-to-device copy rate
  scan       GB/s against n (f32, i32): gp_exclusive_scan, CUB, the copy of the same n,
             and the classic block-scan ladder
  transpose  % of the copy rate by shape: gp_transpose per element size, cuBLAS geam
  matmul     the ladder at 4096^3 (TFLOP/s per step, cuBLAS as a line), and gp against
             cuBLAS by shape (f32)
  select, segmented, histogram, sort
             % of the ceiling (copy, read, or the sort's bound) of gp and CUB, at 2^27-2^28
Each figure is titled with the GPU, date and commit read from the <gpu>.<bench>.md beside
the CSV. Needs matplotlib (bench/requirements.txt; `make plots` installs it if missing).

The CSVs hold several tables, each a "# title" line, a header row (sometimes itself
starting with "# "), then rows. Labels may contain unquoted commas followed by a space
("1. naive, one thread per element"); numbers never start with a space, so a field that
does is joined back to the one before it.
"""
import csv
import glob
import math
import os
import re
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GP, CUB, COPY, OTHER = "#1f6fb4", "#d95f02", "#444444", "#9a9a9a"
LADDER_STYLES = ["-", "--", "-.", ":"]


def split_row(line):
    fields = next(csv.reader([line]))
    out = []
    for f in fields:
        if out and f.startswith(" "):
            out[-1] += "," + f
        else:
            out.append(f)
    return out


def read_tables(path):
    """{title: (header, rows)} in file order."""
    tables, title, header, rows = {}, None, None, None
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("# ") and header is not None or title is None:
                title, header, rows = line[2:].strip(), None, []
                tables[title] = (None, rows)
            elif header is None:
                header = split_row(line[2:] if line.startswith("# ") else line)
                # a name used twice (rows' and columns' "% of read") keeps both: the second as "<name> 2"
                header = [h if h not in header[:i] else h + " 2" for i, h in enumerate(header)]
                tables[title] = (header, rows)
            else:
                rows.append(dict(zip(header, split_row(line))))
    return tables


def find(tables, *words):
    """The first table whose title contains every word (case-insensitive), or None."""
    for title, (header, rows) in tables.items():
        if all(w.lower() in title.lower() for w in words):
            return rows
    return None


def num(s):
    """'12.5' '90.6%' '1.46x' -> float; '2^20' -> 2**20; '-' or '' -> None."""
    s = (s or "").strip()
    m = re.fullmatch(r"2\^(\d+)", s)
    if m:
        return float(2 ** int(m.group(1)))
    s = s.rstrip("%x")
    try:
        return float(s)
    except ValueError:
        return None


def provenance(csv_path):
    """'GPU ..., date ..., commit ...' from the first such line of the .md beside the CSV."""
    md = csv_path[:-4] + ".md"
    if os.path.exists(md):
        with open(md) as fh:
            for line in fh:
                m = re.search(r"GPU: ([^(,]+).*?date (\S+), commit ([^,. ]+)", line)
                if m:
                    return "%s, %s, commit %s" % (m.group(1).strip(), m.group(2), m.group(3))
    return os.path.basename(csv_path)


def log2_axis(ax, ns):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(ns))
    ax.set_xticks(ticks)
    ax.set_xticklabels(["$2^{%d}$" % round(math.log2(n)) for n in ticks])
    ax.set_xlabel("n (elements)")


def plot_reduce(tables, title):
    rows = find(tables, "gp_reduce vs CUB")
    if not rows:
        return None
    types = [t for t in ("f32", "i32") if any(r.get("type") == t for r in rows)]
    fig, axes = plt.subplots(1, len(types), figsize=(6 * len(types), 4.2), squeeze=False)
    for ax, t in zip(axes[0], types):
        rs = [r for r in rows if r.get("type") == t]
        n = [num(r["n"]) for r in rs]
        ax.plot(n, [num(r["gp GB/s"]) for r in rs], "o-", color=GP, label="gp_reduce_sum_%s" % t)
        ax.plot(n, [num(r["CUB GB/s"]) for r in rs], "s--", color=CUB, label="CUB DeviceReduce::Sum")
        # the copy rate of the same run: gp GB/s / (% of copy)
        copy = [num(r["gp GB/s"]) / (num(r["% of copy"]) / 100) for r in rs if num(r["% of copy"])]
        if copy:
            c = copy[-1]
            ax.axhline(c, color=COPY, ls=":", label="device-to-device copy, read + write (%.0f GB/s)" % c)
        log2_axis(ax, n)
        ax.set_yscale("log")
        ax.set_ylabel("GB/s (bytes read / time)")
        ax.set_title("reduce, %s" % t)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(title, fontsize=9)
    return fig


def plot_scan(tables, title):
    rows = find(tables, "scan ladder")
    if not rows:
        return None
    types = [t for t in ("f32", "i32") if any(r.get("type") == t for r in rows)]
    fig, axes = plt.subplots(1, len(types), figsize=(6 * len(types), 4.2), squeeze=False)
    for ax, t in zip(axes[0], types):
        rs = [r for r in rows if r.get("type") == t]
        variants = []
        for r in rs:
            if r["variant"] not in variants:
                variants.append(r["variant"])
        for v in variants:
            pts = [(num(r["n"]), num(r["GB/s"])) for r in rs if r["variant"] == v]
            x, y = zip(*pts)
            if v.startswith("gp") and "= gp_" in v:  # the library's default: bold
                ax.plot(x, y, "o-", color=GP, lw=2.5, label=v, zorder=4)
            elif v.startswith("gp"):  # earlier steps of the redesign: lighter
                ax.plot(x, y, ".-", color=GP, lw=1, alpha=0.45, label=v, zorder=3)
            elif v.startswith("CUB"):
                ax.plot(x, y, "s--", color=CUB, lw=2, label="CUB " + v[4:], zorder=3)
            elif v.startswith("copy"):
                ax.plot(x, y, ":", color=COPY, lw=2, label="device-to-device copy of n (read + write)")
            else:
                style = LADDER_STYLES[len([l for l in ax.get_lines() if l.get_color() == OTHER]) % 4]
                ax.plot(x, y, style, color=OTHER, lw=1, ms=3, label=v)
        log2_axis(ax, [num(r["n"]) for r in rs])
        ax.set_yscale("log")
        ax.set_ylabel("GB/s (bytes read + written / time)")
        ax.set_title("exclusive scan, %s (grey: the block-scan ladder)" % t)
        ax.grid(alpha=0.3, which="both")
    # one legend under both panels: inside either it would hide the curves it names
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(title, fontsize=9)
    return fig


def plot_transpose(tables, title):
    rows = find(tables, "gp_transpose vs")
    if not rows:
        return None
    shapes = []
    for r in rows:
        if r["rows x cols"] not in shapes:
            shapes.append(r["rows x cols"])
    series = []  # (label, color, {shape: % of copy})
    colors = {"f32": "#1f6fb4", "f64": "#2ca02c", "u8": "#9467bd", "v16": "#8c564b", "u16": "#17becf"}
    types = []
    for r in rows:
        if r["type"] not in types:
            types.append(r["type"])
    for t in types:
        rs = {r["rows x cols"]: r for r in rows if r["type"] == t}
        series.append(("gp_transpose_%s" % t, colors.get(t, GP), None,
                       {s: num(r["gp % of copy"]) for s, r in rs.items()}))
        geam = {s: num(r.get("geam % of copy")) for s, r in rs.items()}
        if any(v is not None for v in geam.values()):
            series.append(("cuBLAS geam %s" % t, colors.get(t, GP), "//", geam))
    fig, ax = plt.subplots(figsize=(12, 4.5))
    width = 0.8 / len(series)
    for i, (label, color, hatch, vals) in enumerate(series):
        xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(shapes))]
        ys = [vals.get(s) or 0 for s in shapes]
        ax.bar(xs, ys, width, label=label, color="white" if hatch else color, edgecolor=color, hatch=hatch)
    ax.axhline(100, color=COPY, ls=":", label="device-to-device copy of the same bytes")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes)
    ax.set_xlabel("shape (rows x cols)")
    ax.set_ylabel("% of the copy rate")
    ax.set_title("transpose by shape and element size")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def plot_matmul(tables, title):
    ladder = find(tables, "matmul ladder")
    shapes = find(tables, "gp_matmul_f32 vs")
    if not ladder:
        return None
    panels = 2 if shapes else 1
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, 5), squeeze=False,
                             gridspec_kw={"width_ratios": [1.4, 1][:panels]})
    ax = axes[0][0]
    steps = [r for r in ladder if not r["Kernel"].lower().startswith("cublas")]
    cublas = [r for r in ladder if r["Kernel"].lower().startswith("cublas")]
    tf = [num(r["TFLOP/s"]) for r in steps]
    ys = range(len(steps))[::-1]
    ax.barh(list(ys), tf, color=[GP if r["Kernel"].startswith("gp_") else "#8fb8de" for r in steps])
    ax.set_yticks(list(ys))
    ax.set_yticklabels([textwrap.fill(r["Kernel"], 36) for r in steps], fontsize=7)
    for y, v in zip(ys, tf):
        ax.text(v, y, " %.1f" % v, va="center", fontsize=7)
    if cublas:
        c = num(cublas[0]["TFLOP/s"])
        ax.axvline(c, color=CUB, ls="--", label="%s: %.1f" % (cublas[0]["Kernel"], c))
        ax.legend(fontsize=8, loc="upper right")
    ax.set_xlabel("TFLOP/s")
    ax.set_title("matmul ladder (%s)" % next(t for t in tables if "ladder" in t.lower()).split("(")[-1].rstrip(")"))
    ax.grid(axis="x", alpha=0.3)
    if shapes:
        ax = axes[0][1]
        names = [r["m x n x k"].replace(" x ", "x") for r in shapes]
        xs = range(len(shapes))
        w = 0.38
        ax.bar([x - w / 2 for x in xs], [num(r["gp TFLOP/s"]) for r in shapes], w, color=GP, label="gp_matmul_f32")
        ax.bar([x + w / 2 for x in xs], [num(r["cuBLAS TFLOP/s"]) for r in shapes], w, color=CUB,
               label="cublasSgemm")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(names, rotation=20, fontsize=7)
        ax.set_ylabel("TFLOP/s")
        ax.set_title("f32 by shape (m x n x k)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def bars(title, groups, ceiling, extra=None):
    """One panel per (panel title, [(label, gp %, NVIDIA %)][, NVIDIA's name, CUB if not given]):
    horizontal bars, % of ceiling. extra: a function that draws one more panel, below, on the
    axes it is given."""
    groups = [(g[0], g[1], g[2] if len(g) > 2 else "CUB") for g in groups if g[1]]
    if not groups:
        return None
    height = sum(len(rs) for _, rs, _ in groups) * 0.42 + 1.4 * len(groups) + (4.2 if extra else 0)
    ratios = [len(rs) + 1 for _, rs, _ in groups] + ([9] if extra else [])
    fig, axes = plt.subplots(len(ratios), 1, figsize=(9, height), squeeze=False, gridspec_kw={"height_ratios": ratios})
    if extra:
        extra(axes[-1, 0])
    for ax, (panel, rs, nvidia) in zip(axes[:, 0], groups):
        y = list(range(len(rs)))[::-1]
        ax.barh([v + 0.2 for v in y], [r[1] for r in rs], 0.4, color=GP, label="gpuprims")
        ax.barh([v - 0.2 for v in y], [r[2] or 0 for r in rs], 0.4, color=CUB, label=nvidia)
        for v, r in zip(y, rs):
            ax.text(r[1] + 1, v + 0.2, "%.0f%%" % r[1], va="center", fontsize=7)
            if r[2]:
                ax.text(r[2] + 1, v - 0.2, "%.0f%%" % r[2], va="center", fontsize=7)
        ax.set_yticks(y)
        ax.set_yticklabels([r[0] for r in rs], fontsize=8)
        # past 100% (low-entropy sorts move fewer bytes than the bound counts): room for the labels
        ax.set_xlim(0, max([110] + [r[1] * 1.12 for r in rs] + [(r[2] or 0) * 1.12 for r in rs]))
        ax.axvline(100, color=COPY, ls=":")
        ax.set_xlabel("%% of %s (this run)" % ceiling, fontsize=8)
        ax.set_title(panel, fontsize=9)
        ax.grid(alpha=0.3, axis="x")
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(title, fontsize=9)
    return fig


def pct_rows(rows, label, gp_pct, nvidia=None, keep=lambda r: True):
    """(label, gp %, NVIDIA %) per row; NVIDIA's % from its column, or from gp % / (gp / NVIDIA speed)."""
    out = []
    for r in rows or []:
        g = num(r.get(gp_pct))
        if g is None or not keep(r):
            continue
        c = None
        if nvidia and nvidia[0] == "pct":
            c = num(r.get(nvidia[1]))
        elif nvidia and num(r.get(nvidia[1])):
            c = g / num(r.get(nvidia[1]))
        out.append((label(r), g, c))
    return out


def big(r, key="n"):
    return (num(r.get(key)) or 0) >= 2 ** 27


def plot_select(tables, title):
    rows = (find(tables, "Select by flags") or []) + (find(tables, "Partition") or []) + \
           (find(tables, "Unique and run-length") or [])
    rs = pct_rows(rows, lambda r: r["call"], "% of copy (small: x floor)", ("speed", "vs CUB"), big)
    return bars(title, [("compaction, 2^27-2^28 elements (bytes each call must move)", rs)], "copy")


def plot_segmented(tables, title):
    seg = pct_rows(find(tables, "Segmented reduce"), lambda r: "segmented reduce, " + r["segments"], "% of read",
                   ("speed", "gp / CUB"), lambda r: r["values"] == "2^28")
    rbk = pct_rows(find(tables, "Reduce-by-key"), lambda r: "reduce-by-key, runs of " + r["runs of"], "% of copy",
                   ("speed", "gp / CUB"), lambda r: r["n"] == "2^28")
    rc = find(tables, "Reduce along rows and columns")
    rows = pct_rows(rc, lambda r: "rows, " + r["shape"], "% of read", ("speed", "gp / cuBLAS"))
    cols = pct_rows(rc, lambda r: "columns, " + r["shape"], "% of read 2", ("speed", "gp / cuBLAS 2"))
    return bars(title, [("segmented reduce f32, 2^28 values (% of the read rate)", seg),
                        ("reduce-by-key i32/f32, 2^28 (% of the copy rate)", rbk),
                        ("reduce along rows and columns, f32 (% of the read rate)", rows + cols, "cuBLAS gemv")],
                "the ceiling")


def plot_histogram(tables, title):
    rs = pct_rows(find(tables, "gp_histogram against"), lambda r: r["row"], "% of read", ("pct", "CUB % of read"),
                  lambda r: r["n"] in ("2^27", "2^28") and not r["row"].startswith("PyTorch"))  # reference rows
    sweep = find(tables, "against the bin count")

    def rate_against_bins(ax):
        bins = [num(r["bins"]) for r in sweep]
        ax.plot(bins, [num(r["% of read"]) for r in sweep], "o-", color=GP, label="gp_histogram_even_f32")
        cub = [(b, num(r["CUB % of read"])) for b, r in zip(bins, sweep) if num(r.get("CUB % of read"))]
        if cub:
            ax.plot([c[0] for c in cub], [c[1] for c in cub], "s--", color=CUB, label="CUB HistogramEven")
        ax.axhline(100, color=COPY, ls=":")
        log2_axis(ax, bins)
        ax.set_xlabel("bins", fontsize=8)
        ax.set_ylim(0, 110)
        ax.set_ylabel("% of read (this run)", fontsize=8)
        ax.set_title("f32 in [0, 1), 2^28 values: rate against the bin count", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")

    return bars(title, [("histograms of 2^27-2^28 values (input bytes)", rs)], "read",
                rate_against_bins if sweep else None)


def plot_sort(tables, title):
    rs = pct_rows(find(tables, "Against CUB"), lambda r: r["job"], "% of bound", ("speed", "vs CUB"),
                  lambda r: r["n"] == "2^28")
    return bars(title, [("radix sort, 2^28 (bound: the bytes an 8-bit LSD sort moves, at the copy rate)", rs)],
                "bound")


PLOTS = {"reduce": plot_reduce, "scan": plot_scan, "transpose": plot_transpose, "matmul": plot_matmul,
         "select": plot_select, "segmented": plot_segmented, "histogram": plot_histogram, "sort": plot_sort}


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    made = 0
    for path in sorted(glob.glob(os.path.join(folder, "*.*.csv"))):
        gpu, bench = os.path.basename(path)[:-4].split(".", 1)
        plot = PLOTS.get(bench)
        if plot is None:
            continue
        fig = plot(read_tables(path), "gpuprims %s bench: %s" % (bench, provenance(path)))
        if fig is None:
            print("%s: no table to plot" % path)
            continue
        if not fig.get_tight_layout():
            fig.tight_layout()
        out = path[:-4] + ".png"
        fig.savefig(out, dpi=110, bbox_inches="tight")
        plt.close(fig)
        print("wrote %s" % out)
        made += 1
    if not made:
        sys.exit("plot.py: no <gpu>.<bench>.csv with a known table under %s" % folder)


if __name__ == "__main__":
    main()
