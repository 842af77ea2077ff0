// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the short-row kernel: a group of 1..32 lanes per row, each lane 1..4 16-byte
// vectors or elements of it, several rows in flight per group.
#pragma once

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/rows/row_slots.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/subwarp_reduce.cuh>

namespace preduce {
namespace backend {

//! Short rows: a group of lanes = 2^lanes_log2 <= 32 per row, each lane holding items j, j +
//! lanes, ... (per = 2^per_log2 <= row_items_in_flight of them) of its row, an item being a
//! 16-byte vector when `vectorized`, else an element. A thread loads up to row_items_in_flight
//! items before folding any: those of row_items_in_flight / per rows.
//! Requires: blockDim.x == BlockThreads (a multiple of 32); `vectorized` only when
//! chunk_loader<Source> is vectorized and usable, the source's arrays are 16-byte aligned and
//! cols % width == 0 (every row then starts on a 16-byte boundary); items per row <= lanes * per.
//! Work: warp w takes rounds of (32 / lanes) * (row_items_in_flight / per) consecutive rows
//! (rounds w, w + warps, ...); in a round, group g of the warp takes rows first + k * (32 /
//! lanes) + g, so each load instruction of the warp reads consecutive rows or consecutive items
//! of a row.
//! Combines, in a fixed order: a lane's items of a row in item order (a pairwise tree over slots),
//! then the group's lanes (group_reduce; group_reduce_ordered when each lane holds one item).
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first lane.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_short_rows_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, unsigned lanes_log2,
                             unsigned per_log2, bool vectorized, typename Reducer::result_type* out, std::uint64_t out_stride,
                             warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  constexpr int S = row_items_in_flight;  // item slots per thread: slot s holds item s % per of row slot s / per
  const unsigned lanes = 1u << lanes_log2, per = 1u << per_log2;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned groups = warp_threads >> lanes_log2;  // groups per warp
  const unsigned g = lane >> lanes_log2, j = lane & (lanes - 1);
  const std::uint64_t per_round = std::uint64_t(groups) * (S >> per_log2);
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  const auto row_of = [&](std::uint64_t first, int s) { return first + std::uint64_t(s >> per_log2) * groups + g; };
  const auto item_of = [&](int s) { return std::uint64_t(j) + std::uint64_t(s & (per - 1)) * lanes; };

  for (std::uint64_t first = warp * per_round; first < rows; first += warps * per_round) {  // warp-uniform
    Acc a[S];
    bool vector_done = false;
    if constexpr (L::vectorized) {
      if (vectorized) {
        constexpr int W = L::width;
        typename L::element e[S][W];
        bool has[S];
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const std::uint64_t row = row_of(first, s), item = item_of(s);
          has[s] = row < rows && item * W < cols;
          if (has[s]) L::load(src, row * cols + item * W, e[s]);
        }
#pragma unroll
        for (int s = 0; s < S; ++s) a[s] = has[s] ? fold_chunk(red, red.identity(), e[s], item_of(s) * W) : red.identity();
        vector_done = true;
      }
    }
    if (!vector_done) {
      typename Source::value_type e[S];
      bool has[S];
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const std::uint64_t row = row_of(first, s), item = item_of(s);
        has[s] = row < rows && item < cols;
        if (has[s]) e[s] = src[row * cols + item];
      }
#pragma unroll
      for (int s = 0; s < S; ++s) a[s] = has[s] ? red.lift(e[s], item_of(s)) : red.identity();
    }
    combine_row_slots(red, a, per);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      if ((s & (per - 1)) != 0) continue;  // warp-uniform
      // With one item per lane, lane j's elements all precede lane j + 1's.
      a[s] = per == 1 ? group_reduce_ordered(red, a[s], lanes, w) : group_reduce(red, a[s], lanes, w);
      const std::uint64_t row = row_of(first, s);
      if (j == 0 && row < rows) store_result(out + row * out_stride, red.finalize(a[s]));
    }
  }
}

}  // namespace backend
}  // namespace preduce
