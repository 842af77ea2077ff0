// SPDX-License-Identifier: Apache-2.0
// preduce tests: whole-array sums, products, dot and moments for every element type, on random
// data at every size of test::whole_sizes, and the accumulator rules (defaults and choices).
#include "test_support.hpp"

namespace {

//! The data shapes that tell a wrong sum from a right one: integers over their full range
//! (exact, wrapping); floats as exactly summable integers (any order must give the oracle's
//! value exactly) and as spread reals (within the error bound).
template <class T>
std::vector<test::data> sum_shapes() {
  if (std::is_integral<T>::value) return {test::data::spread};
  return {test::data::small_integers, test::data::spread};
}

//! plus or sum_of_squares (`squares`) on T at every size and shape.
template <class T, class Op>
void check_sums(Op op, bool squares, const char* name) {
  using A = test::result_of<Op, T>;
  for (const std::size_t n : test::whole_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      for (const test::data shape : sum_shapes<T>()) {
        SUBCASE(test::data_name(shape)) {
          const auto x = test::make_data<T>(shape, n, test::seed_for<T>(name, n, std::uint64_t(shape)),
                                            test::exact_magnitude<A>(n, squares));
          test::check_whole(test::shared_queue(), x, op);
        }
      }
    }
  }
}

//! dot on T at every size and shape (y drawn like x, from its own seed).
template <class T>
void check_dot() {
  using A = test::result_of<preduce::dot<T>, T>;
  const auto& q = test::shared_queue();
  for (const std::size_t n : test::whole_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      for (const test::data shape : sum_shapes<T>()) {
        SUBCASE(test::data_name(shape)) {
          const std::int64_t m = test::exact_magnitude<A>(n, true);
          const auto x = test::make_data<T>(shape, n, test::seed_for<T>("dot.x", n, std::uint64_t(shape)), m);
          const auto y = test::make_data<T>(shape, n, test::seed_for<T>("dot.y", n, std::uint64_t(shape)), m);
          const preduce::device_buffer<T> dx(q, x), dy(q, y);
          const preduce::dot<T> op{dy.data()};
          test::check_result(preduce::reduce(q, dx.data(), n, op), test::expected(op, x.data(), y.data(), n));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce.sum", T, reduce_sum) {
  SUBCASE("plus") { check_sums<T>(preduce::plus<>{}, false, "plus"); }
  SUBCASE("sum_of_squares") { check_sums<T>(preduce::sum_of_squares<>{}, true, "sum_of_squares"); }
  SUBCASE("dot") { check_dot<T>(); }
}
TEST_CASE_TEMPLATE_APPLY(reduce_sum, test::all_types);

// Products: odd integers (a product of odd numbers is odd, so it never collapses to 0 modulo
// 2^bits and every factor matters); floats near 1 (no overflow, every factor matters).
TEST_CASE_TEMPLATE_DEFINE("reduce.product", T, reduce_product) {
  SUBCASE("multiplies") { test::check_whole_sizes<T>(preduce::multiplies<>{}, "multiplies", {test::data::near_one}); }
}
TEST_CASE_TEMPLATE_APPLY(reduce_product, test::all_types);

TEST_CASE_TEMPLATE_DEFINE("reduce.moments", T, reduce_moments) {
  SUBCASE("moments") {
    test::check_whole_sizes<T>(preduce::moments<>{}, "moments", {test::data::spread, test::data::small_integers});
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_moments, test::all_types);

// The default accumulators (ops.hpp, reducer.hpp): 8/16-bit integers widen to 64 bits of their
// signedness, half and bfloat16 to float; moments in float for float-like inputs, else double.
static_assert(std::is_same<test::result_of<preduce::plus<>, std::int8_t>, std::int64_t>::value, "int8 sums in int64");
static_assert(std::is_same<test::result_of<preduce::plus<>, std::int16_t>, std::int64_t>::value, "int16 sums in int64");
static_assert(std::is_same<test::result_of<preduce::plus<>, std::uint8_t>, std::uint64_t>::value, "uint8 sums in uint64");
static_assert(std::is_same<test::result_of<preduce::plus<>, std::uint16_t>, std::uint64_t>::value, "uint16 sums in uint64");
static_assert(std::is_same<test::result_of<preduce::plus<>, std::int32_t>, std::int32_t>::value, "int32 sums in int32");
static_assert(std::is_same<test::result_of<preduce::plus<>, preduce::half>, float>::value, "half sums in float");
static_assert(std::is_same<test::result_of<preduce::plus<>, preduce::bfloat16>, float>::value, "bfloat16 sums in float");
static_assert(std::is_same<test::result_of<preduce::plus<>, double>, double>::value, "double sums in double");
static_assert(std::is_same<test::result_of<preduce::multiplies<>, std::int8_t>, std::int64_t>::value, "int8 products in int64");
static_assert(std::is_same<test::result_of<preduce::sum_of_squares<>, preduce::half>, float>::value, "half squares in float");
static_assert(std::is_same<test::result_of<preduce::moments<>, preduce::half>, preduce::moments_result<float>>::value,
              "half moments in float");
static_assert(std::is_same<test::result_of<preduce::moments<>, std::int32_t>, preduce::moments_result<double>>::value,
              "int32 moments in double");
static_assert(std::is_same<test::result_of<preduce::argmax, preduce::half>, preduce::arg<preduce::half>>::value,
              "argmax returns the element type");
static_assert(std::is_same<test::result_of<preduce::minmax, std::int8_t>, preduce::minmax_result<std::int8_t>>::value,
              "minmax returns the element type");
static_assert(std::is_same<test::result_of<preduce::logical_or, float>, bool>::value, "logical operators return bool");
// long long (int64_t is long on LP64) reduces as the 64-bit integer it is.
static_assert(std::is_same<test::result_of<preduce::plus<>, long long>, std::int64_t>::value, "long long sums in int64");

namespace {
//! Op (with an explicitly chosen accumulator A) on T at a few sizes, against the oracle in A.
template <class T, class A, class Op>
void check_chosen(Op op, test::data shape) {
  static_assert(std::is_same<test::result_of<Op, T>, A>::value ||
                    std::is_same<test::result_of<Op, T>, preduce::moments_result<A>>::value,
                "the chosen accumulator is the result type");
  for (const std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(4097), std::size_t(65537)}) {
    SUBCASE(test::size_name(n).c_str()) {
      test::check_whole(test::shared_queue(), test::make_data<T>(shape, n, test::seed_for<T>("chosen", n, sizeof(A)), 100), op);
    }
  }
}
}  // namespace

TEST_CASE("reduce.accumulators") {
  using test::data;
  SUBCASE("plus<double> on float") { check_chosen<float, double>(preduce::plus<double>{}, data::spread); }
  SUBCASE("plus<double> on half") { check_chosen<preduce::half, double>(preduce::plus<double>{}, data::spread); }
  SUBCASE("plus<float> on bfloat16") { check_chosen<preduce::bfloat16, float>(preduce::plus<float>{}, data::small_integers); }
  SUBCASE("plus<int32_t> on int8_t") { check_chosen<std::int8_t, std::int32_t>(preduce::plus<std::int32_t>{}, data::spread); }
  SUBCASE("plus<uint32_t> on uint16_t") { check_chosen<std::uint16_t, std::uint32_t>(preduce::plus<std::uint32_t>{}, data::spread); }
  // Full-range int32 data: the int64 sum differs from int32's wrapped sum, so this tells them apart.
  SUBCASE("plus<int64_t> on int32_t") { check_chosen<std::int32_t, std::int64_t>(preduce::plus<std::int64_t>{}, data::spread); }
  SUBCASE("plus<uint64_t> on uint32_t") { check_chosen<std::uint32_t, std::uint64_t>(preduce::plus<std::uint64_t>{}, data::spread); }
  SUBCASE("multiplies<double> on float") { check_chosen<float, double>(preduce::multiplies<double>{}, data::near_one); }
  SUBCASE("multiplies<int32_t> on int16_t") { check_chosen<std::int16_t, std::int32_t>(preduce::multiplies<std::int32_t>{}, data::near_one); }
  SUBCASE("sum_of_squares<double> on float") { check_chosen<float, double>(preduce::sum_of_squares<double>{}, data::spread); }
  SUBCASE("sum_of_squares<int64_t> on int32_t") {
    check_chosen<std::int32_t, std::int64_t>(preduce::sum_of_squares<std::int64_t>{}, data::spread);
  }
  SUBCASE("moments<double> on float") { check_chosen<float, double>(preduce::moments<double>{}, data::spread); }
  SUBCASE("moments<float> on int32_t") { check_chosen<std::int32_t, float>(preduce::moments<float>{}, data::small_integers); }
  SUBCASE("moments<double> on half") { check_chosen<preduce::half, double>(preduce::moments<double>{}, data::spread); }
  SUBCASE("dot<float, double> on float") {
    const auto& q = test::shared_queue();
    for (const std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(65537)}) {
      SUBCASE(test::size_name(n).c_str()) {
        const auto x = test::make_data<float>(data::spread, n, test::seed_for<float>("dot<double>.x", n));
        const auto y = test::make_data<float>(data::spread, n, test::seed_for<float>("dot<double>.y", n));
        const preduce::device_buffer<float> dx(q, x), dy(q, y);
        const preduce::dot<float, double> op{dy.data()};
        const double got = preduce::reduce(q, dx.data(), n, op);
        test::check_result(got, test::expected(op, x.data(), y.data(), n));
      }
    }
  }
  SUBCASE("int8_t sum does not wrap at 8 or 16 bits") {
    // 65537 values in [100, 127]: the sum passes int16's range by far.
    std::vector<std::int8_t> x(65537);
    test::rng r(test::seed_for<std::int8_t>("no wrap", x.size()));
    for (auto& v : x) v = std::int8_t(r.between(100, 127));
    test::check_whole(test::shared_queue(), x, preduce::plus<>{});
  }
}
