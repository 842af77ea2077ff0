// SPDX-License-Identifier: Apache-2.0
// preduce tests: reduce_async (the result lands in device memory, equal to the sync result, and
// nothing else is written; n == 0 writes the identity; several calls in flight on one queue) and
// run_to_run determinism (100 calls, bit-identical results).
#include "test_support.hpp"

namespace {

//! reduce_async of x into a guarded slot: the slot must hold the sync result bit for bit, and
//! match the oracle; every other byte around it must be untouched.
template <class T, class Op>
void check_async(const preduce::queue& q, const std::vector<T>& x, Op op) {
  using R = test::result_of<Op, T>;
  const preduce::device_buffer<T> d(q, x);
  test::guarded_output<R> out(q, 1);
  preduce::reduce_async(q, d.data(), x.size(), out.data(), op);
  q.synchronize();
  CHECK(out.only_results_written(1));
  const R got = out.values(1)[0];
  CHECK(test::same_bits(got, preduce::reduce(q, d.data(), x.size(), op)));
  test::check_result(got, test::expected(op, x.data(), x.size()));
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce_async.matches_sync", T, reduce_async_matches_sync) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65537)}) {
    SUBCASE(test::size_name(n).c_str()) {
      test::for_each_operator<T>([&](auto op) {
        check_async(q, test::make_data<T>(test::shape_for<decltype(op), T>(), n, test::seed_for<T>("async", n)), op);
      });
      SUBCASE("dot") {
        const auto x = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("async dot.x", n), 10);
        const auto y = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("async dot.y", n), 10);
        const preduce::device_buffer<T> dx(q, x), dy(q, y);
        const preduce::dot<T> op{dy.data()};
        using R = test::result_of<preduce::dot<T>, T>;
        test::guarded_output<R> out(q, 1);
        preduce::reduce_async(q, dx.data(), n, out.data(), op);
        q.synchronize();
        CHECK(out.only_results_written(1));
        CHECK(test::same_bits(out.values(1)[0], preduce::reduce(q, dx.data(), n, op)));
        test::check_result(out.values(1)[0], test::expected(op, x.data(), y.data(), n));
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_async_matches_sync, test::sample_types);

// n == 0 (with a null input, which n == 0 allows) writes the operator's identity.
TEST_CASE_TEMPLATE_DEFINE("reduce_async.empty_writes_identity", T, reduce_async_empty_writes_identity) {
  const auto& q = test::shared_queue();
  test::for_each_operator<T>([&](auto op) {
    using R = test::result_of<decltype(op), T>;
    test::guarded_output<R> out(q, 1);
    preduce::reduce_async(q, static_cast<const T*>(nullptr), 0, out.data(), op);
    q.synchronize();
    CHECK(out.only_results_written(1));
    CHECK_FALSE(out.untouched());
    const R got = out.values(1)[0];
    test::check_result(got, test::expected(op, static_cast<const T*>(nullptr), 0));
  });
  SUBCASE("dot") {
    using R = test::result_of<preduce::dot<T>, T>;
    test::guarded_output<R> out(q, 1);
    preduce::reduce_async(q, static_cast<const T*>(nullptr), 0, out.data(), preduce::dot<T>{nullptr});
    q.synchronize();
    CHECK(out.only_results_written(1));
    CHECK(out.values(1)[0] == R(0));
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_async_empty_writes_identity, test::all_types);

// Many reductions in flight on one queue before one synchronize: each lands in its own slot
// (no shared scratch is overwritten by the next call).
TEST_CASE("reduce_async.many_in_flight") {
  const auto& q = test::shared_queue();
  constexpr std::size_t calls = 16;
  std::vector<std::vector<float>> xs;
  std::vector<preduce::device_buffer<float>> ds;
  for (std::size_t c = 0; c < calls; ++c) {
    const std::size_t n = 1 + c * 4099;  // a different size and tiling for each call
    xs.push_back(test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("in flight", n), 50));
    ds.emplace_back(q, xs.back());
  }
  SUBCASE("plus") {
    test::guarded_output<float> out(q, calls);
    for (std::size_t c = 0; c < calls; ++c) preduce::reduce_async(q, ds[c].data(), xs[c].size(), out.data() + c, preduce::plus<>{});
    q.synchronize();
    CHECK(out.only_results_written(calls));
    const auto got = out.values(calls);
    for (std::size_t c = 0; c < calls; ++c) {
      INFO("call " << c);
      test::check_result(got[c], test::expected(preduce::plus<>{}, xs[c].data(), xs[c].size()));
    }
  }
  SUBCASE("argmax") {
    test::guarded_output<preduce::arg<float>> out(q, calls);
    for (std::size_t c = 0; c < calls; ++c) preduce::reduce_async(q, ds[c].data(), xs[c].size(), out.data() + c, preduce::argmax{});
    q.synchronize();
    CHECK(out.only_results_written(calls));
    const auto got = out.values(calls);
    for (std::size_t c = 0; c < calls; ++c) {
      INFO("call " << c);
      test::check_result(got[c], test::expected(preduce::argmax{}, xs[c].data(), xs[c].size()));
    }
  }
}

// determinism::run_to_run (the default, and named explicitly): 100 calls, one bit pattern.
TEST_CASE("determinism.run_to_run") {
  const auto& q = test::shared_queue();
  const preduce::options run_to_run{preduce::determinism::run_to_run};
  auto repeat = [&](const auto& d, std::size_t n, auto op) {
    const auto first = preduce::reduce(q, d.data(), n, op, run_to_run);
    for (int call = 1; call < 100; ++call) {
      INFO("call " << call);
      REQUIRE(test::same_bits(preduce::reduce(q, d.data(), n, op), first));
    }
  };
  for (const std::size_t n : {std::size_t(4097), std::size_t(65537), std::size_t(1000003)}) {
    SUBCASE(test::size_name(n).c_str()) {
      const preduce::device_buffer<float> spread(q, test::make_data<float>(test::data::spread, n, test::seed_for<float>("run_to_run", n)));
      SUBCASE("plus<float>") { repeat(spread, n, preduce::plus<>{}); }
      SUBCASE("moments<float>") { repeat(spread, n, preduce::moments<>{}); }
      SUBCASE("argmax<float>") {
        const preduce::device_buffer<float> ties(q, test::make_data<float>(test::data::ties, n, test::seed_for<float>("run_to_run ties", n)));
        repeat(ties, n, preduce::argmax{});
      }
    }
  }
}
