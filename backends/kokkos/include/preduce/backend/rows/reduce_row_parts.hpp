// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: few long rows cut into parts, each part folded by a thread or a team
// (row_parts); thread/fold_parts.hpp then combines each row's parts in order.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/team/nested_fold.hpp>
#include <preduce/backend/thread/thread_reduce.hpp>

namespace preduce {
namespace backend {

//! Few long rows, each cut into `parts` parts of part_len columns (the last one shorter).
//! Work item i = r * parts + p (r = row, p = part) folds columns [p * part_len, min(cols, (p +
//! 1) * part_len)) of row r, lifted with their column, into partial[i]: in order by one thread
//! (range policy, one iteration per item), or as a TeamThreadRange reduction (team policy,
//! team t taking items t, t + league, ...). fold_parts then combines each row's parts in order.
template <class Reducer, class Source>
struct row_parts {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  std::uint64_t rows, cols, parts, part_len;
  acc_type* partial;
  KOKKOS_INLINE_FUNCTION std::uint64_t first_of(std::uint64_t item) const { return (item % parts) * part_len; }
  KOKKOS_INLINE_FUNCTION std::uint64_t length_of(std::uint64_t item) const {
    const std::uint64_t first = first_of(item);
    return cols - first < part_len ? cols - first : part_len;
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    const std::uint64_t i = std::uint64_t(item), first = first_of(i);
    partial[i] = serial_fold(red, red.identity(), src, (i / parts) * cols + first, length_of(i), first);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    for (std::uint64_t i = std::uint64_t(team.league_rank()); i < rows * parts; i += std::uint64_t(team.league_size())) {
      const std::uint64_t first = first_of(i);
      const acc_type acc = nested_fold(Kokkos::TeamThreadRange(team, std::int64_t(length_of(i))), red, src, (i / parts) * cols + first, first);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { partial[i] = acc; });
    }
  }
};

}  // namespace backend
}  // namespace preduce
