// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: variable segments cut into merge-path parts of equal work (segments_by_part),
// a thread or a team a part, so one huge segment among many tiny ones is spread over many teams;
// join_cut_segments.hpp finishes the segments it cuts.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/portable/merge_path.hpp>
#include <preduce/types.hpp>

#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/check_offsets.hpp>
#include <preduce/backend/team/nested_fold.hpp>
#include <preduce/backend/thread/thread_reduce.hpp>

namespace preduce {
namespace backend {

//! The merge-path parts. Requires: one iteration (range policy) or one team (team policy,
//! team t taking parts t, t + league, ...) per part; pieces holds 2 * parts accumulators and
//! cut parts entries; offsets checked into status->first_bad_offset. When the check failed,
//! writes nothing. Otherwise part p writes out[s * stride] for its
//! complete segments; pieces[2p] = its cut-in piece, pieces[2p + 1] = its cut-out piece; and
//! cut[p] = the cut-out segment, or npos. Elements are lifted with their position in the segment.
//! On teams, complete segments go one per team thread and pieces are TeamThreadRange reductions.
template <class Reducer, class Source, class Off>
struct segments_by_part {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  portable::merge_path<Off> path;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  acc_type* pieces;
  std::uint64_t* cut;
  std::uint64_t parts;
  device_status* status;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t part) const {
    if (!offsets_ok(status)) return;
    const std::uint64_t p = std::uint64_t(part);
    const auto r = path.of(p);
    cut[p] = npos;
    if (r.empty) return;
    if (r.cut_in) {
      const std::uint64_t b = path.off(r.s0);
      pieces[2 * p] = serial_fold(red, red.identity(), src, r.e0, r.cut_in_end - r.e0, r.e0 - b);
    }
    for (std::uint64_t s = r.complete_begin; s < r.complete_end; ++s) {
      const std::uint64_t b = path.off(s);
      out[s * stride] = red.finalize(serial_fold(red, red.identity(), src, b, path.off(s + 1) - b, 0));
    }
    if (r.cut_out) {
      const std::uint64_t b = path.off(r.s1);
      pieces[2 * p + 1] = serial_fold(red, red.identity(), src, b, r.e1 - b, 0);
      cut[p] = r.s1;
    }
  }

  //! acc over src[first + j] for j < count, lifted with index0 + j, by the whole team.
  KOKKOS_INLINE_FUNCTION acc_type team_fold(const team_member& team, std::uint64_t first, std::uint64_t count,
                                            std::uint64_t index0) const {
    return nested_fold(Kokkos::TeamThreadRange(team, std::int64_t(count)), red, src, first, index0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    if (!offsets_ok(status)) return;
    for (std::uint64_t p = std::uint64_t(team.league_rank()); p < parts; p += std::uint64_t(team.league_size())) {
      const auto r = path.of(p);
      if (r.cut_in) {
        const acc_type acc = team_fold(team, r.e0, r.cut_in_end - r.e0, r.e0 - path.off(r.s0));
        Kokkos::single(Kokkos::PerTeam(team), [&]() { pieces[2 * p] = acc; });
      }
      if (!r.empty) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, std::int64_t(r.complete_end - r.complete_begin)), [&](std::int64_t k) {
          const std::uint64_t s = r.complete_begin + std::uint64_t(k), b = path.off(s);
          out[s * stride] = red.finalize(serial_fold(red, red.identity(), src, b, path.off(s + 1) - b, 0));
        });
      }
      if (r.cut_out) {
        const std::uint64_t b = path.off(r.s1);
        const acc_type acc = team_fold(team, b, r.e1 - b, 0);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          pieces[2 * p + 1] = acc;
          cut[p] = r.s1;
        });
      } else {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { cut[p] = npos; });
      }
    }
  }
};

}  // namespace backend
}  // namespace preduce
