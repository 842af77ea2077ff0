// SPDX-License-Identifier: Apache-2.0
// preduce: the built-in operators. Each is an empty tag; the optional template argument names
// the accumulator (void = the default rule, detail/reducer.hpp's default_sum_accumulator). The
// arithmetic the tags stand for lives in detail/reducer.hpp, shared by every backend.
#pragma once

#include <type_traits>

#include "types.hpp"

namespace preduce {

namespace detail {
//! Identifies a built-in operator across the library boundary.
enum class op_id : unsigned char {
  plus, multiplies, sum_of_squares, dot, moments,
  minimum, maximum, minmax, argmin, argmax,
  logical_and, logical_or, bit_and, bit_or, bit_xor,
};
//! How comparison operators treat NaN.
enum class nan_rule : unsigned char { propagate, ignore };
}  // namespace detail

// Arithmetic. AccT chooses the accumulator: `plus{}` sums int8 in int64 and half in float;
// `plus<double>{}` sums float in double. The result type is the accumulator type.
//! Sum. Integer sums wrap modulo 2^bits (two's complement), so they are exact and order-free.
template <class AccT = void> struct plus { static constexpr detail::op_id id = detail::op_id::plus; using accumulator = AccT; };
//! Product. Integer products wrap modulo 2^bits.
template <class AccT = void> struct multiplies { static constexpr detail::op_id id = detail::op_id::multiplies; using accumulator = AccT; };
//! Sum of x*x, squared in the accumulator type.
template <class AccT = void> struct sum_of_squares { static constexpr detail::op_id id = detail::op_id::sum_of_squares; using accumulator = AccT; };
//! Count, mean and M2 in one pass (result: moments_result<A>, A = float or double).
template <class AccT = void> struct moments { static constexpr detail::op_id id = detail::op_id::moments; using accumulator = AccT; };

//! Dot product of the input x with a second array y of the same length and layout:
//! `reduce(q, d_x, n, dot{d_y})`. Products are formed in the accumulator type.
template <class T, class AccT = void>
struct dot {
  static constexpr detail::op_id id = detail::op_id::dot;
  using accumulator = AccT;
  const T* y;
};
template <class T> dot(const T*) -> dot<T>;

// Comparisons. NaN propagates: a NaN anywhere is the result (for argmin/argmax, the first NaN's
// index). Ties go to the first index. Wrap in nan_ignoring<> for fmin/fmax behaviour.
//! Smallest value.
struct minimum { static constexpr detail::op_id id = detail::op_id::minimum; };
//! Largest value.
struct maximum { static constexpr detail::op_id id = detail::op_id::maximum; };
//! Both extremes (result: minmax_result<T>).
struct minmax { static constexpr detail::op_id id = detail::op_id::minmax; };
//! Smallest value and the first index holding it (result: arg<T>).
struct argmin { static constexpr detail::op_id id = detail::op_id::argmin; };
//! Largest value and the first index holding it (result: arg<T>).
struct argmax { static constexpr detail::op_id id = detail::op_id::argmax; };

//! IEEE fmin/fmax behaviour for a comparison operator: NaNs are skipped; the result is NaN
//! only when every input is NaN (argmin/argmax then give the first NaN's index).
template <class CompareOp>
struct nan_ignoring {
  static_assert(std::is_same<CompareOp, minimum>::value || std::is_same<CompareOp, maximum>::value ||
                    std::is_same<CompareOp, minmax>::value || std::is_same<CompareOp, argmin>::value ||
                    std::is_same<CompareOp, argmax>::value,
                "preduce::nan_ignoring<Op>: Op must be minimum, maximum, minmax, argmin or argmax");
  static constexpr detail::op_id id = CompareOp::id;
};

// Logical and bitwise.
//! True when every element is non-zero (NaN counts as non-zero). Result: bool.
struct logical_and { static constexpr detail::op_id id = detail::op_id::logical_and; };
//! True when any element is non-zero. Result: bool.
struct logical_or { static constexpr detail::op_id id = detail::op_id::logical_or; };
//! Bitwise and (integer types only).
struct bit_and { static constexpr detail::op_id id = detail::op_id::bit_and; };
//! Bitwise or (integer types only).
struct bit_or { static constexpr detail::op_id id = detail::op_id::bit_or; };
//! Bitwise xor (integer types only).
struct bit_xor { static constexpr detail::op_id id = detail::op_id::bit_xor; };

}  // namespace preduce
