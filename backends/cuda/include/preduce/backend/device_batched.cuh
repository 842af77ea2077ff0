// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what the batched shapes (device_rows.cuh, device_columns.cuh,
// device_segments.cuh) share on the host side of a launch.
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

//! Runs launch(source) with src, or with scalar_view<Source>{src} when src's arrays cannot share
//! vector loads (dot with x and y at different offsets from a 16-byte boundary).
template <class Source, class Launch>
void with_loadable(const Source& src, Launch&& launch) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized && !L::always_usable) {
    if (!L::usable(src)) return launch(scalar_view<Source>{src});
  }
  launch(src);
}

}  // namespace backend
}  // namespace preduce
