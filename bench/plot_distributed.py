#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plots preduce-dist-bench JSON reports: each case's time over the hand-written baseline's.

One bar per case and report (the number of ranks in the legend); a line at 1.0 (the baseline)
and the issue's targets (1.05 for whole arrays, 1.15 for allreduce_columns under run_to_run).
Strong-scaling reports (--total runs) go to a second panel: speedup against the 1-rank report.

    plot_distributed.py results/h100x4-cuda-dist-*.json --scaling results/h100x4-cuda-scaling-*.json --out dist.png

Needs matplotlib only.
"""

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reports", nargs="+", help="preduce-dist-bench --json files (one run each)")
    p.add_argument("--scaling", nargs="*", default=[], help="--total reports of 1, 2, ... ranks")
    p.add_argument("--out", default="preduce-dist-bench.png")
    a = p.parse_args()
    reports = [json.load(open(f)) for f in a.reports]
    cases = []
    for r in reports:
        for row in r["rows"]:
            if row["case"] not in cases:
                cases.append(row["case"])
    panels = 2 if a.scaling else 1
    fig, axes = plt.subplots(1, panels, figsize=(9 + 4 * (panels - 1), 0.35 * len(cases) + 2), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1][:panels]})
    ax = axes[0][0]
    height = 0.8 / len(reports)
    for k, r in enumerate(reports):
        ratio = {row["case"]: row["preduce_us"] / row["baseline_us"] for row in r["rows"]}
        ys = [i + k * height for i, c in enumerate(cases) if c in ratio]
        ax.barh(ys, [ratio[c] for c in cases if c in ratio], height=height, label=f'{r["ranks"]} ranks, git {r["git_revision"]}')
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(cases))])
    ax.set_yticklabels(cases, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    for x, style, what in ((1.0, "-", "baseline"), (1.05, "--", "whole-array target"), (1.15, ":", "columns target")):
        ax.axvline(x, color="black", linestyle=style, linewidth=0.8, label=what)
    ax.set_xlabel("time / hand-written baseline (local call + NCCL collective), log scale")
    ax.set_title(reports[0]["device"], fontsize=8)
    ax.legend(fontsize=7, loc="lower right")
    if a.scaling:
        runs = sorted((json.load(open(f)) for f in a.scaling), key=lambda r: r["ranks"])
        one = runs[0]["rows"][0]["preduce_us"]
        ranks = [r["ranks"] for r in runs]
        sx = axes[0][1]
        sx.plot(ranks, [one / r["rows"][0]["preduce_us"] for r in runs], "o-", label="preduce allreduce")
        sx.plot(ranks, [runs[0]["rows"][0]["baseline_us"] / r["rows"][0]["baseline_us"] for r in runs], "s--", label="by hand")
        sx.plot(ranks, ranks, color="grey", linewidth=0.8, label="ideal")
        sx.set_xlabel("GPUs")
        sx.set_ylabel("speedup over 1 GPU")
        sx.set_title(runs[0]["rows"][0]["case"], fontsize=8)
        sx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
