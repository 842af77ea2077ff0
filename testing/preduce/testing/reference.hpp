// SPDX-License-Identifier: Apache-2.0
// preduce: host reference reductions, the oracle of the tests and of preduce-bench.
//
// Written independently of detail/reducer.hpp on purpose: plain sequential loops over exact
// (long double or wrapping unsigned) arithmetic, with every rule spelled out here, so a bug in
// the library's combine functions cannot also hide in its oracle. Host only.
//
// Results are exact where the library's are (integer arithmetic modulo 2^bits, comparisons,
// logical and bitwise operators). Floating-point sums, products and moments come back as an
// `estimate`: the (compensated, long double) value and the worst-case error bound of computing
// it in the accumulator type A in any order, so a test can assert |got - value| <= bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <preduce/types.hpp>

namespace preduce {
namespace reference {

// ---------------------------------------------------------------------------------------------
// Element values
// ---------------------------------------------------------------------------------------------

//! True for float, double, preduce::half and preduce::bfloat16.
template <class T>
inline constexpr bool is_floating =
    std::is_floating_point<T>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

//! The exact value of x (half and bfloat16 through float, which holds them exactly).
template <class T>
long double value(T x) {
  if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16>::value) {
    return static_cast<long double>(static_cast<float>(x));
  } else {
    return static_cast<long double>(x);
  }
}

//! True when x is a NaN (never for integers).
template <class T>
bool is_nan(T x) {
  return std::isnan(value(x));
}

//! a < b by value; integers compare as integers (exact whatever long double's width).
template <class T>
bool less(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    return a < b;
  } else {
    return value(a) < value(b);
  }
}

//! +inf for floating types, the largest value for integers.
template <class T>
T positive_extreme() {
  if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16>::value) {
    return T(std::numeric_limits<float>::infinity());
  } else if constexpr (std::is_floating_point<T>::value) {
    return std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::max();
  }
}

//! -inf for floating types, the lowest value for integers.
template <class T>
T negative_extreme() {
  if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16>::value) {
    return T(-std::numeric_limits<float>::infinity());
  } else if constexpr (std::is_floating_point<T>::value) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

