// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what the batched shapes (device_rows.cuh, device_columns.cuh,
// device_segments.cuh) share on the host side of a launch (with thread_load.cuh's with_loadable).
#pragma once

#include <cstdint>

#include <preduce/backend/thread/thread_load.cuh>

namespace preduce {
namespace backend {

//! Smallest k with 2^k >= x (0 for x <= 1).
inline unsigned ceil_log2(std::uint64_t x) {
  unsigned k = 0;
  while ((std::uint64_t(1) << k) < x) ++k;
  return k;
}

//! ceil(x / 2^k): the row steps each of 2^k warps takes of x, the tiles of 2^k warp columns
//! that cover x of them, the items each of 2^k lanes takes of a row's x.
inline std::uint64_t ceil_shift(std::uint64_t x, unsigned k) { return (x + (std::uint64_t(1) << k) - 1) >> k; }

}  // namespace backend
}  // namespace preduce
