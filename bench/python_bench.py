# SPDX-License-Identifier: Apache-2.0
"""preduce from Python against torch (and CuPy where installed), timed in the same run on one GPU.

    python3 bench/python_bench.py [--json FILE] [--quick]

Cases (f32 unless named):
  sync:       host time of a call that returns the number (preduce.reduce(x) against
              torch.sum(x).item() and cupy.sum(x).item()), sizes 1 .. 2^20, median of batches;
  out:        5000 back-to-back calls into out= (preduce.reduce(x, out=o) against
              torch.sum(x, out=o)), then one wait, host time a call;
  bandwidth:  2^28 elements: sum, argmax and bf16 sum, CUDA events around 10 calls, GB/s read;
  segments:   heavy-tailed (Pareto) segment lengths, 2^24 and 2^28 elements, sums and maxima
              against torch.segment_reduce, GB/s read.
Every preduce result is checked against torch's before it is timed.
"""
import argparse
import datetime
import json
import os
import statistics
import time

import numpy as np
import torch

import preduce

try:
    import cupy
except ImportError:  # CuPy is optional
    cupy = None


def host_time(fn, calls, batches=7):
    """Median over batches of the host time a call, in microseconds."""
    fn()
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def back_to_back(fn, calls=5000, repeats=5):
    """Median over repeats of (calls back to back, then one wait) / calls, in microseconds."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def device_time(fn, calls=10, repeats=5):
    """Median over repeats of the CUDA-event time of `calls` calls back to back, a call, in
    microseconds (back to back, so the host's share of a call hides behind the device's)."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(calls):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3 / calls)
    return statistics.median(times)


def pareto_offsets(n, seed=0):
    """Offsets of heavy-tailed segments (Pareto, shape 1.2, at least 1 element, mean about 64)
    covering n elements."""
    rng = np.random.default_rng(seed)
    lengths = []
    total = 0
    while total < n:
        chunk = (rng.pareto(1.2, 1 << 16) * 13).astype(np.int64) + 1
        lengths.append(chunk)
        total += int(chunk.sum())
    lengths = np.concatenate(lengths)
    ends = np.cumsum(lengths)
    k = int(np.searchsorted(ends, n))
    offsets = np.concatenate([[0], ends[:k], [n]]) if ends[k] != n else np.concatenate([[0], ends[: k + 1]])
    return torch.from_numpy(np.minimum(offsets, n)).cuda()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rows = []

    def report(case, size, framework, theirs, ours, unit):
        better = theirs / ours if unit == "us" else ours / theirs
        rows.append(dict(case=case, size=size, baseline=framework, baseline_value=theirs, preduce_value=ours, unit=unit, preduce_advantage=better))
        print(f"{case:<34} {size:>12}  {framework:<22} {theirs:10.2f} {unit}  preduce {ours:10.2f} {unit}  advantage {better:5.2f}x", flush=True)

    # 1. Synchronous calls: the number back on the host.
    for log2 in (0, 4, 8, 12, 16, 20):
        n = 1 << log2
        x = torch.randn(n, device="cuda")
        assert abs(preduce.reduce(x) - torch.sum(x).item()) <= 1e-3 * max(1.0, abs(torch.sum(x).item()))
        calls = 500 if not args.quick else 100
        ours = host_time(lambda: preduce.reduce(x), calls)
        report("sync sum", f"2^{log2}", "torch.sum(x).item()", host_time(lambda: torch.sum(x).item(), calls), ours, "us")
        if cupy is not None:
            c = cupy.asarray(x)
            report("sync sum (CuPy array)", f"2^{log2}", "cupy.sum(x).item()", host_time(lambda: cupy.sum(c).item(), calls),
                   host_time(lambda: preduce.reduce(c), calls), "us")

    # 2. Back-to-back calls into out=.
    for log2 in (0, 10, 16, 20):
        n = 1 << log2
        x = torch.randn(n, device="cuda")
        o = torch.empty((), device="cuda")
        mine = torch.empty(1, device="cuda")
        preduce.reduce(x, out=mine)
        torch.testing.assert_close(mine[0], torch.sum(x), rtol=1e-5, atol=1e-4)
        calls = 5000 if not args.quick else 500
        report("5000 calls, out=", f"2^{log2}", "torch.sum(x, 0, out=o)", back_to_back(lambda: torch.sum(x, 0, out=o), calls),
               back_to_back(lambda: preduce.reduce(x, out=mine), calls), "us")

    # 3. Bandwidth at 2^28.
    n = 1 << (28 if not args.quick else 24)
    size = f"2^{n.bit_length() - 1}"
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(n, device="cuda").to(dtype)
        gb = n * x.element_size() / 1e9
        out = torch.empty(1, device="cuda", dtype=torch.float32)
        preduce.reduce(x, out=out)
        torch.testing.assert_close(out[0].double(), x.double().sum(), rtol=1e-3, atol=1.0)
        name = "f32" if dtype == torch.float32 else "bf16"
        report(f"{name} sum, GB/s", size, "torch.sum", gb / (device_time(lambda: torch.sum(x)) * 1e-6),
               gb / (device_time(lambda: preduce.reduce(x, out=out)) * 1e-6), "GB/s")
        if dtype == torch.float32:
            pair = torch.empty((1, 16), device="cuda", dtype=torch.uint8)
            preduce.reduce(x, "argmax", out=pair)
            assert int(pair.view(torch.int64)[0, 1]) == int(torch.argmax(x))
            report("f32 argmax, GB/s", size, "torch.argmax", gb / (device_time(lambda: torch.argmax(x)) * 1e-6),
                   gb / (device_time(lambda: preduce.reduce(x, "argmax", out=pair)) * 1e-6), "GB/s")
        del x

    # 4. Heavy-tailed segments.
    for log2 in ((24, 28) if not args.quick else (20,)):
        n = 1 << log2
        x = torch.randn(n, device="cuda")
        offsets = pareto_offsets(n)
        segments = offsets.numel() - 1
        gb = n * 4 / 1e9
        for op, torch_op in (("sum", "sum"), ("max", "max")):
            out = torch.empty(segments, device="cuda")
            preduce.segment_reduce(x, offsets, op, out=out)
            nonempty = offsets[1:] > offsets[:-1]
            if op == "max":
                assert torch.equal(out[nonempty], torch.segment_reduce(x, torch_op, offsets=offsets)[nonempty])
            else:  # against float64 sums, within a bound that grows with each segment's magnitude
                exact = torch.segment_reduce(x.double(), "sum", offsets=offsets)
                scale = torch.segment_reduce(x.double().abs(), "sum", offsets=offsets)
                assert bool(((out.double() - exact).abs() <= 1e-5 * scale + 1e-6).all())
            report(f"segments {op} ({segments} Pareto), GB/s", f"2^{log2}", "torch.segment_reduce",
                   gb / (device_time(lambda: torch.segment_reduce(x, torch_op, offsets=offsets), calls=30) * 1e-6),
                   gb / (device_time(lambda: preduce.segment_reduce(x, offsets, op, out=out), calls=30) * 1e-6), "GB/s")
        del x

    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), date=datetime.date.today().isoformat(), git=os.environ.get("GIT_REVISION", ""),
                           torch=torch.__version__, cupy=getattr(cupy, "__version__", None), backend=preduce.backend, cases=rows), f, indent=1)


if __name__ == "__main__":
    main()
