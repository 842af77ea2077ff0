// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how the batched kernels' launches (rows, columns, segments) are planned from the
// tuning table (tuning.hpp): one wave's slots, and the thresholds and per-type values derived
// from the table.
#pragma once

#include <cstdint>

#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! What one wave of the device holds at full occupancy: the grid sizes and split decisions of
//! the batched kernels are taken against it.
struct device_slots {
  std::uint64_t blocks;  //!< resident blocks of block_threads threads
  std::uint64_t warps;   //!< resident warps
};
inline device_slots slots_for(int sm_count) {
  const std::uint64_t blocks = std::uint64_t(sm_count) * std::uint64_t(batched_blocks_per_sm);
  return {blocks, blocks * (block_threads / warp_threads)};
}

//! Many long rows of at least this many bytes (one round of the block) get a block a row when
//! the reducer's lanes combine in one instruction: docs/tuning/rows.md#block_row_min_bytes.
constexpr std::uint64_t block_row_min_bytes = std::uint64_t(block_threads) * vectors_in_flight * vector_bytes;

//! Many aligned rows of at least this many bytes (one round of 4 warps) get a group of 4 warps
//! a row: docs/tuning/rows.md#group_row_min_bytes.
constexpr std::uint64_t group_row_min_bytes = std::uint64_t(4) * warp_threads * vectors_in_flight * vector_bytes;

//! The deep columns kernel's one round covers a small plan's steps.
static_assert(column_deep_rows_in_flight >= int(column_small_steps), "one round covers a small plan's steps");
//! Columns: row splits' partials the tile's last block loads before combining any (fold_splits):
//! as many as fit 128 bytes of registers a thread, at most 8. docs/tuning/columns.md#splits_in_flight.
template <class Acc>
__host__ __device__ constexpr int column_splits_in_flight() {
  constexpr int fit = int(128 / sizeof(Acc));
  return fit < 1 ? 1 : fit > 8 ? 8 : fit;
}
//! Blocks per SM the columns kernel is compiled for with accumulator Acc: column_blocks_per_sm for
//! accumulators of up to 16 bytes, else no minimum.
template <class Acc>
constexpr int column_min_blocks() {
  return sizeof(Acc) <= 16 ? column_blocks_per_sm : 1;
}

//! Smallest k with 2^k >= x (0 for x <= 1).
inline unsigned ceil_log2(std::uint64_t x) {
  unsigned k = 0;
  while ((std::uint64_t(1) << k) < x) ++k;
  return k;
}

//! ceil(x / 2^k): the row steps each of 2^k warps takes of x, the tiles of 2^k warp columns
//! that cover x of them, the items each of 2^k lanes takes of a row's x.
inline std::uint64_t ceil_shift(std::uint64_t x, unsigned k) { return (x + (std::uint64_t(1) << k) - 1) >> k; }

//! Blocks for `work_items` items at `per_block` items a block, capped at
//! batched_grid_blocks_per_sm blocks per SM (the kernels grid-stride over the rest); at least 1.
inline unsigned grid_for(int sm_count, int cc_major, std::uint64_t work_items, std::uint64_t per_block) {
  const std::uint64_t needed = (work_items + per_block - 1) / per_block;
  const int per_sm = cc_major >= 9 ? tuning<90>::batched.grid_blocks_per_sm : tuning<80>::batched.grid_blocks_per_sm;
  const std::uint64_t cap = std::uint64_t(sm_count) * std::uint64_t(per_sm);
  return unsigned(needed < 1 ? 1 : (needed < cap ? needed : cap));
}

}  // namespace backend
}  // namespace preduce
