// SPDX-License-Identifier: Apache-2.0
// preduce: the contract segment offsets keep, 0 <= offsets[0] <= offsets[1] <= ... <=
// offsets[segments] <= n, as every backend checks it on the device before reading through the
// offsets, and the error every backend reports when it is broken: the same position and the same
// words, so a user who switches backends sees the same message.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <preduce/config.hpp>

namespace preduce {
namespace portable {

//! Whether offsets[i] (i <= segments) breaks the contract where offsets[0 .. i - 1] may keep it:
//! it is negative, past n, or below offsets[i - 1]. The smallest such i is the first offset at
//! which the contract fails, the position every backend reports.
template <class Off>
PREDUCE_HD bool offset_breaks(const Off* offsets, std::uint64_t i, std::uint64_t n) {
  const Off o = offsets[i];
  bool bad = std::uint64_t(o) > n;
  if constexpr (std::is_signed<Off>::value) bad = bad || o < 0;
  return bad || (i > 0 && o < offsets[i - 1]);
}

//! The message of the bad_offsets error for first offending position i (offset_breaks).
inline std::string bad_offsets_message(std::uint64_t i) {
  return "reduce_segments: offsets[" + std::to_string(i) +
         "] breaks 0 <= offsets[0] <= offsets[1] <= ... <= offsets[segments] <= n (found on the device; that call wrote no output)";
}

}  // namespace portable
}  // namespace preduce
