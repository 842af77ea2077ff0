// SPDX-License-Identifier: Apache-2.0
// preduce cuda: segment offsets of 4 or 8 bytes read as uint64 (offset_reader), and a warp's
// search over them for the first segment whose end item starts at or after a given unit of the
// merge path (first_end_at_or_after).
#pragma once

#include <cstdint>

#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Offsets of 4 or 8 bytes read as uint64. Checked offsets are non-negative, so int32 and
//! uint32 (int64 and uint64) offsets have the same bits: one reduction kernel serves all four.
struct offset_reader {
  const void* p;
  bool wide;  //!< 8-byte offsets
  __device__ std::uint64_t operator()(std::uint64_t i) const {
    return wide ? static_cast<const std::uint64_t*>(p)[i] : std::uint64_t(static_cast<const std::uint32_t*>(p)[i]);
  }
};

//! The first segment whose end item starts at or after unit d: the smallest s in [lo, hi) with
//! off(s + 1) - base + end_weight * s >= d (where segment s's end item starts), or hi when
//! there is none. Requires: all 32 lanes active; checked offsets (the condition is then
//! monotone in s). Each round probes 32 evenly spaced s with one load per lane and keeps the
//! interval between the last probe below d and the first at or above it. Returns the same value
//! in every lane.
__device__ inline std::uint64_t first_end_at_or_after(const offset_reader& off, std::uint64_t base, std::uint64_t end_weight,
                                                      std::uint64_t d, std::uint64_t lo, std::uint64_t hi) {
  const unsigned lane = threadIdx.x % warp_threads;
  while (lo < hi) {
    const std::uint64_t step = (hi - lo + warp_threads - 1) / warp_threads;
    const std::uint64_t probe = lo + lane * step;
    const bool at_or_after = probe >= hi || off(probe + 1) - base + end_weight * probe >= d;
    const unsigned ballot = __ballot_sync(full_warp_mask, at_or_after);
    if (ballot == 0) {  // every probe is below hi and before d
      lo += (warp_threads - 1) * step + 1;
      continue;
    }
    const unsigned f = unsigned(__ffs(int(ballot))) - 1;  // first probe at or after d (or past hi)
    if (f == 0) return lo;
    const std::uint64_t found = lo + f * step;
    lo += (f - 1) * step + 1;
    if (found < hi) hi = found;
  }
  return lo;
}

}  // namespace backend
}  // namespace preduce
