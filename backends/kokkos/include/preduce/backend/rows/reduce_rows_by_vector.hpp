// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: short rows reduced by a team thread's vector lanes (rows_by_vector): the
// sub-warp shape on GPUs.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/team/nested_fold.hpp>

namespace preduce {
namespace backend {

//! Short rows on GPUs, the sub-warp shape: team t takes the chunks of rows_per_team rows t, t +
//! league, ...; each row of a chunk goes to one team thread (TeamThreadRange) and its elements to
//! that thread's vector lanes (ThreadVectorRange; vector_length 2^ceil(log2 cols) <= 32 set by
//! the policy). One lane writes out[r * stride] = finalize(row r), elements lifted with their
//! column.
template <class Reducer, class Source>
struct rows_by_vector {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  std::uint64_t rows, cols, rows_per_team;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    const std::uint64_t chunks = divide_up(rows, rows_per_team);
    for (std::uint64_t c = std::uint64_t(team.league_rank()); c < chunks; c += std::uint64_t(team.league_size())) {
      const std::uint64_t first = c * rows_per_team;
      const std::uint64_t count = rows - first < rows_per_team ? rows - first : rows_per_team;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, std::int64_t(count)), [&](std::int64_t k) {
        const std::uint64_t r = first + std::uint64_t(k);
        const acc_type acc = nested_fold(Kokkos::ThreadVectorRange(team, std::int64_t(cols)), red, src, r * cols, 0);
        Kokkos::single(Kokkos::PerThread(team), [&]() { out[r * stride] = red.finalize(acc); });
      });
    }
  }
};

}  // namespace backend
}  // namespace preduce
