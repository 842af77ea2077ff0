// SPDX-License-Identifier: Apache-2.0
// preduce: the reducers of determinism::reproducible and of partial_of: plus, sum_of_squares,
// dot and moments over the binned accumulator. They are ordinary reducers (identity, lift,
// combine, finalize and a chunk fold), so every backend's whole, rows, columns and segments
// kernels run them unchanged. Host and device code.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <preduce/detail/merge.hpp>
#include <preduce/detail/reducer.hpp>
#include <preduce/reproducible.hpp>

#include "binned_accumulator.hpp"

namespace preduce {
namespace portable {

//! Op (plus, sum_of_squares, dot or moments) on the binned reducers, returning Op's own result
//! type: what determinism::reproducible runs. (partial<Op> returns the partial instead.)
template <class Op>
struct reproducible_value {
  static constexpr detail::op_id id = Op::id;
  using accumulator = typename Op::accumulator;
  Op op;
};

namespace binned {

// ---------------------------------------------------------------------------------------------
// Terms: how an element becomes the one or two doubles that are added exactly
// ---------------------------------------------------------------------------------------------
// Each kind has: element, layout, count (terms per element) and
//   make(element, t0, t1): the terms; t1 only when count == 2 (and ignored unless t0 is finite).
// absolute_float kinds also have narrow(element) -> float, compared before widening.

template <class T>
inline constexpr bool is_double = std::is_same<T, double>::value;

//! The element itself: float-family elements widen exactly; doubles are scaled.
template <class T>
struct element_terms {
  using element = T;
  using layout = std::conditional_t<is_double<T>, scaled_double, absolute_float>;
  static constexpr int count = 1;
  PREDUCE_HD PREDUCE_INLINE static float narrow(const T& x) { return detail::convert<float>(x); }
  PREDUCE_HD PREDUCE_INLINE static void make(const T& x, double& t0, double&) {
    if constexpr (is_double<T>) t0 = x;
    else t0 = double(narrow(x));
  }
};

//! a * b exactly: one term (float-family: 48 bits fit a double) or the rounded product and its
//! rounding error (double; exact unless the product underflows).
template <class T>
PREDUCE_HD PREDUCE_INLINE void exact_product(const T& a, const T& b, double& t0, double& t1) {
  if constexpr (is_double<T>) {
    t0 = detail::binned::product(a, b);
    t1 = detail::binned::fused_multiply_add(a, b, -t0);
  } else {
    t0 = detail::binned::product(double(detail::convert<float>(a)), double(detail::convert<float>(b)));
  }
}

//! x * x (sum_of_squares, and moments' second sum).
template <class T>
struct square_terms {
  using element = T;
  using layout = std::conditional_t<is_double<T>, scaled_double, absolute_double>;
  static constexpr int count = is_double<T> ? 2 : 1;
  PREDUCE_HD PREDUCE_INLINE static void make(const T& x, double& t0, double& t1) { exact_product(x, x, t0, t1); }
};

//! x[i] * y[i] (dot).
template <class T>
struct product_terms {
  using element = detail::pair_of<T>;
  using layout = std::conditional_t<is_double<T>, scaled_double, absolute_double>;
  static constexpr int count = is_double<T> ? 2 : 1;
  PREDUCE_HD PREDUCE_INLINE static void make(const element& e, double& t0, double& t1) { exact_product(e.x, e.y, t0, t1); }
};

//! A lifted element: its terms, held raw until combined (see accumulator::level).
template <class Terms>
PREDUCE_HD PREDUCE_INLINE accumulator<typename Terms::layout> lift_terms(const typename Terms::element& x) {
  double t0 = 0.0, t1 = 0.0;
  Terms::make(x, t0, t1);
  const bool second = Terms::count == 2 && std::fabs(t0) <= 1.79769313486231570815e308;
  return raw_terms<typename Terms::layout>(t0, t1, second ? 2u : 1u);
}

//! Folds W elements into a: when every term fits the level (one comparison each), W plain
//! deposits and one renormalization check; otherwise term by term through with_term (out of
//! line), which raises the level or records a special value. The first is the path nearly
//! every element takes.
template <class Terms, int W>
PREDUCE_HD PREDUCE_INLINE accumulator<typename Terms::layout> fold_terms(accumulator<typename Terms::layout> a,
                                                                        const typename Terms::element (&x)[W]) {
  using L = typename Terms::layout;
  if (a.level == raw_level) a = materialized(a);
  // The terms as deposited (scaled for scaled layouts); the slow path recomputes them from x,
  // so that only these stay live across the branch.
  double placed[W], placed_second[W];
  bool fit = true;
  for (int k = 0; k < W; ++k) {
    if constexpr (std::is_same<L, absolute_float>::value) {
      const float f = Terms::narrow(x[k]);  // compared in float: no double comparison needed
      fit = fit & (std::fabs(f) <= a.gate);
      placed[k] = double(f);
    } else {
      double t0, t1 = 0.0;
      Terms::make(x[k], t0, t1);
      if constexpr (L::scaled) {
        placed[k] = detail::binned::product(t0, a.gate);
        placed_second[k] = detail::binned::product(t1, a.gate);  // |t1| <= ulp(t0) / 2: fits when t0 does
        fit = fit & (std::fabs(placed[k]) <= scaled_fit);
      } else {
        placed[k] = t0;
        fit = fit & (std::fabs(t0) <= a.gate);
      }
    }
  }
  if (fit) {
    for (int k = 0; k < W; ++k) {
      deposit(a, placed[k]);
      if constexpr (Terms::count == 2) deposit(a, placed_second[k]);
    }
    count_deposits(a, std::uint32_t(W * Terms::count));
  } else {
    for (int k = 0; k < W; ++k) {
      double t0, t1 = 0.0;
      Terms::make(x[k], t0, t1);
      a = with_term(a, t0);
      if constexpr (Terms::count == 2)
        if (std::fabs(t0) <= 1.79769313486231570815e308) a = with_term(a, t1);
    }
  }
  return a;
}

//! a's exact sum rounded once to R (float or double): round_to(to_digits(a))'s bits. Inline, from
//! the 64-bit bin totals (low_totals), where every bin's carry count is below 2^12 in magnitude
//! (every line of fewer than about 2^22 terms); else through to_digits' 128-bit totals. A finish
//! of 4-element columns from 64-bit totals took a third of to_digits' time on an H200
//! (docs/distributed.md, "Reproducible columns").
template <class R, class Layout>
PREDUCE_HD PREDUCE_INLINE R rounded(accumulator<Layout> a) {
  if (a.level == raw_level) a = materialized(a);
  if (a.specials) return special_value<R>(a.specials);
  std::int64_t totals[folds];
  if (low_totals(a, totals)) return detail::exchange::value_of<R>(std::uint8_t(a.level - level_min), totals);
  return round_to<R>(to_digits(a));
}

// ---------------------------------------------------------------------------------------------
// Reducers
// ---------------------------------------------------------------------------------------------

//! A binned sum of Terms, finalized to Result: a value (float or double, the exact sum rounded
//! once) or a reproducible_partial (the exact state).
template <class Terms, class Result>
struct sum_reducer {
  using element = typename Terms::element;
  using acc_type = accumulator<typename Terms::layout>;
  using result_type = Result;
  static constexpr detail::fused_op fused = detail::fused_op::none;
  static constexpr bool binned = true;  //!< backends may give binned reducers kernels of their own
  PREDUCE_HD static acc_type identity() { return empty_at<typename Terms::layout>(level_min); }
  PREDUCE_HD static acc_type lift(const element& x, std::uint64_t) { return lift_terms<Terms>(x); }
  PREDUCE_HD static acc_type combine(const acc_type& a, const acc_type& b) { return merged(a, b); }
  PREDUCE_HD static result_type finalize(const acc_type& a) {
    if constexpr (std::is_floating_point<Result>::value) return rounded<Result>(a);
    else return Result(to_digits(a));
  }
  //! W consecutive elements at once (see fold_terms).
  template <int W>
  PREDUCE_HD static acc_type fold(const acc_type& a, const element (&x)[W], std::uint64_t) {
    return fold_terms<Terms>(a, x);
  }
  //! a's compact form (detail/merge.hpp's exchange::compact_of), for a of fewer than 2^23 terms.
  PREDUCE_HD static void compact(acc_type a, std::uint8_t& code, std::int64_t* limbs) {
    if (a.level == raw_level) a = materialized(a);
    std::int64_t totals[folds];
    (void)low_totals(a, totals);  // exact: fewer than 2^23 terms
    detail::exchange::compact_of(a.level, a.specials, totals, code, limbs);
  }
};

//! moments' accumulator: the count, the binned sum of x and the binned sum of x^2.
template <class T>
struct moments_accumulator {
  std::uint64_t count;
  accumulator<typename element_terms<T>::layout> sum;
  accumulator<typename square_terms<T>::layout> squares;
};

//! Reproducible moments (see reproducible.hpp for the accuracy), finalized to moments_result<A>
//! or to its reproducible_partial.
template <class T, class A, bool Partial>
struct moments_reducer {
  using acc_type = moments_accumulator<T>;
  using result_type = std::conditional_t<Partial, reproducible_partial<moments_result<A>>, moments_result<A>>;
  static constexpr detail::fused_op fused = detail::fused_op::none;
  static constexpr bool binned = true;
  PREDUCE_HD static acc_type identity() {
    return {0, empty_at<typename element_terms<T>::layout>(level_min), empty_at<typename square_terms<T>::layout>(level_min)};
  }
  PREDUCE_HD static acc_type lift(const T& x, std::uint64_t) { return {1, lift_terms<element_terms<T>>(x), lift_terms<square_terms<T>>(x)}; }
  PREDUCE_HD static acc_type combine(const acc_type& a, const acc_type& b) {
    return {a.count + b.count, merged(a.sum, b.sum), merged(a.squares, b.squares)};
  }
  PREDUCE_HD static result_type finalize(const acc_type& a) {
    const reproducible_partial<moments_result<A>> partial(a.count, to_digits(a.sum), to_digits(a.squares));
    if constexpr (Partial) return partial;
    else return partial.value();
  }
  template <int W>
  PREDUCE_HD static acc_type fold(const acc_type& a, const T (&x)[W], std::uint64_t) {
    return {a.count + W, fold_terms<element_terms<T>>(a.sum, x), fold_terms<square_terms<T>>(a.squares, x)};
  }
};

//! The result of a binned sum: the value A or its partial.
template <class A, bool Partial>
using sum_result = std::conditional_t<Partial, reproducible_partial<A>, A>;
template <class T, class AccT>
using sum_accumulator_for = detail::chosen_t<AccT, typename detail::default_sum_accumulator<T>::type>;

//! The binned reducer of operator Op on element E.
template <class Op, class E, bool Partial>
struct binned_reducer;
template <class AccT, class T, bool Partial>
struct binned_reducer<plus<AccT>, T, Partial> : sum_reducer<element_terms<T>, sum_result<sum_accumulator_for<T, AccT>, Partial>> {};
template <class AccT, class T, bool Partial>
struct binned_reducer<sum_of_squares<AccT>, T, Partial>
    : sum_reducer<square_terms<T>, sum_result<sum_accumulator_for<T, AccT>, Partial>> {};
template <class U, class AccT, class T, bool Partial>
struct binned_reducer<dot<U, AccT>, detail::pair_of<T>, Partial>
    : sum_reducer<product_terms<T>, sum_result<sum_accumulator_for<T, AccT>, Partial>> {};
template <class AccT, class T, bool Partial>
struct binned_reducer<moments<AccT>, T, Partial>
    : moments_reducer<T, detail::chosen_t<AccT, detail::default_moments_accumulator<T>>, Partial> {};

}  // namespace binned
}  // namespace portable

namespace detail {
template <class Op, class E> struct reducer<partial<Op>, E> : portable::binned::binned_reducer<Op, E, true> {};
template <class Op, class E> struct reducer<portable::reproducible_value<Op>, E> : portable::binned::binned_reducer<Op, E, false> {};
template <class Op, class T> struct element_of<portable::reproducible_value<Op>, T> : element_of<Op, T> {};
}  // namespace detail
}  // namespace preduce
