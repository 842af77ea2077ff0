// SPDX-License-Identifier: Apache-2.0
// preduce cuda: enqueue_columns and its plans, the host side of the column reductions: one
// result per column of a row-major rows x cols matrix. One kernel covers every shape: each lane
// owns up to 4 consecutive columns (one aligned load per row), a warp reads 32 / lanes rows side
// by side so narrow matrices still fill it, the warps of a block split the rows of its column
// tile, and when the columns alone cannot fill the device the rows are split among blocks whose
// partial columns the tile's last block combines (reduce_columns.cuh); small inputs run
// reduce_small_columns_kernel (reduce_small_columns.cuh). Element (r, c) is lifted with index r;
// every split depends only on the shape and the device (run_to_run).
#pragma once

#include <cstdint>

#include <preduce/execution.hpp>
#include <preduce/detail/reducer.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/columns/column_loader.cuh>
#include <preduce/backend/columns/column_plan.hpp>
#include <preduce/backend/columns/reduce_columns.cuh>
#include <preduce/backend/columns/reduce_small_columns.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>
#include <preduce/backend/whole/dispatch_whole.cuh>

namespace preduce {
namespace backend {

//! Largest k with 2^k <= x (x >= 1).
inline unsigned floor_log2(std::uint64_t x) {
  unsigned k = 0;
  while ((x >> (k + 1)) != 0) ++k;
  return k;
}

//! log2 of the most lanes a warp puts on one row of `vectors` column vectors: 2^ceil(log2 vectors),
//! at most 32.
inline unsigned widest_lanes_log2(std::uint64_t vectors) {
  return ceil_log2(vectors < warp_threads ? vectors : warp_threads);
}

//! The row steps of a column tile whose warps put 2^lanes_log2 lanes on a row (so a step covers
//! 32 >> lanes_log2 rows): at least 1.
inline std::uint64_t column_row_steps(std::uint64_t rows, unsigned lanes_log2) {
  const std::uint64_t side = warp_threads >> lanes_log2;
  return rows > side ? (rows + side - 1) / side : 1;
}

//! One block per column tile and no row splits, for inputs whose one-round tiles exceed a wave
//! (plan_small_columns): of the plans with at most most_tiles tiles (lanes per row 1..32, 1..8
//! warps across a tile) whose warps take at most column_small_steps row steps, the one with the
//! fewest steps; ties go to the widest lanes with `widest` (a one-instruction combine), else to
//! the narrowest (a lane's rows fold serially, which costs arg reducers more than shuffles).
//! Returns false, leaving p alone, when there is none.
inline bool plan_half_wave_columns(std::uint64_t rows, std::uint64_t cols, std::uint64_t C, bool widest, std::uint64_t most_tiles,
                                   column_plan& p) {
  constexpr unsigned most_across_log2 = 3;  // 8 warps a block
  const std::uint64_t vectors = (cols + C - 1) / C;
  const unsigned top_log2 = widest_lanes_log2(vectors);
  std::uint64_t fewest = column_small_steps + 1;
  for (unsigned k = 0; k <= top_log2; ++k) {
    const unsigned lanes_log2 = widest ? top_log2 - k : k;
    const std::uint64_t steps = column_row_steps(rows, lanes_log2);
    const std::uint64_t warp_columns = ceil_shift(vectors, lanes_log2);
    for (unsigned across_log2 = 0; across_log2 <= most_across_log2; ++across_log2) {
      const std::uint64_t per_warp = ceil_shift(steps, most_across_log2 - across_log2);
      const std::uint64_t tiles = ceil_shift(warp_columns, across_log2);
      if (per_warp < fewest && tiles <= most_tiles) {
        fewest = per_warp;
        p = column_plan{lanes_log2, across_log2, tiles, 1, rows};
      }
    }
  }
  return fewest <= column_small_steps;
}

//! The plan for a small input (column_small_steps): one block per column tile, no row splits,
//! and a lane's rows loaded in one round where the shape allows. Lanes per row: with `widest`
//! (a one-instruction combine) the most, up to 32 and 2^ceil(log2(vectors)), for which a warp
//! takes at most column_rows_in_flight row steps with at most 8 warps on a column, else 1; without
//! it 1 (a warp reads 32 rows of C columns, and its lanes' tree of shuffles replaces a serial
//! fold). Warps on a column: the fewest powers of 2 that give each at most warp_steps row steps
//! (a round, column_rows_in_flight; column_arg_warp_steps for the small kernel's arg combine), at
//! most 8 (a tile wider than the columns leaves its other warps idle: the combine across warps
//! costs small inputs more than the idle warps do). Where those tiles exceed wave_blocks:
//! plan_half_wave_columns' plan. Returns false, leaving p alone, when a warp would take more
//! than column_small_steps row steps, or neither plan fits.
inline bool plan_small_columns(std::uint64_t rows, std::uint64_t cols, std::uint64_t C, bool widest, std::uint64_t warp_steps,
                               std::uint64_t wave_blocks, column_plan& p) {
  constexpr unsigned most_groups_log2 = 3;  // 8 warps a block
  const std::uint64_t vectors = (cols + C - 1) / C;
  const unsigned widest_log2 = widest ? widest_lanes_log2(vectors) : 0;
  for (unsigned lanes_log2 = widest_log2 + 1; lanes_log2-- > 0;) {
    const std::uint64_t steps = column_row_steps(rows, lanes_log2);
    unsigned groups_log2 = 0;
    while (groups_log2 < most_groups_log2 && ceil_shift(steps, groups_log2) > warp_steps) ++groups_log2;
    const std::uint64_t per_warp = ceil_shift(steps, groups_log2);
    if (per_warp > column_rows_in_flight && lanes_log2 > 0) continue;  // narrower warps cover more rows
    if (per_warp > column_small_steps) return false;
    const std::uint64_t warp_columns = ceil_shift(vectors, lanes_log2);
    const unsigned across_log2 = most_groups_log2 - groups_log2;  // warps past the columns idle
    const std::uint64_t tiles = ceil_shift(warp_columns, across_log2);
    // Narrower warps only make more tiles.
    if (tiles > wave_blocks) return plan_half_wave_columns(rows, cols, C, widest, wave_blocks / 2, p);
    p = column_plan{lanes_log2, across_log2, tiles, 1, rows};
    return true;
  }
  return false;
}

//! Enqueues reduce_columns_kernel<..., Vector> for rows x cols (cols >= 2), C columns per lane,
//! with plan_small_columns' plan where it has one (accumulators of at most 16 bytes), else:
//! lanes = 2^ceil(log2(ceil(cols / C))) up to 32; warp columns = ceil(cols / (lanes * C));
//! k = warps per warp column = the kernel's resident warps (its occupancy, one wave) / warp
//! columns, at least 1 and at most the row steps / column_min_steps; k >= 8: a block of 8 warps
//! per column tile and k / 8 row splits; k < 8: 8 / 2^floor(log2 k) warp columns per block,
//! one split. A plan_small_columns plan over 16-byte loads (Vector) whose indices fit 31 bits
//! runs reduce_small_columns_kernel (formerly a Small template flag of this kernel): one tile a
//! block, no split code and 32-bit indices made the small plans faster. Only 16-byte loads have
//! the small kernel (compile time: the element-by-element instantiation is for odd shapes).
//! Evidence: argmax over columns of 32 at 2^10 2.04 -> 1.60 us (docs/tuning/columns.md#launch_columns).
template <bool Vector, class Reducer, class Source>
void launch_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                    typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using Acc = typename Reducer::acc_type;
  constexpr std::uint64_t C = column_loader<Source>::columns;
  constexpr std::uint64_t block_warps = block_threads / warp_threads;
  constexpr auto kernel = reduce_columns_kernel<block_threads, Reducer, Source, Vector>;
  const std::uint64_t wave_blocks = one_wave_blocks<kernel, block_threads>(s.sm_count);
  const std::uint64_t resident_warps = wave_blocks * block_warps;

