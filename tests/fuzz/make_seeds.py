#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# preduce fuzzing: writes the seed corpus of preduce-fuzz (tests/fuzz/corpus/), one small binary
# input per file, in the layout fuzz_calls.cpp decodes (its header comment is the reference).
# The seeds reach every function and operator, every element and offset type, out-of-range
# options, the size checks (huge n, rows * cols overflow, wrapping strides), out-of-bounds
# ranges, overlapping outputs, null pointers and bad segment offsets; libFuzzer mutates from there,
# and preduce.<backend>.fuzz_corpus replays them as a regression suite.
#
#   python3 tests/fuzz/make_seeds.py tests/fuzz/corpus     # rewrites every seed-* file there
import os
import struct
import sys

FORMS = ["reduce", "reduce_async", "rows", "columns", "segments"]
TYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "f16", "bf16"]
OPS = ["plus", "multiplies", "sum_of_squares", "moments", "dot", "minimum", "maximum", "minmax", "argmin", "argmax",
       "ni_minimum", "ni_maximum", "ni_minmax", "ni_argmin", "ni_argmax", "logical_and", "logical_or", "bit_and",
       "bit_or", "bit_xor", "partial_plus", "partial_sum_of_squares", "partial_moments", "partial_dot"]
NULLS = ["none", "input", "second", "offsets", "output"]
OFFSETS = ["i32", "i64", "u32", "u64"]
VALUES = {"raw": 0, "small": 1, "special": 2}
OFFSET_MODES = {"valid": 0, "raw": 1, "corrupt": 2}
# Special element values (the byte of each element in the "special" encoding), as special_value()
# in fuzz_calls.cpp numbers them. Floating: 0 +0, 1 -0, 2 1, 3 -1, 4 0.5, 5 3, 6 -2.5, 7 NaN,
# 8 +inf, 9 -inf, 10 largest, 11 -largest, 12 smallest normal, 13 smallest subnormal, 14 1+eps.
NAN, INF, NINF, BIG, NBIG, TINY, SUB = 7, 8, 9, 10, 11, 12, 13
HUGE = [2**64 - 1, 2**64 - 2, 2**63 - 1, 2**63, 2**62, 2**62 + 1, 2**61, 2**32 - 1, 2**32, 2**32 + 1, 2**31, 65536,
        65537, (2**64 - 1) // 3 + 1, 2**60 + 1]


def size_code(v):
    """One size code: values below 2^20 in one to three bytes, the huge table by index, else 8
    raw bytes."""
    if v < 0xC0:
        return bytes([v])
    if v < 0x20 << 8:
        return bytes([0xC0 + (v >> 8), v & 0xFF])
    if v < 0x10 << 16:
        return bytes([0xE0 + (v >> 16)]) + struct.pack("<H", v & 0xFFFF)
    if v in HUGE:
        return bytes([0xF0 + HUGE.index(v)])
    return bytes([0xFF]) + struct.pack("<Q", v)


def option(v):
    """An option byte: the value itself when below 0xF0 would be taken modulo the enum size, so
    in-range values are written as themselves, out-of-range ones as 0xF0 + v (or 0xFF for -1)."""
    if v == -1:
        return 0xFF
    return v if v < 3 else 0xF0 + v


def seed(form, type_, op, sizes, payload=b"", det=0, algo=0, warp=0, strided=False, null="none", offsets="i32",
         values="raw", offsets_mode="valid", x=0, y=0, off=0, out=0):
    """One input: header, placements, size codes, payload."""
    flags = int(strided) | NULLS.index(null) << 1 | OFFSETS.index(offsets) << 4
    head = bytes([FORMS.index(form), TYPES.index(type_), OPS.index(op), option(det), option(algo), option(warp), flags,
                  VALUES[values] | OFFSET_MODES[offsets_mode] << 2])
    head += struct.pack("<4H", x, y, off, out)
    return head + b"".join(size_code(s) for s in sizes) + bytes(payload)


def ramp(count, start=1):
    """count distinct payload bytes (mutations get more to work with than constant bytes)."""
    return bytes((start + 37 * i) & 0xFF for i in range(count))


F32 = lambda *v: struct.pack("<%df" % len(v), *v)
F64 = lambda *v: struct.pack("<%dd" % len(v), *v)

SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8, "f32": 4, "f64": 8, "f16": 2,
         "bf16": 2}


def elements(type_, n, values="raw", start=1):
    """Exactly the payload bytes of n elements (so what follows them is read as the offsets)."""
    return ramp(n * (SIZES[type_] if values == "raw" else 1), start)


