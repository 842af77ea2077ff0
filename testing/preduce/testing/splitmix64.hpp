// SPDX-License-Identifier: Apache-2.0
// preduce: the seeded generator the test suite and preduce-bench make their random data with.
#pragma once

#include <cstdint>

namespace preduce {
namespace testing {

//! splitmix64 (Steele, Lea and Flood): small, fast and seedable, so data is the same on every
//! run, platform and backend. Not for anything but test and benchmark data.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, bound) (bound well below 2^64, so the modulo bias is negligible).
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }
  //! Uniform integer in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(below(std::uint64_t(hi - lo) + 1)); }
  //! Uniform in [0, 1), 53 random bits.
  double unit() { return double(next() >> 11) * 0x1p-53; }
  //! Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }

 private:
  std::uint64_t state_;
};

}  // namespace testing
}  // namespace preduce
