// SPDX-License-Identifier: Apache-2.0
// preduce: merging the results of several pieces of one reduction, in the pieces' order: what
// the distributed calls do with the ranks' local results (distributed.hpp), on the host or in a
// backend's merge kernel. Host and device code; no vendor header.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../reproducible.hpp"
#include "reducer.hpp"

namespace preduce {
namespace detail {

//! How the finalized results of pieces merge into the result of their concatenation, for the
//! reducer Red of a built-in operator: each result goes back to an accumulator exactly (the
//! results of every built-in are their accumulators, or narrower types that widen exactly), arg
//! indices shift by the piece's first index, and Red::combine joins them in the pieces' order,
//! so the merge gives the same bits wherever it runs.
template <class T> struct is_minmax_result : std::false_type {};
template <class V> struct is_minmax_result<minmax_result<V>> : std::true_type {};

//! Whether Red's results merge (every built-in's ordinary reducer; not the binned reducers of
//! determinism::reproducible's values, whose pieces merge as partials instead).
template <class Red, class A = typename Red::acc_type>
inline constexpr bool merges_results = std::is_same<A, typename Red::result_type>::value || has_value_reducer<Red>::value ||
                                       is_minmax_result<A>::value || std::is_arithmetic<A>::value;

template <class Red>
struct result_merge {
  using result_type = typename Red::result_type;
  using acc_type = typename Red::acc_type;
  //! The accumulator of a piece whose result is r, its arg index shifted by `first`.
  PREDUCE_HD static acc_type from(const result_type& r, std::uint64_t first) {
    if constexpr (has_value_reducer<Red>::value) {  // arg: {value, index}
      using V = typename Red::value_reducer::acc_type;
      return {static_cast<V>(r.value), r.index == npos ? npos : r.index + first};
    } else if constexpr (std::is_same<acc_type, result_type>::value) {
      (void)first;
      return r;
    } else if constexpr (is_minmax_result<acc_type>::value) {
      (void)first;
      using V = typename Red::lo::acc_type;
      return {static_cast<V>(r.min), static_cast<V>(r.max)};
    } else {
      (void)first;
      return static_cast<acc_type>(r);
    }
  }
  //! The merge of `count` pieces' results at results[k * stride], every arg index shifted by
  //! `shift` (the pieces' indices are already global, or there is one piece to shift). It starts
  //! from the first piece, not the identity, so one piece comes back bit for bit (a -0.0 sum
  //! stays -0.0): the distributed calls copy results as one-piece merges.
  PREDUCE_HD static result_type merge(const result_type* results, std::uint64_t count, std::uint64_t stride, std::uint64_t shift) {
    acc_type a = count == 0 ? Red::identity() : from(results[0], shift);
    for (std::uint64_t k = 1; k < count; ++k) a = Red::combine(a, from(results[k * stride], shift));
    return Red::finalize(a);
  }
};

template <class T> struct is_reproducible_partial : std::false_type {};
template <class R> struct is_reproducible_partial<reproducible_partial<R>> : std::true_type {};

//! The merge of reproducible partials (partial_of's results): exact, in any order; the value is
//! the result a single call over the concatenation returns.
template <class Partial>
struct partial_merge {
  using value_type = decltype(Partial{}.value());
  PREDUCE_HD static value_type merge(const Partial* partials, std::uint64_t count, std::uint64_t stride) {
    Partial p;
    for (std::uint64_t k = 0; k < count; ++k) p += partials[k * stride];
    return p.value();
  }
};

}  // namespace detail
}  // namespace preduce

namespace preduce {
namespace detail {

//! Result t of a merged request (shape::merged): the merge of pieces[k * stride + t] over
//! k < count into out (partials: their value), for the reducer Red the request names.
template <class Red, class Out>
PREDUCE_HD void merge_one(const typename Red::result_type* pieces, std::uint64_t count, std::uint64_t stride, std::uint64_t t,
                          std::uint64_t shift, Out* out) {
  using R = typename Red::result_type;
  if constexpr (is_reproducible_partial<R>::value) {
    *out = partial_merge<R>::merge(pieces + t, count, stride);
  } else if constexpr (merges_results<Red>) {
    *out = result_merge<Red>::merge(pieces + t, count, stride, shift);
  } else {  // never asked for: the distributed calls merge these reducers' partials instead
    (void)pieces, (void)count, (void)stride, (void)t, (void)shift, (void)out;
  }
}

//! What a merged request writes: the value of a partial, else the result itself.
template <class R, bool = is_reproducible_partial<R>::value> struct merged_of { using type = R; };
template <class R> struct merged_of<R, true> { using type = decltype(R{}.value()); };
template <class Red>
using merged_t = typename merged_of<typename Red::result_type>::type;

}  // namespace detail
}  // namespace preduce