//! A quiet NaN of a floating type.
template <class T>
T quiet_nan() {
  static_assert(is_floating<T>, "preduce::reference::quiet_nan: floating types only");
  if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16>::value) {
    return T(std::numeric_limits<float>::quiet_NaN());
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

// ---------------------------------------------------------------------------------------------
// Error bounds
// ---------------------------------------------------------------------------------------------

//! A floating-point result known up to a bound: the true value computed in A, in any order of
//! operations, lies within `bound` of `value`.
struct estimate {
  long double value;
  long double bound;
};

//! True when got lies within e's bound (a NaN never does).
inline bool within(long double got, const estimate& e) {
  return std::fabs(got - e.value) <= e.bound;
}

//! Unit roundoff of A: 2^-24 for float, 2^-53 for double.
template <class A>
long double unit_roundoff() {
  static_assert(std::is_floating_point<A>::value, "preduce::reference::unit_roundoff: floating types only");
  return std::ldexp(1.0L, -std::numeric_limits<A>::digits);
}

//! Higham's gamma_k = k u / (1 - k u): the relative error bound of k successive roundings in A
//! (Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1). It holds for any
//! evaluation order, sequential or tree. +inf when k u >= 1, where no such bound exists.
template <class A>
long double gamma(std::size_t k) {
  const long double ku = static_cast<long double>(k) * unit_roundoff<A>();
  return ku < 1.0L ? ku / (1.0L - ku) : std::numeric_limits<long double>::infinity();
}

//! Error bound of a floating sum of n terms (each possibly rounded once more when it is formed,
//! as x*x is) whose absolute values add up to abs_sum, computed in A in any order: each term
//! passes through at most n additions plus `extra_roundings` roundings (Higham, eq. 4.4).
//! The oracle's own long double error (a few ulps of long double) is added on top.
template <class A>
long double sum_error_bound(std::size_t n, long double abs_sum, std::size_t extra_roundings = 0) {
  return gamma<A>(n + extra_roundings) * abs_sum + 4.0L * std::numeric_limits<long double>::epsilon() * abs_sum;
}

// ---------------------------------------------------------------------------------------------
// Sums and products
// ---------------------------------------------------------------------------------------------

namespace detail {

//! Neumaier's compensated summation in long double: the error is a few long double ulps of the
//! result plus O(n eps^2) sum |x|, negligible against any float or double bound.
class compensated_sum {
 public:
  void add(long double v) {
    const long double t = sum_ + v;
    if (std::fabs(sum_) >= std::fabs(v)) {
      carry_ += (sum_ - t) + v;
    } else {
      carry_ += (v - t) + sum_;
    }
    sum_ = t;
  }
  long double get() const { return sum_ + carry_; }

 private:
  long double sum_ = 0.0L;
  long double carry_ = 0.0L;
};

//! x converted to the integer accumulator A, as the matching unsigned type (so that sums and
//! products wrap modulo 2^bits with defined behaviour). A is at least as wide as T and has its
//! signedness, so the conversion to A keeps the value (sign extension for negative inputs).
template <class A, class T>
std::make_unsigned_t<A> as_unsigned(T x) {
  return static_cast<std::make_unsigned_t<A>>(static_cast<A>(x));
}

//! Reduces f(i) for i < n: integer A modulo 2^bits, floating A as a compensated estimate whose
//! bound allows `extra_roundings` per term beyond the n additions.
template <class A, class F>
auto sum_of_terms(std::size_t n, std::size_t extra_roundings, F term) {
  if constexpr (std::is_integral<A>::value) {
    std::make_unsigned_t<A> s = 0;
    for (std::size_t i = 0; i < n; ++i) s = static_cast<std::make_unsigned_t<A>>(s + term(i));
    return static_cast<A>(s);
  } else {
    compensated_sum s;
    long double abs_sum = 0.0L;
    bool integers = true;
    for (std::size_t i = 0; i < n; ++i) {
      const long double v = term(i);
      s.add(v);
      abs_sum += std::fabs(v);
      integers = integers && v == std::floor(v);
    }
    // Integer terms whose magnitudes add up to at most 2^digits: every term and every partial
    // sum, in any order, is an integer A holds exactly, so A's sum is exact.
    if (integers && abs_sum <= std::ldexp(1.0L, std::numeric_limits<A>::digits)) return estimate{s.get(), 0.0L};
    return estimate{s.get(), sum_error_bound<A>(n, abs_sum, extra_roundings)};
  }
}

//! Extra roundings when an element of T becomes an A: none where A holds every T exactly.
template <class A, class T>
constexpr std::size_t lift_roundings() {
  if constexpr (std::is_integral<T>::value) {
    return std::numeric_limits<T>::digits > std::numeric_limits<A>::digits ? 1 : 0;
  } else {
    return 0;  // half, bfloat16 and float are exact in float and double; double only goes to double
  }
}

}  // namespace detail

//! Sum of x[0..n) in accumulator A. Integer A: exact, wrapping modulo 2^bits of A (two's
//! complement). Floating A: an estimate (exact sum, error bound of any summation order in A);
//! the bound is 0 for integer values whose magnitudes add up to at most 2^digits of A, which
//! every order sums exactly (so tests on such data demand the exact result).
template <class A, class T>
auto sum(const T* x, std::size_t n) {
  if constexpr (std::is_integral<A>::value) {
    return detail::sum_of_terms<A>(n, 0, [&](std::size_t i) { return detail::as_unsigned<A>(x[i]); });
  } else {
    return detail::sum_of_terms<A>(n, detail::lift_roundings<A, T>(), [&](std::size_t i) { return value(x[i]); });
  }
}

//! Sum of x[i]^2, each square formed in A (wrapping for integers, one more rounding for floats).
template <class A, class T>
auto sum_of_squares(const T* x, std::size_t n) {
  if constexpr (std::is_integral<A>::value) {
    return detail::sum_of_terms<A>(n, 0, [&](std::size_t i) {
      const auto v = detail::as_unsigned<A>(x[i]);
      return static_cast<std::make_unsigned_t<A>>(v * v);
    });
  } else {
    return detail::sum_of_terms<A>(n, 1 + 2 * detail::lift_roundings<A, T>(), [&](std::size_t i) {
      const long double v = value(x[i]);
      return v * v;
    });
  }
}

//! Sum of x[i] * y[i], each product formed in A (wrapping for integers).
template <class A, class T>
auto dot(const T* x, const T* y, std::size_t n) {
  if constexpr (std::is_integral<A>::value) {
    return detail::sum_of_terms<A>(n, 0, [&](std::size_t i) {
      return static_cast<std::make_unsigned_t<A>>(detail::as_unsigned<A>(x[i]) * detail::as_unsigned<A>(y[i]));
    });
  } else {
    return detail::sum_of_terms<A>(n, 1 + 2 * detail::lift_roundings<A, T>(),
                                   [&](std::size_t i) { return value(x[i]) * value(y[i]); });
  }
}

//! Product of x[0..n) in A; 1 for n == 0. Integer A: exact modulo 2^bits. Floating A: an
//! estimate whose bound is gamma_(n + lift roundings) relative to the product (each of the
//! n - 1 multiplications rounds once, in any order; no overflow or underflow assumed).
template <class A, class T>
auto product(const T* x, std::size_t n) {
  if constexpr (std::is_integral<A>::value) {
    std::make_unsigned_t<A> p = 1;
    for (std::size_t i = 0; i < n; ++i) p = static_cast<std::make_unsigned_t<A>>(p * detail::as_unsigned<A>(x[i]));
    return static_cast<A>(p);
  } else {
    long double p = 1.0L;
    for (std::size_t i = 0; i < n; ++i) p *= value(x[i]);
    const long double relative = gamma<A>(n * (1 + detail::lift_roundings<A, T>())) +
                                 static_cast<long double>(n) * std::numeric_limits<long double>::epsilon();
    return estimate{p, relative * std::fabs(p)};
  }
}

//! Count, mean and M2 (sum of squared deviations from the mean) with bounds for A.
struct moments_estimate {
  std::uint64_t count;
  estimate mean;
  estimate m2;
};

//! Moments of x[0..n) computed in A, by a stable two-pass algorithm in long double (the mean
//! first, then the squared deviations from it). n == 0 gives {0, 0, 0}.
//!
//! Bounds, with m = max |x|: a pairwise (Chan) or sequential (Welford) merge in A rounds each
//! intermediate mean at most a handful of times per level, errors weighted by the share of the
//! elements below it: |mean error| <= gamma_(4n + 16) m. M2's terms are deltas of means squared
//! and scaled by counts: |M2 error| <= gamma_(8n + 32) n m^2. Both are worst cases for any merge
//! order; for float accumulators and large n they are wide, which the double tests make up for.
template <class A, class T>
moments_estimate moments(const T* x, std::size_t n) {
  if (n == 0) return {0, {0.0L, 0.0L}, {0.0L, 0.0L}};
  detail::compensated_sum s;
  long double max_abs = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    s.add(value(x[i]));
    max_abs = std::fmax(max_abs, std::fabs(value(x[i])));
  }
  const long double mean = s.get() / static_cast<long double>(n);
  detail::compensated_sum m2;
  for (std::size_t i = 0; i < n; ++i) {
    const long double d = value(x[i]) - mean;
    m2.add(d * d);
  }
  const long double ld_eps = static_cast<long double>(n) * std::numeric_limits<long double>::epsilon();
  return {static_cast<std::uint64_t>(n),
          {mean, (gamma<A>(4 * n + 16) + ld_eps) * max_abs},
          {m2.get(), (gamma<A>(8 * n + 32) + ld_eps) * static_cast<long double>(n) * max_abs * max_abs}};
}

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