  bool small_form = false;  // a small plan would run reduce_small_columns_kernel
  if constexpr (Vector && sizeof(Acc) <= 16) {
    const std::uint64_t most = (std::uint64_t(1) << 31) / cols;  // (rows + 256) * cols, cols * out_stride below 2^31
    small_form = rows + 256 < most && out_stride < most;
  }
  const std::uint64_t warp_steps = small_form && detail::has_value_reducer<Reducer>::value ? column_arg_warp_steps : column_rows_in_flight;
  column_plan p{};
  const bool small =
      sizeof(Acc) <= 16 && plan_small_columns(rows, cols, C, has_fused_shuffle<Reducer, Acc>(), warp_steps, wave_blocks, p);
  if constexpr (Vector && sizeof(Acc) <= 16) {
    if (small && small_form) {
      // The row steps a warp takes under the plan.
      const std::uint64_t per_warp = ceil_shift(column_row_steps(rows, p.lanes_log2), floor_log2(block_warps) - p.across_log2);
      auto small_kernel = reduce_small_columns_kernel<block_threads, column_rows_in_flight, false, Reducer, Source>;
      unsigned long long* slots = nullptr;
      unsigned* counters = nullptr;
      if constexpr (detail::has_value_reducer<Reducer>::value) {
        // Past column_arg_split_steps a tile's rows are split among 2^column_arg_splits_log2 blocks.
        constexpr std::uint64_t splits = std::uint64_t(1) << column_arg_splits_log2;
        const std::uint64_t width = (C << p.lanes_log2) << p.across_log2, blocks = p.tiles * splits;
        if (per_warp > column_arg_split_steps && width <= block_threads && blocks <= column_arg_split_blocks &&
            blocks * width <= s.whole_grid_cap) {
          p.splits = splits;
          slots = s.partial_slots;
          counters = s.zeroed_counters(p.tiles);
          small_kernel = reduce_small_columns_kernel<block_threads, column_rows_in_flight, true, Reducer, Source>;
        }
      } else if (per_warp > column_rows_in_flight) {
        // Past one round (more than 1024 rows at one lane a row, 8 warps on a column) the lanes
        // load all their rows at once (at most column_small_steps).
        small_kernel = reduce_small_columns_kernel<block_threads, column_deep_rows_in_flight, false, Reducer, Source>;
      }
      launch(s, small_kernel, unsigned(p.tiles * p.splits), block_threads, "reduce_columns: launch", red, src, std::uint32_t(rows),
             std::uint32_t(cols), p, out, std::uint32_t(out_stride), slots, counters, o.warp);
      return;
    }
  }
  if (!small) {
    const std::uint64_t vectors = (cols + C - 1) / C;
    p.lanes_log2 = widest_lanes_log2(vectors);
    const std::uint64_t lanes = std::uint64_t(1) << p.lanes_log2;
    const std::uint64_t warp_columns = (cols + lanes * C - 1) / (lanes * C);
    const std::uint64_t row_steps = column_row_steps(rows, p.lanes_log2);
    std::uint64_t k = resident_warps / warp_columns;
    const std::uint64_t most = row_steps / column_min_steps;
    if (k > most) k = most;
    if (k < 1) k = 1;
    if (k >= block_warps) {
      p.across_log2 = 0;
      p.splits = k / block_warps;
    } else {
      p.across_log2 = floor_log2(block_warps) - floor_log2(k);
      p.splits = 1;
    }
    p.tiles = ceil_shift(warp_columns, p.across_log2);
    p.split_rows = (rows + p.splits - 1) / p.splits;
  }

