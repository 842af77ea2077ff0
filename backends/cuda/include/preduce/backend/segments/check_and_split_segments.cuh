// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the merge path's offset check, which also finds where each warp of the merge
// path starts (check_and_split_segments_kernel, enqueued before reduce_segments_kernel).
#pragma once

#include <cstdint>

#include <preduce/portable/segment_offsets.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! The merge path's offset check, and where each of its warps starts (enqueued before
//! reduce_segments_kernel). Split: warp v of this grid (and v + its warps, ...) writes starts[v]
//! = first_end_at_or_after(off, base, segment_end_weight, v * D, 0, segments) for v in [0,
//! split_warps], with base = offsets[0], units = offsets[segments] - base + segment_end_weight *
//! segments and D = ceil(units / split_warps): the first segment of merge path warp v, which
//! computes D the same way. The searches come first, so their chains of dependent loads overlap
//! the other warps' check. Check: offsets[i] for i in [0, segments], a thread's i = t, t +
//! threads, ... segment_check_offsets_in_flight at a time, all loaded before any is tested; on a
//! violation (portable::offset_value_breaks) portable::record_bad_offset(status, i). Where the
//! offsets break the contract, starts holds whatever the searches found (they end on any
//! offsets), and the merge path uses none of it. Requires: blockDim.x == BlockThreads;
//! split_warps >= 1; starts holds split_warps + 1 entries.
template <int BlockThreads, class Off>
__global__ void __launch_bounds__(BlockThreads)
    check_and_split_segments_kernel(const Off* offsets, std::uint64_t segments, std::uint64_t n, std::uint64_t split_warps,
                                    std::uint64_t* starts, device_status* status) {
  begin_after_prior_grid();
  const std::uint64_t threads = std::uint64_t(gridDim.x) * BlockThreads;
  const std::uint64_t t = std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x;
  const offset_reader off{offsets, sizeof(Off) == 8};
  if (t / warp_threads <= split_warps) {  // warp-uniform
    const std::uint64_t base = off(0), units = off(segments) - base + segment_end_weight * segments;
    const std::uint64_t D = (units + split_warps - 1) / split_warps;
    for (std::uint64_t v = t / warp_threads; v <= split_warps; v += threads / warp_threads) {
      const std::uint64_t s = first_end_at_or_after(off, base, segment_end_weight, v * D, 0, segments);
      if (threadIdx.x % warp_threads == 0) starts[v] = s;
    }
  }
  constexpr int in_flight = segment_check_offsets_in_flight;
  for (std::uint64_t i0 = t; i0 <= segments; i0 += in_flight * threads) {
    Off v[in_flight], before[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const std::uint64_t i = i0 + k * threads;
      if (i <= segments) {
        v[k] = offsets[i];
        before[k] = i > 0 ? offsets[i - 1] : Off(0);
      }
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const std::uint64_t i = i0 + k * threads;
      if (i <= segments && portable::offset_value_breaks(v[k], before[k], i, n)) portable::record_bad_offset(status, i);
    }
  }
}

}  // namespace backend
}  // namespace preduce
