// SPDX-License-Identifier: Apache-2.0
// preduce: determinism::reproducible and its partial results.
//
// With `options{determinism::reproducible}`, floating-point plus, sum_of_squares, dot,
// transform_reduce with plus, and moments (and their rows / columns / segments forms) return the
// same bits on every backend (cuda, hip, kokkos on any device), GPU model, launch shape, call
// count and split of the data. The sum is binned (detail/binned_digits.hpp): every term is cut
// into digits at fixed positions set by the largest |term|, the digits are added exactly, and
// the exact total is rounded once. Terms: the elements (half and bfloat16 widen exactly), the
// exact squares and products (float-family inputs: formed exactly in double; double inputs:
// the rounded product plus its exact rounding error, both added).
//
// Error bound. For terms t_1..t_n with M = max |t_i|, the result r of type R satisfies
//     |r - sum t_i| <= ulp(r) / 2 + n * 2^-78 * M         (n * 2^-1040 when M < 2^-922)
// and r is the correctly rounded exact sum whenever every non-zero |t_i| is at least
// 2^-55 M (float, half and bfloat16 elements), 2^-31 M (products of two of them) or 2^-26 M
// (double elements), and, for double terms, at least 2^-988: the finest unit of the lattice is
// 2^-1040, and a term below 2^-988 may have bits under it, which round to it (four terms of
// 2^-1041 sum to 2^-1038; the exact sum is 2^-1039). Up to 2^64 terms, no intermediate ever
// overflows. An all-zero sum is +0.
// A NaN term gives NaN, +inf and -inf terms together NaN, otherwise an infinite term gives that
// infinity; an exact sum beyond R's range rounds to +-inf. NaN results are R's default quiet
// NaN on every backend. A double product that overflows counts as an infinite term.
//
// moments: the exact binned sums S1 = sum x and S2 = sum x^2 (as above) give mean = S1 / n and
// M2 = S2 - S1^2 / n in double-double arithmetic, rounded to A once, M2 clamped at 0:
//     |mean - exact| <= ulp(mean) + 2^-78 M,   |M2 - exact| <= ulp(M2) + n * 2^-76 * M^2
// with M = max |x|. The M2 bound is relative to the data's magnitude, not to M2: data whose
// spread is tiny against its magnitude (max|x|^2 / variance beyond ~2^50 in double) keeps fewer
// correct bits than run_to_run's one-pass Chan merge. NaN or inf among the elements: mean is that
// special sum, M2 NaN; squares beyond the double range: M2 = +inf.
//
// Other operators are exact already and run their ordinary kernels under reproducible: integer
// sums and products, minimum, maximum, minmax, argmin, argmax, logical and bitwise operators.
// Their results are the same value everywhere; two bit-level cases are not part of the promise:
// the payload of a NaN that minimum / maximum / minmax return, and the sign of a zero they
// return when the input holds both +0 and -0. multiplies on floating-point input, moments of
// integer input (convert it: transform_reduce with moments is reproducible) and custom
// operators have no reproducible form: they throw errc::unsupported.
//
// Splitting the data. `partial_of(op)` makes a whole reduction (reduce, reduce_async,
// transform_reduce) return a reproducible_partial: the exact binned state of its piece. Partials merge exactly (associative and commutative to the
// bit), serialise to bytes (a fixed little-endian layout, the same on every platform), and
// value() gives the result. Merging the partials of pieces gives the same bits as one call on
// the whole data, however it was cut and wherever each piece ran.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "detail/binned_digits.hpp"
#include "detail/reducer.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "types.hpp"

