// SPDX-License-Identifier: Apache-2.0
// preduce: the binned accumulator behind determinism::reproducible: the lattice of
// detail/binned_digits.hpp held in double-precision registers, so that a term costs one
// comparison and seven additions. Host and device code; no vendor header.
//
// Each bin is a double pinned inside one binade: bin k holds anchor_k + (its digits) * unit_k
// with anchor_k = 1.5 * 2^52 unit_k, so every double in that binade is a multiple of unit_k and
// adding a term rounds it to the nearest multiple of unit_k. Depositing a term r, bin by bin:
//   s = bin[k] + (r | 1); q = s - bin[k]; bin[k] = s; r = r - q;
// q is the digit (exactly; Rump's error-free extraction) and r - q is exact. `| 1` sets the
// lowest bit of r's bit pattern: for the r that matter it lies far below unit_k / 2 and breaks
// every tie away from zero, so q depends on r and unit_k alone, never on the bin's contents.
// (Without it, ties would round to even, i.e. by the parity of whatever the bin held.)
//
// Capacity. A deposit moves a bin by at most 2^39 (1 + 2^-13) units, and a bin stays in its
// binade while |bin - anchor| < 2^51 units. renormalize() moves the multiples of 2^50 units out
// of each bin into carry[k] (a double, exact up to 2^103 units: over 2^64 terms), leaving
// |bin - anchor| <= 2^49; running it every `renorm_interval` (2048) deposits keeps
// 2^49 + (2048 + 64) 2^39.0002 < 2^51. So any number of terms up to 2^64 adds exactly.
//
// Two ways to place terms in the bins:
//   absolute  bins hold terms at their own magnitude; units 2^(40 (level - k)). For float, half
//             and bfloat16 terms and exact products of two of them (all within 2^-298 .. 2^256,
//             so every anchor is a normal double).
//   scaled    bins hold terms times 2^(-40 level); units 2^(-40 k). For double terms, whose
//             absolute anchors would overflow near the top of the range. Scaling by a power of
//             two is exact (a term small enough to lose bits in it is below every bin anyway).
// Both give the same digits, so partials of either kind merge.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/detail/binned_digits.hpp>

