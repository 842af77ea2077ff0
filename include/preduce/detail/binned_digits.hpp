// SPDX-License-Identifier: Apache-2.0
// preduce: the exact content of a reproducible (binned) sum, as every backend and the public
// reproducible_partial hold it, with the exact merge and the correctly rounded conversion to
// float or double. Host and device code; no vendor header.
//
// The lattice. A binned sum keeps `folds` (3) bins of `bin_bits` (40) bits each at fixed
// positions: the top bin of level L counts units of 2^(40 L), the next 2^(40 (L - 1)), the
// lowest 2^(40 (L - 2)). A term t enters as its digits: going down from the top bin, each bin
// takes the nearest multiple of its unit to what is left (ties away from zero) and passes the
// rest on; whatever is left below the lowest bin's unit is dropped. A term's digit in a bin
// depends only on t and that bin's unit, never on the other terms or the order, so every bin
// holds the same exact integer however the terms were split and merged. The level is the
// smallest L >= level_min with |t| < 2^(40 L + 38) for every term (see level_of): a function of
// max |t|, the same for every order. Merging two sums at different levels drops the lower one's
// bins that fall below the higher level's lowest bin, exactly as if its terms had entered at the
// higher level from the start (their digits above those bins are the same).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"
#include "../types.hpp"

namespace preduce {
namespace detail {
namespace binned {

inline constexpr int folds = 3;            //!< bins per sum
inline constexpr int bin_bits = 40;        //!< bits between the units of neighbouring bins
inline constexpr int fit_bits = 38;        //!< a term fits level L when |t| < 2^(40 L + fit_bits)
inline constexpr int level_min = -24;      //!< lowest level (an empty sum's): lowest unit 2^-1040
inline constexpr int level_max = 25;       //!< highest level: every finite double fits (2^1038)

//! Special values seen among the terms (a NaN term, an infinite term of either sign).
enum special : std::uint32_t { saw_nan = 1u, saw_pos_inf = 2u, saw_neg_inf = 4u };

//! The level a term needs: the smallest L >= level_min with |t| < 2^(40 L + 38); level_min for
//! zeros and subnormals. Requires: t finite.
PREDUCE_HD PREDUCE_INLINE int level_of(double t) {
  std::uint64_t b;
  __builtin_memcpy(&b, &t, sizeof b);  // __builtin: usable in hipcc device code (see types.hpp)
  const int e = int((b >> 52) & 0x7ffu) - 1023;  // floor(log2 |t|) for normal t; -1023 below
  // L = ceil((e - 37) / 40) = floor((e + 2) / 40), kept on non-negative operands (e >= -1023).
  const int level = (e + 2 + 40 * 32) / 40 - 32;
  return level < level_min ? level_min : level;
}

//! a * b rounded once, never fused with a neighbouring addition into an FMA (nvcc and hipcc
//! contract a * b + c by default, host compilers may): the device intrinsic, and on the host an
//! empty asm statement that makes the product opaque to the optimiser.
PREDUCE_HD PREDUCE_INLINE double product(double a, double b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __dmul_rn(a, b);
#else
  double p = a * b;
#if defined(__x86_64__)
  __asm__("" : "+x"(p));
#elif defined(__aarch64__)
  __asm__("" : "+w"(p));
#else
  __asm__("" : "+m"(p));
#endif
  return p;
#endif
}

//! a * b + c rounded once (IEEE fma, correctly rounded on every device and host libm).
PREDUCE_HD PREDUCE_INLINE double fused_multiply_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

//! A two's complement integer of 64 * Limbs bits (limb 0 least significant).
template <int Limbs>
struct wide_int {
  std::uint64_t limb[Limbs];

