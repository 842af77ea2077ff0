// SPDX-License-Identifier: Apache-2.0
// preduce tests: determinism::reproducible through extend.hpp (compiled by the backend's
// compiler): transform_reduce with plus, sum_of_squares, moments and partial_of gives the bits
// of the same reduction over the transformed data; custom operators are refused.
#include <preduce/extend.hpp>

#include "test_support.hpp"

namespace {

const preduce::options reproducible{preduce::determinism::reproducible};

//! 2x, exact in float (barring overflow), so host and device transform identically.
struct twice {
  PREDUCE_HD float operator()(float x) const { return 2.0f * x; }
};
//! The element widened to double: U = double, which the binned reducers scale.
struct widened {
  PREDUCE_HD double operator()(float x) const { return double(x); }
};

//! A custom sum, which has no reproducible form.
struct my_sum {
  using value_type = double;
  PREDUCE_HD double identity() const { return 0.0; }
  PREDUCE_HD double operator()(double a, double b) const { return a + b; }
};

template <class F>
std::vector<std::invoke_result_t<F, float>> mapped(const std::vector<float>& x, F f) {
  std::vector<std::invoke_result_t<F, float>> y;
  for (const float v : x) y.push_back(f(v));
  return y;
}

}  // namespace

TEST_CASE("reproducible.transform_reduce") {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(65537)}) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = test::make_data<float>(test::data::spread, n, test::seed_for<float>("repro transform", n));
      const preduce::device_buffer<float> dx(q, x);
      const auto x2 = mapped(x, twice{});
      const auto xd = mapped(x, widened{});
      const preduce::device_buffer<float> d2(q, x2);
      const preduce::device_buffer<double> dd(q, xd);
      CHECK(test::same_bits(preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::plus<>{}, reproducible),
                            preduce::reduce(q, d2.data(), n, preduce::plus<>{}, reproducible)));
      CHECK(test::same_bits(preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::sum_of_squares<>{}, reproducible),
                            preduce::reduce(q, d2.data(), n, preduce::sum_of_squares<>{}, reproducible)));
      CHECK(test::same_bits(preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::moments<>{}, reproducible),
                            preduce::reduce(q, d2.data(), n, preduce::moments<>{}, reproducible)));
      CHECK(test::same_bits(preduce::transform_reduce(q, dx.data(), n, widened{}, preduce::plus<>{}, reproducible),
                            preduce::reduce(q, dd.data(), n, preduce::plus<>{}, reproducible)));
      CHECK(preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::partial_of(preduce::plus<>{})) ==
            preduce::reduce(q, d2.data(), n, preduce::partial_of(preduce::plus<>{})));
      // Exact operators run their ordinary kernels.
      CHECK(test::same_bits(preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::maximum{}, reproducible),
                            preduce::transform_reduce(q, dx.data(), n, twice{}, preduce::maximum{})));
    }
  }
}

TEST_CASE("reproducible.custom_operators_refused") {
  const auto& q = test::shared_queue();
  const std::vector<float> x(64, 1.0f);
  const preduce::device_buffer<float> dx(q, x);
  test::guarded_output<double> out(q, 8);
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce(q, dx.data(), x.size(), my_sum{}, reproducible));
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce_async(q, dx.data(), x.size(), out.data(), my_sum{}, reproducible));
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce_rows(q, dx.data(), 8, 8, out.data(), my_sum{}, reproducible));
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::transform_reduce(q, dx.data(), x.size(), widened{}, my_sum{}, reproducible));
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported,
                      preduce::transform_reduce(q, dx.data(), x.size(), twice{}, preduce::multiplies<>{}, reproducible));
  q.synchronize();
  CHECK(out.untouched());
}
