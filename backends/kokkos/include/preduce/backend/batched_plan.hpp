// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: how the many-results calls (rows, columns, segments) size their launches: the
// threads and workers the device runs at once, the league of a team launch, and ceil division.
#pragma once

#include <cstdint>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Threads the splitting decisions assume the device runs at once.
inline std::uint64_t concurrency(const detail::queue_state& s) {
#if defined(PREDUCE_DETAIL_KOKKOS_DEVICE_SHAPES)
  (void)s;
  return std::uint64_t(1) << 17;  // a large GPU's resident threads, to exercise every shape
#else
  return std::uint64_t(s.exec.concurrency());
#endif
}

//! Independent workers of the device: CPU threads, or teams of team_threads_estimate on GPUs.
inline std::uint64_t workers(const detail::queue_state& s) {
  const std::uint64_t w = concurrency(s) / std::uint64_t(team_threads_estimate);
  return w < 1 ? 1 : w;
}

inline int league_for(std::uint64_t items) { return int(items < std::uint64_t(max_league) ? items : std::uint64_t(max_league)); }

//! ceil(a / b); on the host and in kernels (rows_by_vector's chunk count).
KOKKOS_INLINE_FUNCTION std::uint64_t divide_up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace backend
}  // namespace preduce
