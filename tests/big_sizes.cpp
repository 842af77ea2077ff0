// SPDX-License-Identifier: Apache-2.0
// preduce tests: large inputs, for a few types and operators (the small sizes cover every pair):
// sizes around 2^20 and a large prime, 2^24 whole, and 2^32 + 17 elements (64-bit sizes and
// indices), the last only where the machine has the memory for it.
#include "test_support.hpp"

namespace {

//! plus on exactly summable data (floats) or full-range data (integers).
template <class T>
void check_exact_sum(std::size_t n) {
  using A = test::result_of<preduce::plus<>, T>;
  const auto shape = std::is_integral<T>::value ? test::data::spread : test::data::small_integers;
  test::check_whole(test::shared_queue(), test::make_data<T>(shape, n, test::seed_for<T>("large plus", n), test::exact_magnitude<A>(n, false)),
                    preduce::plus<>{});
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce.large", T, reduce_large) {
  for (const std::size_t n : test::large_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      SUBCASE("plus") { check_exact_sum<T>(n); }
      SUBCASE("argmax") {
        test::check_whole(test::shared_queue(), test::make_data<T>(test::data::spread, n, test::seed_for<T>("large argmax", n)),
                          preduce::argmax{});
      }
      SUBCASE("minmax") {
        test::check_whole(test::shared_queue(), test::make_data<T>(test::data::ties, n, test::seed_for<T>("large minmax", n)),
                          preduce::minmax{});
      }
      SUBCASE("moments") {
        test::check_whole(test::shared_queue(), test::make_data<T>(test::data::spread, n, test::seed_for<T>("large moments", n)),
                          preduce::moments<double>{});
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_large, std::tuple<std::int8_t, std::int32_t, float, double, preduce::half>);

// 2^24 elements in one reduction: float sums of values in {-1, 0, 1} stay exact (every partial
// sum is an integer of magnitude <= 2^24).
TEST_CASE("reduce.n_2pow24") {
  constexpr std::size_t n = std::size_t(1) << 24;
  SUBCASE("plus<float>") { check_exact_sum<float>(n); }
  SUBCASE("plus<int32_t>") { check_exact_sum<std::int32_t>(n); }
  SUBCASE("plus<int8_t>") { check_exact_sum<std::int8_t>(n); }
  SUBCASE("argmin<double>") {
    test::check_whole(test::shared_queue(), test::make_data<double>(test::data::ties, n, test::seed_for<double>("2^24 argmin", n)),
                      preduce::argmin{});
  }
}

// n = 2^32 + 17 int8 elements: the sizes, the loop counters and the arg index must be 64-bit.
// Data in [0, 120] with the value 200 (as uint8; -56 as int8) at 2^32 + 5 and at the last
// index, so the uint8 maximum lies past 2^32 and its first index does not fit in 32 bits.
TEST_CASE("reduce.n_2pow32_plus_17") {
  if (!test::enough_memory_for(std::uint64_t(12) << 30)) return;  // 4 GiB of input plus headroom
  const auto& q = test::shared_queue();
  constexpr std::size_t n = (std::size_t(1) << 32) + 17;
  constexpr std::size_t peak = (std::size_t(1) << 32) + 5;
  preduce::device_buffer<std::int8_t> d(q, n);
  std::int64_t sum = 0;
  {
    // Filled in 64 MiB chunks so the host never holds a second copy of the input.
    constexpr std::size_t chunk = std::size_t(64) << 20;
    std::vector<std::int8_t> h(chunk);
    test::rng r(test::seed_for<std::int8_t>("2^32+17", n));
    for (std::size_t begin = 0; begin < n; begin += chunk) {
      const std::size_t len = std::min(chunk, n - begin);
      for (std::size_t i = 0; i < len; i += 8) {
        std::uint64_t bits = r.next();
        for (std::size_t b = 0; b < 8 && i + b < len; ++b, bits >>= 8) h[i + b] = std::int8_t(((bits & 0xff) * 121) >> 8);
      }
      for (const std::size_t at : {peak, n - 1}) {
        if (at >= begin && at < begin + len) h[at - begin] = std::int8_t(-56);
      }
      sum += test::ref::sum<std::int64_t>(h.data(), len);
      preduce::copy_to_device(q, d.data() + begin, h.data(), len);
    }
  }
  // No SUBCASEs: each would refill the 4 GiB input.
  CHECK_MESSAGE(preduce::reduce(q, d.data(), n, preduce::plus<>{}) == sum, "plus on int8_t");
  const auto* u = reinterpret_cast<const std::uint8_t*>(d.data());
  CHECK_MESSAGE(int(preduce::reduce(q, u, n, preduce::maximum{})) == 200, "maximum on uint8_t");
  const auto got = preduce::reduce(q, u, n, preduce::argmax{});
  CHECK_MESSAGE(int(got.value) == 200, "argmax on uint8_t: value");
  CHECK_MESSAGE(got.index == peak, "argmax on uint8_t: index");
}
