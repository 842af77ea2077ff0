// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one result per row of a row-major rows x cols matrix, the host side: which of the
// seven kernels (rows/reduce_*.cuh) a shape runs, on what grid, and its launch (enqueue_rows):
//   short rows   a group of 1..32 lanes per row, each lane 1..4 16-byte vectors or elements of
//                it, several rows in flight per group (reduce_short_rows_kernel); under arg
//                reducers, aligned rows are staged through shared memory instead, so that each
//                lane folds a run of up to 8 consecutive vectors (reduce_staged_rows_kernel); a
//                small input's aligned rows, one row a group, by a kernel of fixed slots and
//                32-bit indices (reduce_small_rows_kernel);
//   long rows    4 warps per aligned row of 8 KiB or more (reduce_rows_by_group_kernel); else a
//                warp per row with 16-byte loads (reduce_rows_by_warp_kernel), or a block per
//                row for rows of 16 KiB or more under a cheap combine (reduce_row_tiles_kernel,
//                one tile per row);
//   few rows     a block per aligned row of exactly one round of the block's loads
//                (reduce_round_rows_kernel); others a block per tile of a row, tiles of one
//                row combined by the row's last block (reduce_row_tiles_kernel).
// Every result lifts element (r, c) with index c, and is run_to_run deterministic: the split of
// each row among lanes, warps and tiles depends only on the shape and the device.
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/execution.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/rows/reduce_round_rows.cuh>
#include <preduce/backend/rows/reduce_row_tiles.cuh>
#include <preduce/backend/rows/reduce_rows_by_group.cuh>
#include <preduce/backend/rows/reduce_rows_by_warp.cuh>
#include <preduce/backend/rows/reduce_short_rows.cuh>
#include <preduce/backend/rows/reduce_small_rows.cuh>
#include <preduce/backend/rows/reduce_staged_rows.cuh>
#include <preduce/backend/rows/stages_rows.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Whether every row of a row-major matrix with `cols` columns starts on a 16-byte boundary and
//! the source's arrays can share vector loads.
template <class Source>
bool rows_aligned(const Source& src, std::uint64_t cols) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) {
    return L::usable(src) && reinterpret_cast<std::uintptr_t>(L::base(src)) % vector_bytes == 0 && cols % L::width == 0;
  } else {
    return false;
  }
}

//! Enqueues reduce_small_rows_kernel for `rows` rows of `cols` at 2^lanes_log2 lanes a row
//! (its requirements hold), a grid of one row a group.
template <class Reducer, class Source>
void enqueue_small_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                        unsigned lanes_log2, typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads >> lanes_log2);
  launch(s, reduce_small_rows_kernel<block_threads, Reducer, Source>, grid, block_threads, "reduce_rows: launching the small-row kernel",
         red, src, unsigned(rows), unsigned(cols), lanes_log2, out, out_stride, w);
}