  PREDUCE_HD static wide_int from(std::int64_t v) {
    wide_int w;
    for (int i = 0; i < Limbs; ++i) w.limb[i] = i == 0 ? std::uint64_t(v) : (v < 0 ? ~std::uint64_t(0) : 0);
    return w;
  }
  //! The same value in a wider (or equal) integer, sign-extended.
  template <int Wider>
  PREDUCE_HD wide_int<Wider> widen() const {
    static_assert(Wider >= Limbs, "wide_int::widen: narrowing");
    wide_int<Wider> w;
    for (int i = 0; i < Wider; ++i) w.limb[i] = i < Limbs ? limb[i] : (negative() ? ~std::uint64_t(0) : 0);
    return w;
  }
  PREDUCE_HD bool negative() const { return (limb[Limbs - 1] >> 63) != 0; }
  PREDUCE_HD bool is_zero() const {
    std::uint64_t any = 0;
    for (int i = 0; i < Limbs; ++i) any |= limb[i];
    return any == 0;
  }
  PREDUCE_HD friend wide_int operator+(const wide_int& a, const wide_int& b) {
    wide_int s;
    std::uint64_t carry = 0;
    for (int i = 0; i < Limbs; ++i) {
      const std::uint64_t t = a.limb[i] + carry;
      const std::uint64_t c1 = t < carry;
      s.limb[i] = t + b.limb[i];
      carry = c1 + (s.limb[i] < t);
    }
    return s;
  }
  PREDUCE_HD wide_int operator-() const {
    wide_int n;
    for (int i = 0; i < Limbs; ++i) n.limb[i] = ~limb[i];
    return n + from(1);
  }
  PREDUCE_HD friend wide_int operator-(const wide_int& a, const wide_int& b) { return a + (-b); }
  //! Shifted left by s bits (0 <= s < 64 * Limbs); bits shifted out are lost.
  PREDUCE_HD wide_int shifted_left(int s) const {
    wide_int r;
    const int whole = s / 64, part = s % 64;
    for (int i = Limbs - 1; i >= 0; --i) {
      const int from_i = i - whole;
      std::uint64_t v = from_i >= 0 ? limb[from_i] << part : 0;
      if (part && from_i - 1 >= 0) v |= limb[from_i - 1] >> (64 - part);
      r.limb[i] = v;
    }
    return r;
  }
  //! Bit i (0 <= i) of the value read as unsigned; 0 past the top.
  PREDUCE_HD unsigned bit(int i) const { return i < 64 * Limbs ? unsigned(limb[i / 64] >> (i % 64)) & 1u : 0u; }
  //! Whether any bit below bit i is set (read as unsigned).
  PREDUCE_HD bool any_below(int i) const {
    for (int k = 0; k < Limbs && 64 * k < i; ++k) {
      const int n = i - 64 * k;
      const std::uint64_t mask = n >= 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << n) - 1);
      if (limb[k] & mask) return true;
    }
    return false;
  }
  //! 64 bits starting at bit i (read as unsigned; zeros past the top).
  PREDUCE_HD std::uint64_t bits_from(int i) const {
    if (i >= 64 * Limbs) return 0;
    const int k = i / 64, part = i % 64;
    std::uint64_t v = limb[k] >> part;
    if (part && k + 1 < Limbs) v |= limb[k + 1] << (64 - part);
    return v;
  }
  //! Position of the highest set bit plus one, read as unsigned (0 for zero).
  PREDUCE_HD int bit_length() const {
    for (int k = Limbs - 1; k >= 0; --k) {
      if (limb[k] == 0) continue;
      int n = 64;
      while (!(limb[k] >> (n - 1))) --n;
      return 64 * k + n;
    }
    return 0;
  }
};

//! One bin's digit total: exact for any sum of up to 2^64 terms (|digit| <= 2^39.01 each).
using digit_total = wide_int<2>;

//! The exact content of a binned sum: what reproducible_partial stores and serialises.
struct digits {
  std::int32_t level;         //!< the top bin's lattice index L
  std::uint32_t specials;     //!< `special` flags
  digit_total bin[folds];     //!< bin[k]: total digits in units of 2^(40 (level - k))
};

//! The sum of nothing: level_min, no digits, no specials.
PREDUCE_HD inline digits empty_digits() {
  digits d;
  d.level = level_min;
  d.specials = 0;
  for (int k = 0; k < folds; ++k) d.bin[k] = digit_total::from(0);
  return d;
}

//! The exact merge of two binned sums: the higher level, the lower sum's bins moved down to it
//! (those below the lowest bin dropped), digits added. Associative and commutative to the bit.
PREDUCE_HD inline digits merge(digits a, const digits& b) {
  digits lo = b;
  if (a.level < b.level) {
    lo = a;
    a = b;
  }
  const int shift = a.level - lo.level;
  for (int k = 0; k + shift < folds; ++k) a.bin[k + shift] = a.bin[k + shift] + lo.bin[k];
  a.specials |= lo.specials;
  return a;
}

//! IEEE layout of float and double, for the rounding below.
template <class R>
struct format {
  static constexpr int precision = std::is_same<R, float>::value ? 24 : 53;
  static constexpr int exponent_min = std::is_same<R, float>::value ? -126 : -1022;
  static constexpr int bias = std::is_same<R, float>::value ? 127 : 1023;
  static constexpr int exponent_field_max = std::is_same<R, float>::value ? 255 : 2047;
  using bits_type = std::conditional_t<std::is_same<R, float>::value, std::uint32_t, std::uint64_t>;
};

template <class R>
PREDUCE_HD PREDUCE_INLINE R from_bits(typename format<R>::bits_type b) {
  R r;
  __builtin_memcpy(&r, &b, sizeof r);
  return r;
}

//! The R of sign `neg` whose rounded significand is mant (at most 2^precision: a rounding that
//! carried into the next binade) in units of 2^exponent, mant already cut to the precision the
//! exponent leaves (fewer bits for subnormals): overflow gives infinity.
template <class R>
PREDUCE_HD PREDUCE_INLINE R packed(bool neg, std::uint64_t mant, int exponent) {
  using F = format<R>;
  using B = typename F::bits_type;
  const B sign = neg ? B(1) << (sizeof(B) * 8 - 1) : B(0);
  if (mant == 0) return from_bits<R>(sign);
  if (mant == (std::uint64_t(1) << F::precision)) {  // rounding carried into a new binade
    mant >>= 1;
    ++exponent;
  }
  const std::uint64_t hidden = std::uint64_t(1) << (F::precision - 1);
  if (mant < hidden) return from_bits<R>(sign | B(mant));  // subnormal: exponent field 0
  const int field = exponent + (F::precision - 1) + F::bias;
  if (field >= F::exponent_field_max) return from_bits<R>(sign | (B(F::exponent_field_max) << (F::precision - 1)));
  return from_bits<R>(sign | (B(field) << (F::precision - 1)) | B(mant - hidden));
}

//! m * 2^e rounded to nearest R, ties to even (subnormals and overflow to infinity included).
//! Also returns, in *rounded_units, the rounded magnitude in units of 2^e when it is finite and
//! not below 2^e's own scale (so that m minus it is the rounding error), else leaves it alone.
template <class R, int Limbs>
PREDUCE_HD PREDUCE_NOINLINE R round_scaled(const wide_int<Limbs>& m, int e, wide_int<Limbs>* rounded_units = nullptr) {
  using F = format<R>;
  const bool neg = m.negative();
  const wide_int<Limbs> mag = neg ? -m : m;
  const int length = mag.bit_length();
  if (length == 0) return from_bits<R>(0);
  const int top = length - 1 + e;  // exponent of the leading bit
  const int precision = top >= F::exponent_min ? F::precision : F::precision - (F::exponent_min - top);
  const int shift = length - precision;  // bits dropped below the kept ones
  std::uint64_t mant;
  if (shift <= 0) {
    mant = mag.limb[0] << (-shift);  // length <= precision <= 53: all bits in limb 0
  } else {
    mant = precision > 0 ? mag.bits_from(shift) & ((std::uint64_t(1) << precision) - 1) : 0;
    const bool half = mag.bit(shift - 1) != 0;
    if (half && (mag.any_below(shift - 1) || (mant & 1u))) ++mant;
  }
  if (rounded_units && shift >= 0) {
    const wide_int<Limbs> kept = wide_int<Limbs>::from(std::int64_t(mant)).shifted_left(shift);
    *rounded_units = neg ? -kept : kept;
  }
  return packed<R>(neg, mant, e + shift);
}

//! Bits of x (0 for 0): its highest set bit's position plus one.
PREDUCE_HD PREDUCE_INLINE int bit_length64(std::uint64_t x) {
  int n = 0;
  for (int step = 32; step > 0; step /= 2)
    if (x >> step) x >>= step, n += step;
  return n + int(x != 0);
}

//! round_scaled for m = (w2, w1, w0), a 192-bit two's complement integer (w2 highest): the same
//! bits, with every word a scalar. round_scaled's wide_int indexes its limbs by bit position,
//! which puts it in GPU local memory; the exchange's per-line rounding takes this instead.
template <class R>
PREDUCE_HD PREDUCE_INLINE R round_words(std::uint64_t w2, std::uint64_t w1, std::uint64_t w0, int e) {
  using F = format<R>;
  const bool neg = (w2 >> 63) != 0;
  if (neg) {  // the magnitude: ~m + 1
    w0 = ~w0, w1 = ~w1, w2 = ~w2;
    w0 += 1;
    const std::uint64_t c1 = w0 == 0;
    w1 += c1;
    w2 += std::uint64_t(c1 && w1 == 0);
  }
  const int length = w2 ? 128 + bit_length64(w2) : w1 ? 64 + bit_length64(w1) : bit_length64(w0);
  if (length == 0) return from_bits<R>(0);
  // 64 bits from bit i (0 <= i < 192), and whether any bit below bit i is set.
  auto bits_from = [&](int i) -> std::uint64_t {
    const std::uint64_t lo = i >= 128 ? w2 : i >= 64 ? w1 : w0, hi = i >= 128 ? 0 : i >= 64 ? w2 : w1;
    const int part = i % 64;
    return part ? (lo >> part) | (hi << (64 - part)) : lo;
  };
  auto any_below = [&](int i) -> bool {
    auto low_bits = [](std::uint64_t w, int n) { return n <= 0 ? std::uint64_t(0) : n >= 64 ? w : w & ((std::uint64_t(1) << n) - 1); };
    return (low_bits(w0, i) | low_bits(w1, i - 64) | low_bits(w2, i - 128)) != 0;
  };
  const int top = length - 1 + e;  // exponent of the leading bit
  const int precision = top >= F::exponent_min ? F::precision : F::precision - (F::exponent_min - top);
  const int shift = length - precision;  // bits dropped below the kept ones
  std::uint64_t mant;
  if (shift <= 0) {
    mant = w0 << (-shift);  // length <= precision <= 53: all bits in w0
  } else {
    mant = precision > 0 ? bits_from(shift) & ((std::uint64_t(1) << precision) - 1) : 0;
    const bool half = shift - 1 < 192 && (bits_from(shift - 1) & 1u) != 0;
    if (half && (any_below(shift - 1) || (mant & 1u))) ++mant;
  }
  return packed<R>(neg, mant, e + shift);
}

//! The bins as one integer in units of the lowest bin (|value| < 2^185) and that unit's exponent.
PREDUCE_HD PREDUCE_NOINLINE inline wide_int<4> combined(const digits& d, int* unit_exponent) {
  wide_int<4> total = wide_int<4>::from(0);
  for (int k = 0; k < folds; ++k) total = total + d.bin[k].widen<4>().shifted_left(bin_bits * (folds - 1 - k));
  *unit_exponent = bin_bits * (d.level - (folds - 1));
  return total;
}

//! NaN for a NaN term or infinities of both signs, else the infinity seen; 0 when none was.
template <class R>
PREDUCE_HD R special_value(std::uint32_t specials) {
  using B = typename format<R>::bits_type;
  const B inf = B(format<R>::exponent_field_max) << (format<R>::precision - 1);
  const B sign = B(1) << (sizeof(B) * 8 - 1);
  if ((specials & saw_nan) || (specials & (saw_pos_inf | saw_neg_inf)) == (saw_pos_inf | saw_neg_inf))
    return from_bits<R>(inf | (B(1) << (format<R>::precision - 2)));  // the default quiet NaN
  return from_bits<R>((specials & saw_neg_inf) ? (inf | sign) : inf);
}

//! The binned sum's exact value rounded to nearest R (float or double), ties to even; +0 for an
//! exact zero; special_value when a NaN or an infinity was among the terms.
template <class R>
PREDUCE_HD R round_to(const digits& d) {
  if (d.specials) return special_value<R>(d.specials);
  int e;
  const wide_int<4> total = combined(d, &e);
  return round_scaled<R>(total, e);
}

//! The binned sum's exact value as an unevaluated pair hi + lo of doubles: hi rounded to
//! nearest, lo the rest rounded to nearest (so |error| <= 2^-106 |value|, barring underflow).
//! Requires: no specials.
PREDUCE_HD PREDUCE_NOINLINE inline void round_to_pair(const digits& d, double* hi, double* lo) {
  int e;
  const wide_int<4> total = combined(d, &e);
  wide_int<4> kept = total;
  *hi = round_scaled<double>(total, e, &kept);
  *lo = round_scaled<double>(total - kept, e);
}

//! Count, mean and M2 from the exact binned sums of x and of x^2 (see reproducible.hpp for the
//! accuracy): mean = S1 / n and M2 = S2 - S1^2 / n in double-double arithmetic from the sums
//! rounded to double-double, then rounded to A. M2 is clamped at 0. A NaN or infinity among the
//! elements gives mean = that special sum and M2 = NaN; squares (or their sum) beyond the double
//! range give M2 = +inf.
//! Only explicit fmas and single roundings: the same bits on every compiler and device.
template <class A>
PREDUCE_HD PREDUCE_NOINLINE moments_result<A> moments_value(std::uint64_t n, const digits& sum, const digits& squares) {
  if (n == 0) return {0, A(0), A(0)};
  if (sum.specials) return {n, round_to<A>(sum), special_value<A>(saw_nan)};
  double s1, s1_lo, s2, s2_lo;
  round_to_pair(sum, &s1, &s1_lo);
  const double count = double(n);
  const double q = s1 / count;
  const double mean = q + (fused_multiply_add(-q, count, s1) + s1_lo) / count;  // the fma is exact
  if (squares.specials) return {n, A(mean), special_value<A>(saw_pos_inf)};
  round_to_pair(squares, &s2, &s2_lo);
  // S1^2 as a pair (p, pe), then S1^2 / n as a pair (c, c_lo).
  const double p = product(s1, s1);
  const double pe = fused_multiply_add(2.0 * s1, s1_lo, fused_multiply_add(s1, s1, -p));
  const double c = p / count;
  const double c_lo = (fused_multiply_add(-c, count, p) + pe) / count;
  // S2 - c: a two-sum, then the low parts.
  const double s = s2 - c;
  const double v = s - s2;
  const double e = (s2 - (s - v)) + (-c - v);
  const double m2 = s + (e + (s2_lo - c_lo));
  if (m2 != m2) return {n, A(mean), special_value<A>(saw_pos_inf)};  // S2 or S1^2 / n overflowed
  return {n, A(mean), m2 > 0 ? A(m2) : A(0)};
}

}  // namespace binned
}  // namespace detail
}  // namespace preduce
