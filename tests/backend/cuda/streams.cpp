// SPDX-License-Identifier: Apache-2.0
// preduce tests (cuda backend): reduce_async captured in a CUDA graph and replayed 1000 times,
// two queues reducing concurrently, and chains of calls on one stream that read what the call
// before them wrote.
#include <cuda_runtime_api.h>

#include "../../test_support.hpp"

namespace {
void cuda_ok(cudaError_t e) { REQUIRE_MESSAGE(e == cudaSuccess, cudaGetErrorString(e)); }
}  // namespace

TEST_CASE("cuda.graph_capture.replay_1000") {
  const preduce::queue q(0);
  auto stream = static_cast<cudaStream_t>(q.native_handle());
  const std::size_t n = (std::size_t(1) << 20) + 3;
  std::vector<float> x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.graph", n, 0));
  preduce::device_buffer<float> d(q, x);
  preduce::device_buffer<float> sum(q, 1);
  preduce::device_buffer<preduce::arg<float>> best(q, 1);

  // No warm-up: the queue's first calls are the captured ones (nothing they need may be a
  // stream-ordered allocation the graph would own).
  cudaGraph_t graph = nullptr;
  cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  preduce::reduce_async(q, d.data(), n, sum.data(), preduce::plus<>{});
  preduce::reduce_async(q, d.data(), n, best.data(), preduce::argmax{});
  cuda_ok(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  cuda_ok(cudaGraphInstantiate(&exec, graph, 0));

  for (int replay = 0; replay < 1000; ++replay) {
    if (replay % 100 == 0) {  // new data every 100 replays: the graph must read it afresh
      x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.graph", n, std::uint64_t(replay + 1)));
      preduce::copy_to_device(q, d.data(), x.data(), n);
    }
    cuda_ok(cudaGraphLaunch(exec, stream));
    if (replay % 100 == 50) {  // ordinary calls between replays share the queue's state
      preduce::device_buffer<double> wide(q, 1);
      preduce::reduce_async(q, d.data(), n, wide.data(), preduce::plus<double>{});
      test::check_result(wide.to_host()[0], test::expected(preduce::plus<double>{}, x.data(), n));
    }
    if (replay % 100 == 0 || replay == 999) {
      q.synchronize();
      CAPTURE(replay);
      test::check_result(sum.to_host()[0], test::expected(preduce::plus<>{}, x.data(), n));
      test::check_result(best.to_host()[0], test::expected(preduce::argmax{}, x.data(), n));
    }
  }
  cuda_ok(cudaGraphExecDestroy(exec));
  cuda_ok(cudaGraphDestroy(graph));
}

TEST_CASE("cuda.two_queues_concurrently") {
  const preduce::queue a(0), b(0);
  const std::size_t n = (std::size_t(1) << 22) + 7;
  const auto xa = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.two_queues", n, 1));
  const auto xb = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.two_queues", n, 2));
  const preduce::device_buffer<float> da(a, xa), db(b, xb);
  constexpr int calls = 64;
  preduce::device_buffer<float> sa(a, calls), sb(b, calls);
  preduce::device_buffer<preduce::arg<float>> ma(a, calls), mb(b, calls);
  for (int i = 0; i < calls; ++i) {  // interleaved: both streams have work in flight together
    preduce::reduce_async(a, da.data(), n, sa.data() + i, preduce::plus<>{});
    preduce::reduce_async(b, db.data(), n, sb.data() + i, preduce::plus<>{});
    preduce::reduce_async(a, da.data(), n, ma.data() + i, preduce::argmax{});
    preduce::reduce_async(b, db.data(), n, mb.data() + i, preduce::argmax{});
  }
  a.synchronize();
  b.synchronize();
  const auto want_sa = test::expected(preduce::plus<>{}, xa.data(), n), want_sb = test::expected(preduce::plus<>{}, xb.data(), n);
  const auto want_ma = test::expected(preduce::argmax{}, xa.data(), n), want_mb = test::expected(preduce::argmax{}, xb.data(), n);
  const auto got_sa = sa.to_host(), got_sb = sb.to_host();
  const auto got_ma = ma.to_host(), got_mb = mb.to_host();
  for (int i = 0; i < calls; ++i) {
    CAPTURE(i);
    test::check_result(got_sa[i], want_sa);
    test::check_result(got_sb[i], want_sb);
    test::check_result(got_ma[i], want_ma);
    test::check_result(got_mb[i], want_mb);
  }
}

// Calls on one stream with no synchronization between them, each reading what the one before it
// wrote. From compute capability 9.0 each kernel is launched to overlap the one before it
// (launch.cuh): one that touched global memory before waiting for its predecessor would read a
// stale or poisoned intermediate, or overwrite one still being read. A probe whose kernels
// lacked the wait (H100, 2026-11-27) got 64 of 64 totals wrong in a chain like the long one
// below (its long call: reduce_segments over two segments of 2^21) and 3 of 1280 in one like
// the short one (segments over 2^12 elements, then their sum); with the wait, none.
TEST_CASE("cuda.chained_calls_on_one_stream.short") {
  // Rounds of four short calls (rows of 32 -> those sums as 32 rows x 64 columns -> two
  // segments of those -> the whole of those two), each round on a new input and overwriting the
  // buffers the round before it read.
  const preduce::queue q(0);
  constexpr int rounds = 64;
  constexpr std::size_t rows = 2048, cols = 32, grid_rows = 32, grid_cols = 64;
  static_assert(rows == grid_rows * grid_cols, "the row sums are the column stage's matrix");
  std::vector<std::vector<float>> x(rounds);
  std::vector<preduce::device_buffer<float>> d_x;
  for (int k = 0; k < rounds; ++k) {
    x[k] = test::make_data<float>(test::data::small_integers, rows * cols, test::seed_for<float>("cuda.chained", rows * cols, k));
    d_x.emplace_back(q, x[k]);
  }
  preduce::device_buffer<float> row_sums(q, rows), column_sums(q, grid_cols), segment_sums(q, 2), totals(q, rounds);
  const preduce::device_buffer<std::int32_t> offsets(q, std::vector<std::int32_t>{0, 5, std::int32_t(grid_cols)});
  for (int k = 0; k < rounds; ++k) {
    preduce::reduce_rows(q, d_x[k].data(), rows, cols, row_sums.data(), preduce::plus<>{});
    preduce::reduce_columns(q, row_sums.data(), grid_rows, grid_cols, column_sums.data(), preduce::plus<>{});
    preduce::reduce_segments(q, column_sums.data(), grid_cols, offsets.data(), 2, segment_sums.data(), preduce::plus<>{});
    preduce::reduce_async(q, segment_sums.data(), 2, totals.data() + k, preduce::plus<>{});
  }
  q.synchronize();
  const auto got = totals.to_host();
  const auto last_columns = column_sums.to_host();  // the last round's, still in their buffer
  for (int k = 0; k < rounds; ++k) {
    // Small integers: every partial sum is exact in float, so any order gives these values.
    std::vector<double> r(rows, 0.0), c(grid_cols, 0.0);
    for (std::size_t i = 0; i < rows * cols; ++i) r[i / cols] += x[k][i];
    for (std::size_t i = 0; i < rows; ++i) c[i % grid_cols] += r[i];
    double total = 0.0;
    for (double v : c) total += v;
    CAPTURE(k);
    CHECK(got[k] == float(total));
    if (k == rounds - 1) {
      for (std::size_t j = 0; j < grid_cols; ++j) CHECK(last_columns[j] == float(c[j]));
    }
  }
}

TEST_CASE("cuda.chained_calls_on_one_stream.long") {
  // Rounds of a long call (16 rows of 2^18: several microseconds) and a short one over its 16
  // results, the intermediate poisoned (all bytes 0x7f) on the stream before each round.
  const preduce::queue q(0);
  auto stream = static_cast<cudaStream_t>(q.native_handle());
  constexpr int rounds = 16;
  constexpr std::size_t rows = 16, cols = std::size_t(1) << 18;
  const auto x = test::make_data<float>(test::data::small_integers, rows * cols, test::seed_for<float>("cuda.chained.long", rows * cols, 0),
                                        test::exact_magnitude<float>(rows * cols, false));
  const preduce::device_buffer<float> d_x(q, x);
  preduce::device_buffer<float> row_sums(q, rows), totals(q, rounds);
  for (int k = 0; k < rounds; ++k) {
    cuda_ok(cudaMemsetAsync(row_sums.data(), 0x7f, rows * sizeof(float), stream));
    preduce::reduce_rows(q, d_x.data(), rows, cols, row_sums.data(), preduce::plus<>{});
    preduce::reduce_async(q, row_sums.data(), rows, totals.data() + k, preduce::plus<>{});
  }
  q.synchronize();
  double total = 0.0;  // exact: the magnitude keeps every partial sum an integer below 2^24
  for (float v : x) total += v;
  const auto got = totals.to_host();
  for (int k = 0; k < rounds; ++k) {
    CAPTURE(k);
    CHECK(got[k] == float(total));
  }
}

// A synchronous call (or synchronize) inside a capture of the queue's stream cannot wait there:
// it throws invalid_argument and leaves the capture intact, so the asynchronous calls around it
// are captured and replay. A captured segment call's bad offsets are reported at the first
// synchronize after a replay, once; a replay over good offsets then reports nothing.
TEST_CASE("cuda.graph_capture.synchronous_calls_refused") {
  const preduce::queue q(0);
  auto stream = static_cast<cudaStream_t>(q.native_handle());
  const std::size_t n = 5000;
  const auto x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.capture.sync", n));
  const preduce::device_buffer<float> d(q, x);
  preduce::device_buffer<float> sum(q, 1), segment_sums(q, 3);
  const std::vector<std::int64_t> good{0, 100, 2000, 5000}, bad{0, 100, 50, 5000};
  preduce::device_buffer<std::int64_t> offsets(q, bad);

  cudaGraph_t graph = nullptr;
  cuda_ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  preduce::reduce_async(q, d.data(), n, sum.data(), preduce::plus<>{});
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, (void)preduce::reduce(q, d.data(), n));
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, q.synchronize());
  preduce::reduce_segments(q, d.data(), n, offsets.data(), 3, segment_sums.data(), preduce::plus<>{});
  cuda_ok(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  cuda_ok(cudaGraphInstantiate(&exec, graph, 0));

  cuda_ok(cudaGraphLaunch(exec, stream));
  std::string what;
  CHECK(test::error_of([&] { q.synchronize(); }, what) == "bad_offsets");
  CHECK(what.find("offsets[2] breaks") != std::string::npos);
  CHECK_NOTHROW(q.synchronize());
  test::check_result(sum.to_host()[0], test::expected(preduce::plus<>{}, x.data(), n));

  preduce::copy_to_device(q, offsets.data(), good.data(), good.size());
  cuda_ok(cudaGraphLaunch(exec, stream));
  CHECK_NOTHROW(q.synchronize());
  const auto got = segment_sums.to_host();
  for (std::size_t s = 0; s < 3; ++s)
    test::check_result(got[s], test::expected(preduce::plus<>{}, x.data() + good[s], std::size_t(good[s + 1] - good[s])));
  cuda_ok(cudaGraphExecDestroy(exec));
  cuda_ok(cudaGraphDestroy(graph));
}

// A wrapped stream belongs to the caller: after the last call through the queue returns, the
// caller may destroy it, and the queue's destruction then touches it no more.
TEST_CASE("cuda.wrapped_stream_destroyed_before_the_queue") {
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreate(&stream));
  const std::size_t n = 100000;
  const auto x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.wrap.lifetime", n));
  {
    const preduce::queue q = preduce::queue::wrap(stream, 0);
    const preduce::device_buffer<float> d(q, x);
    test::check_result(preduce::reduce(q, d.data(), n), test::expected(preduce::plus<>{}, x.data(), n));
    cuda_ok(cudaStreamDestroy(stream));
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  const preduce::queue q(0);
  const preduce::device_buffer<float> d(q, x);
  test::check_result(preduce::reduce(q, d.data(), n), test::expected(preduce::plus<>{}, x.data(), n));
}
