// SPDX-License-Identifier: Apache-2.0
// preduce tests: the extend.hpp path (this file is compiled by the backend's compiler through
// preduce_device_sources): a user-defined struct accumulator with lift through reduce,
// reduce_async, reduce_rows, reduce_columns and reduce_segments; an operator without lift;
// transform_reduce with user functors combined with built-in and custom operators.
#include <cfloat>

#include <preduce/extend.hpp>

#include "test_support.hpp"

namespace {

//! Count, sum, sum of squares and maximum of the elements, in one pass.
struct stats {
  std::uint64_t count;
  double sum;
  double sum_sq;
  double max;
};

struct stats_op {
  using value_type = stats;
  PREDUCE_HD stats identity() const { return {0, 0.0, 0.0, -DBL_MAX}; }
  PREDUCE_HD stats operator()(stats a, stats b) const {
    return {a.count + b.count, a.sum + b.sum, a.sum_sq + b.sum_sq, a.max < b.max ? b.max : a.max};
  }
  PREDUCE_HD stats lift(float x) const {
    const double v = x;
    return {1, v, v * v, v};
  }
};

//! A sum of int32 in int64 with no lift: elements become the accumulator by conversion.
struct wide_sum {
  using value_type = std::int64_t;
  PREDUCE_HD std::int64_t identity() const { return 0; }
  PREDUCE_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a + b; }
};

struct absolute {
  PREDUCE_HD float operator()(float x) const { return x < 0 ? -x : x; }
};
struct square {
  PREDUCE_HD float operator()(float x) const { return x * x; }
};
struct half_absolute {
  PREDUCE_HD float operator()(preduce::half h) const {
    const float x = float(h);
    return x < 0 ? -x : x;
  }
};

//! The oracle of stats_op over x[0..n). Integer data keeps every double sum exact in any
//! order, so the comparison is exact.
stats expected_stats(const float* x, std::size_t n) {
  const auto sum = test::ref::sum<double>(x, n);
  const auto sum_sq = test::ref::sum_of_squares<double>(x, n);
  REQUIRE(sum.bound == 0.0L);
  REQUIRE(sum_sq.bound == 0.0L);
  return {n, double(sum.value), double(sum_sq.value), n ? double(test::ref::maximum(x, n, test::nan_policy::propagate)) : -DBL_MAX};
}

void check_stats(const stats& got, const stats& want) {
  INFO("got {" << got.count << ", " << got.sum << ", " << got.sum_sq << ", " << got.max << "}, expected {" << want.count << ", "
               << want.sum << ", " << want.sum_sq << ", " << want.max << "}");
  CHECK(got.count == want.count);
  CHECK(got.sum == want.sum);
  CHECK(got.sum_sq == want.sum_sq);
  CHECK(got.max == want.max);
}

std::vector<float> integer_data(std::size_t n, std::uint64_t variant = 0) {
  return test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("extend", n, variant), 100);
}

template <class F>
std::vector<float> mapped(const std::vector<float>& x, F f) {
  std::vector<float> y;
  for (const float v : x) y.push_back(f(v));
  return y;
}

const std::vector<std::size_t> extend_sizes = {0, 1, 33, 257, 4097, 65537};

}  // namespace

TEST_CASE("extend.custom_operator") {
  const auto& q = test::shared_queue();
  for (const std::size_t n : extend_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = integer_data(n);
      const preduce::device_buffer<float> d(q, x);
      SUBCASE("reduce") { check_stats(preduce::reduce(q, d.data(), n, stats_op{}), expected_stats(x.data(), n)); }
      SUBCASE("reduce_async") {
        test::guarded_output<stats> out(q, 1);
        preduce::reduce_async(q, d.data(), n, out.data(), stats_op{});
        q.synchronize();
        CHECK(out.only_results_written(1));
        check_stats(out.values(1)[0], expected_stats(x.data(), n));
      }
      SUBCASE("without lift") {
        const auto xi = test::make_data<std::int32_t>(test::data::spread, n, test::seed_for<std::int32_t>("wide_sum", n));
        const preduce::device_buffer<std::int32_t> di(q, xi);
        CHECK(preduce::reduce(q, di.data(), n, wide_sum{}) == test::ref::sum<std::int64_t>(xi.data(), n));
      }
    }
  }
}

