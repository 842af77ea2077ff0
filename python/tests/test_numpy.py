# SPDX-License-Identifier: Apache-2.0
# preduce from Python on host arrays (NumPy; the kokkos backend on a host execution space, as
# CI builds it): every operator and element type against NumPy, on whole arrays, rows, columns
# and segments, at sizes around the lanes, warps and tiles; partials; bad input; threads.
import concurrent.futures
import math

import numpy as np
import pytest

import preduce

pytestmark = pytest.mark.skipif(preduce.backend != "kokkos", reason="NumPy arrays live in host memory: the kokkos backend reads them")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
SIZES = [0, 1, 2, 31, 32, 33, 127, 128, 129, 1000, 4099]


def data(n, dtype, seed=1):
    rng = np.random.default_rng(seed + n)
    if dtype in FLOATS:
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    low, high = max(info.min, -100), min(info.max, 100)
    return rng.integers(low, high, size=n, endpoint=True).astype(dtype)


def default_sum_dtype(dtype):
    if dtype in ("int8", "int16"):
        return np.int64
    if dtype in ("uint8", "uint16"):
        return np.uint64
    if dtype == "float16":
        return np.float32
    return np.dtype(dtype)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", SIZES)
def test_integer_sums_are_exact(dtype, n):
    x = data(n, dtype)
    acc = default_sum_dtype(dtype)
    assert preduce.reduce(x) == int(x.astype(acc).sum(dtype=acc))
    assert preduce.reduce(x, "sum_of_squares") == int((x.astype(acc) * x.astype(acc)).sum(dtype=acc))
    if n <= 33:  # products wrap in the accumulator: small n keeps them meaningful
        assert preduce.reduce(x, "prod") == int(np.prod(x.astype(acc), dtype=acc))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_float_sums_match_numpy(dtype, n):
    x = data(n, dtype)
    acc = default_sum_dtype(dtype)
    exact = math.fsum(x.astype(np.float64))
    for det in ("run_to_run", "fast", "reproducible"):
        got = preduce.reduce(x, determinism=det)
        assert got == pytest.approx(exact, rel=1e-5 if acc == np.float32 else 1e-12, abs=1e-4)
    # reproducible: correctly rounded, so a float64 sum is math.fsum's, and any order gives the same bits
    rep = preduce.reduce(x, determinism="reproducible")
    if dtype == "float64":
        assert rep == exact
    assert preduce.reduce(x[::-1].copy(), determinism="reproducible") == rep


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("n", [1, 2, 33, 1000, 4099])
def test_extremes_and_args(dtype, n):
    x = data(n, dtype)
    assert preduce.reduce(x, "min") == x.min()
    assert preduce.reduce(x, "max") == x.max()
    assert preduce.reduce(x, "minmax") == (x.min(), x.max())
    assert preduce.reduce(x, preduce.argmin) == (x.min(), int(np.argmin(x)))
    assert preduce.reduce(x, preduce.argmax) == (x.max(), int(np.argmax(x)))


def test_arg_ties_and_nans():
    x = np.array([1.0, 5.0, 5.0, np.nan, 5.0, np.nan], dtype=np.float32)
    value, index = preduce.reduce(x, "argmax")
    assert math.isnan(value) and index == 3  # NaN propagates: the first NaN
    assert preduce.reduce(x, preduce.nan_ignoring("argmax")) == (5.0, 1)  # ties: the first index
    assert preduce.reduce(x, preduce.nan_ignoring("min")) == 1.0
    assert math.isnan(preduce.reduce(x, "min"))
    assert preduce.reduce(np.zeros(0, np.float32), "argmax")[1] == -1  # empty: no index


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise(dtype):
    x = data(1000, dtype)
    assert preduce.reduce(x, "bit_and") == int(np.bitwise_and.reduce(x))
    assert preduce.reduce(x, "bit_or") == int(np.bitwise_or.reduce(x))
    assert preduce.reduce(x, "bit_xor") == int(np.bitwise_xor.reduce(x))


@pytest.mark.parametrize("dtype", INTS + FLOATS + ["bool"])
def test_logical(dtype):
    x = data(1000, dtype) if dtype != "bool" else np.random.default_rng(3).random(1000) < 0.5
    assert preduce.reduce(x, "all") == bool(np.all(x))
    assert preduce.reduce(x, "any") == bool(np.any(x))
    ones = np.ones(100, dtype)
    assert preduce.reduce(ones, "all") is True
    assert preduce.reduce(np.zeros(100, dtype), "any") is False
    if dtype == "bool":
        assert preduce.reduce(x) == int(x.sum())  # bool arrays sum as counts


def test_nan_is_true():
    assert preduce.reduce(np.array([np.nan, 1.0]), "all") is True


