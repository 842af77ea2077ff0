// SPDX-License-Identifier: Apache-2.0
// preduce tests: the edges of whole-array reductions: NaN at the first, last, mid-block and
// block-boundary indices; inputs made only of the identity's value (+inf for argmin...);
// all-equal inputs; exact cancellation; and inputs starting 1..7 elements past an aligned address.
#include <set>

#include "test_support.hpp"

namespace {

//! Runs every comparison operator on x against the oracle, one SUBCASE each.
template <class T>
void check_comparisons(const preduce::queue& q, const std::vector<T>& x) {
  using preduce::nan_ignoring;
  SUBCASE("minimum") { test::check_whole(q, x, preduce::minimum{}); }
  SUBCASE("maximum") { test::check_whole(q, x, preduce::maximum{}); }
  SUBCASE("minmax") { test::check_whole(q, x, preduce::minmax{}); }
  SUBCASE("argmin") { test::check_whole(q, x, preduce::argmin{}); }
  SUBCASE("argmax") { test::check_whole(q, x, preduce::argmax{}); }
  SUBCASE("nan_ignoring<minimum>") { test::check_whole(q, x, nan_ignoring<preduce::minimum>{}); }
  SUBCASE("nan_ignoring<maximum>") { test::check_whole(q, x, nan_ignoring<preduce::maximum>{}); }
  SUBCASE("nan_ignoring<minmax>") { test::check_whole(q, x, nan_ignoring<preduce::minmax>{}); }
  SUBCASE("nan_ignoring<argmin>") { test::check_whole(q, x, nan_ignoring<preduce::argmin>{}); }
  SUBCASE("nan_ignoring<argmax>") { test::check_whole(q, x, nan_ignoring<preduce::argmax>{}); }
}

const std::vector<std::size_t> edge_sizes = {1, 2, 33, 257, 4097, 65537};

}  // namespace

// Indices at and around the warp, block and tile boundaries of every backend, plus the ends.
TEST_CASE_TEMPLATE_DEFINE("reduce.nan_positions", T, reduce_nan_positions) {
  const auto& q = test::shared_queue();
  const T nan = test::ref::quiet_nan<T>();
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(70001)}) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto base = test::make_data<T>(test::data::spread, n, test::seed_for<T>("nan positions", n));
      const std::set<std::size_t> positions = {0, 1, 31, 32, 255, 256, 1023, 1024, 4095, 4096, 65535, 65536, n / 2, n - 1};
      for (const std::size_t at : positions) {
        if (at >= n) continue;
        SUBCASE(("nan at " + std::to_string(at)).c_str()) {
          auto x = base;
          x[at] = nan;
          check_comparisons(q, x);
        }
        // A second NaN further on: the arg forms must still give the first NaN's index.
        SUBCASE(("nans at " + std::to_string(at) + " and " + std::to_string(n - 1)).c_str()) {
          auto x = base;
          x[at] = nan;
          x[n - 1] = nan;
          check_comparisons(q, x);
        }
      }
      SUBCASE("nan with -inf and +inf") {
        auto x = base;
        test::rng r(test::seed_for<T>("nan with inf", n));
        x[r.below(n)] = test::ref::negative_extreme<T>();
        x[r.below(n)] = test::ref::positive_extreme<T>();
        x[r.below(n)] = nan;
        check_comparisons(q, x);
      }
      SUBCASE("all nan") { check_comparisons(q, std::vector<T>(n, nan)); }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_nan_positions, test::floating_types);

// Every element equal to the identity's own value (+inf, or the largest integer, for minimum
// and argmin): the result must be that value at index 0, never the identity's index (npos).
TEST_CASE_TEMPLATE_DEFINE("reduce.identity_valued_inputs", T, reduce_identity_valued_inputs) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : edge_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      SUBCASE("all +inf or largest") { check_comparisons(q, std::vector<T>(n, test::ref::positive_extreme<T>())); }
      SUBCASE("all -inf or lowest") { check_comparisons(q, std::vector<T>(n, test::ref::negative_extreme<T>())); }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_identity_valued_inputs, test::all_types);

TEST_CASE_TEMPLATE_DEFINE("reduce.all_equal", T, reduce_all_equal) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : edge_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto one = test::make_data<T>(test::data::spread, 1, test::seed_for<T>("all equal", n));
      check_comparisons(q, std::vector<T>(n, one[0]));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_all_equal, test::all_types);