namespace preduce {

//! A reduction by Op (plus, sum_of_squares, dot or moments, on floating-point input) that
//! returns its reproducible_partial instead of its value. Made by partial_of().
template <class Op>
struct partial {
  static constexpr detail::op_id id = Op::id;
  using accumulator = typename Op::accumulator;
  Op op;
};

//! `reduce(q, d_x, n, partial_of(plus{}))` returns a reproducible_partial<float> for float x;
//! reduce_async writes one to device memory, transform_reduce returns one.
template <class Op>
partial<Op> partial_of(Op op) {
  return {op};
}

namespace detail {
namespace binned {

//! Little-endian byte stream helpers for the serialised form.
struct byte_writer {
  unsigned char* p;
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void sum(const digits& d) {
    u32(static_cast<std::uint32_t>(d.level));
    u32(d.specials);
    for (int k = 0; k < folds; ++k) {
      u64(d.bin[k].limb[0]);
      u64(d.bin[k].limb[1]);
    }
  }
};
struct byte_reader {
  const unsigned char* p;
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(*p++) << (8 * i);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(*p++) << (8 * i);
    return v;
  }
  //! A binned sum of at most `terms` terms (2^64 - 1 where the partial does not count them).
  //! Throws for a state no reduction produces: a level or flags out of range, a bin total past
  //! what that many digits add up to, or anything in a sum of no terms. A term's digit is at
  //! most 2^38 (1 + 2^-13) units in the top bin and 2^39 (1 + 2^-13) below (binned_digits.hpp,
  //! binned_accumulator.hpp), so a bin's total has at most bit_length(terms) + 39 (top) or + 40
  //! bits.
  digits sum(std::uint64_t terms = ~std::uint64_t(0)) {
    digits d;
    d.level = static_cast<std::int32_t>(u32());
    d.specials = u32();
    if (d.level < level_min || d.level > level_max || d.specials > (saw_nan | saw_pos_inf | saw_neg_inf))
      throw error(errc::invalid_argument, "reproducible_partial::from_bytes: not a serialised partial (bad level or flags)");
    int term_bits = 0;
    for (std::uint64_t t = terms; t; t >>= 1) ++term_bits;
    for (int k = 0; k < folds; ++k) {
      d.bin[k].limb[0] = u64();
      d.bin[k].limb[1] = u64();
      const digit_total magnitude = d.bin[k].negative() ? -d.bin[k] : d.bin[k];
      const int most_bits = terms == 0 ? 0 : term_bits + (k == 0 ? 39 : 40);
      if (magnitude.bit_length() > most_bits)
        throw error(errc::invalid_argument,
                    "reproducible_partial::from_bytes: not a serialised partial (a bin holds more than its terms can add up to)");
    }
    if (terms == 0 && (d.level != level_min || d.specials != 0))
      throw error(errc::invalid_argument, "reproducible_partial::from_bytes: not a serialised partial (an empty state that is not empty)");
    return d;
  }
};

//! Serialised header: "PRDP", format version, kind (1 sum, 2 moments), result width in bytes, 0.
inline constexpr std::size_t header_bytes = 8;
inline constexpr std::size_t sum_bytes = 8 + 16 * folds;

inline void write_header(unsigned char* p, unsigned char kind, unsigned char width) {
  const unsigned char h[header_bytes] = {'P', 'R', 'D', 'P', 1, kind, width, 0};
  for (std::size_t i = 0; i < header_bytes; ++i) p[i] = h[i];
}
inline void check_header(const void* bytes, std::size_t size, std::size_t expected_size, unsigned char kind, unsigned char width) {
  if (bytes == nullptr) throw error(errc::null_pointer, "reproducible_partial::from_bytes: bytes is null");
  if (size != expected_size) throw error(errc::invalid_argument, "reproducible_partial::from_bytes: wrong size for this partial type");
  const auto* p = static_cast<const unsigned char*>(bytes);
  const unsigned char h[header_bytes] = {'P', 'R', 'D', 'P', 1, kind, width, 0};
  for (std::size_t i = 0; i < header_bytes; ++i)
    if (p[i] != h[i]) throw error(errc::invalid_argument, "reproducible_partial::from_bytes: not a serialised partial of this type");
}

}  // namespace binned
}  // namespace detail

//! The exact, mergeable state of a reproducible sum whose result type is R (float or double).
//! Default-constructed: the empty sum (value +0). Trivially copyable: device code writes it.
template <class R>
class reproducible_partial {
  static_assert(std::is_same<R, float>::value || std::is_same<R, double>::value,
                "preduce::reproducible_partial<R>: R is float, double or moments_result<float / double>");

 public:
  //! Size of to_bytes()'s result.
  static constexpr std::size_t serialized_size = detail::binned::header_bytes + detail::binned::sum_bytes;

  PREDUCE_HD reproducible_partial() : sum_(detail::binned::empty_digits()) {}
  PREDUCE_HD explicit reproducible_partial(const detail::binned::digits& d) : sum_(d) {}

  //! Merges `other` in: exact, so merging is associative and commutative to the bit.
  PREDUCE_HD reproducible_partial& operator+=(const reproducible_partial& other) {
    sum_ = detail::binned::merge(sum_, other.sum_);
    return *this;
  }
  PREDUCE_HD friend reproducible_partial operator+(reproducible_partial a, const reproducible_partial& b) { return a += b; }

  //! The sum: the exact binned total rounded to nearest R (see the error bound above).
  PREDUCE_HD R value() const { return detail::binned::round_to<R>(sum_); }

  //! The exact state (level, special flags, per-bin digit totals).
  PREDUCE_HD const detail::binned::digits& digits() const { return sum_; }