namespace preduce {
namespace portable {
namespace binned {

using namespace detail::binned;

//! Deposits between renormalizations (see the capacity argument above).
inline constexpr std::uint32_t renorm_interval = 2048;
//! The level of a lifted element that has not been deposited yet (see accumulator::level).
inline constexpr std::int32_t raw_level = -0x40000000;

// ---------------------------------------------------------------------------------------------
// Floating-point helpers with the same result on every compiler and device
// ---------------------------------------------------------------------------------------------

//! 2^e as a double. Requires: -1022 <= e <= 1023.
PREDUCE_HD PREDUCE_INLINE double pow2(int e) {
  const std::uint64_t b = std::uint64_t(e + 1023) << 52;
  double d;
  __builtin_memcpy(&d, &b, sizeof d);  // __builtin: usable in hipcc device code (see types.hpp)
  return d;
}

//! x * 2^e for |e| <= 2046, exact when the result is a normal double (two steps, so that a
//! factor beyond the double range is never formed).
PREDUCE_HD PREDUCE_INLINE double times_pow2(double x, int e) {
  const int half = e / 2;
  return x * pow2(half) * pow2(e - half);
}

//! x with the lowest bit of its bit pattern set: |x| grows by at most one ulp.
PREDUCE_HD PREDUCE_INLINE double lowest_bit_set(double x) {
  std::uint64_t b;
  __builtin_memcpy(&b, &x, sizeof b);
  b |= 1u;
  __builtin_memcpy(&x, &b, sizeof x);
  return x;
}

// ---------------------------------------------------------------------------------------------
// The accumulator
// ---------------------------------------------------------------------------------------------

//! Whether bins are scaled (double terms) and the type terms are compared in before they are
//! deposited (float for float-family elements, compared before they are widened; double
//! otherwise). See the file comment.
template <bool Scaled, class Gate>
struct layout {
  static constexpr bool scaled = Scaled;
  using gate_type = Gate;
};
using absolute_float = layout<false, float>;    //!< float / half / bfloat16 elements
using absolute_double = layout<false, double>;  //!< exact products of float-family elements
using scaled_double = layout<true, double>;     //!< double elements and products

//! A binned sum in registers. Trivially copyable, so kernels shuffle and store it as words.
template <class Layout>
struct accumulator {
  double bin[folds];     //!< anchor_k + drift (digits since the last renormalization, in units)
  double carry[folds];   //!< digits moved out by renormalize(): a multiple of 2^50 units
  //! absolute: the largest value of Gate that fits the level (below 2^(40 level + 38));
  //! scaled: 2^(-40 level), the factor terms are scaled by.
  typename Layout::gate_type gate;
  //! The top bin's lattice index; raw_level for a lifted element not yet deposited: then bin[0]
  //! and bin[1] hold its one or two terms, `deposits` their count, and nothing else is used.
  std::int32_t level;
  std::uint32_t deposits;  //!< deposits since the last renormalization (raw: terms held)
  std::uint32_t specials;  //!< `special` flags
};

//! Exponent of bin k's unit as stored (scaled bins: relative to the level).
template <class Layout>
PREDUCE_HD PREDUCE_INLINE int stored_unit_exponent(int level, int k) {
  return Layout::scaled ? -bin_bits * k : bin_bits * (level - k);
}

//! anchor_k = 1.5 * 2^52 units, as stored.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE double anchor(int level, int k) {
  return 3.0 * pow2(51 + stored_unit_exponent<Layout>(level, k));
}

//! The gate of a level (see accumulator::gate).
template <class Layout>
PREDUCE_HD PREDUCE_INLINE typename Layout::gate_type gate_of(int level) {
  const int t = bin_bits * level + fit_bits;  // terms must stay below 2^t
  if constexpr (Layout::scaled) {
    return pow2(-bin_bits * level);
  } else if constexpr (std::is_same<typename Layout::gate_type, double>::value) {
    return detail::binned::from_bits<double>((std::uint64_t(t + 1023) << 52) - 1);  // largest double < 2^t
  } else {
    // Largest float below 2^t: FLT_MAX above the float range, 0 (only zero fits) below it.
    if (t > 127) return detail::binned::from_bits<float>(0x7f7fffffu);
    if (t < -149) return 0.0f;
    const std::uint32_t power = t >= -126 ? std::uint32_t(t + 127) << 23 : std::uint32_t(1) << (t + 149);
    return detail::binned::from_bits<float>(power - 1u);
  }
}

//! Largest scaled term that fits: the largest double below 2^38.
inline constexpr double scaled_fit = 274877906943.99997;  // 2^38 - 2^-15

//! The empty sum at `level`.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE accumulator<Layout> empty_at(int level) {
  accumulator<Layout> a;
  for (int k = 0; k < folds; ++k) {
    a.bin[k] = anchor<Layout>(level, k);
    a.carry[k] = 0.0;
  }
  a.gate = gate_of<Layout>(level);
  a.level = level;
  a.deposits = 0;
  a.specials = 0;
  return a;
}

//! A lifted element's one or two terms, deposited when it is first combined (so that combining
//! an element into an accumulator costs a deposit, not a merge).
template <class Layout>
PREDUCE_HD PREDUCE_INLINE accumulator<Layout> raw_terms(double t0, double t1, std::uint32_t count) {
  accumulator<Layout> a;
  a.bin[0] = t0;
  a.bin[1] = t1;
  for (int k = 2; k < folds; ++k) a.bin[k] = 0.0;
  for (int k = 0; k < folds; ++k) a.carry[k] = 0.0;
  a.gate = typename Layout::gate_type(0);
  a.level = raw_level;
  a.deposits = count;
  a.specials = 0;
  return a;
}

//! Deposits a term that fits the level (already scaled for scaled layouts). Does not count it.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE void deposit(accumulator<Layout>& a, double r) {
  for (int k = 0; k < folds - 1; ++k) {
    const double s = a.bin[k] + lowest_bit_set(r);
    const double q = s - a.bin[k];
    a.bin[k] = s;
    r = r - q;
  }
  a.bin[folds - 1] += lowest_bit_set(r);
}