// Zeros of both signs tie (-0 == +0): the arg forms must give the first zero of either sign,
// whether the zeros are the best values (among negatives for maxima, positives for minima) or
// the only ones.
TEST_CASE_TEMPLATE_DEFINE("reduce.signed_zeros", T, reduce_signed_zeros) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : edge_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      for (const double other : {-1.0, 0.0, 1.0}) {
        SUBCASE(other == 0 ? "only zeros" : other < 0 ? "zeros and -1" : "zeros and +1") {
          test::rng r(test::seed_for<T>("signed zeros", n, std::uint64_t(other + 1)));
          std::vector<T> x(n);
          for (auto& v : x) v = test::from_double<T>(r.below(3) == 0 ? other : r.below(2) != 0 ? -0.0 : 0.0);
          check_comparisons(q, x);
        }
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_signed_zeros, test::floating_types);

// Pairs +x, -x in random order with integer x: every partial sum is an integer far below 2^24,
// so the sum is exactly 0 in any order and any accumulator.
TEST_CASE_TEMPLATE_DEFINE("reduce.cancellation", T, reduce_cancellation) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(2), std::size_t(32), std::size_t(256), std::size_t(1024), std::size_t(4096),
                              std::size_t(65536), std::size_t(65538)}) {
    SUBCASE(test::size_name(n).c_str()) {
      test::rng r(test::seed_for<T>("cancellation", n));
      std::vector<T> x(n);
      for (std::size_t i = 0; i < n; i += 2) {
        const double v = double(r.between(1, 127));
        x[i] = test::from_double<T>(v);
        x[i + 1] = test::from_double<T>(-v);
      }
      for (std::size_t i = n - 1; i > 0; --i) std::swap(x[i], x[r.below(i + 1)]);  // Fisher-Yates
      const preduce::device_buffer<T> d(q, x);
      const auto got = preduce::reduce(q, d.data(), n, preduce::plus<>{});
      CHECK(got == decltype(got)(0));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_cancellation, std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double,
                                                         preduce::half, preduce::bfloat16>);

// d_in + k for k = 1..7: every element width is read from every offset modulo a 16-byte vector.
// The elements around the input hold +inf (or the largest integer), so a read outside it
// changes every result checked here.
TEST_CASE_TEMPLATE_DEFINE("reduce.misaligned", T, reduce_misaligned) {
  const auto& q = test::shared_queue();
  for (std::size_t k = 1; k <= 7; ++k) {
    SUBCASE(("d_in + " + std::to_string(k)).c_str()) {
      for (const std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(31), std::size_t(33),
                                  std::size_t(255), std::size_t(257), std::size_t(1025), std::size_t(4097), std::size_t(65537)}) {
        SUBCASE(test::size_name(n).c_str()) {
          const auto x = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("misaligned.x", n, k), 3);
          const auto y = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("misaligned.y", n, k), 3);
          const std::vector<T> trap(n + 8, test::ref::positive_extreme<T>());
          preduce::device_buffer<T> dx(q, trap), dy(q, trap);
          preduce::copy_to_device(q, dx.data() + k, x.data(), n);
          preduce::copy_to_device(q, dy.data() + (8 - k), y.data(), n);  // y's misalignment differs from x's
          const T* in = dx.data() + k;
          SUBCASE("plus") { test::check_result(preduce::reduce(q, in, n, preduce::plus<>{}), test::expected(preduce::plus<>{}, x.data(), n)); }
          SUBCASE("sum_of_squares") {
            test::check_result(preduce::reduce(q, in, n, preduce::sum_of_squares<>{}), test::expected(preduce::sum_of_squares<>{}, x.data(), n));
          }
          SUBCASE("dot") {
            const preduce::dot<T> op{dy.data() + (8 - k)};
            test::check_result(preduce::reduce(q, in, n, op), test::expected(op, x.data(), y.data(), n));
          }
          SUBCASE("minmax") { test::check_result(preduce::reduce(q, in, n, preduce::minmax{}), test::expected(preduce::minmax{}, x.data(), n)); }
          SUBCASE("argmax") { test::check_result(preduce::reduce(q, in, n, preduce::argmax{}), test::expected(preduce::argmax{}, x.data(), n)); }
        }
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_misaligned, std::tuple<std::int8_t, std::int16_t, preduce::half, std::int32_t, float, std::int64_t, double>);
