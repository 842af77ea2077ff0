// SPDX-License-Identifier: Apache-2.0
// preduce: element sources, the one way kernels read their input. A source maps a 64-bit index
// to an element; reducers lift elements into accumulators. Keeping reads behind sources lets
// one kernel serve plain arrays, dot's pairs and user transforms.
#pragma once

#include <cstdint>
#include <utility>

#include "../config.hpp"
#include "reducer.hpp"

namespace preduce {
namespace detail {

//! Reads x[i].
template <class T>
struct array_source {
  using value_type = T;
  const T* x;
  PREDUCE_HD T operator[](std::uint64_t i) const { return x[i]; }
  //! The first array read, for alignment decisions.
  PREDUCE_HD const T* base() const { return x; }
};

//! Reads (x[i], y[i]) for dot.
template <class T>
struct pair_source {
  using value_type = pair_of<T>;
  const T* x;
  const T* y;
  PREDUCE_HD pair_of<T> operator[](std::uint64_t i) const { return {x[i], y[i]}; }
  PREDUCE_HD const T* base() const { return x; }
};

//! Reads f(s[i]): transform_reduce's user transform.
template <class Source, class F>
struct transform_source {
  using value_type = decltype(std::declval<const F&>()(std::declval<typename Source::value_type>()));
  Source s;
  F f;
  PREDUCE_HD value_type operator[](std::uint64_t i) const { return f(s[i]); }
  PREDUCE_HD auto base() const { return s.base(); }
};

//! A user operator as a reducer. The operator supplies `value_type` (the accumulator and
//! result), `identity()`, and `operator()(a, b)` (associative and commutative); an optional
//! `lift(x)` turns an element into a value_type, else `value_type(x)` does.
template <class Op, class T>
struct custom_reducer {
  using acc_type = typename Op::value_type;
  using result_type = acc_type;
  static constexpr fused_op fused = fused_op::none;
  Op op;
  template <class O>
  static auto has_lift(int) -> decltype(std::declval<const O&>().lift(std::declval<T>()), std::true_type{});
  template <class O>
  static std::false_type has_lift(...);

  PREDUCE_HD acc_type identity() const { return op.identity(); }
  PREDUCE_HD acc_type lift(T x, std::uint64_t) const {
    if constexpr (decltype(has_lift<Op>(0))::value) {
      return op.lift(x);
    } else {
      return acc_type(x);
    }
  }
  PREDUCE_HD acc_type combine(acc_type a, acc_type b) const { return op(a, b); }
  PREDUCE_HD result_type finalize(acc_type a) const { return a; }
};

}  // namespace detail
}  // namespace preduce