//! How comparisons treat NaN. propagate: a NaN anywhere is the result (for arg forms, the first
//! NaN's index). ignore: NaNs are skipped (fmin/fmax); only an all-NaN input gives NaN.
enum class nan_policy { propagate, ignore };

namespace detail {
//! The value of x[0..n) no other beats (`better(a, b)`: a beats b), under NaN policy p; `empty`
//! when there is none (and NaN under ignore for floating T, when there are no non-NaN values).
template <class T, class Better>
T extreme(const T* x, std::size_t n, nan_policy p, T empty, Better better) {
  bool found = false;
  T best{};
  for (std::size_t i = 0; i < n; ++i) {
    if (is_nan(x[i])) {
      if (p == nan_policy::propagate) return x[i];
      continue;
    }
    if (!found || better(x[i], best)) best = x[i];
    found = true;
  }
  if (found) return best;
  if constexpr (is_floating<T>) {
    if (p == nan_policy::ignore) return quiet_nan<T>();
  }
  return empty;
}
}  // namespace detail

//! Smallest value of x[0..n). Empty: +inf (integers: the largest value) under propagate; NaN
//! under ignore (integers: the largest value). ignore with every element NaN: NaN.
template <class T>
T minimum(const T* x, std::size_t n, nan_policy p) {
  return detail::extreme(x, n, p, positive_extreme<T>(), [](T a, T b) { return less(a, b); });
}

//! Largest value of x[0..n); the mirror of minimum (empty: -inf or the lowest value / NaN).
template <class T>
T maximum(const T* x, std::size_t n, nan_policy p) {
  return detail::extreme(x, n, p, negative_extreme<T>(), [](T a, T b) { return less(b, a); });
}

//! Both extremes, each as minimum and maximum define it.
template <class T>
minmax_result<T> minmax(const T* x, std::size_t n, nan_policy p) {
  return {minimum(x, n, p), maximum(x, n, p)};
}

namespace detail {
//! The first index holding the best value by `better(a, b)` (a strictly better than b).
template <class T, class Better>
arg<T> first_best(const T* x, std::size_t n, nan_policy p, T empty_value, Better better) {
  if (n == 0) return {empty_value, npos};
  std::size_t best = n;  // n: no number seen yet
  for (std::size_t i = 0; i < n; ++i) {
    if (is_nan(x[i])) {
      if (p == nan_policy::propagate) return {x[i], i};
      continue;
    }
    if (best == n || better(x[i], x[best])) best = i;
  }
  if (best == n) return {x[0], 0};  // ignore, and every element is NaN: the first NaN
  return {x[best], best};
}
}  // namespace detail

