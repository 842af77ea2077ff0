// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: rows reduced a team a row (rows_by_team): the GPU shape of longer rows.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/team/nested_fold.hpp>

namespace preduce {
namespace backend {

//! Rows by team. Requires: any league size; team t takes rows t, t + league, ... Each row is
//! a TeamThreadRange reduction (neighbouring threads read neighbouring columns); one thread of
//! the team writes out[r * stride] = finalize(fold of row r), elements lifted with their column.
template <class Reducer, class Source>
struct rows_by_team {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  std::uint64_t rows, cols;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    for (std::uint64_t r = std::uint64_t(team.league_rank()); r < rows; r += std::uint64_t(team.league_size())) {
      const acc_type acc = nested_fold(Kokkos::TeamThreadRange(team, std::int64_t(cols)), red, src, r * cols, 0);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { out[r * stride] = red.finalize(acc); });
    }
  }
};

}  // namespace backend
}  // namespace preduce
