#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plots preduce-bench JSON reports: GB/s against n, one subplot per (op, type, shape) group.

Each input file adds two lines per group, "preduce <backend>" and its vendor ("CUB",
"Kokkos parallel_reduce", ...), and its measured read ceiling as a dashed line, so backends,
devices and vendors can be compared at a glance. Points whose check failed are drawn as red x.

    plot.py results/cuda-h200.json results/kokkos-h200.json --out compare.png
    plot.py quick.json --op plus,dot --type f32 --shape whole --out plus.png
    plot.py cuda.json kokkos-cpu.json --log-y --out gpu-vs-cpu.png

Needs matplotlib only (Debian: apt-get install python3-matplotlib, then run it with
/usr/bin/python3 if another python3 comes first on PATH).
"""

import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)
from matplotlib.ticker import FixedLocator  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", help="preduce-bench --json files")
    p.add_argument("--out", default="preduce-bench.png", help="PNG to write (default: preduce-bench.png)")
    p.add_argument("--op", help="comma-separated operators to keep (e.g. plus,argmax)")
    p.add_argument("--type", help="comma-separated element types to keep (e.g. f32,bf16)")
    p.add_argument("--shape", help="comma-separated shapes to keep (whole, rows, columns, segments)")
    p.add_argument("--columns", type=int, default=3, help="subplots per figure row (default 3)")
    p.add_argument("--log-y", action="store_true", help="logarithmic GB/s axis (devices of very different speeds)")
    return p.parse_args(argv)


def keep(value, wanted):
    return wanted is None or value in wanted.split(",")


def group_key(row):
    return (row["op"], row["type"], row["shape"], row["len"] or 0)


def group_title(key):
    op, type_, shape, length = key
    return f"{op} {type_} {shape}" + (f" (length {length})" if length else "")


def short_device(report):
    """The device's name up to the first comma: "NVIDIA H200", "Kokkos 3.4.1 Serial"."""
    return report["device"].split(",")[0]


def revision(report):
    """The git revision a report was measured at, "-dirty" when the tree had changes."""
    return str(report.get("git_revision", "?")) + ("-dirty" if report.get("git_dirty") else "")


def main(argv):
    args = parse_args(argv)
    reports = []
    for path in args.reports:
        with open(path) as f:
            reports.append(json.load(f))
    several_devices = len({r["device"] for r in reports}) > 1
    # Reports of one device run with different options (e.g. --det reproducible and run_to_run)
    # are told apart by the options that differ.
    chosen = [{k: v for k, v in r.get("options", {}).items() if k in ("algo", "warp", "det")} for r in reports]
    differing = sorted({k for c in chosen for k in c if len({str(o.get(k)) for o in chosen}) > 1})
    # Reports of different revisions (a change measured before and after) carry their revision.
    several_revisions = len({revision(r) for r in reports}) > 1

    groups = {}
    for r in reports:
        for row in r["rows"]:
            if keep(row["op"], args.op) and keep(row["type"], args.type) and keep(row["shape"], args.shape):
                groups.setdefault(group_key(row), None)
    if not groups:
        sys.exit("plot.py: no rows match the filters")
    keys = sorted(groups)

    columns = max(1, min(args.columns, len(keys)))
    rows = math.ceil(len(keys) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.8 * rows), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    for ax, key in zip(axes.flat, keys):
        top = 0.0
        for i, r in enumerate(reports):
            suffix = f" ({short_device(r)})" if several_devices else ""
            if differing:
                suffix += " [" + ", ".join(f"{k}={chosen[i].get(k)}" for k in differing) + "]"
            if several_revisions:
                suffix += f" @ {revision(r)}"
            series = [
                ("preduce", f"preduce {r['backend']}{suffix}", colors[(2 * i) % len(colors)]),
                ("vendor", f"{r['vendor']}{suffix}", colors[(2 * i + 1) % len(colors)]),
            ]
            rows_here = sorted((row for row in r["rows"] if group_key(row) == key), key=lambda row: row["log2_n"])
            for field, label, color in series:
                ran = [row for row in rows_here if "gb_per_s" in row[field]]
                if not ran:
                    continue
                speeds = [row[field]["gb_per_s"] for row in ran]
                ax.plot([row["log2_n"] for row in ran], speeds, marker="o", markersize=3, color=color, label=label)
                top = max(top, *speeds)
                failed = [row for row in ran if row[field]["status"] == "FAIL"]
                if failed:
                    ax.plot([row["log2_n"] for row in failed], [row[field]["gb_per_s"] for row in failed],
                            linestyle="none", marker="x", markersize=9, color="red", label="check failed")
            ceiling = r["ceiling"]["gb_per_s"]
            ax.axhline(ceiling, linestyle="--", linewidth=1, color=colors[(2 * i) % len(colors)],
                       label=f"measured read ceiling, {r['backend']}{suffix}")
            top = max(top, ceiling)
        ax.set_title(group_title(key), fontsize=10)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (minimum traffic)")
        if args.log_y:
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, 1.1 * top)
        ticks = sorted({row["log2_n"] for r in reports for row in r["rows"] if group_key(row) == key})
        step = max(1, math.ceil(len(ticks) / 8))
        ax.xaxis.set_major_locator(FixedLocator(ticks[::step]))
        ax.set_xticklabels([f"$2^{{{k}}}$" for k in ticks[::step]])
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)

    # One legend for the figure, each label once.
    handles, labels = {}, []
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    fig.legend([handles[label] for label in labels], labels, loc="lower center", ncol=min(4, len(labels)), fontsize=9,
               bbox_to_anchor=(0.5, 0.0))
    devices = "; ".join(sorted({f"{r['backend']}: {r['device']}" for r in reports}))
    fig.suptitle(f"preduce-bench: {devices}", fontsize=11)
    legend_rows = math.ceil(len(labels) / min(4, len(labels)))
    fig.tight_layout(rect=(0, 0.035 * legend_rows + 0.02 / rows, 1, 0.97))
    fig.savefig(args.out, dpi=120)
    print(f"plot.py: wrote {args.out} ({len(keys)} groups from {len(reports)} report(s))")


if __name__ == "__main__":
    main(sys.argv[1:])
