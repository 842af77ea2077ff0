# SPDX-License-Identifier: Apache-2.0
# preduce from Python on GPU arrays (the cuda backend; torch and CuPy, where installed): every
# operator against the framework's own reduction, rows, columns and segments, partials, the
# current-stream rule, a CUDA graph capture, bad input.
import math

import pytest

import preduce

torch = pytest.importorskip("torch") if preduce.backend == "cuda" else None
pytestmark = pytest.mark.skipif(preduce.backend != "cuda" or torch is None or not torch.cuda.is_available(),
                                reason="the GPU tests need the cuda backend and a CUDA device")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8"]
SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 65537, 1 << 20]


def data(n, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed + n)
    dt = getattr(torch, dtype)
    if dtype.startswith(("float", "bfloat")):
        return torch.randn(n, generator=g, device="cuda", dtype=torch.float32).to(dt)
    low, high = (0, 100) if dtype.startswith("uint") else (-100, 100)
    return torch.randint(low, high, (n,), generator=g, device="cuda", dtype=torch.int64).to(dt)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_whole(dtype, n):
    x = data(n, dtype)
    x64 = x.double() if dtype.startswith(("float", "bfloat")) else x.long()
    total = x64.sum().item()
    assert preduce.reduce(x) == pytest.approx(total, rel=1e-3 if "16" in dtype else 1e-5, abs=1e-3)
    if n:
        assert preduce.reduce(x, "max") == x.max().item()
        assert preduce.reduce(x, "minmax") == (x.min().item(), x.max().item())
        value, index = preduce.reduce(x, "argmin")
        assert value == x.min().item() and index == int(torch.nonzero(x == x.min())[0])  # the first minimum
    if dtype.startswith(("float", "bfloat")):
        rep = preduce.reduce(x, determinism="reproducible")
        assert preduce.reduce(x.flip(0).contiguous(), determinism="reproducible") == rep  # any order, the same bits
        if dtype == "float64":
            assert rep == math.fsum(x.cpu().tolist())


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32"])
@pytest.mark.parametrize("shape", [(1, 1), (7, 129), (1000, 33), (33, 4096), (4096, 3), (0, 4)])
def test_rows_and_columns(dtype, shape):
    x = data(math.prod(shape), dtype).reshape(shape)
    for axis in (-1, 0):
        dim = 1 if axis == -1 else 0
        got = preduce.reduce(x, axis=axis)
        assert got.device == x.device
        torch.testing.assert_close(got.double(), x.double().sum(dim=dim), rtol=1e-2 if dtype == "bfloat16" else 1e-5, atol=1e-2)
        if x.shape[dim]:
            values, indices = preduce.reduce(x, "argmax", axis=axis)
            assert torch.equal(values, x.amax(dim=dim)) and torch.equal(indices, x.argmax(dim=dim))


def test_segments_heavy_tailed():
    lengths = (torch.empty(2000).exponential_(1.0) ** 3).long().clamp(max=20000)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)]).cuda()
    x = data(int(offsets[-1]), "float32")
    sums = preduce.segment_reduce(x, offsets)
    maxima, where = preduce.segment_reduce(x, offsets, "argmax")
    ref = torch.segment_reduce(x.double(), "sum", offsets=offsets)
    torch.testing.assert_close(sums.double(), ref, rtol=1e-5, atol=1e-3)
    nonempty = lengths.cuda() > 0
    ref_max = torch.segment_reduce(x, "max", offsets=offsets)
    assert torch.equal(maxima[nonempty], ref_max[nonempty])
    starts = offsets[:-1]
    assert torch.equal(x[(starts + where)[nonempty]], maxima[nonempty])
    assert (where[~nonempty] == -1).all()


def test_partials_merge_to_the_bit():
    x = data(1 << 20, "float32")
    whole = preduce.partial(x)
    halves = preduce.partial(x[:333_333]) + preduce.partial(x[333_333:])
    assert halves == whole and whole.value() == preduce.reduce(x, determinism="reproducible")
    assert preduce.Partial.from_bytes(whole.to_bytes()) == whole


def test_current_stream():
    # A non-blocking stream where x is written after a long sleep: a call that ran elsewhere
    # (the legacy default stream, say) would read x before it is written.
    s = torch.cuda.Stream()
    x = torch.zeros(1 << 20, device="cuda")
    out = torch.zeros(1, device="cuda")
    rows = None
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)
        x.fill_(2.0)
        preduce.reduce(x, out=out)
        rows = preduce.reduce(x.view(1024, 1024), "max", axis=-1)
    s.synchronize()
    assert out.item() == 2.0 * (1 << 20)
    assert torch.equal(rows, torch.full((1024,), 2.0, device="cuda"))
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):  # and stream= overrides the current one
        torch.cuda._sleep(200_000_000)
        x.fill_(3.0)
    preduce.reduce(x, out=out, stream=other)
    other.synchronize()
    assert out.item() == 3.0 * (1 << 20)


