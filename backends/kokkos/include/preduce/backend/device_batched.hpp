// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: many results per call: rows and columns of a row-major matrix and variable
// segments, each by a thread, a team or (for a few long rows) the whole-array kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "device_reduce.hpp"
#include "queue_state.hpp"
#include "thread_reduce.hpp"
#include "tuning.hpp"

namespace preduce {
namespace backend {

using team_policy = Kokkos::TeamPolicy<exec_space>;
using team_member = team_policy::member_type;

//! Threads the splitting decisions assume the device runs at once.
inline std::uint64_t concurrency(const detail::queue_state& s) {
#if defined(PREDUCE_DETAIL_KOKKOS_DEVICE_SHAPES)
  (void)s;
  return std::uint64_t(1) << 17;  // a large GPU's resident threads, to exercise every shape
#else
  return std::uint64_t(s.exec.concurrency());
#endif
}

//! Reads src[base + i]: one row of a larger source as an array of its own, so the lifted
//! index is the column within the row.
template <class Source>
struct shifted_source {
  Source src;
  std::uint64_t base;
  KOKKOS_INLINE_FUNCTION auto operator[](std::uint64_t i) const { return src[base + i]; }
};

//! Rows by thread. Requires: one iteration per row, src holds rows * cols elements. Iteration
//! r writes out[r * stride] = finalize(fold of row r), lifting each element with its column.
template <class Reducer, class Source>
struct rows_by_thread {
  Reducer red;
  Source src;
  std::uint64_t cols;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    const std::uint64_t base = std::uint64_t(row) * cols;
    out[std::uint64_t(row) * stride] = red.finalize(serial_fold(red, red.identity(), src, base, cols, 0));
  }
};

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
      const std::uint64_t base = r * cols;
      acc_type acc;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, std::int64_t(cols)),
          [&](std::int64_t j, acc_type& a) { a = red.combine(a, red.lift(src[base + std::uint64_t(j)], std::uint64_t(j))); },
          kokkos_reducer<Reducer>(red, acc));
      Kokkos::single(Kokkos::PerTeam(team), [&]() { out[r * stride] = red.finalize(acc); });
    }
  }
};

//! Columns by tile of `column_tile` columns and, when the columns alone cannot fill the
//! device, by part of the rows. Requires: tiles * parts iterations; iteration i takes tile
//! i % tiles (so neighbouring threads take neighbouring columns) over the rows of part
//! i / tiles, in order, lifting each element with its row. Writes, for each column c of the
//! tile: when ToOutput (one part) out[c * stride] = finalize(acc); otherwise
//! partial[part * cols + c] = acc.
template <class Reducer, class Source, bool ToOutput>
struct columns_by_tile {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  std::uint64_t rows, cols, tiles, rows_per_part;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  acc_type* partial;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t iteration) const {
    const std::uint64_t tile = std::uint64_t(iteration) % tiles, part = std::uint64_t(iteration) / tiles;
    const std::uint64_t c0 = tile * column_tile;
    const std::uint64_t left = cols - c0;
    const int width = left < std::uint64_t(column_tile) ? int(left) : column_tile;
    const std::uint64_t r0 = part * rows_per_part;
    const std::uint64_t r1 = rows - r0 < rows_per_part ? rows : r0 + rows_per_part;
    acc_type acc[column_tile];
    for (int w = 0; w < column_tile; ++w) acc[w] = red.identity();
    if (width == column_tile) {  // constant trip count: the compiler unrolls and vectorizes
      for (std::uint64_t r = r0; r < r1; ++r)
        for (int w = 0; w < column_tile; ++w) acc[w] = red.combine(acc[w], red.lift(src[r * cols + c0 + std::uint64_t(w)], r));
    } else {
      for (std::uint64_t r = r0; r < r1; ++r)
        for (int w = 0; w < width; ++w) acc[w] = red.combine(acc[w], red.lift(src[r * cols + c0 + std::uint64_t(w)], r));
    }
    for (int w = 0; w < width; ++w) {
      const std::uint64_t c = c0 + std::uint64_t(w);
      if constexpr (ToOutput) {
        out[c * stride] = red.finalize(acc[w]);
      } else {
        partial[part * cols + c] = acc[w];
      }
    }
  }
};

