// SPDX-License-Identifier: Apache-2.0
// preduce-bench: the host data a case reduces: random non-zero values and heavy-tailed segment
// offsets, both reproducible from a seed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <preduce/testing/splitmix64.hpp>

#include <preduce/types.hpp>

namespace preduce {
namespace bench {

//! The benchmark's seeded generator.
using random_bits = preduce::testing::splitmix64;

//! n random values, never zero: floating types uniform over the odd multiples of 2^-24 in
//! (-1, 1) (exact in float; half and bfloat16 round them, never to zero), integers uniform in
//! [-100, 100] without 0 (so 8-bit sums, products of pairs and their sums stay meaningful).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  random_bits bits(seed);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_integral<T>::value) {
      const auto r = static_cast<int>(bits.below(200));
      x = static_cast<T>(r < 100 ? r - 100 : r - 99);
    } else {
      const double u = double(2 * (bits.next() >> 40) + 1) * 0x1p-24 - 1.0;
      x = T(static_cast<float>(u));
    }
  }
  return v;
}

//! Offsets (segments + 1 of them, from 0 to n) of heavy-tailed segments covering n elements,
//! shaped like the ragged batches real workloads have: at n = 2^28, one segment of 2^26
//! elements, eight of log-uniform length in [10^5, 10^7], and the rest uniform in [0, 64] (about
//! 1 in 65 empty; some 5.7 million segments), in a random order. Other n scale the long ones
//! (n / 4, and [10^5, 10^7] * n / 2^28).
inline std::vector<std::int64_t> heavy_tailed_offsets(std::size_t n, std::uint64_t seed) {
  random_bits bits(seed);
  const double scale = double(n) / double(std::size_t(1) << 28);
  std::vector<std::size_t> lengths;
  std::size_t total = 0;
  auto add = [&](std::size_t length) {
    length = std::min(length, n - total);
    lengths.push_back(length);
    total += length;
  };
  add(n / 4);
  for (int i = 0; i < 8; ++i) add(static_cast<std::size_t>(std::exp(std::log(1e5) + bits.unit() * std::log(100.0)) * scale));
  while (total < n) add(bits.below(65));
  for (std::size_t i = lengths.size(); i > 1; --i) std::swap(lengths[i - 1], lengths[bits.below(i)]);
  std::vector<std::int64_t> offsets(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) offsets[i + 1] = offsets[i] + static_cast<std::int64_t>(lengths[i]);
  return offsets;
}

}  // namespace bench
}  // namespace preduce
