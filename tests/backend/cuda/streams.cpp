// SPDX-License-Identifier: Apache-2.0
// preduce tests (cuda backend): reduce_async captured in a CUDA graph and replayed 1000 times,
// and two queues reducing concurrently.
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
