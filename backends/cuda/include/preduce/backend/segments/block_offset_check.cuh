// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the offset check every block of the one-launch small segment paths runs over
// all the offsets (check_offsets_here), shared by reduce_short_segments_kernel and
// reduce_segments_small_kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Every block's offset check on the small paths: loads offsets[0 .. segments], each in the same
//! round trip as the one before it, calls issued() once they are all requested, then visit(i,
//! offsets[i], offsets[i - 1]) (0 for i = 0; values read as uint64, so a negative offset reads as
//! one past n) for each i of this thread's (i = threadIdx.x, + BlockThreads, ...), and returns the
//! first of those i at which offset_breaks would hold, or ~0u. All of a thread's offsets are loaded
//! before any is visited, in as few slots as the count needs (1, 2, 4 or all): every slot costs
//! each thread its predicated loads, issued or not (docs/tuning/segments.md#check_offsets_here).
//! Evidence: H100 heavy-tailed argmax at 2^16, slots 1, 4, 16 -> 1, 2, 4, 16: 3.58 -> 3.47 us.
//! Requires: blockDim.x == BlockThreads; segments < small_segment_offsets; every thread of the
//! block calls it (issued may hold a barrier).
template <int BlockThreads, class Issued, class Visit>
__device__ __forceinline__ std::uint32_t check_offsets_here(const offset_reader& off, std::uint64_t n, std::uint32_t segments,
                                                            Issued&& issued, Visit&& visit) {
  static_assert(small_segment_offsets % BlockThreads == 0, "every thread checks the same number of offsets");
  const unsigned t = threadIdx.x;
  std::uint32_t bad = ~0u;
  const auto check = [&](auto slots) {
    constexpr int k_slots = decltype(slots)::value;
    std::uint64_t v[k_slots], before[k_slots];
#pragma unroll
    for (int k = 0; k < k_slots; ++k) {
      const std::uint32_t i = t + std::uint32_t(k) * BlockThreads;
      if (i <= segments) {
        v[k] = off(i);
        before[k] = i > 0 ? off(i - 1) : 0;
      }
    }
    issued();
#pragma unroll
    for (int k = 0; k < k_slots; ++k) {
      const std::uint32_t i = t + std::uint32_t(k) * BlockThreads;
      if (i <= segments) {
        visit(i, v[k], before[k]);
        if (bad == ~0u && (v[k] > n || v[k] < before[k])) bad = i;  // a thread's i increase with k
      }
    }
  };
  if (segments < BlockThreads)
    check(std::integral_constant<int, 1>{});
  else if (segments < 2 * BlockThreads)
    check(std::integral_constant<int, 2>{});
  else if (segments < 4 * BlockThreads)
    check(std::integral_constant<int, 4>{});
  else
    check(std::integral_constant<int, int(small_segment_offsets / BlockThreads)>{});
  return bad;
}

}  // namespace backend
}  // namespace preduce
