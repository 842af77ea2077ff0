# SPDX-License-Identifier: Apache-2.0
"""Plots a bench/python_bench.py JSON: host time a call against torch (and CuPy) by size, and
preduce's advantage (framework time / preduce time) at 2^28 and over heavy-tailed segments.

    python3 bench/plot_python.py results/h200-cuda-python-<rev>.json --out python.png
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("json")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    run = json.load(open(args.json))
    cases = run["cases"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))

    for case, style in (("sync sum", "o-"), ("sync sum (CuPy array)", "s--"), ("5000 calls, out=", "^-")):
        rows = [c for c in cases if c["case"] == case]
        if not rows:
            continue
        sizes = [int(c["size"].split("^")[1]) for c in rows]
        left.plot(sizes, [c["baseline_value"] for c in rows], style, color="tab:gray", label=f"{rows[0]['baseline']}")
        left.plot(sizes, [c["preduce_value"] for c in rows], style, color="tab:blue", label=f"preduce ({case})")
    left.set_xlabel("log2(elements), f32")
    left.set_ylabel("host time a call (us)")
    left.set_ylim(bottom=0)
    left.legend(fontsize=7)
    left.set_title("calls from Python")

    rows = [c for c in cases if c["unit"] == "GB/s"]
    labels = [f"{c['case'].replace(', GB/s', '')}\n{c['size']}" for c in rows]
    bars = right.bar(range(len(rows)), [c["preduce_advantage"] for c in rows], color="tab:blue")
    right.axhline(1.0, color="black", linewidth=0.8)
    right.set_yscale("log")
    right.set_xticks(range(len(rows)))
    right.set_xticklabels(labels, fontsize=6, rotation=30, ha="right")
    right.set_ylabel("framework time / preduce time")
    right.bar_label(bars, fmt="%.2fx", fontsize=7)
    right.set_title("bandwidth against torch")
    fig.suptitle(f"preduce from Python, {run['device']}, torch {run['torch']}, git {run['git']}")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)


if __name__ == "__main__":
    main()