  Acc* partials = nullptr;
  unsigned* counters = nullptr;
  if (p.splits > 1) {
    partials = static_cast<Acc*>(s.scratch(p.splits * cols * sizeof(Acc)));
    counters = s.zeroed_counters(p.tiles);
  }
  const std::uint64_t items = p.tiles * p.splits;
  const unsigned grid = unsigned(items < 0x7fffffffu ? items : 0x7fffffffu);
  launch(s, kernel, grid, block_threads, "reduce_columns: launch", red, src, rows, cols, p, partials, counters, out, out_stride, o.warp);
}

//! Enqueues out[c * out_stride] = reduction of column c for c < cols (cols >= 1) on s's stream.
//! One column is the whole-array reduction of rows elements (arg index = element = row);
//! otherwise one launch_columns, with one load per lane and row where column_loader allows it.
template <class Reducer, class Source>
void enqueue_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                     typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  if (cols == 1) return reduce_whole(s, red, src, rows, out, o);
  if constexpr (column_loader<Source>::vectorized) {
    if (column_loader<Source>::usable(src, cols)) return launch_columns<true>(s, red, src, rows, cols, out, out_stride, o);
  }
  launch_columns<false>(s, red, src, rows, cols, out, out_stride, o);
}

}  // namespace backend
}  // namespace preduce