//! The smallest value and the first index holding it. Empty: {+inf (integers: largest), npos}.
//! propagate: the first NaN and its index if there is one. ignore: NaNs skipped; all NaN: the
//! first NaN (index 0).
template <class T>
arg<T> argmin(const T* x, std::size_t n, nan_policy p) {
  return detail::first_best(x, n, p, positive_extreme<T>(), [](T a, T b) { return less(a, b); });
}

//! The largest value and the first index holding it. Empty: {-inf (integers: lowest), npos}.
template <class T>
arg<T> argmax(const T* x, std::size_t n, nan_policy p) {
  return detail::first_best(x, n, p, negative_extreme<T>(), [](T a, T b) { return less(b, a); });
}

// ---------------------------------------------------------------------------------------------
// Logical and bitwise
// ---------------------------------------------------------------------------------------------

//! True when no element equals zero (-0.0 is zero; NaN is not). Empty: true.
template <class T>
bool logical_and(const T* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_nan(x[i]) && value(x[i]) == 0.0L) return false;
  }
  return true;
}

//! True when some element is not zero (NaN counts as not zero). Empty: false.
template <class T>
bool logical_or(const T* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (is_nan(x[i]) || value(x[i]) != 0.0L) return true;
  }
  return false;
}

//! Bitwise and of integers; empty: all bits set.
template <class T>
T bit_and(const T* x, std::size_t n) {
  static_assert(std::is_integral<T>::value, "preduce::reference::bit_and: integer types only");
  T r = static_cast<T>(~T(0));
  for (std::size_t i = 0; i < n; ++i) r = static_cast<T>(r & x[i]);
  return r;
}

//! Bitwise or of integers; empty: 0.
template <class T>
T bit_or(const T* x, std::size_t n) {
  static_assert(std::is_integral<T>::value, "preduce::reference::bit_or: integer types only");
  T r = 0;
  for (std::size_t i = 0; i < n; ++i) r = static_cast<T>(r | x[i]);
  return r;
}

//! Bitwise exclusive or of integers; empty: 0.
template <class T>
T bit_xor(const T* x, std::size_t n) {
  static_assert(std::is_integral<T>::value, "preduce::reference::bit_xor: integer types only");
  T r = 0;
  for (std::size_t i = 0; i < n; ++i) r = static_cast<T>(r ^ x[i]);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Batched forms. Each calls f(slice pointers..., length) once per result, where f is one of the
// reductions above bound to its other arguments; arg indices are therefore slice-local.
// ---------------------------------------------------------------------------------------------

//! Results of f over each row of row-major rows x cols matrices (one or more, same shape).
template <class F, class... Ts>
auto per_row(std::size_t rows, std::size_t cols, F f, const Ts*... xs) {
  std::vector<decltype(f(xs..., cols))> out;
  out.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) out.push_back(f((xs + r * cols)..., cols));
  return out;
}

//! Results of f over each column of row-major rows x cols matrices; a column is gathered into
//! contiguous storage first, so element k of a column is row k.
template <class F, class... Ts>
auto per_column(std::size_t rows, std::size_t cols, F f, const Ts*... xs) {
  std::vector<decltype(f(xs..., rows))> out;
  out.reserve(cols);
  auto column = [rows, cols](const auto* x, std::size_t j) {
    std::vector<std::remove_cv_t<std::remove_pointer_t<decltype(x)>>> c(rows);
    for (std::size_t r = 0; r < rows; ++r) c[r] = x[r * cols + j];
    return c;
  };
  for (std::size_t j = 0; j < cols; ++j) {
    const auto gathered = std::make_tuple(column(xs, j)...);
    out.push_back(std::apply([&](const auto&... c) { return f(c.data()..., rows); }, gathered));
  }
  return out;
}

//! Results of f over each segment [offsets[i], offsets[i + 1]) for i < segments. The offsets
//! must be valid (non-decreasing, within the input): the oracle does not check them.
template <class Off, class F, class... Ts>
auto per_segment(const Off* offsets, std::size_t segments, F f, const Ts*... xs) {
  std::vector<decltype(f(xs..., std::size_t{}))> out;
  out.reserve(segments);
  for (std::size_t i = 0; i < segments; ++i) {
    const auto begin = static_cast<std::size_t>(offsets[i]);
    const auto length = static_cast<std::size_t>(offsets[i + 1]) - begin;
    out.push_back(f((xs + begin)..., length));
  }
  return out;
}

}  // namespace reference
}  // namespace preduce
