// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: many results per call: rows and columns of a row-major matrix and variable
// segments. Each shape picks its policy from the lengths (see enqueue_rows, enqueue_columns,
// enqueue_segments): a thread, a thread's vector lanes, or a team per row; rows split into parts
// when there are too few of them to fill the device; column tiles and row parts for columns;
// merge-path parts of equal work for segments, so one huge segment among many tiny ones is
// spread over many teams. Partial results are always combined in a fixed order (run_to_run).
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/portable/merge_path.hpp>
#include <preduce/portable/segment_offsets.hpp>

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

//! Independent workers of the device: CPU threads, or teams of team_threads_estimate on GPUs.
inline std::uint64_t workers(const detail::queue_state& s) {
  const std::uint64_t w = concurrency(s) / std::uint64_t(team_threads_estimate);
  return w < 1 ? 1 : w;
}

inline int league_for(std::uint64_t items) { return int(items < std::uint64_t(max_league) ? items : std::uint64_t(max_league)); }

//! ceil(a / b); on the host and in kernels (rows_by_vector's chunk count).
KOKKOS_INLINE_FUNCTION std::uint64_t divide_up(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

//! Folds src[first + j] for j < count, lifted with index index0 + j, as a nested reduction over
//! `range` (a TeamThreadRange or ThreadVectorRange of count iterations). Every thread (lane)
//! taking part gets the result.
template <class Range, class Reducer, class Source>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type nested_fold(const Range& range, const Reducer& red, const Source& src,
                                                              std::uint64_t first, std::uint64_t index0) {
  using acc_type = typename Reducer::acc_type;
  acc_type acc;
  Kokkos::parallel_reduce(
      range, [&](std::int64_t j, acc_type& a) { a = red.combine(a, red.lift(src[first + std::uint64_t(j)], index0 + std::uint64_t(j))); },
      kokkos_reducer<Reducer>(red, acc));
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

//! Rows by thread. Requires: one iteration per row. Iteration r writes out[r * stride] =
//! finalize(fold of row r), each element lifted with its column.
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

//! Combines parts in a fixed order. Requires: one iteration per result; partial[i *
//! item_stride + p * part_stride] is part p of result i. Iteration i writes out[i * stride] =
//! finalize(part 0 combined with part 1, then part 2, ...).
template <class Reducer>
struct fold_parts {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  const acc_type* partial;
  std::uint64_t parts, item_stride, part_stride;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    const acc_type* p = partial + std::uint64_t(item) * item_stride;
    acc_type acc = p[0];
    for (std::uint64_t k = 1; k < parts; ++k) acc = red.combine(acc, p[k * part_stride]);
    out[std::uint64_t(item) * stride] = red.finalize(acc);
  }
};

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

// ---------------------------------------------------------------------------------------------
// Columns
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Segments
// ---------------------------------------------------------------------------------------------

//! Finds the first bad offset (portable::offset_breaks). Requires: segments + 1 iterations,
//! offsets[0..segments] readable. Kokkos::Min leaves the smallest bad position (npos when there
//! is none) in the result.
template <class Off>
struct offsets_check {
  const Off* offsets;
  std::uint64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::uint64_t& first_bad) const {
    if (portable::offset_breaks(offsets, std::uint64_t(i), n) && std::uint64_t(i) < first_bad) first_bad = std::uint64_t(i);
  }
};

//! Shared by both segment kernels: true when this call's offset check (its own status slot,
//! which the next synchronizing call of the calling thread reads) found nothing.
KOKKOS_INLINE_FUNCTION bool offsets_ok(const device_status* status) { return status->first_bad_offset == npos; }

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

//! Combines the pieces of cut segments. Requires: one iteration per part, after
//! segments_by_part. Iteration p, when cut[p] names segment s (whose first piece is in part p),
//! writes out[s * stride] = finalize(pieces[2p + 1] combined with pieces[2(p + 1)], ...,
//! pieces[2q]), q the part holding s's end item. Writes nothing when the offset check failed.
template <class Reducer, class Off>
struct cut_segments_fold {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  portable::merge_path<Off> path;
  const acc_type* pieces;
  const std::uint64_t* cut;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  device_status* status;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t part) const {
    if (!offsets_ok(status)) return;
    const std::uint64_t p = std::uint64_t(part), s = cut[p];
    if (s == npos) return;
    out[s * stride] = red.finalize(path.join_cut(red, pieces, p, s));
  }
};

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
