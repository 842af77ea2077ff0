// SPDX-License-Identifier: Apache-2.0
// preduce-bench: checks a column's results against the host reference (preduce::reference, the
// project's oracle): exact where the operator is exact, within the reference's error bound for
// floating sums and moments.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <preduce/testing/reference.hpp>

#include "cases.hpp"

namespace preduce {
namespace bench {

//! How a column's results compare with the reference, best first.
enum class verdict {
  ok,     //!< every result exact, or within a finite error bound
  loose,  //!< within the bound, but some bound was infinite (float sums past ~2^24 terms): only NaN fails
  tie,    //!< (vendor only) an arg index is not the first among equal values; the vendor does not promise it
  fail,   //!< a result is wrong
};

inline const char* verdict_name(verdict v) {
  switch (v) {
    case verdict::ok: return "ok";
    case verdict::loose: return "ok*";
    case verdict::tie: return "tie";
    case verdict::fail: return "FAIL";
  }
  return "?";
}

//! The outcome of checking one column of one case.
struct check_result {
  verdict worst = verdict::ok;
  double max_rel_error = 0;  //!< largest |got - exact| / |exact| over floating sums and moments
  std::string first_failure;  //!< "result i: expected ..., got ..." for the first failing result
};

//! Where the results came from: vendor columns get two allowances (see verdict::tie, and empty
//! segments, whose identity is each vendor's own convention and is not checked).
enum class origin { preduce, vendor };

namespace checking {

//! The reference computation of Op on T for one slice: f(x, length) or, for dot, f(x, y, length).
template <class Op, class T>
auto reference_of() {
  using R = result_of<Op, T>;
  constexpr op_id id = Op::id;
  if constexpr (id == op_id::plus) return [](const T* x, std::size_t n) { return reference::sum<R>(x, n); };
  else if constexpr (id == op_id::sum_of_squares) return [](const T* x, std::size_t n) { return reference::sum_of_squares<R>(x, n); };
  else if constexpr (id == op_id::dot) return [](const T* x, const T* y, std::size_t n) { return reference::dot<R>(x, y, n); };
  else if constexpr (id == op_id::moments) return [](const T* x, std::size_t n) { return reference::moments<decltype(R::mean)>(x, n); };
  else if constexpr (id == op_id::minimum) return [](const T* x, std::size_t n) { return reference::minimum(x, n, reference::nan_policy::propagate); };
  else if constexpr (id == op_id::maximum) return [](const T* x, std::size_t n) { return reference::maximum(x, n, reference::nan_policy::propagate); };
  else if constexpr (id == op_id::minmax) return [](const T* x, std::size_t n) { return reference::minmax(x, n, reference::nan_policy::propagate); };
  else if constexpr (id == op_id::argmin) return [](const T* x, std::size_t n) { return reference::argmin(x, n, reference::nan_policy::propagate); };
  else if constexpr (id == op_id::argmax) return [](const T* x, std::size_t n) { return reference::argmax(x, n, reference::nan_policy::propagate); };
  else if constexpr (id == op_id::logical_and) return [](const T* x, std::size_t n) { return reference::logical_and(x, n); };
  else if constexpr (id == op_id::logical_or) return [](const T* x, std::size_t n) { return reference::logical_or(x, n); };
  else return [](const T* x, std::size_t n) { return reference::bit_xor(x, n); };
}

template <class F, class... Xs>
auto over_layout(const case_spec& c, const std::int64_t* offsets, F f, const Xs*... xs) {
  switch (c.layout) {
    case shape::rows: return reference::per_row(c.rows, c.cols, f, xs...);
    case shape::columns: return reference::per_column(c.rows, c.cols, f, xs...);
    case shape::segments: return reference::per_segment(offsets, c.segments, f, xs...);
    case shape::whole: break;
  }
  return decltype(reference::per_row(1, 1, f, xs...)){f(xs..., c.n)};
}

template <class T>
std::string text(const T& v) {
  std::ostringstream s;
  s.precision(17);
  if constexpr (std::is_same<T, bool>::value) s << (v ? "true" : "false");
  else if constexpr (std::is_integral<T>::value) s << +v;
  else s << static_cast<double>(reference::value(v));
  return s.str();
}
template <class T> std::string text(const arg<T>& a) { return "{" + text(a.value) + ", index " + std::to_string(a.index) + "}"; }
template <class T> std::string text(const minmax_result<T>& m) { return "{" + text(m.min) + ", " + text(m.max) + "}"; }
template <class A> std::string text(const moments_result<A>& m) {
  return "{count " + std::to_string(m.count) + ", mean " + text(m.mean) + ", m2 " + text(m.m2) + "}";
}
inline std::string text(const reference::estimate& e) { return text(double(e.value)) + " +- " + text(double(e.bound)); }
inline std::string text(const reference::moments_estimate& m) {
  return "{count " + std::to_string(m.count) + ", mean " + text(m.mean) + ", m2 " + text(m.m2) + "}";
}

//! The verdict on one result, and its relative error where it is a floating estimate.
struct one {
  verdict v;
  double rel_error;
};

inline one against(long double got, const reference::estimate& e) {
  const long double err = std::fabs(got - e.value);
  const double rel = e.value != 0 ? double(err / std::fabs(e.value)) : double(err);
  if (!reference::within(got, e)) return {verdict::fail, rel};
  return {std::isinf(e.bound) ? verdict::loose : verdict::ok, rel};
}

template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (reference::is_floating<T>) {
    if (reference::is_nan(a) || reference::is_nan(b)) return reference::is_nan(a) && reference::is_nan(b);
    return reference::value(a) == reference::value(b);
  } else {
    return a == b;
  }
}

//! The error bound of a reproducible floating sum (reproducible.hpp) of the terms term(k),
//! k < length, whose result is got: ulp(got) / 2 + length 2^-78 max |term|, plus the
//! reference's own error (4 long double epsilons of sum |term|, as sum_error_bound allows).
template <class R, class Term>
long double reproducible_bound(R got, std::size_t length, Term term) {
  long double max_term = 0, abs_sum = 0;
  for (std::size_t k = 0; k < length; ++k) {
    const long double t = std::fabs(term(k));
    max_term = std::max(max_term, t);
    abs_sum += t;
  }
  const R magnitude = std::fabs(got);
  const long double half_ulp = (static_cast<long double>(std::nextafter(magnitude, std::numeric_limits<R>::infinity())) - magnitude) / 2;
  return half_ulp + std::ldexp(static_cast<long double>(length) * max_term, -78) +
         4.0L * std::numeric_limits<long double>::epsilon() * abs_sum;
}

}  // namespace checking

//! Checks got[0 .. c.results()) (a column's results of Op on T) against the reference over the
//! host copies of the input (x, y for dot, offsets for segments). Under det reproducible,
//! preduce's floating sums, sums of squares and dots must meet the binned sum's own bound.
template <class Op, class T>
check_result check_results(const case_spec& c, const result_of<Op, T>* got, const std::vector<T>& x, const std::vector<T>& y,
                           const std::vector<std::int64_t>& offsets, origin from, determinism det) {
  using namespace checking;
  const auto f = reference_of<Op, T>();
  const auto expected = [&] {
    if constexpr (Op::id == op_id::dot) return over_layout(c, offsets.data(), f, x.data(), y.data());
    else return over_layout(c, offsets.data(), f, x.data());
  }();

  // The length of result i's slice, and its element k.
  auto slice_length = [&](std::size_t i) -> std::size_t {
    switch (c.layout) {
      case shape::rows: return c.cols;
      case shape::columns: return c.rows;
      case shape::segments: return std::size_t(offsets[i + 1] - offsets[i]);
      case shape::whole: break;
    }
    return c.n;
  };
  auto slice_index = [&](std::size_t i, std::size_t k) -> std::size_t {
    switch (c.layout) {
      case shape::rows: return i * c.cols + k;
      case shape::columns: return k * c.cols + i;
      case shape::segments: return std::size_t(offsets[i]) + k;
      case shape::whole: break;
    }
    return k;
  };
  auto slice_element = [&](std::size_t i, std::size_t k) -> const T& { return x[slice_index(i, k)]; };
  constexpr bool binned_sum = Op::id == op_id::plus || Op::id == op_id::sum_of_squares || Op::id == op_id::dot;

  check_result r;
  for (std::size_t i = 0; i < c.results(); ++i) {
    if (from == origin::vendor && slice_length(i) == 0) continue;
    const auto& g = got[i];
    const auto& e = expected[i];
    one o{verdict::ok, 0.0};
    if constexpr (std::is_same<std::decay_t<decltype(e)>, reference::estimate>::value) {
      reference::estimate bound = e;
      if constexpr (binned_sum && reference::is_floating<T>) {
        if (from == origin::preduce && det == determinism::reproducible) {
          bound.bound = reproducible_bound(g, slice_length(i), [&](std::size_t k) {
            const long double v = reference::value(slice_element(i, k));
            if constexpr (Op::id == op_id::plus) return v;
            else if constexpr (Op::id == op_id::sum_of_squares) return v * v;
            else return v * reference::value(y[slice_index(i, k)]);
          });
        }
      }
      o = against(static_cast<long double>(g), bound);
    } else if constexpr (std::is_same<std::decay_t<decltype(e)>, reference::moments_estimate>::value) {
      const one mean = against(g.mean, e.mean), m2 = against(g.m2, e.m2);
      o = {g.count != e.count ? verdict::fail : std::max(mean.v, m2.v), std::max(mean.rel_error, m2.rel_error)};
    } else if constexpr (Op::id == op_id::argmin || Op::id == op_id::argmax) {
      if (!same_value(g.value, e.value)) o.v = verdict::fail;
      else if (g.index != e.index)
        o.v = from == origin::vendor && g.index < slice_length(i) && same_value(slice_element(i, g.index), e.value) ? verdict::tie
                                                                                                                : verdict::fail;
    } else if constexpr (Op::id == op_id::minmax) {
      if (!same_value(g.min, e.min) || !same_value(g.max, e.max)) o.v = verdict::fail;
    } else {
      if (!same_value(static_cast<std::decay_t<decltype(g)>>(e), g)) o.v = verdict::fail;
    }
    r.max_rel_error = std::max(r.max_rel_error, o.rel_error);
    if (o.v == verdict::fail && r.first_failure.empty())
      r.first_failure = "result " + std::to_string(i) + ": expected " + text(e) + ", got " + text(g);
    r.worst = std::max(r.worst, o.v);
  }
  return r;
}

}  // namespace bench
}  // namespace preduce
