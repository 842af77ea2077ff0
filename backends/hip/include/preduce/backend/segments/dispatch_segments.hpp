// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host side of the segments reductions: the offset check
// (portable/segment_offsets.hpp), then the merge-path parts (segments/reduce_segment_parts.hpp)
// and the join of the segments they cut (segments/join_cut_segments.hpp).
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>

#include <preduce/execution.hpp>
#include <preduce/portable/merge_path.hpp>
#include <preduce/portable/segment_offsets.hpp>

#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/launch.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/join_cut_segments.hpp>
#include <preduce/backend/segments/reduce_segment_parts.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues the offset check, then out[i * out_stride] = reduction of segment i, i < segments
//! (segments >= 1), unless the check failed: then nothing is written and the call's status slot
//! (queue_state::status_slot_for_call) records it for the next synchronizing call of the calling
//! thread.
template <class Reducer, class Source, class Off>
void enqueue_segments(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                      std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
  device_status* status = s.status_slot_for_call();
  const unsigned check_grid = grid_for(s.cu_count, segments + 1, block_threads);
  portable::check_offsets_kernel<<<check_grid, block_threads, 0, s.stream>>>(d_offsets, segments, n, status);
  check_gpu(hipGetLastError(), "reduce_segments: launching the offset check");
  // Merge-path parts of about two a resident block, at least segment_part_items items each.
  using Acc = typename Reducer::acc_type;
  const std::uint64_t items = n + segments, resident = std::uint64_t(s.cu_count) * blocks_per_cu;
  std::uint64_t per_part = (items + 2 * resident - 1) / (2 * resident);
  if (per_part < segment_part_items) per_part = segment_part_items;
  const std::uint64_t parts = (items + per_part - 1) / per_part;
  const std::size_t piece_bytes = (2 * parts * sizeof(Acc) + 7) / 8 * 8;  // then the cut entries, 8-byte aligned
  auto* space = static_cast<unsigned char*>(s.scratch(piece_bytes + parts * sizeof(std::uint64_t)));
  auto* pieces = reinterpret_cast<Acc*>(space);
  auto* cut = reinterpret_cast<std::uint64_t*>(space + piece_bytes);
  const portable::merge_path<Off> path{d_offsets, segments, per_part};
  with_wave(s, [&](auto wave) {
    reduce_segment_parts_kernel<decltype(wave)::value, block_threads><<<grid_for(s.cu_count, parts, 1), block_threads, 0, s.stream>>>(
        red, src, path, parts, d_out, out_stride, pieces, cut, status, o.warp);
  });
  check_gpu(hipGetLastError(), "reduce_segments: launch");
  join_cut_segments_kernel<<<grid_for(s.cu_count, parts, block_threads), block_threads, 0, s.stream>>>(red, path, parts, pieces, cut, d_out,
                                                                                                      out_stride, status);
  check_gpu(hipGetLastError(), "reduce_segments: launching the join of cut segments");
}

}  // namespace backend
}  // namespace preduce
