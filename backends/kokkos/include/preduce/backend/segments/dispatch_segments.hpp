// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the host side of the segments reductions (see enqueue_segments): the offset
// check, then merge-path parts of equal work, then the join of the cut segments, the pieces
// combined in a fixed order (run_to_run).
#pragma once

#include <cstdint>

#include <preduce/portable/merge_path.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/check_offsets.hpp>
#include <preduce/backend/segments/join_cut_segments.hpp>
#include <preduce/backend/segments/reduce_segment_parts.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues the offset check, then out[i * stride] = reduction of segment i, i < segments
//! (segments >= 1), unless the check failed: then nothing is written and the call's status slot
//! (queue_state::status_slot_for_call) records the first bad position for the next synchronizing
//! call of the calling thread. Parts hold per_part items
//! of the merge path (at most n + segments items in all): host_part_items on CPUs; on GPUs
//! about two per worker team, at least gpu_part_items.
template <class Reducer, class Source, class Off>
void enqueue_segments(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n, const Off* offsets,
                      std::uint64_t segments, typename Reducer::result_type* out, std::uint64_t stride) {
  using acc_type = typename Reducer::acc_type;
  device_status* status = s.status_slot_for_call();
  Kokkos::parallel_reduce("preduce_offsets", range_policy(s.exec, 0, std::int64_t(segments + 1)),
                          offsets_check<Off>{offsets, n},
                          Kokkos::Min<std::uint64_t, memory_space>(Kokkos::View<std::uint64_t, memory_space>(&status->first_bad_offset)));
  const std::uint64_t items = n + segments;
  std::uint64_t per_part = host_part_items;
  if constexpr (!host_shapes) {
    per_part = divide_up(items, 2 * workers(s));
    if (per_part < gpu_part_items) per_part = gpu_part_items;
  }
  const std::uint64_t parts = divide_up(items, per_part);
  // Workspace: 2 * parts pieces, then parts cut entries (8-byte aligned after the pieces).
  const std::uint64_t piece_bytes = divide_up(2 * parts * sizeof(acc_type), 8) * 8;
  unsigned char* space = static_cast<unsigned char*>(s.workspace(piece_bytes + parts * sizeof(std::uint64_t)));
  acc_type* pieces = reinterpret_cast<acc_type*>(space);
  std::uint64_t* cut = reinterpret_cast<std::uint64_t*>(space + piece_bytes);
  const portable::merge_path<Off> path{offsets, segments, per_part};
  const segments_by_part<Reducer, Source, Off> work{red, src, path, out, stride, pieces, cut, parts, status};
  if constexpr (host_shapes) {
    Kokkos::parallel_for("preduce_segments", range_policy(s.exec, 0, std::int64_t(parts)), work);
  } else {
    Kokkos::parallel_for("preduce_segments", team_policy(s.exec, league_for(parts), Kokkos::AUTO), work);
  }
  Kokkos::parallel_for("preduce_segments_cut", range_policy(s.exec, 0, std::int64_t(parts)),
                       cut_segments_fold<Reducer, Off>{red, path, pieces, cut, out, stride, status});
}

}  // namespace backend
}  // namespace preduce