//! Second pass of split columns. Requires: one iteration per column; partial holds parts rows
//! of cols accumulators. Iteration c writes out[c * stride] = finalize(partial[0][c] combined
//! with partial[1][c], ... in part order).
template <class Reducer>
struct columns_fold {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  const acc_type* partial;
  std::uint64_t cols, parts;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t column) const {
    const std::uint64_t c = std::uint64_t(column);
    acc_type acc = partial[c];
    for (std::uint64_t p = 1; p < parts; ++p) acc = red.combine(acc, partial[p * cols + c]);
    out[c * stride] = red.finalize(acc);
  }
};

//! Finds the first bad offset. Requires: segments + 1 iterations, offsets[0..segments]
//! readable. Position i is bad when offsets[0] < 0 (i = 0), offsets[i] < offsets[i - 1], or
//! offsets[segments] > n (i = segments). Kokkos::Min leaves the smallest bad position (npos
//! when there is none) in the result.
template <class Off>
struct offsets_check {
  const Off* offsets;
  std::uint64_t segments, n;
  KOKKOS_INLINE_FUNCTION static bool negative(Off o) {
    if constexpr (std::is_signed<Off>::value) {
      return o < 0;
    } else {
      return false;
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::uint64_t& first_bad) const {
    const Off o = offsets[i];
    bool bad = i == 0 ? negative(o) : o < offsets[i - 1];
    if (std::uint64_t(i) == segments) bad = bad || negative(o) || std::uint64_t(o) > n;
    if (bad && std::uint64_t(i) < first_bad) first_bad = std::uint64_t(i);
  }
};

//! Shared by both segment kernels: true when this call's offsets are fine. The caller that
//! passes `report` (exactly one thread of the launch) copies a failed check into the queue's
//! sticky status, so the next synchronizing call throws.
KOKKOS_INLINE_FUNCTION bool offsets_ok(device_status* status, bool report) {
  const std::uint64_t bad = status->call_bad_offset;
  if (report && bad != npos && status->first_bad_offset == npos) status->first_bad_offset = bad;
  return bad == npos;
}

//! Segments by thread. Requires: one iteration per segment; offsets already checked into
//! status->call_bad_offset. When the check failed, writes nothing (iteration 0 records the
//! error); otherwise iteration s writes out[s * stride] = finalize(fold of
//! src[offsets[s] .. offsets[s + 1])), elements lifted with their offset in the segment.
template <class Reducer, class Source, class Off>
struct segments_by_thread {
  Reducer red;
  Source src;
  const Off* offsets;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  device_status* status;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t segment) const {
    if (!offsets_ok(status, segment == 0)) return;
    const std::uint64_t begin = std::uint64_t(offsets[segment]), end = std::uint64_t(offsets[segment + 1]);
    out[std::uint64_t(segment) * stride] = red.finalize(serial_fold(red, red.identity(), src, begin, end - begin, 0));
  }
};

//! Segments by team: as segments_by_thread, with team t taking segments t, t + league, ...
//! each as a TeamThreadRange reduction; one thread of team 0 records a failed check.
template <class Reducer, class Source, class Off>
struct segments_by_team {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  const Off* offsets;
  std::uint64_t segments;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  device_status* status;
  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    if (!offsets_ok(status, team.league_rank() == 0 && team.team_rank() == 0)) return;
    for (std::uint64_t s = std::uint64_t(team.league_rank()); s < segments; s += std::uint64_t(team.league_size())) {
      const std::uint64_t begin = std::uint64_t(offsets[s]), end = std::uint64_t(offsets[s + 1]);
      acc_type acc;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, std::int64_t(end - begin)),
          [&](std::int64_t j, acc_type& a) { a = red.combine(a, red.lift(src[begin + std::uint64_t(j)], std::uint64_t(j))); },
          kokkos_reducer<Reducer>(red, acc));
      Kokkos::single(Kokkos::PerTeam(team), [&]() { out[s * stride] = red.finalize(acc); });
    }
  }
};

inline int league_for(std::uint64_t items) { return int(items < std::uint64_t(max_league) ? items : std::uint64_t(max_league)); }