// The rarely taken paths below are out of line (PREDUCE_NOINLINE) and take and return
// accumulators by value: an accumulator whose address reached a call would have to live in
// local memory in every kernel's hot loop, not in registers.

//! Moves the multiples of 2^50 units out of every bin into its carry (exact), so that
//! |bin - anchor| <= 2^49 units again, and resets the deposit count.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE void renormalize(accumulator<Layout>& a) {
  for (int k = 0; k < folds; ++k) {
    const int u = stored_unit_exponent<Layout>(a.level, k);
    const double drift = a.bin[k] - 3.0 * pow2(51 + u);
    // Adding and subtracting 1.5 * 2^102 units (ulp 2^50 units) rounds the drift to a multiple
    // of 2^50 units; both steps are exact.
    const double round = 3.0 * pow2(101 + u);
    const double moved = (drift + round) - round;
    a.bin[k] -= moved;
    a.carry[k] += moved;
  }
  a.deposits = 0;
}

//! Counts `terms` deposits, renormalizing when the interval is reached (inline: a call in the
//! hot loop would make ptxas save registers around it).
template <class Layout>
PREDUCE_HD PREDUCE_INLINE void count_deposits(accumulator<Layout>& a, std::uint32_t terms) {
  a.deposits += terms;
  if (a.deposits >= renorm_interval) renormalize(a);
}

//! Raises a's level to `level` (> a.level): bins move down by the difference, those that fall
//! below the lowest bin are dropped (see binned_digits.hpp), new top bins start empty.
template <class Layout>
PREDUCE_HD inline void raise_level(accumulator<Layout>& a, int level) {
  const int steps = level - a.level < folds ? level - a.level : folds;
  // Scaled bins are relative to the level: a bin that moves down one step is rescaled by 2^-40.
  const double rescale = Layout::scaled ? pow2(-bin_bits) : 1.0;
  for (int s = 0; s < steps; ++s) {
    for (int k = folds - 1; k > 0; --k) {
      a.bin[k] = a.bin[k - 1] * rescale;
      a.carry[k] = a.carry[k - 1] * rescale;
    }
    a.carry[0] = 0.0;
  }
  a.level = level;
  for (int k = 0; k < steps; ++k) a.bin[k] = anchor<Layout>(level, k);
  a.gate = gate_of<Layout>(level);
}

//! a plus one unscaled term of any value (the slow path): NaN and infinities are recorded, a
//! term too large for the level raises it first.
template <class Layout>
PREDUCE_HD PREDUCE_NOINLINE accumulator<Layout> with_term(accumulator<Layout> a, double t) {
  if (!(std::fabs(t) <= 1.79769313486231570815e308)) {  // NaN or an infinity
    a.specials |= t != t ? saw_nan : (t > 0 ? saw_pos_inf : saw_neg_inf);
    return a;
  }
  const int needed = level_of(t);
  if (needed > a.level) raise_level(a, needed);
  if constexpr (Layout::scaled) deposit(a, product(t, a.gate));
  else deposit(a, t);
  count_deposits(a, 1);
  return a;
}

//! The accumulator a lifted (raw) element's terms make.
template <class Layout>
PREDUCE_HD PREDUCE_NOINLINE accumulator<Layout> materialized(accumulator<Layout> raw) {
  accumulator<Layout> m = with_term(empty_at<Layout>(level_min), raw.bin[0]);
  if (raw.deposits > 1) m = with_term(m, raw.bin[1]);
  return m;
}

//! The merge of two accumulators (either may be raw): levels aligned, both renormalized, bins
//! and carries added.
template <class Layout>
PREDUCE_HD PREDUCE_NOINLINE accumulator<Layout> merged(accumulator<Layout> a, accumulator<Layout> b) {
  if (b.level == raw_level && a.level != raw_level) {  // an element into an accumulator: a deposit
    a = with_term(a, b.bin[0]);
    if (b.deposits > 1) a = with_term(a, b.bin[1]);
    return a;
  }
  if (a.level == raw_level) a = materialized(a);
  if (b.level == raw_level) b = materialized(b);
  if (a.level < b.level) {
    const accumulator<Layout> higher = b;
    b = a;
    a = higher;
  }
  if (b.level < a.level) raise_level(b, a.level);
  renormalize(a);
  renormalize(b);
  for (int k = 0; k < folds; ++k) {
    a.bin[k] += b.bin[k] - anchor<Layout>(a.level, k);  // |drift| <= 2^50 units: exact
    a.carry[k] += b.carry[k];
  }
  a.specials |= b.specials;
  renormalize(a);
  return a;
}

