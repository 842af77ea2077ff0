// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the host side of the rows reductions: which shape (rows/reduce_*.hpp) reduces
// the rows from their lengths (see enqueue_rows): a thread, a thread's vector lanes, or a team per
// row; rows split into parts when there are too few of them to fill the device, their parts
// combined in a fixed order (run_to_run).
#pragma once

#include <cstdint>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/rows/reduce_row_parts.hpp>
#include <preduce/backend/rows/reduce_rows_by_team.hpp>
#include <preduce/backend/rows/reduce_rows_by_thread.hpp>
#include <preduce/backend/rows/reduce_rows_by_vector.hpp>
#include <preduce/backend/thread/fold_parts.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Parts per row: 1 when the rows alone keep every worker busy; otherwise enough for about two
//! items per worker, each at least min_part elements (CPUs: host_part_items, so a single thread
//! still splits one long row, which exercises this path on Serial builds; GPUs: gpu_part_items).
inline std::uint64_t row_parts_for(std::uint64_t rows, std::uint64_t cols, std::uint64_t workers) {
  const std::uint64_t min_part = host_shapes ? host_part_items : gpu_part_items;
  if (rows >= 2 * workers || cols < 2 * min_part) return 1;
  const std::uint64_t wanted = host_shapes ? divide_up(cols, min_part) : divide_up(2 * workers, rows);
  const std::uint64_t most = cols / min_part;
  return wanted < most ? wanted : most;
}

//! Enqueues out[r * stride] = reduction of row r, r < rows (rows >= 1). Shapes: few long rows
//! are cut into parts (row_parts, then fold_parts); otherwise a thread per row on CPUs; on GPUs
//! a thread's vector lanes per row below short_row columns, else a team per row.
template <class Reducer, class Source>
void enqueue_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                  typename Reducer::result_type* out, std::uint64_t stride) {
  using acc_type = typename Reducer::acc_type;
  const std::uint64_t parts = row_parts_for(rows, cols, workers(s));
  if (parts > 1) {
    const std::uint64_t part_len = divide_up(cols, parts);
    acc_type* partial = static_cast<acc_type*>(s.workspace(rows * parts * sizeof(acc_type)));
    const row_parts<Reducer, Source> work{red, src, rows, cols, parts, part_len, partial};
    if constexpr (host_shapes) {
      Kokkos::parallel_for("preduce_row_parts", range_policy(s.exec, 0, std::int64_t(rows * parts)), work);
    } else {
      Kokkos::parallel_for("preduce_row_parts", team_policy(s.exec, league_for(rows * parts), Kokkos::AUTO), work);
    }
    Kokkos::parallel_for("preduce_row_parts_fold", range_policy(s.exec, 0, std::int64_t(rows)),
                         fold_parts<Reducer>{red, partial, parts, parts, 1, out, stride});
    return;
  }
  if constexpr (!host_shapes) {
    if (cols < short_row) {
      int lanes = 1;
      while (std::uint64_t(lanes) < cols) lanes *= 2;
      const std::uint64_t rows_per_team = std::uint64_t(team_threads_estimate / lanes);
      Kokkos::parallel_for("preduce_rows", team_policy(s.exec, league_for(divide_up(rows, rows_per_team)), Kokkos::AUTO, lanes),
                           rows_by_vector<Reducer, Source>{red, src, rows, cols, rows_per_team, out, stride});
    } else {
      Kokkos::parallel_for("preduce_rows", team_policy(s.exec, league_for(rows), Kokkos::AUTO),
                           rows_by_team<Reducer, Source>{red, src, rows, cols, out, stride});
    }
    return;
  }
  Kokkos::parallel_for("preduce_rows", range_policy(s.exec, 0, std::int64_t(rows)),
                       rows_by_thread<Reducer, Source>{red, src, cols, out, stride});
}

}  // namespace backend
}  // namespace preduce
