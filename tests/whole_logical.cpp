// SPDX-License-Identifier: Apache-2.0
// preduce tests: whole-array logical_and / logical_or for every element type and bit_and /
// bit_or / bit_xor for every integer type, at every size, on data shaped so that a single
// element decides the result (a dropped or repeated element changes it).
#include "test_support.hpp"

namespace {

//! Logical data shapes; "one_*" put their odd element at a random index.
enum class truth { all_nonzero, one_zero, all_zero, one_nonzero };

const char* truth_name(truth t) {
  switch (t) {
    case truth::all_nonzero: return "data=all_nonzero";
    case truth::one_zero: return "data=one_zero";
    case truth::all_zero: return "data=all_zero";
    case truth::one_nonzero: return "data=one_nonzero";
  }
  return "data=?";
}

//! A zero of T; floats draw +0 or -0 (both are zero).
template <class T>
T zero(test::rng& r) {
  if constexpr (test::ref::is_floating<T>) return test::from_double<T>(r.below(2) ? 0.0 : -0.0);
  return T(0);
}

//! A non-zero of T; floats include NaN (non-zero by the rule) and the smallest subnormal.
template <class T>
T nonzero(test::rng& r) {
  if constexpr (test::ref::is_floating<T>) {
    switch (r.below(8)) {
      case 0: return test::ref::quiet_nan<T>();
      case 1:
        if constexpr (std::is_same<T, preduce::half>::value || std::is_same<T, preduce::bfloat16>::value) {
          return T::from_bits(1);
        } else {
          return std::numeric_limits<T>::denorm_min();
        }
      default: {
        const double v = r.uniform(0.5, 4.0);
        return test::from_double<T>(r.below(2) ? v : -v);
      }
    }
  } else {
    T v = 0;
    while (v == 0) v = static_cast<T>(r.next());
    return v;
  }
}

template <class T>
std::vector<T> make_truth(truth shape, std::size_t n, std::uint64_t seed) {
  test::rng r(seed);
  const bool base_nonzero = shape == truth::all_nonzero || shape == truth::one_zero;
  std::vector<T> x(n);
  for (auto& v : x) v = base_nonzero ? nonzero<T>(r) : zero<T>(r);
  if (n > 0 && shape == truth::one_zero) x[r.below(n)] = zero<T>(r);
  if (n > 0 && shape == truth::one_nonzero) x[r.below(n)] = nonzero<T>(r);
  return x;
}

//! Bitwise data shapes.
enum class bits { spread, one_cleared, one_set };

const char* bits_name(bits b) {
  switch (b) {
    case bits::spread: return "data=spread";
    case bits::one_cleared: return "data=one_cleared";
    case bits::one_set: return "data=one_set";
  }
  return "data=?";
}

//! spread: random bits. one_cleared: every element equals a dense mask except one, which lacks
//! one of its bits (bit_and must see it). one_set: every element equals a sparse mask except
//! one, which has an extra bit (bit_or must see it).
template <class T>
std::vector<T> make_bits(bits shape, std::size_t n, std::uint64_t seed) {
  test::rng r(seed);
  std::vector<T> x(n);
  if (shape == bits::spread) {
    for (auto& v : x) v = static_cast<T>(r.next());
    return x;
  }
  using U = std::make_unsigned_t<T>;
  const U one_bit = U(U(1) << r.below(sizeof(T) * 8));
  const U mask = shape == bits::one_cleared ? U(r.next() | r.next() | one_bit) : U(r.next() & r.next() & U(~one_bit));
  for (auto& v : x) v = static_cast<T>(mask);
  if (n > 0) x[r.below(n)] = static_cast<T>(shape == bits::one_cleared ? U(mask & U(~one_bit)) : U(mask | one_bit));
  return x;
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce.logical", T, reduce_logical) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : test::whole_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      for (const truth shape : {truth::all_nonzero, truth::one_zero, truth::all_zero, truth::one_nonzero}) {
        SUBCASE(truth_name(shape)) {
          const auto x = make_truth<T>(shape, n, test::seed_for<T>("logical", n, std::uint64_t(shape)));
          SUBCASE("logical_and") { test::check_whole(q, x, preduce::logical_and{}); }
          SUBCASE("logical_or") { test::check_whole(q, x, preduce::logical_or{}); }
        }
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_logical, test::all_types);

TEST_CASE_TEMPLATE_DEFINE("reduce.bitwise", T, reduce_bitwise) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : test::whole_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      for (const bits shape : {bits::spread, bits::one_cleared, bits::one_set}) {
        SUBCASE(bits_name(shape)) {
          const auto x = make_bits<T>(shape, n, test::seed_for<T>("bitwise", n, std::uint64_t(shape)));
          SUBCASE("bit_and") { test::check_whole(q, x, preduce::bit_and{}); }
          SUBCASE("bit_or") { test::check_whole(q, x, preduce::bit_or{}); }
          SUBCASE("bit_xor") { test::check_whole(q, x, preduce::bit_xor{}); }
        }
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(reduce_bitwise, test::integer_types);
