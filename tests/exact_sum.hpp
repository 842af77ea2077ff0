// SPDX-License-Identifier: Apache-2.0
// preduce tests: an exact sum of doubles (a fixed-point superaccumulator over the whole double
// range), the oracle of the reproducible tests. Written for the tests alone and independent of
// the library's binned arithmetic: plain integer limbs, one bit per power of two.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace test {

//! sum += v exactly for any finite double; compare the exact sum against a double.
class exact_sum {
 public:
  //! Adds v * 2^scale (exactly; scale lets a test add half an ulp). Requires: v * 2^scale
  //! within [2^-1100, 2^1100); throws for a non-finite v.
  void add(double v, int scale = 0) {
    if (v == 0) return;
    if (!std::isfinite(v)) throw std::domain_error("test::exact_sum: a non-finite term");
    int e;
    const double m = std::frexp(std::fabs(v), &e);          // |v| = m 2^e, m in [0.5, 1)
    auto mant = static_cast<std::uint64_t>(std::ldexp(m, 53));  // 53-bit integer
    int low = e - 53 + scale + unit_offset;                      // bit position of mant's lowest bit
    while (!(mant & 1u)) {  // subnormals' trailing zeros would reach below bit 0
      mant >>= 1;
      ++low;
    }
    add_shifted(mant, low, v < 0);
  }
  void add(float v) { add(double(v)); }

  //! The sign of the exact sum: -1, 0 or 1.
  int sign() const {
    if (limb_[limbs - 1] >> 63) return -1;
    for (std::uint64_t l : limb_)
      if (l) return 1;
    return 0;
  }
  //! The exact sum rounded to long double (for messages and error sizes; 64-bit precision).
  long double approx() const {
    exact_sum m = *this;
    const bool negative = sign() < 0;
    if (negative) m.negate();
    long double r = 0.0L;
    for (int i = limbs - 1; i >= 0; --i) r += std::ldexp(static_cast<long double>(m.limb_[i]), 64 * i - unit_offset);
    return negative ? -r : r;
  }
  //! -1, 0 or 1 as |sum| is below, equal to or above h * 2^scale (h >= 0).
  int compare_magnitude(double h, int scale = 0) const {
    exact_sum bound;
    bound.add(h, scale);
    return compare_magnitude(bound);
  }
  //! -1, 0 or 1 as |sum| is below, equal to or above the (non-negative) sum `bound`.
  int compare_magnitude(const exact_sum& bound) const {
    exact_sum d = *this;
    if (d.sign() < 0) d.negate();
    std::uint64_t borrow = 0;
    for (int k = 0; k < limbs; ++k) {
      const std::uint64_t before = d.limb_[k], b = bound.limb_[k];
      d.limb_[k] = before - b - borrow;
      borrow = (before < b) || (before - b < borrow);
    }
    return d.sign();
  }

 private:
  static constexpr int unit_offset = 1100;  // bit 0 weighs 2^-1100
  static constexpr int limbs = 36;          // 2304 bits: up to 2^1203, room for 2^64 carries

  void negate() {
    std::uint64_t carry = 1;
    for (auto& l : limb_) {
      l = ~l + carry;
      carry = carry && l == 0;
    }
  }
  void add_shifted(std::uint64_t mant, int low, bool subtract) {
    const int i = low / 64, s = low % 64;
    std::uint64_t part[3] = {mant << s, s ? mant >> (64 - s) : 0, 0};
    if (subtract) {  // two's complement of the shifted magnitude over the rest of the limbs
      std::uint64_t borrow = 0;
      for (int k = i; k < limbs; ++k) {
        const std::uint64_t p = k - i < 3 ? part[k - i] : 0;
        const std::uint64_t before = limb_[k];
        limb_[k] = before - p - borrow;
        borrow = (before < p) || (before - p < borrow);
        if (k - i >= 2 && !borrow) break;
      }
    } else {
      std::uint64_t carry = 0;
      for (int k = i; k < limbs; ++k) {
        const std::uint64_t p = k - i < 3 ? part[k - i] : 0;
        const std::uint64_t t = limb_[k] + p;
        const std::uint64_t c = t < p;
        limb_[k] = t + carry;
        carry = c + (limb_[k] < t);
        if (k - i >= 2 && !carry) break;
      }
    }
  }

  std::uint64_t limb_[limbs] = {};
};

//! Half the distance from r to its neighbour on the side of `toward` (r itself when equal),
//! as a double h and a power-of-two scale (h * 2^scale), so that it is exact even below the
//! smallest subnormal. R is float or double.
template <class R>
void half_gap(R r, long double toward, double* h, int* scale) {
  const R next = std::nextafter(r, toward >= static_cast<long double>(r) ? std::numeric_limits<R>::infinity()
                                                                         : -std::numeric_limits<R>::infinity());
  *h = std::fabs(double(next) - double(r));  // a power of two, exact in double
  *scale = -1;
}

}  // namespace test