@pytest.mark.parametrize("dtype", FLOATS)
def test_moments_and_dot(dtype):
    x, y = data(4099, dtype, 1), data(4099, dtype, 2)
    m = preduce.reduce(x, "moments")
    x64 = x.astype(np.float64)
    assert m.count == x.size
    assert m.mean == pytest.approx(x64.mean(), rel=1e-5, abs=1e-6)
    assert m.variance == pytest.approx(x64.var(), rel=1e-4)
    assert preduce.reduce(x, preduce.dot(y)) == pytest.approx(float(x64 @ y.astype(np.float64)), rel=1e-4, abs=1e-3)
    r = preduce.reduce(x, preduce.dot(y), determinism="reproducible", dtype="float64")
    assert r == math.fsum(x64 * y.astype(np.float64)) or dtype == "float64"


def test_accumulator_choice():
    x = np.full(1 << 12, 0.1, np.float32)
    assert preduce.reduce(x, dtype="float64") == 4096 * float(np.float32(0.1))  # exact in double
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(x, dtype="int32")
    assert e.value.errc == "unsupported"


@pytest.mark.parametrize("op", ["sum", "max", "argmin", "minmax", "moments", "any"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (1, 33), (7, 129), (64, 31), (33, 1000), (0, 5), (5, 0)])
def test_rows_and_columns(op, shape):
    x = data(math.prod(shape), "float32").reshape(shape)
    for axis in (-1, 0):
        got = preduce.reduce(x, op, axis=axis)
        np_axis = 1 if axis == -1 else 0
        if op == "sum":
            np.testing.assert_allclose(got, x.sum(axis=np_axis, dtype=np.float64), rtol=1e-5, atol=1e-4)
        elif op == "max":
            if x.shape[np_axis] > 0:
                np.testing.assert_array_equal(got, x.max(axis=np_axis))
        elif op == "argmin":
            values, indices = got
            if x.shape[np_axis] > 0:
                np.testing.assert_array_equal(indices, np.argmin(x, axis=np_axis))
                np.testing.assert_array_equal(values, x.min(axis=np_axis))
        elif op == "minmax":
            lo, hi = got
            if x.shape[np_axis] > 0:
                np.testing.assert_array_equal(lo, x.min(axis=np_axis))
                np.testing.assert_array_equal(hi, x.max(axis=np_axis))
        elif op == "moments":
            np.testing.assert_array_equal(got.count, np.full(got.count.shape, x.shape[np_axis]))
            if x.shape[np_axis] > 0:
                np.testing.assert_allclose(got.mean, x.astype(np.float64).mean(axis=np_axis), rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, np.any(x, axis=np_axis))


def test_nd_axes_and_out():
    x = data(4 * 5 * 6, "float64").reshape(4, 5, 6)
    np.testing.assert_allclose(preduce.reduce(x, axis=-1), x.sum(axis=-1))
    np.testing.assert_allclose(preduce.reduce(x, axis=0), x.sum(axis=0))
    out = np.empty((4, 5))
    assert preduce.reduce(x, "max", axis=2, out=out) is out
    np.testing.assert_array_equal(out, x.max(axis=2))
    scalar = np.empty(1)
    preduce.reduce(x, out=scalar)
    assert scalar[0] == pytest.approx(x.sum())
    with pytest.raises(preduce.Error):
        preduce.reduce(x, axis=1)  # a middle axis
    with pytest.raises(preduce.Error):
        preduce.reduce(x, axis=3)


@pytest.mark.parametrize("offset_dtype", ["int32", "int64", "uint32", "uint64"])
def test_segments(offset_dtype):
    rng = np.random.default_rng(7)
    lengths = rng.pareto(1.2, 300).astype(np.int64) % 700
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(offset_dtype)
    x = data(int(offsets[-1]), "float32")
    sums = preduce.segment_reduce(x, offsets)
    maxima, where = preduce.segment_reduce(x, offsets, "argmax")
    for i in range(len(lengths)):
        piece = x[int(offsets[i]):int(offsets[i + 1])]
        assert sums[i] == pytest.approx(float(piece.astype(np.float64).sum()), rel=1e-5, abs=1e-4)
        if piece.size:
            assert maxima[i] == piece.max() and where[i] == int(np.argmax(piece))
        else:
            assert where[i] == -1
    rep = preduce.segment_reduce(x, offsets, determinism="reproducible")
    assert np.array_equal(rep, preduce.segment_reduce(x, offsets, determinism="reproducible"))


