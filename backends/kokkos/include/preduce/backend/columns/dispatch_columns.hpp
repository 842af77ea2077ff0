// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the host side of the columns reductions: column tiles, and row parts when the
// tiles cannot fill the device (see enqueue_columns), the parts combined in a fixed order
// (run_to_run).
#pragma once

#include <cstdint>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/columns/reduce_column_tiles.hpp>
#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/fold_parts.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues out[c * stride] = reduction of column c, c < cols (cols >= 1). Splits the rows
//! into parts (fold_parts combines them in order) only when the column tiles cannot fill the
//! device; the split depends on the shape and the device, so results stay run_to_run.
template <class Reducer, class Source>
void enqueue_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                     typename Reducer::result_type* out, std::uint64_t stride) {
  using acc_type = typename Reducer::acc_type;
  const std::uint64_t tiles = divide_up(cols, column_tile);
  const std::uint64_t threads = concurrency(s);
  std::uint64_t parts = 1;
  if (tiles < threads) {
    const std::uint64_t wanted = divide_up(threads, tiles), most = rows / min_rows_per_part;
    parts = wanted < most ? wanted : most;
    if (parts == 0) parts = 1;
  }
  const std::uint64_t rows_per_part = divide_up(rows, parts);
  if (parts == 1) {
    Kokkos::parallel_for("preduce_columns", range_policy(s.exec, 0, std::int64_t(tiles)),
                         columns_by_tile<Reducer, Source, true>{red, src, rows, cols, tiles, rows_per_part, out, stride, nullptr});
    return;
  }
  acc_type* partial = static_cast<acc_type*>(s.workspace(parts * cols * sizeof(acc_type)));
  Kokkos::parallel_for("preduce_columns", range_policy(s.exec, 0, std::int64_t(tiles * parts)),
                       columns_by_tile<Reducer, Source, false>{red, src, rows, cols, tiles, rows_per_part, out, stride, partial});
  Kokkos::parallel_for("preduce_columns_fold", range_policy(s.exec, 0, std::int64_t(cols)),
                       fold_parts<Reducer>{red, partial, parts, 1, cols, out, stride});
}

}  // namespace backend
}  // namespace preduce
