// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the launch shapes of the batched kernels (rows, columns, segments), each with
// the measurement or the reasoning that chose it. Measured on an H200: row_items_in_flight,
// block_row_min_bytes, segment_loads_in_flight, segment_blocks_per_sm. The others are first
// choices from reasoning alone, to be swept with preduce-bench --shapes rows,columns,segments
// (bench/README.md).
#pragma once

#include <cstdint>

#include "thread_load.cuh"
#include "tuning.hpp"
#include "warp_reduce.cuh"

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

//! Short rows (at most this many 16-byte vectors or elements of a row per lane): items a thread
//! loads before folding any, from row_items_in_flight / (items per lane) rows. With vectors that
//! is 64 bytes in flight per thread, what vectors_in_flight gives the whole-array kernel (100.8% of
//! the read ceiling on an H200). Rows of 256 f32 (64 vectors: 2 per lane, 2 rows in flight) rose
//! from 72.5% of the ceiling under the warp-per-row kernel (two loads in flight) to 94.8%
//! (preduce-bench --batched, H200, git 8d81a60 and e9e4dac).
constexpr int row_items_in_flight = 4;

//! Long rows get a warp each when there are at least resident warps / this many rows: half the
//! warps busy, each with 4 x 16 bytes in flight per lane, still keeps ~64 KiB in flight per SM,
//! about 3x what Little's law asks of HBM3e (4.4 TB/s x ~0.6 us / 132 SMs ~ 20 KiB). Fewer rows
//! are split into tiles of at least row_tile_min_bytes, one block per tile, about one wave.
constexpr std::uint64_t warp_rows_divisor = 2;
constexpr std::uint64_t row_tile_min_bytes = std::uint64_t(64) << 10;

//! Many long rows of at least this many bytes get a block per row instead of a warp per row
//! when the reducer's lanes combine in one fused shuffle step (sums, min, max): a block of
//! block_threads threads then loads a 16 KiB row (1024 16-byte vectors) in one round of
//! vectors_in_flight loads. H200, f32, 2^28 elements, kernel timed alone (probe of 2026-11-21):
//! plus rows of 4096, warp per row 251.9 us, block per row 240.1 us (CUB 235.1 in
//! preduce-bench); rows of 8192: 253.5 -> 240.3; rows of 2048 (half a round): 255.4 -> 254.9,
//! not worth it. argmax rows of 4096 (no fused step): 264.6 -> 383.6 us, so arg reducers keep a
//! warp per row (the block reduction's tail costs more than the round saves).
constexpr std::uint64_t block_row_min_bytes = std::uint64_t(block_threads) * vectors_in_flight * vector_bytes;

//! Columns: rows each lane loads (one vector of up to 4 columns per row) before folding any.
constexpr int column_rows_in_flight = 4;
//! Columns: fewest row steps one warp takes before the rows are split among more warps (each
//! split adds partial results to write, read and combine).
constexpr std::uint64_t column_min_steps = 8;

//! Segments: elements each lane of a group loads before folding any (short segments are read
//! element by element: they are rarely 16-byte aligned); the lanes per segment follow from it
//! (enqueue_segments), so it also sets how many segments a warp has in flight. Swept on an H200
//! (heavy-tailed f32 segments, 2^28 elements, 3 blocks per SM; kernel timed alone, probe of
//! 2026-11-21): 8: plus 589 us / argmax 1099 us; 12: 637 / 1234; 16: 516 / 818; 20: 548 / 913;
//! 24: 573 / 1034; 32: 562 / 1417 (spilling). The kernel is latency-bound: 16 puts 64 bytes in
//! flight per lane for f32, twice what 8 did.
constexpr int segment_loads_in_flight = 16;
//! Segments: steps (of lanes x segment_loads_in_flight elements) a group takes on one segment;
//! longer segments are reduced by the whole warp with vector loads.
constexpr std::uint64_t segment_group_steps = 2;
//! Segments: blocks of block_threads the kernel must fit per SM (__launch_bounds__): without
//! it ptxas gives the kernel up to 128 registers (2 blocks, 16 warps per SM), too few warps for
//! the element-by-element loads of short segments; 3 caps it at 80 registers (24 warps per SM).
//! With segment_loads_in_flight = 16, ptxas then spills 56 (sum) to 72 (argmax) bytes, and still
//! 3 blocks win for argmax: H200 probe of 2026-11-21, heavy-tailed f32 at 2^28, 3 blocks plus
//! 516 us / argmax 818 us, 2 blocks (128 registers, no spill) 507 / 935.
constexpr int segment_blocks_per_sm = 3;
//! Segments: fewest items (elements + segment ends) per warp before a smaller grid is launched.
constexpr std::uint64_t segment_min_items_per_warp = 256;

}  // namespace backend
}  // namespace preduce
