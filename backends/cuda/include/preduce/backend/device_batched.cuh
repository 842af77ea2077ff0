// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what the batched shapes (device_rows.cuh, device_columns.cuh,
// device_segments.cuh) share on the host side of a launch (with thread_load.cuh's with_loadable).
#pragma once

#include <cstdint>

#include "thread_load.cuh"

namespace preduce {
namespace backend {

//! Smallest k with 2^k >= x (0 for x <= 1).
inline unsigned ceil_log2(std::uint64_t x) {
  unsigned k = 0;
  while ((std::uint64_t(1) << k) < x) ++k;
  return k;
}

}  // namespace backend
}  // namespace preduce
