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

//! A merged request's step for result t (the backends' Engine::for_each runs it for every t).
template <class Red, class Out>
struct merge_step {
  const typename Red::result_type* pieces;
  std::uint64_t count, stride, shift;
  Out* out;
  std::uint64_t out_stride;
  PREDUCE_HD void operator()(std::uint64_t t) const { merge_one<Red>(pieces, count, stride, t, shift, out + t * out_stride); }
};

//! Line t's state, folded in k's order from element k = src[t * line_step + k * element_step],
//! k < length: one thread's line in every backend's partial-lines kernel (Engine::partial_lines).
template <class Reducer, class Source>
PREDUCE_HD auto fold_line(const Reducer& red, const Source& src, std::uint64_t t, std::uint64_t length, std::uint64_t line_step,
                          std::uint64_t element_step) {
  auto a = red.identity();
  for (std::uint64_t k = 0; k < length; ++k) a = red.combine(a, red.lift(src[t * line_step + k * element_step], k));
  return a;
}

//! Partial lines' whole form: out[t] = line t's partial (Engine::partial_lines hands each line's
//! accumulator and reducer to its sink).
template <class P>
struct store_partial {
  P* out;
  template <class Red, class Acc>
  PREDUCE_HD void operator()(std::uint64_t t, const Red& red, const Acc& a) const {
    out[t] = red.finalize(a);
  }
};

//! The compact exchange of binned sums (the reproducible allreduce_rows and allreduce_columns
//! over many ranks): each rank cuts its line's partial to a one-byte code (its level, or "has
//! NaN or inf") and three int64 bin totals. The ranks' codes meet by max: the common level. Each
//! rank moves its bins down to it, dropping those below the lowest, as binned::merge does, and
//! the ranks' bins meet by integer sums: exactly binned::merge's digits, 25 bytes a line on the
//! wire instead of a partial's 56, while every bin total fits in int64: fewer than
//! terms_limit terms a line (a bin total has at most bit_length(terms) + 40 bits:
//! binned::byte_reader::sum).
namespace exchange {

constexpr std::uint8_t special_code = 255;               //!< a line with a NaN or an infinity
constexpr std::uint64_t terms_limit = std::uint64_t(1) << 23;

//! The compact form of a binned sum at `level` with `specials` whose bin totals are `totals`
//! (their low 64 bits): code = level - level_min, limbs = totals; or, where it saw a NaN or an
//! infinity, code = special_code and limbs = its NaN, +inf and -inf flags as 0 or 1 (their sums
//! over ranks say which any rank saw).
PREDUCE_HD inline void compact_of(int level, std::uint32_t specials, const std::int64_t* totals, std::uint8_t& code, std::int64_t* limbs) {
  if (specials) {
    code = special_code;
    limbs[0] = (specials & binned::saw_nan) != 0;
    limbs[1] = (specials & binned::saw_pos_inf) != 0;
    limbs[2] = (specials & binned::saw_neg_inf) != 0;
    return;
  }
  code = std::uint8_t(level - binned::level_min);
  for (int k = 0; k < binned::folds; ++k) limbs[k] = totals[k];
}

//! The value of the merged digits (level: the common code's; bins: the ranks' summed limbs; or,
//! under special_code, the flags any rank saw) rounded to R (float or double): round_to's bits,
//! the bins summed as 192-bit words in registers (binned::round_words). The exchange rounds
//! every line so.
template <class R>
PREDUCE_HD PREDUCE_INLINE R value_of(std::uint8_t common, const std::int64_t* limbs) {
  static_assert(binned::folds == 3 && binned::bin_bits == 40, "three bins 40 bits apart");
  if (common == special_code) {
    const std::uint32_t specials = (limbs[0] ? std::uint32_t(binned::saw_nan) : 0u) | (limbs[1] ? std::uint32_t(binned::saw_pos_inf) : 0u) |
                                   (limbs[2] ? std::uint32_t(binned::saw_neg_inf) : 0u);
    return specials ? binned::special_value<R>(specials) : binned::from_bits<R>(0);
  }
  // limbs[0] 2^80 + limbs[1] 2^40 + limbs[2], each sign-extended to 192 bits, added with carries.
  const std::int64_t l0 = limbs[0], l1 = limbs[1], l2 = limbs[2];
  const std::uint64_t s1 = l1 < 0 ? ~std::uint64_t(0) : 0, s2 = l2 < 0 ? ~std::uint64_t(0) : 0;
  const std::uint64_t a0 = std::uint64_t(l2), b0 = std::uint64_t(l1) << 40;
  const std::uint64_t a1 = s2, b1 = std::uint64_t(l1 >> 24), c1 = std::uint64_t(l0) << 16;
  const std::uint64_t a2 = s2, b2 = s1, c2 = std::uint64_t(l0 >> 48);
  const std::uint64_t w0 = a0 + b0, k0 = w0 < a0;
  std::uint64_t w1 = a1 + b1;
  std::uint64_t k1 = w1 < a1;
  w1 += k0;
  k1 += w1 < k0;
  const std::uint64_t t1 = w1 + c1;
  k1 += t1 < w1;
  const std::uint64_t w2 = a2 + b2 + c2 + k1;
  return binned::round_words<R>(w2, t1, w0, binned::bin_bits * (int(common) + binned::level_min - (binned::folds - 1)));
}

//! Partial lines' compact form: codes[t] = line t's code, limbs[3t ..] its bins at its own
//! level (or its NaN / inf flags): what Engine::partial_lines writes for the exchange, from each
//! line's binned accumulator through its reducer (Red::compact).
struct store_compact {
  std::uint8_t* codes;
  std::int64_t* limbs;
  template <class Red, class Acc>
  PREDUCE_HD void operator()(std::uint64_t t, const Red&, const Acc& a) const {
    Red::compact(a, codes[t], limbs + binned::folds * t);
  }
};

//! Line t's bins (store_compact's, at its own code) moved in place to the common code's level:
//! then they are its compact form at the common code's level. Lines from `lines` on (the
//! padding) get zeros.
struct align_step {
  const std::uint8_t* own;
  const std::uint8_t* common;
  std::int64_t* limbs;
  std::uint64_t lines;
  PREDUCE_HD void operator()(std::uint64_t t) const {
    std::int64_t* l = limbs + binned::folds * t;
    if (t >= lines || (common[t] == special_code && own[t] != special_code)) {  // padding; bins where only flags count
      for (int k = 0; k < binned::folds; ++k) l[k] = 0;
      return;
    }
    if (common[t] == special_code) return;  // this line's own flags
    const int shift = int(common[t]) - int(own[t]);
    for (int k = binned::folds - 1; k >= 0; --k) l[k] = k - shift >= 0 ? l[k - shift] : 0;
  }
};

//! out[t] = value_of(common[t], limbs[3t ..]): what the single-device call gives.
template <class R>
struct value_step {
  const std::int64_t* limbs;
  const std::uint8_t* common;
  R* out;
  PREDUCE_HD void operator()(std::uint64_t t) const { out[t] = value_of<R>(common[t], limbs + binned::folds * t); }
};

}  // namespace exchange

//! What a merged request writes: the value of a partial, else the result itself.
template <class R, bool = is_reproducible_partial<R>::value> struct merged_of { using type = R; };
template <class R> struct merged_of<R, true> { using type = decltype(R{}.value()); };
template <class Red>
using merged_t = typename merged_of<typename Red::result_type>::type;

}  // namespace detail
}  // namespace preduce