TEST_CASE("extend.custom_operator_batched") {
  const auto& q = test::shared_queue();
  for (const auto& shape : std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {3, 0}, {1, 4097}, {4097, 1}, {7, 33}, {33, 257}}) {
    const std::size_t rows = shape.first, cols = shape.second;
    SUBCASE((std::to_string(rows) + "x" + std::to_string(cols)).c_str()) {
      const auto x = integer_data(rows * cols, rows);
      const preduce::device_buffer<float> d(q, x);
      SUBCASE("reduce_rows, strided") {
        test::guarded_output<stats> out(q, rows ? 2 * rows - 1 : 0);
        preduce::reduce_rows(q, d.data(), rows, cols, preduce::strided(out.data(), 2), stats_op{});
        q.synchronize();
        CHECK(out.only_results_written(rows, 2));
        const auto got = out.values(rows, 2);
        const auto want = test::ref::per_row(rows, cols, expected_stats, x.data());
        for (std::size_t r = 0; r < rows; ++r) {
          INFO("row " << r);
          check_stats(got[r], want[r]);
        }
      }
      SUBCASE("reduce_columns") {
        test::guarded_output<stats> out(q, cols);
        preduce::reduce_columns(q, d.data(), rows, cols, out.data(), stats_op{});
        q.synchronize();
        CHECK(out.only_results_written(cols));
        const auto got = out.values(cols);
        const auto want = test::ref::per_column(rows, cols, expected_stats, x.data());
        for (std::size_t c = 0; c < cols; ++c) {
          INFO("column " << c);
          check_stats(got[c], want[c]);
        }
      }
    }
  }
  SUBCASE("reduce_segments") {
    const std::vector<std::int64_t> offsets = {0, 0, 1, 33, 33, 290, 4387};
    const auto x = integer_data(4400);
    const preduce::device_buffer<float> d(q, x);
    const preduce::device_buffer<std::int64_t> d_offsets(q, offsets);
    const std::size_t segments = offsets.size() - 1;
    test::guarded_output<stats> out(q, segments);
    preduce::reduce_segments(q, d.data(), x.size(), d_offsets.data(), segments, out.data(), stats_op{});
    q.synchronize();
    CHECK(out.only_results_written(segments));
    const auto got = out.values(segments);
    const auto want = test::ref::per_segment(offsets.data(), segments, expected_stats, x.data());
    for (std::size_t s = 0; s < segments; ++s) {
      INFO("segment " << s);
      check_stats(got[s], want[s]);
    }
  }
}

TEST_CASE("extend.transform_reduce") {
  const auto& q = test::shared_queue();
  for (const std::size_t n : extend_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = integer_data(n, 7);
      const preduce::device_buffer<float> d(q, x);
      const auto abs_x = mapped(x, absolute{});
      const auto sq_x = mapped(x, square{});
      SUBCASE("|x| with plus") {
        test::check_result(preduce::transform_reduce(q, d.data(), n, absolute{}, preduce::plus<>{}),
                           test::expected(preduce::plus<>{}, abs_x.data(), n));
      }
      SUBCASE("|x| with maximum") {
        test::check_result(preduce::transform_reduce(q, d.data(), n, absolute{}, preduce::maximum{}),
                           test::expected(preduce::maximum{}, abs_x.data(), n));
      }
      SUBCASE("x*x with plus") {
        test::check_result(preduce::transform_reduce(q, d.data(), n, square{}, preduce::plus<>{}),
                           test::expected(preduce::plus<>{}, sq_x.data(), n));
      }
      SUBCASE("x*x with a custom operator") {
        check_stats(preduce::transform_reduce(q, d.data(), n, square{}, stats_op{}), expected_stats(sq_x.data(), n));
      }
      SUBCASE("|x| of half with argmax") {
        std::vector<preduce::half> h;
        for (const float v : x) h.push_back(preduce::half(v / 8));
        const preduce::device_buffer<preduce::half> dh(q, h);
        std::vector<float> abs_h;
        for (const auto v : h) abs_h.push_back(half_absolute{}(v));
        test::check_result(preduce::transform_reduce(q, dh.data(), n, half_absolute{}, preduce::argmax{}),
                           test::expected(preduce::argmax{}, abs_h.data(), n));
      }
    }
  }
}