def test_bad_offsets_raise_at_synchronize():
    x = np.ones(10, np.float32)
    out = np.full(2, -7.0, np.float32)
    preduce.segment_reduce(x, np.array([0, 8, 4], np.int64), out=out)
    with pytest.raises(preduce.Error):
        preduce.synchronize(x)
    np.testing.assert_array_equal(out, [-7.0, -7.0])  # untouched


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["sum", "sum_of_squares", "moments"])
def test_partials_merge_to_the_bit(dtype, op):
    x = data(5003, dtype)
    whole = preduce.partial(x, op)
    for cut in (0, 1, 2500, 5003):
        assert preduce.partial(x[:cut], op) + preduce.partial(x[cut:], op) == whole
    pieces = [preduce.partial(x[i:i + 700], op) for i in range(0, x.size, 700)]
    assert sum(pieces) == whole and sum(reversed(pieces)) == whole
    again = preduce.Partial.from_bytes(whole.to_bytes())
    assert again == whole
    if op == "sum":
        assert whole.value() == preduce.reduce(x, determinism="reproducible")
    if op == "moments":
        assert whole.value().count == x.size


def test_partial_refusals():
    with pytest.raises(preduce.Error):
        preduce.Partial.from_bytes(b"not a partial")
    with pytest.raises(preduce.Error):
        preduce.partial(np.ones(4, np.int32))
    with pytest.raises(preduce.Error):
        preduce.partial(np.ones(4, np.float32), "max")
    a = preduce.partial(np.ones(4, np.float32))
    b = preduce.partial(np.ones(4, np.float32), dtype="float64")
    with pytest.raises(preduce.Error):
        a + b  # a float and a double sum


def test_out_is_checked():
    """out= must hold the results' type and count, C-contiguous; a refused call writes nothing."""
    x = data(3 * 4 * 5, "float32").reshape(3, 4, 5)
    for bad in (np.full(12, -1, np.int32), np.full(12, -1.0, np.float64), np.full(13, -1.0, np.float32),
                np.full((4, 6), -1.0, np.float32)[:, ::2], np.full(12, 255, np.uint8)):
        with pytest.raises(preduce.Error) as e:
            preduce.reduce(x, axis=-1, out=bad)
        assert e.value.errc == "invalid_argument" and "out must be" in str(e.value)
        assert (bad == (255 if bad.dtype == np.uint8 else -1)).all()
    out = np.empty((3, 4), np.float32)  # any C-contiguous shape of the right count
    assert preduce.reduce(x, axis=-1, out=out) is out
    np.testing.assert_allclose(out, x.sum(axis=-1), rtol=1e-5)
    pairs = np.zeros((12, 16), np.uint8)  # argmax's (value, index) pairs as bytes
    preduce.reduce(x, "argmax", axis=-1, out=pairs)
    assert np.array_equal(pairs.view(np.int64)[:, 1], x.reshape(12, 5).argmax(axis=1))
    with pytest.raises(preduce.Error):
        preduce.reduce(x, "argmax", axis=-1, out=np.zeros(12, np.float32))  # a value where a pair goes
    one = np.full(1, -1, np.int64)
    with pytest.raises(preduce.Error):
        preduce.reduce(x, out=one)  # a float sum into int64
    assert one[0] == -1


def test_bad_input():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(x[:, ::2])
    assert e.value.errc == "invalid_argument" and "contiguous" in str(e.value)
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(np.ones(3, np.complex64))
    assert e.value.errc == "unsupported"
    with pytest.raises(preduce.Error):
        preduce.reduce(x, "median")
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(x, "bit_and")
    assert e.value.errc == "unsupported"
    with pytest.raises(preduce.Error):
        preduce.reduce(x, determinism="sometimes")
    with pytest.raises(preduce.Error):
        preduce.reduce(x, preduce.dot(np.ones(5, np.float32)))
    with pytest.raises(preduce.Error):
        preduce.reduce(x, axis=-1, out=np.empty(4, np.float32))  # 3 results
    with pytest.raises(preduce.Error):
        preduce.reduce(x, "multiplies")
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(x, "prod", determinism="reproducible")
    assert e.value.errc == "unsupported"
    with pytest.raises(preduce.Error):
        preduce.reduce([1.0, 2.0])


def test_threads():
    arrays = [data(100_000 + k, "float32", k) for k in range(8)]
    expected = [preduce.reduce(a, determinism="reproducible") for a in arrays]

    def work(k):
        for _ in range(20):
            assert preduce.reduce(arrays[k], determinism="reproducible") == expected[k]
            rows = preduce.reduce(arrays[k][:99_000].reshape(99, 1000), "max", axis=-1)
            assert np.array_equal(rows, arrays[k][:99_000].reshape(99, 1000).max(axis=1))
        return True

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert list(pool.map(work, range(8))) == [True] * 8