  //! A fixed little-endian encoding, the same on every platform.
  std::array<unsigned char, serialized_size> to_bytes() const {
    std::array<unsigned char, serialized_size> out{};
    detail::binned::write_header(out.data(), 1, sizeof(R));
    detail::binned::byte_writer w{out.data() + detail::binned::header_bytes};
    w.sum(sum_);
    return out;
  }
  //! Reads to_bytes()'s encoding; throws preduce::error(invalid_argument) for anything else,
  //! including states no reduction produces (byte_reader::sum).
  static reproducible_partial from_bytes(const void* bytes, std::size_t size) {
    detail::binned::check_header(bytes, size, serialized_size, 1, sizeof(R));
    detail::binned::byte_reader r{static_cast<const unsigned char*>(bytes) + detail::binned::header_bytes};
    return reproducible_partial(r.sum());
  }

  //! Equal states (then every later merge and value() are equal too).
  friend bool operator==(const reproducible_partial& a, const reproducible_partial& b) { return a.to_bytes() == b.to_bytes(); }
  friend bool operator!=(const reproducible_partial& a, const reproducible_partial& b) { return !(a == b); }

 private:
  detail::binned::digits sum_;
};

//! The exact, mergeable state of reproducible moments: the count and the binned sums of x and
//! x^2. value() gives count, mean and M2 (see the bound above).
template <class A>
class reproducible_partial<moments_result<A>> {
  static_assert(std::is_same<A, float>::value || std::is_same<A, double>::value,
                "preduce::reproducible_partial<moments_result<A>>: A is float or double");

 public:
  static constexpr std::size_t serialized_size = detail::binned::header_bytes + 8 + 2 * detail::binned::sum_bytes;

  PREDUCE_HD reproducible_partial() : count_(0), sum_(detail::binned::empty_digits()), squares_(detail::binned::empty_digits()) {}
  PREDUCE_HD reproducible_partial(std::uint64_t count, const detail::binned::digits& sum, const detail::binned::digits& squares)
      : count_(count), sum_(sum), squares_(squares) {}

  PREDUCE_HD reproducible_partial& operator+=(const reproducible_partial& other) {
    count_ += other.count_;
    sum_ = detail::binned::merge(sum_, other.sum_);
    squares_ = detail::binned::merge(squares_, other.squares_);
    return *this;
  }
  PREDUCE_HD friend reproducible_partial operator+(reproducible_partial a, const reproducible_partial& b) { return a += b; }

  PREDUCE_HD moments_result<A> value() const { return detail::binned::moments_value<A>(count_, sum_, squares_); }

  PREDUCE_HD std::uint64_t count() const { return count_; }
  PREDUCE_HD const detail::binned::digits& sum() const { return sum_; }
  PREDUCE_HD const detail::binned::digits& squares() const { return squares_; }

  std::array<unsigned char, serialized_size> to_bytes() const {
    std::array<unsigned char, serialized_size> out{};
    detail::binned::write_header(out.data(), 2, sizeof(A));
    detail::binned::byte_writer w{out.data() + detail::binned::header_bytes};
    w.u64(count_);
    w.sum(sum_);
    w.sum(squares_);
    return out;
  }
  static reproducible_partial from_bytes(const void* bytes, std::size_t size) {
    detail::binned::check_header(bytes, size, serialized_size, 2, sizeof(A));
    detail::binned::byte_reader r{static_cast<const unsigned char*>(bytes) + detail::binned::header_bytes};
    const std::uint64_t count = r.u64();
    const detail::binned::digits sum = r.sum(count);
    // A double element's square enters as two terms (the rounded product and its error).
    const std::uint64_t square_terms = count > ~std::uint64_t(0) / 2 ? ~std::uint64_t(0) : 2 * count;
    return reproducible_partial(count, sum, r.sum(square_terms));
  }

  friend bool operator==(const reproducible_partial& a, const reproducible_partial& b) { return a.to_bytes() == b.to_bytes(); }
  friend bool operator!=(const reproducible_partial& a, const reproducible_partial& b) { return !(a == b); }

 private:
  std::uint64_t count_;
  detail::binned::digits sum_;
  detail::binned::digits squares_;
};

namespace detail {

template <class Op> struct op_traits<partial<Op>> {
  static constexpr int family = op_traits<Op>::family;
  using requested = typename op_traits<Op>::requested;
};
template <class Op, class T> struct element_of<partial<Op>, T> : element_of<Op, T> {};
template <class Op, class T> struct result_type_of<partial<Op>, T> { using type = reproducible_partial<result_t<Op, T>>; };
template <class Op> struct base_op<partial<Op>> { using type = Op; };
template <class Op> struct is_partial<partial<Op>> : std::true_type {};

}  // namespace detail
}  // namespace preduce