//! A renormalized accumulator's bins as exact integers: drift[k] = (bin[k] - anchor_k) in units
//! of bin k (|drift| <= 2^49), carried[k] = carry[k] in units of 2^50 bin-k units (< 2^53: see
//! the capacity argument). Counts of accumulators at one level add as integers: a GPU block sums
//! its threads' counts with integer shuffles instead of merging accumulators pairwise.
struct lattice_counts {
  std::int64_t drift[folds];
  std::int64_t carried[folds];
};

//! a's counts. Requires: a renormalized, not raw.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE lattice_counts counts_of(const accumulator<Layout>& a) {
  lattice_counts c;
  for (int k = 0; k < folds; ++k) {
    const int u = stored_unit_exponent<Layout>(a.level, k);
    c.drift[k] = std::int64_t(times_pow2(a.bin[k] - anchor<Layout>(a.level, k), -u));  // exact integers
    c.carried[k] = std::int64_t(times_pow2(a.carry[k], -u - 50));
  }
  return c;
}

//! The renormalized accumulator at `level` holding counts c (a sum of counts_of at that level
//! whose drifts are below 2^62): the multiples of 2^50 units of each drift move to the carry.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE accumulator<Layout> from_counts(int level, const lattice_counts& c, std::uint32_t specials) {
  accumulator<Layout> a = empty_at<Layout>(level);
  for (int k = 0; k < folds; ++k) {
    const int u = stored_unit_exponent<Layout>(level, k);
    const std::int64_t moved = (c.drift[k] + (std::int64_t(1) << 49)) >> 50;  // floor: kept in [-2^49, 2^49)
    const std::int64_t kept = c.drift[k] - moved * (std::int64_t(1) << 50);
    a.bin[k] += times_pow2(double(kept), u);                  // |kept| <= 2^49 units: exact
    a.carry[k] = times_pow2(double(c.carried[k] + moved), u + 50);  // below 2^53: exact
  }
  a.specials = specials;
  return a;
}

//! The low 64 bits of a's bin totals (to_digits' bins): carried * 2^50 + drift, exact where a
//! holds fewer than 2^23 terms (a total of t terms has at most bit_length(t) + 40 bits), and
//! wherever every bin's carry count is below 2^12 in magnitude, which it returns. Inline and
//! 64-bit: the compact exchange's lines and the value finish (binned::rounded) take it instead of
//! to_digits, whose 128-bit totals out of line cost 2.7x the rest of a fold of 4-element columns
//! on an H200 (docs/distributed.md). Requires: a not raw.
template <class Layout>
PREDUCE_HD PREDUCE_INLINE bool low_totals(const accumulator<Layout>& a, std::int64_t* totals) {
  const lattice_counts c = counts_of(a);
  bool carries_fit = true;
  for (int k = 0; k < folds; ++k) {
    carries_fit = carries_fit && c.carried[k] >= -(std::int64_t(1) << 12) && c.carried[k] < (std::int64_t(1) << 12);
    totals[k] = std::int64_t(std::uint64_t(c.carried[k]) << 50) + c.drift[k];
  }
  return carries_fit;
}

//! The exact content (detail::binned::digits) of an accumulator.
template <class Layout>
PREDUCE_HD PREDUCE_NOINLINE digits to_digits(accumulator<Layout> a) {
  if (a.level == raw_level) a = materialized(a);
  digits d;
  d.level = a.level;
  d.specials = a.specials;
  const lattice_counts c = counts_of(a);  // |drift| < 2^51 units also holds between renormalizations
  for (int k = 0; k < folds; ++k) d.bin[k] = digit_total::from(c.carried[k]).shifted_left(50) + digit_total::from(c.drift[k]);
  return d;
}

}  // namespace binned
}  // namespace portable
}  // namespace preduce
