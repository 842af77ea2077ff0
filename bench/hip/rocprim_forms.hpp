// SPDX-License-Identifier: Apache-2.0
// preduce-bench hip: what rocPRIM reduces for each (operator, type): the input iterator, the
// operator, the initial value and the stored result, shared by the whole-array column
// (rocprim::reduce) and the rows / segments column (rocprim::segmented_reduce), so the two
// cannot disagree. rocPRIM's own operators where it has one (plus, minimum, maximum, arg_min,
// arg_max over arg_index_iterator); a transform iterator where the accumulator is wider than the
// element (narrow sums, squares, dot, half / bfloat16 compared in float); preduce's reducer
// arithmetic where rocPRIM has no operator (minmax, moments).
#pragma once

#include <rocprim/functional.hpp>
#include <rocprim/iterator/arg_index_iterator.hpp>
#include <rocprim/iterator/counting_iterator.hpp>
#include <rocprim/iterator/transform_iterator.hpp>
#include <rocprim/thread/thread_operators.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "rocprim_common.hpp"

namespace preduce {
namespace bench {
namespace amd {

//! The elements as V: the array itself when T is V, else a converting transform iterator.
template <class V, class T>
auto elements_as(const void* x) {
  const T* p = static_cast<const T*>(x);
  if constexpr (std::is_same<T, V>::value) return p;
  else return rocprim::make_transform_iterator(p, to_accumulator<V>{});
}

//! The rocPRIM form of Op on T. Members: stored (what rocPRIM writes), to_result (stored ->
//! preduce's result on the host, or as_written), input(x, y), op(), init().
template <class Op, class T, class Enable = void>
struct rocprim_form {
  // minmax and moments: preduce's reducer arithmetic.
  using red = detail::reducer_for<Op, T>;
  using stored = typename red::acc_type;
  using to_result = reducer_finalize<red>;
  static auto input(const void* x, const void*) { return rocprim::make_transform_iterator(static_cast<const T*>(x), reducer_lift<red, T>{}); }
  static auto op() { return reducer_combine<red>{}; }
  static stored init() { return red::identity(); }
};

template <class Op> struct is_sum_like : std::false_type {};
template <class A> struct is_sum_like<plus<A>> : std::true_type {};
template <class A> struct is_sum_like<sum_of_squares<A>> : std::true_type {};

template <class Op, class T>
struct rocprim_form<Op, T, std::enable_if_t<is_sum_like<Op>::value>> {
  using stored = result_of<Op, T>;
  using to_result = as_written;
  static auto input(const void* x, const void*) {
    if constexpr (Op::id == op_id::sum_of_squares) return rocprim::make_transform_iterator(static_cast<const T*>(x), square_in<stored>{});
    else return elements_as<stored, T>(x);
  }
  static auto op() { return rocprim::plus<stored>{}; }
  static stored init() { return stored(0); }
};

template <class U, class A, class T>
struct rocprim_form<dot<U, A>, T> {
  using stored = result_of<dot<U, A>, T>;
  using to_result = as_written;
  static auto input(const void* x, const void* y) {
    return rocprim::make_transform_iterator(rocprim::counting_iterator<std::int64_t>(0),
                                            product_at<T, stored>{static_cast<const T*>(x), static_cast<const T*>(y)});
  }
  static auto op() { return rocprim::plus<stored>{}; }
  static stored init() { return stored(0); }
};

template <class Op, class T>
struct rocprim_form<Op, T, std::enable_if_t<Op::id == op_id::minimum || Op::id == op_id::maximum>> {
  using red = detail::reducer_for<Op, T>;
  using stored = typename red::acc_type;  // T, or float for half / bfloat16
  using to_result = reducer_finalize<red>;
  static auto input(const void* x, const void*) { return elements_as<stored, T>(x); }
  static auto op() {
    if constexpr (Op::id == op_id::minimum) return rocprim::minimum<stored>{};
    else return rocprim::maximum<stored>{};
  }
  static stored init() { return red::identity(); }
};

template <class Op, class T>
struct rocprim_form<Op, T, std::enable_if_t<Op::id == op_id::argmin || Op::id == op_id::argmax>> {
  using red = detail::reducer_for<Op, T>;
  using V = detail::compare_t<T>;
  using stored = rocprim::key_value_pair<std::ptrdiff_t, V>;
  using to_result = key_value_to_arg<T, V>;
  static auto input(const void* x, const void*) {
    auto values = elements_as<V, T>(x);
    return rocprim::arg_index_iterator<decltype(values), std::ptrdiff_t, V>(values);
  }
  static auto op() {
    if constexpr (Op::id == op_id::argmin) return rocprim::arg_min{};
    else return rocprim::arg_max{};
  }
  static stored init() { return {std::numeric_limits<std::ptrdiff_t>::max(), red::identity().value}; }
};

template <class Op, class T>
struct rocprim_form<Op, T, std::enable_if_t<Op::id == op_id::logical_and || Op::id == op_id::logical_or>> {
  using stored = bool;
  using to_result = as_written;
  static auto input(const void* x, const void*) {
    return rocprim::make_transform_iterator(static_cast<const T*>(x), is_nonzero<detail::compare_t<T>>{});
  }
  static auto op() {
    if constexpr (Op::id == op_id::logical_and) return both{};
    else return either{};
  }
  static stored init() { return Op::id == op_id::logical_and; }
};

template <class T>
struct rocprim_form<bit_xor, T> {
  using stored = T;
  using to_result = as_written;
  static const T* input(const void* x, const void*) { return static_cast<const T*>(x); }
  static auto op() { return exclusive_or<T>{}; }
  static stored init() { return T(0); }
};

}  // namespace amd
}  // namespace bench
}  // namespace preduce