//! Enqueues out[r * stride] = reduction of row r, r < rows (rows >= 1).
template <class Reducer, class Source>
void reduce_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                 typename Reducer::result_type* out, std::uint64_t stride) {
  const std::uint64_t teams_to_fill = concurrency(s) / team_threads_estimate;
  if (cols >= long_row && rows < teams_to_fill) {
    for (std::uint64_t r = 0; r < rows; ++r) reduce_whole(s, red, shifted_source<Source>{src, r * cols}, cols, out + r * stride);
    return;
  }
  if constexpr (!host_shapes) {
    if (cols >= short_row) {
      Kokkos::parallel_for("preduce_rows", team_policy(s.exec, league_for(rows), Kokkos::AUTO),
                           rows_by_team<Reducer, Source>{red, src, rows, cols, out, stride});
      return;
    }
  }
  Kokkos::parallel_for("preduce_rows", range_policy(s.exec, 0, std::int64_t(rows)),
                       rows_by_thread<Reducer, Source>{red, src, cols, out, stride});
}

//! Enqueues out[c * stride] = reduction of column c, c < cols (cols >= 1). Splits the rows
//! into parts (a second pass folds them in order) only when the column tiles cannot fill the
//! device; the split depends on the shape and the device, so results stay run_to_run.
template <class Reducer, class Source>
void reduce_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                    typename Reducer::result_type* out, std::uint64_t stride) {
  using acc_type = typename Reducer::acc_type;
  const std::uint64_t tiles = (cols + column_tile - 1) / column_tile;
  const std::uint64_t threads = concurrency(s);
  std::uint64_t parts = 1;
  if (tiles < threads) {
    const std::uint64_t wanted = (threads + tiles - 1) / tiles, most = rows / min_rows_per_part;
    parts = wanted < most ? wanted : most;
    if (parts == 0) parts = 1;
  }
  const std::uint64_t rows_per_part = (rows + parts - 1) / parts;
  if (parts == 1) {
    Kokkos::parallel_for("preduce_columns", range_policy(s.exec, 0, std::int64_t(tiles)),
                         columns_by_tile<Reducer, Source, true>{red, src, rows, cols, tiles, rows_per_part, out, stride, nullptr});
    return;
  }
  acc_type* partial = static_cast<acc_type*>(s.workspace(parts * cols * sizeof(acc_type)));
  Kokkos::parallel_for("preduce_columns", range_policy(s.exec, 0, std::int64_t(tiles * parts)),
                       columns_by_tile<Reducer, Source, false>{red, src, rows, cols, tiles, rows_per_part, out, stride, partial});
  Kokkos::parallel_for("preduce_columns_fold", range_policy(s.exec, 0, std::int64_t(cols)),
                       columns_fold<Reducer>{red, partial, cols, parts, out, stride});
}

//! Enqueues the offset check, then out[i * stride] = reduction of segment i, i < segments
//! (segments >= 1), unless the check failed: then nothing is written and the queue's status
//! records the first bad position for the next synchronizing call.
template <class Reducer, class Source, class Off>
void reduce_segments(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n, const Off* offsets,
                     std::uint64_t segments, typename Reducer::result_type* out, std::uint64_t stride) {
  device_status* status = s.status();
  Kokkos::parallel_reduce("preduce_offsets", range_policy(s.exec, 0, std::int64_t(segments + 1)),
                          offsets_check<Off>{offsets, segments, n},
                          Kokkos::Min<std::uint64_t, memory_space>(Kokkos::View<std::uint64_t, memory_space>(&status->call_bad_offset)));
  if constexpr (!host_shapes) {
    if (n / segments >= short_segment) {
      Kokkos::parallel_for("preduce_segments", team_policy(s.exec, league_for(segments), Kokkos::AUTO),
                           segments_by_team<Reducer, Source, Off>{red, src, offsets, segments, out, stride, status});
      return;
    }
  }
  Kokkos::parallel_for("preduce_segments", range_policy(s.exec, 0, std::int64_t(segments)),
                       segments_by_thread<Reducer, Source, Off>{red, src, offsets, out, stride, status});
}

}  // namespace backend
}  // namespace preduce