//! Enqueues out[r * out_stride] = reduction of row r for r < rows (rows >= 1) on s's stream.
//! Selection (items = vectors per row when rows_aligned, else elements):
//!   items <= 32 * row_items_in_flight    aligned rows under stages_rows: reduce_staged_rows_kernel,
//!                                        lanes = 2^ceil(log2(items / staged_row_vectors)), each
//!                                        lane ceil(items / lanes) vectors; otherwise
//!                                        reduce_short_rows_kernel, lanes = 2^ceil(log2 items) up
//!                                        to 32, each lane 2^ceil(log2(items / lanes)) items.
//!                                        Small inputs (all rows in one wave of blocks): lanes
//!                                        for small_staged_row_vectors (staged) or
//!                                        small_row_items (short rows) items a lane instead, and
//!                                        where that shape fits reduce_small_rows_kernel (aligned,
//!                                        31-bit indices, a lane's items within its slots), that
//!                                        kernel
//!   rows >= resident warps / 2           aligned rows of group_row_min_bytes or more:
//!                                        reduce_rows_by_group_kernel, 4 warps a row; else
//!                                        reduce_row_tiles_kernel with one tile per row (a block
//!                                        per row) for rows of block_row_min_bytes or more and a
//!                                        reducer with a fused shuffle step; else
//!                                        reduce_rows_by_warp_kernel
//!   otherwise                            aligned rows of exactly one round of a block
//!                                        (round_row_vectors), under `automatic`:
//!                                        reduce_round_rows_kernel; else
//!                                        reduce_row_tiles_kernel, tiles = row_tile_waves
//!                                        waves of blocks / rows, up to a power of two, each at
//!                                        least row_tile_min_bytes, of whole 128-byte lines
template <class Reducer, class Source>
void enqueue_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                  typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  const device_slots slots = slots_for(s.sm_count);
  const bool aligned = rows_aligned(src, cols);
  std::uint64_t items = cols;
  if constexpr (L::vectorized) {
    if (aligned) items = cols / L::width;
  }

  if (items <= std::uint64_t(warp_threads) * row_items_in_flight) {
    // Lanes per row for `per` items a lane (at most 32 lanes).
    const auto lanes_for = [&](std::uint64_t per) {
      const std::uint64_t lanes = (items + per - 1) / per;
      return ceil_log2(lanes < warp_threads ? lanes : warp_threads);
    };
    // Whether the rows, per_block a block, fit the wave_blocks of one wave.
    const auto one_wave = [&](std::uint64_t wave_blocks, std::uint64_t per_block) {
      return (rows + per_block - 1) / per_block <= wave_blocks;
    };
    // The small kernel's indices are 32-bit.
    const bool small_indices = rows * cols < (std::uint64_t(1) << 31);
    if constexpr (stages_rows<Reducer, Source>()) {
      if (aligned) {
        constexpr auto kernel = reduce_staged_rows_kernel<block_threads, Reducer, Source>;
        unsigned lanes_log2 = lanes_for(staged_row_vectors);
        const unsigned small_log2 = lanes_for(small_staged_row_vectors);
        if (one_wave(one_wave_blocks<kernel, block_threads>(s.sm_count), block_threads >> small_log2)) {
          if (small_indices && items <= (std::uint64_t(1) << small_log2) * small_staged_row_vectors)
            return enqueue_small_rows(s, red, src, rows, cols, small_log2, out, out_stride, o.warp);
          lanes_log2 = small_log2;
        }
        const unsigned per = unsigned(ceil_shift(items, lanes_log2));
        const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads >> lanes_log2);
        launch(s, kernel, grid, block_threads, "reduce_rows: launching the staged-row kernel", red, src, rows, cols, lanes_log2, per,
               out, out_stride, o.warp);
        return;
      }
    }
    // The short-row kernel's shape for about `per` items a lane: lanes a row, 2^per_log2 items a
    // lane, rows a block.
    struct short_shape {
      unsigned lanes_log2, per_log2;
      std::uint64_t per_block;
    };
    const auto short_shape_for = [&](std::uint64_t per) {
      const unsigned lanes_log2 = lanes_for(per);
      const unsigned per_log2 = ceil_log2(ceil_shift(items, lanes_log2));
      return short_shape{lanes_log2, per_log2, std::uint64_t(block_threads >> lanes_log2) * (row_items_in_flight >> per_log2)};
    };
    constexpr auto kernel = reduce_short_rows_kernel<block_threads, Reducer, Source>;
    short_shape shape = short_shape_for(1);
    const short_shape small = short_shape_for(small_row_items);
    const bool small_plan = one_wave(one_wave_blocks<kernel, block_threads>(s.sm_count), small.per_block);
    if (small_plan) shape = small;
    if constexpr (L::vectorized) {
      // A small plan of a row a group over vectors: the small kernel.
      if (small_plan && aligned && (std::uint64_t(1) << shape.per_log2) == small_row_items && small_indices)
        return enqueue_small_rows(s, red, src, rows, cols, shape.lanes_log2, out, out_stride, o.warp);
    }
    const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, shape.per_block);
    launch(s, kernel, grid, block_threads, "reduce_rows: launching the short-row kernel", red, src, rows, cols, shape.lanes_log2,
           shape.per_log2, aligned, out, out_stride, o.warp);
    return;
  }

  if constexpr (L::vectorized) {
    constexpr int group_warps = 4;
    constexpr std::uint64_t groups = block_threads / (warp_threads * group_warps);
    const std::uint64_t blocks = (rows + groups - 1) / groups;
    if (aligned && rows >= slots.warps / warp_rows_divisor && cols * sizeof(typename Source::value_type) >= group_row_min_bytes &&
        blocks <= 0x7fffffffu) {
      const unsigned grid = unsigned(blocks);
      const bool evict_input = rows * cols * sizeof(typename Source::value_type) > s.l2_bytes;
      launch(s, reduce_rows_by_group_kernel<block_threads, group_warps, Reducer, Source>, grid, block_threads,
             "reduce_rows: launching the row-group kernel", red, src, rows, cols, evict_input, out, out_stride, o.warp);
      return;
    }
  }
  // Tiles per row for the row-tile kernel: 1 for many rows of block_row_min_bytes or more whose
  // lanes combine in one instruction (has_fused_shuffle: a block per row); a warp per row for
  // other many rows.
  constexpr std::uint64_t elem_bytes = sizeof(typename Source::value_type);
  std::uint64_t tiles = 1;
  if (rows >= slots.warps / warp_rows_divisor) {
    bool block_per_row = false;
    if constexpr (has_fused_shuffle<Reducer, Acc>()) block_per_row = cols * elem_bytes >= block_row_min_bytes;
    if (!block_per_row) {
      const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads / warp_threads);
      with_loadable(src, [&](const auto& source) {
        launch(s, reduce_rows_by_warp_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>, grid, block_threads,
               "reduce_rows: launching the warp-per-row kernel", red, source, rows, cols, aligned, out, out_stride, o.warp);
      });
      return;
    }
  } else {
    if constexpr (L::vectorized) {
      if (aligned && o.warp == warp_algorithm::automatic && items == round_row_vectors<block_threads, Source>()) {
        launch(s, reduce_round_rows_kernel<block_threads, Reducer, Source>, unsigned(rows), block_threads,
               "reduce_rows: launching the round-row kernel", red, src, cols, out, out_stride);
        return;
      }
    }
    // Few long rows: row_tile_waves waves of tiles (row_tile_waves' evidence).
    const std::uint64_t min_tile = (row_tile_min_bytes + elem_bytes - 1) / elem_bytes;
    tiles = std::uint64_t(1) << ceil_log2((row_tile_waves * slots.blocks + rows - 1) / rows);
    const std::uint64_t most = cols / min_tile;
    if (tiles > most) tiles = most;
    if (tiles < 1) tiles = 1;
  }
  // Tiles of whole vectors and 128-byte lines (of elements whose size divides 128): every tile of
  // a row starts as the row does, on a vector where the row is aligned and with its first sector
  // whole where the row's is.
  constexpr std::uint64_t vector = elements_per_vector<Source>();
  constexpr std::uint64_t by_bytes = 128 % elem_bytes == 0 ? 128 / elem_bytes : 1;
  constexpr std::uint64_t line = by_bytes % vector == 0 ? by_bytes : by_bytes * vector;
  std::uint64_t tile_len = (cols + tiles - 1) / tiles;
  tile_len = (tile_len + line - 1) / line * line;
  tiles = (cols + tile_len - 1) / tile_len;
  Acc* partials = nullptr;
  unsigned* counters = nullptr;
  if (tiles > 1) {
    partials = static_cast<Acc*>(s.scratch(rows * tiles * sizeof(Acc)));
    counters = s.zeroed_counters(rows);
  }
  with_loadable(src, [&](const auto& source) {
    launch(s, reduce_row_tiles_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>, unsigned(rows * tiles), block_threads,
           "reduce_rows: launching the row-tile kernel", red, source, cols, tiles, tile_len, partials, counters, out, out_stride, o.warp);
  });
}

}  // namespace backend
}  // namespace preduce