def test_graph_capture_replays():
    x = data(1 << 20, "float32")
    out = torch.zeros(1, device="cuda")
    rows = torch.zeros(1024, device="cuda")
    preduce.reduce(x, out=out)  # warm up outside the capture (the queue for the stream is made)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        preduce.reduce(x, out=out)
        preduce.reduce(x.view(1024, 1024), axis=-1, out=rows)
    s.synchronize()
    with torch.cuda.graph(g, stream=s):  # torch's recipe: warm up on the capture stream first
        preduce.reduce(x, out=out)
        preduce.reduce(x.view(1024, 1024), axis=-1, out=rows)
    fresh = torch.cuda.CUDAGraph()
    fresh_out = torch.zeros(1, device="cuda")
    with torch.cuda.graph(fresh):  # torch's private capture stream: preduce meets it inside the capture
        preduce.reduce(x, "max", out=fresh_out)
    for k in range(3):
        x.copy_(data(1 << 20, "float32", seed=k + 10))
        g.replay()
        fresh.replay()
        torch.cuda.synchronize()
        assert out.item() == pytest.approx(x.double().sum().item(), rel=1e-5, abs=1e-2)
        torch.testing.assert_close(rows, x.view(1024, 1024).sum(dim=1), rtol=1e-5, atol=1e-4)
        assert fresh_out.item() == x.max().item()


def test_waiting_inside_a_capture_is_refused():
    x = data(1024, "float32")
    g = torch.cuda.CUDAGraph()
    with pytest.raises(preduce.Error) as e:
        with torch.cuda.graph(g):
            preduce.reduce(x)  # returns a number: it must wait, which a capture cannot
    assert e.value.errc == "invalid_argument"


def test_bad_input():
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(torch.ones(10))  # a CPU tensor
    assert e.value.errc == "not_device_memory"
    x = data(1000, "float32").view(10, 100)
    with pytest.raises(preduce.Error) as e:
        preduce.reduce(x.t())
    assert e.value.errc == "invalid_argument"
    with pytest.raises(preduce.Error):
        preduce.reduce(torch.ones(4, device="cuda", dtype=torch.complex64))
    with pytest.raises(preduce.Error):
        preduce.reduce(x, preduce.dot(torch.ones(1000)))  # y on the host
    for bad in (torch.full((10,), -1, device="cuda", dtype=torch.int32), torch.full((11,), -1.0, device="cuda"),
                torch.full((10, 2), -1.0, device="cuda")[:, 0], torch.full((10,), -1.0, device="cuda", dtype=torch.float64)):
        with pytest.raises(preduce.Error) as e:
            preduce.reduce(x, axis=-1, out=bad)  # out of the wrong type, count or layout
        assert e.value.errc == "invalid_argument" and (bad == -1).all()
    offsets = torch.tensor([0, 800, 400, 1000], device="cuda")
    out = torch.full((3,), -1.0, device="cuda")
    preduce.segment_reduce(x, offsets, out=out)
    with pytest.raises(preduce.Error):
        preduce.synchronize(x)
    assert (out == -1.0).all()


def test_cupy():
    cupy = pytest.importorskip("cupy")
    x = cupy.random.default_rng(1).standard_normal(1 << 20, dtype=cupy.float32)
    assert preduce.reduce(x) == pytest.approx(float(x.astype(cupy.float64).sum()), rel=1e-5, abs=1e-3)
    m = x.reshape(1024, 1024)
    got = preduce.reduce(m, "max", axis=0)
    assert isinstance(got, cupy.ndarray) and bool((got == m.max(axis=0)).all())
    values, indices = preduce.reduce(m, "argmin", axis=-1)
    assert bool((indices == m.argmin(axis=1)).all()) and bool((values == m.min(axis=1)).all())
    s = cupy.cuda.Stream(non_blocking=True)
    out = cupy.zeros(1, cupy.float32)
    with s:
        x.fill(1.0)
        preduce.reduce(x, out=out)
    s.synchronize()
    assert float(out[0]) == float(1 << 20)


def test_threads_on_shared_and_own_streams():
    import concurrent.futures

    arrays = [data(1 << 18, "float32", seed=k) for k in range(8)]
    expected = [preduce.reduce(a, determinism="reproducible") for a in arrays]
    row_max = [a.view(256, 1024).amax(dim=1) for a in arrays]
    torch.cuda.synchronize()  # the threads' streams read what the default stream wrote

    def work(k):
        own = torch.cuda.Stream() if k % 2 else None  # half the threads share the default stream
        for _ in range(30):
            with torch.cuda.stream(own) if own is not None else torch.cuda.stream(torch.cuda.default_stream()):
                assert preduce.reduce(arrays[k], determinism="reproducible") == expected[k]
                rows = preduce.reduce(arrays[k].view(256, 1024), "max", axis=-1)
                torch.cuda.current_stream().synchronize()
                assert torch.equal(rows, row_max[k])
        return True

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert list(pool.map(work, range(8))) == [True] * 8
