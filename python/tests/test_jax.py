# SPDX-License-Identifier: Apache-2.0
# preduce from Python on JAX arrays (read through DLPack; the kokkos backend on a host execution
# space, as CI builds it, reads JAX's CPU arrays): whole arrays, rows, columns and segments
# against NumPy, results as JAX arrays on x's device, out= into a JAX buffer, partials, and the
# input left as it was.
import math

import numpy as np
import pytest

import preduce

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytestmark = pytest.mark.skipif(preduce.backend != "kokkos", reason="JAX's CPU arrays live in host memory: the kokkos backend reads them")

SIZES = [0, 1, 31, 32, 33, 1000, 4099]


def data(n, dtype="float32", seed=3):
    rng = np.random.default_rng(seed + n)
    if dtype.startswith(("float", "bfloat")):
        return rng.standard_normal(n).astype(np.float32).astype(jnp.dtype(dtype))
    return rng.integers(-100, 100, size=n).astype(dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int32", "uint8"])
def test_whole(n, dtype):
    host = data(n, dtype)
    x = jnp.asarray(host)
    wide = host.astype(np.float64) if dtype.startswith(("float", "bfloat")) else host.astype(np.int64)
    assert preduce.reduce(x) == pytest.approx(math.fsum(wide), rel=1e-5, abs=1e-3)
    if n:
        assert preduce.reduce(x, "max") == wide.max()
        assert preduce.reduce(x, "minmax") == (wide.min(), wide.max())
        assert preduce.reduce(x, "argmin") == (wide.min(), int(np.argmin(wide)))
    np.testing.assert_array_equal(np.asarray(x), host)  # read in place, not written


@pytest.mark.parametrize("shape", [(1, 1), (7, 129), (64, 31), (3, 1000), (0, 5)])
def test_rows_and_columns_are_jax_arrays(shape):
    host = data(math.prod(shape)).reshape(shape)
    x = jnp.asarray(host)
    for axis, np_axis in ((-1, 1), (0, 0)):
        sums = preduce.reduce(x, axis=axis)
        assert isinstance(sums, jax.Array) and sums.shape == host.sum(axis=np_axis).shape
        np.testing.assert_allclose(np.asarray(sums), host.sum(axis=np_axis, dtype=np.float64), rtol=1e-5, atol=1e-4)
        if host.shape[np_axis] == 0:
            continue
        values, indices = preduce.reduce(x, "argmax", axis=axis)
        assert isinstance(values, jax.Array) and isinstance(indices, jax.Array)
        np.testing.assert_array_equal(np.asarray(values), host.max(axis=np_axis))
        np.testing.assert_array_equal(np.asarray(indices), host.argmax(axis=np_axis))
        low, high = preduce.reduce(x, "minmax", axis=axis)
        np.testing.assert_array_equal(np.asarray(low), host.min(axis=np_axis))
        np.testing.assert_array_equal(np.asarray(high), host.max(axis=np_axis))
        m = preduce.reduce(x, "moments", axis=axis)
        np.testing.assert_array_equal(np.asarray(m.count), np.full(m.count.shape, host.shape[np_axis]))
        np.testing.assert_allclose(np.asarray(m.mean), host.mean(axis=np_axis), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(m.variance), host.var(axis=np_axis), rtol=1e-3, atol=1e-5)


def test_segments_and_out():
    host = data(1000)
    x = jnp.asarray(host)
    bounds = np.array([0, 0, 3, 500, 501, 1000], np.int32)
    offsets = jnp.asarray(bounds)
    got = preduce.segment_reduce(x, offsets, "max")
    assert isinstance(got, jax.Array)
    for i in range(len(bounds) - 1):
        if bounds[i + 1] > bounds[i]:
            assert float(got[i]) == host[bounds[i]:bounds[i + 1]].max()
    out = jnp.empty(5, dtype=jnp.float32)
    assert preduce.segment_reduce(x, offsets, out=out) is out
    preduce.synchronize(x)
    np.testing.assert_allclose(np.asarray(out), [host[a:b].sum() for a, b in zip(bounds[:-1], bounds[1:])], rtol=1e-5, atol=1e-5)
    with pytest.raises(preduce.Error):
        preduce.segment_reduce(x, jnp.asarray(np.array([0, 800, 400, 1000], np.int32)))  # decreasing: the result waits, so it raises here


def test_partials_merge_to_the_bit():
    host = data(4099)
    x = jnp.asarray(host)
    whole = preduce.partial(x)
    assert preduce.partial(x[:1000]) + preduce.partial(x[1000:]) == whole
    assert whole.value() == preduce.reduce(x, determinism="reproducible")