SEEDS = {
    # Whole arrays: every operator, synchronous and asynchronous, on float and the other types.
    "reduce-f32-plus-small": seed("reduce", "f32", "plus", [1000], ramp(64), values="small"),
    "reduce-f64-plus-raw": seed("reduce", "f64", "plus", [257], F64(1e300, -1e300, 1.5, 2.0**-1070, 3.25)),
    "reduce-f32-multiplies-special": seed(
        "reduce", "f32", "multiplies", [9], [2, 3, 4, 5, 6, 14, 2, 3, 4], values="special"),
    "reduce_async-f32-sum_of_squares": seed(
        "reduce_async", "f32", "sum_of_squares", [70], ramp(50), out=8192, values="small"),
    "reduce-f32-moments": seed("reduce", "f32", "moments", [300], F32(1.0, -2.0, 1e5, 3.5, 7.0)),
    "reduce_async-f32-dot-reproducible": seed(
        "reduce_async", "f32", "dot", [200], ramp(90), det=2, values="small", y=2048, out=4096),
    "reduce-f32-minimum-nan": seed("reduce", "f32", "minimum", [40], [2, 3, 6, NAN, 5, 4], values="special"),
    "reduce_async-f64-maximum-8000": seed("reduce_async", "f64", "maximum", [8000], ramp(100), out=64512),
    "reduce-bf16-minmax-special": seed("reduce", "bf16", "minmax", [16], range(16), values="special"),
    "reduce-f32-argmin-ties": seed("reduce", "f32", "argmin", [64], [3, 4, 1, 0, 3, 0, 1], values="special"),
    "reduce_async-f32-argmax-nan": seed(
        "reduce_async", "f32", "argmax", [50], [2, INF, INF, NAN, 3, NAN], values="special", out=1000),
    "reduce-f64-nan_ignoring-minimum": seed(
        "reduce", "f64", "ni_minimum", [30], [NAN, 3, NAN, 6, 9], values="special"),
    "reduce-f32-nan_ignoring-maximum": seed(
        "reduce", "f32", "ni_maximum", [31], [NAN, 2, INF, NAN, 0], values="special"),
    "reduce_async-f16-nan_ignoring-minmax": seed(
        "reduce_async", "f16", "ni_minmax", [12], [NAN, BIG, 2, SUB], values="special", out=512),
    "reduce-f32-nan_ignoring-argmin-all-nan": seed("reduce", "f32", "ni_argmin", [20], [NAN], values="special"),
    "reduce-f64-nan_ignoring-argmax": seed("reduce", "f64", "ni_argmax", [45], [NAN, 2, 5, 5, NAN], values="special"),
    "reduce-f32-logical_and": seed("reduce", "f32", "logical_and", [25], [2, NAN, 3, 1, 4], values="special"),
    "reduce_async-f64-logical_or": seed(
        "reduce_async", "f64", "logical_or", [25], [0, 1, 0, 0], values="special", out=4000),
    "reduce-i32-bit_and": seed("reduce", "i32", "bit_and", [100], ramp(120, 0x81)),
    "reduce_async-u64-bit_or": seed("reduce_async", "u64", "bit_or", [66], ramp(90), out=2048),
    "reduce-i16-bit_xor": seed("reduce", "i16", "bit_xor", [1025], ramp(150)),
    "reduce-f32-partial_plus": seed("reduce", "f32", "partial_plus", [333], ramp(64), values="small"),
    "reduce_async-f64-partial_sum_of_squares": seed(
        "reduce_async", "f64", "partial_sum_of_squares", [90], ramp(64), out=20000),
    "reduce-bf16-partial_moments": seed("reduce", "bf16", "partial_moments", [111], ramp(64)),
    "reduce_async-f32-partial_dot": seed(
        "reduce_async", "f32", "partial_dot", [60], ramp(64), values="small", y=800, out=2048),
    "reduce-f32-partial_plus-bad-det": seed("reduce", "f32", "partial_plus", [10], ramp(10), det=7, values="small"),
    # Rows, columns and segments, plain and strided outputs, each offset type, on the other
    # element types; a few with other determinism and kernel options.
    "rows-i8-plus-3x20000": seed("rows", "i8", "plus", [3, 20000], ramp(120), out=62000),
    "rows-u8-minimum-strided": seed(
        "rows", "u8", "minimum", [7, 9, 3], ramp(63), strided=True, algo=2, warp=3, out=512),
    "columns-i16-argmax": seed("columns", "i16", "argmax", [33, 5], ramp(100), algo=1, warp=1, out=2048),
    "columns-u16-plus-strided": seed("columns", "u16", "plus", [4, 20, 2], ramp(80), strided=True, out=4096),
    "rows-i64-argmax-fast-atomic": seed("rows", "i64", "argmax", [5, 17], ramp(90), det=1, algo=3, warp=2, out=4096),
    "rows-f32-dot-strided": seed(
        "rows", "f32", "dot", [3, 10, 2], ramp(60), strided=True, values="small", y=400, out=1024),
    "columns-f32-nan_ignoring-argmin": seed(
        "columns", "f32", "ni_argmin", [5, 4], [NAN, 2, 3, NAN, 9], values="special", out=1024),
    "segments-i32-minimum": seed(
        "segments", "i32", "minimum", [100, 6], elements("i32", 100) + bytes([0, 10, 30, 5, 20, 40, 0, 0]), off=2048,
        out=4096),
    "segments-u32-argmax-strided-u64-offsets": seed(
        "segments", "u32", "argmax", [90, 4, 3], elements("u32", 90) + bytes([0, 20, 0, 50, 19, 0]), strided=True,
        offsets="u64", off=1024, out=8192),
    "segments-f64-moments-reproducible-u32-offsets": seed(
        "segments", "f64", "moments", [80, 4], elements("f64", 80, "small") + bytes([0, 5, 30, 1, 60, 0]), det=2,
        values="small", offsets="u32", off=1024, out=2048),
    "segments-f16-plus-i64-offsets": seed(
        "segments", "f16", "plus", [40, 3], elements("f16", 40) + bytes([0, 0, 13, 27, 0]), offsets="i64", off=1024,
        out=2048),
    # Refusals: options, determinism::reproducible, sizes, ranges, overlaps, nulls, offsets.
    "error-det-out-of-range": seed("reduce", "f32", "plus", [10], ramp(10), det=3),
    "error-algo-warp-out-of-range": seed("reduce_async", "i32", "maximum", [10], ramp(10), algo=4, warp=-1, out=512),
    "error-reproducible-multiplies-float": seed("reduce", "f64", "multiplies", [5], ramp(10), det=2),
    "error-reproducible-moments-int": seed("reduce", "i32", "moments", [5], ramp(10), det=2),
    "error-n-size_max": seed("reduce", "f32", "plus", [2**64 - 1]),
    "error-n-2p61-floats-past-ptrdiff": seed("reduce_async", "f32", "minimum", [2**61], out=512),
    "error-input-past-arena": seed("reduce", "i8", "plus", [65537], ramp(10), x=0),
    "error-rows-times-cols-overflow": seed("rows", "f32", "plus", [2**32, 2**32], out=0),
    "error-rows-2p62-of-0-columns": seed("rows", "f32", "argmax", [2**62, 0], out=0),
    "columns-2p62-rows-of-0-columns": seed("columns", "f32", "argmax", [2**62, 0], out=0),
    "error-stride-wraps": seed("rows", "f32", "plus", [4, 2, (2**64 - 1) // 3 + 1], ramp(8), strided=True, out=512),
    "error-stride-0": seed("rows", "i32", "plus", [2, 3, 0], ramp(24), strided=True, out=512),
    "error-output-past-arena": seed("rows", "f64", "plus", [100, 1], ramp(10), out=65000),
    "error-overlap-async": seed("reduce_async", "f32", "plus", [100], ramp(10), x=0, out=200),
    "error-overlap-offsets": seed("segments", "i32", "plus", [10, 4], ramp(10), off=2048, out=2052),
    "error-null-input": seed("reduce", "f32", "minimum", [10], ramp(10), null="input"),
    "reduce-null-input-empty": seed("reduce", "f32", "argmin", [0], null="input"),
    "error-null-output": seed("columns", "u16", "bit_or", [3, 3], ramp(10), null="output"),
    "error-segments-size_max": seed("segments", "f32", "plus", [10, 2**64 - 1], ramp(10), off=1024, out=2048),
    "bad-offsets-i32-negative": seed(
        "segments", "f32", "plus", [50, 3], elements("f32", 50) + struct.pack("<4i", 0, 10, -5, 50),
        offsets_mode="raw", off=2048, out=4096),
    "bad-offsets-i64-decreasing": seed(
        "segments", "i32", "argmin", [40, 5], elements("i32", 40) + bytes([0, 5, 5, 5, 5, 5, 5, 2, 2]), offsets="i64",
        offsets_mode="corrupt", off=2048, out=4096),
    "bad-offsets-u32-past-n": seed(
        "segments", "u8", "logical_and", [30, 3], elements("u8", 30) + bytes([0, 10, 10, 10, 3, 1]), offsets="u32",
        offsets_mode="corrupt", off=2048, out=4096),
    "bad-offsets-u64-largest": seed(
        "segments", "f64", "minmax", [30, 2], elements("f64", 30) + bytes([0, 10, 10, 0, 3]), offsets="u64",
        offsets_mode="corrupt", off=2048, out=4096),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_seeds.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.startswith("seed-"):
            os.remove(os.path.join(out, name))
    for name, data in SEEDS.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
