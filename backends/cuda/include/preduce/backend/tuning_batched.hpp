// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the launch shapes of the batched kernels (rows, columns, segments), each with
// the measurement or the reasoning that chose it. Measured on an H200: row_items_in_flight,
// staged_row_vectors, staged_row_blocks_per_sm, block_row_min_bytes, column_blocks_per_sm,
// segment_loads_in_flight, segment_blocks_per_sm. The others are first choices from reasoning
// alone, to be swept with preduce-bench --shapes rows,columns,segments (bench/README.md).
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

//! Short rows under arg reducers (reduce_staged_rows_kernel): 16-byte vectors each lane loads
//! per round, and the longest run of a row one lane folds. 8 vectors (128 bytes) in flight per
//! lane, 4 KiB per warp staged in shared memory (36 KiB per block of 256 threads). H200, f32
//! argmax, 2^28 elements, kernels timed alone (probe of 2026-11-22): rows of 32 491.7 -> 328.5 us
//! against reduce_short_rows_kernel, rows of 256 421.1 -> 294.7 us. (A sum through the same
//! kernel was slower than reduce_short_rows_kernel: rows of 32 279.3 -> 408.6 us; sums keep it.)
//! With staged_row_blocks_per_sm: 8 vectors, 4 blocks (64 registers) 320.7 / 278.9 us (rows of
//! 32 / 256); 8 vectors, 5 blocks (48 registers, 64 bytes spilled) 399.1 / 377.8 us; 4 vectors,
//! 6 blocks 389.5 / 318.2 us; 16 vectors (72 KiB of shared memory a block) exceeds the static
//! 48 KiB. Also tried (probe of 2026-11-22, rows of 32 / 256): the next round's loads issued
//! before the current round is folded (the registers are free once the round is staged) 320.5 /
//! 279.3 -> 331.4 / 291.7 us; a grid of 4 blocks per SM instead of grid_for's 8, 319.7 / 279.9
//! -> 321.3 / 280.7; a 32-bit index inside the lane runs, 317.0 / 276.4 -> 319.5 / 273.6. None
//! kept: ncu (rows of 128) shows 74% DRAM and 65% issue-active cycles, neither saturated.
constexpr int staged_row_vectors = 8;
//! Blocks per SM the staged-row kernel is compiled for (at most 64 registers a thread): left to
//! itself the compiler took 127 registers for arg reducers with a one-instruction value combine
//! (2 blocks per SM).
constexpr int staged_row_blocks_per_sm = 4;

//! Long rows get a warp each when there are at least resident warps / this many rows: half the
//! warps busy, each with 4 x 16 bytes in flight per lane, still keeps ~64 KiB in flight per SM,
//! about 3x what Little's law asks of HBM3e (4.4 TB/s x ~0.6 us / 132 SMs ~ 20 KiB). Fewer rows
//! are split into tiles of at least row_tile_min_bytes, one block per tile, about one wave.
constexpr std::uint64_t warp_rows_divisor = 2;
constexpr std::uint64_t row_tile_min_bytes = std::uint64_t(64) << 10;

//! Many long rows of at least this many bytes get a block per row instead of a warp per row
//! when the reducer's lanes combine in one instruction (has_fused_shuffle: sums, min, max; the
//! measurement below ran when `automatic` fused that instruction with the shuffle): a block of
//! block_threads threads then loads a 16 KiB row (1024 16-byte vectors) in one round of
//! vectors_in_flight loads. H200, f32, 2^28 elements, kernel timed alone (probe of 2026-11-21):
//! plus rows of 4096, warp per row 251.9 us, block per row 240.1 us (CUB 235.1 in
//! preduce-bench); rows of 8192: 253.5 -> 240.3; rows of 2048 (half a round): 255.4 -> 254.9,
//! not worth it. argmax rows of 4096 (no fused step): 264.6 -> 383.6 us, so arg reducers keep a
//! warp per row (the block reduction's tail costs more than the round saves). Tried again with
//! arg block reductions through redux.sync (git 1c2769d, preduce-bench --batched, H200): argmax
//! rows of 4096 a block per row 265.6 us against 247.8-251.3 us for a warp per row (CUB 231.9).
constexpr std::uint64_t block_row_min_bytes = std::uint64_t(block_threads) * vectors_in_flight * vector_bytes;

//! Columns: rows each lane loads (one vector of up to 4 columns per row) before folding any.
//! The loop around it (reduce_columns_kernel) was rewritten on 2026-11-22 after ncu showed the
//! old one issue-bound for arg reducers (f32 argmax, columns of 262144: 172.5M warp instructions,
//! ~20 a lane per element, 64 bytes spilled): the aligned and the element-by-element loads are
//! separate instantiations, a lane's rows are counted once and stepped by pointer, whole rounds
//! run unpredicated, and after its first round a lane folds arg elements with one `better` test
//! (fold_after_first): 109M instructions, no spills. H200, f32 at 2^28, kernel timed alone
//! (probe of 2026-11-22), us over columns of 32 / 256 / 4096 / 262144: argmax 338.3 / 280.6 /
//! 290.1 / 342.2 -> 318.9 / 259.9 / 257.6 / 271.9, plus 279.6 / 255.2 / 258.2 / 264.4 -> 267.3 /
//! 250.3 / 247.3 / 247.9 (with the row splits of column_min_steps' note); the
//! element-by-element instantiation on the same data, argmax 322.4 / 265.1 / 262.9 / 276.8 (the
//! old loop's element path 348-355 us). Tried and dropped in the same probes: loading the next
//! round before folding this one (4 rows: 200 bytes spilled; 2 rows double-buffered, argmax
//! 323.3 / 254.7 / 258.8 / 312.4 against 307.7 / 252.1 / 255.5 / 311.5 for 4 rows without);
//! a grid of one resident wave striding over the tiles, argmax 327.7 / 262.4 / 256.7 / 270.6.
//! Earlier (2026-11-22, the old loop): each lane taking its 4 rows consecutively, so a column's
//! 4 elements fold as one chunk, changed nothing (argmax 330.0 / 277.3 / 283.1 / 337.0 against
//! 332.0 / 274.7 / 282.8 / 337.1).
constexpr int column_rows_in_flight = 4;
//! Columns: fewest row steps one warp takes before the rows are split among more warps (each
//! split adds partial results to write, read and combine). The warps the rows are split among
//! are those of one wave at the kernel's occupancy (launch_columns): counting batched_blocks_per_sm
//! (8) blocks where 4 fit doubled the row splits into two waves, and the tile's last block folds
//! twice the partials. H200, f32 argmax, probe of 2026-11-22: columns of 4096 / 262144 255.5 /
//! 311.5 -> 247.9 / 263.4 us.
constexpr std::uint64_t column_min_steps = 8;
//! Columns: blocks per SM reduce_columns_kernel is compiled for (at most 64 registers a thread)
//! where its accumulator takes at most 16 bytes (sums, min, max, minmax, arg reducers); larger
//! accumulators (moments, binned sums) keep the compiler's choice. Left to itself the compiler
//! took 75-76 registers for f32 plus and argmax (3 blocks, 37.5% occupancy; ncu on argmax
//! columns of 262144: 55% of DRAM bandwidth, 1.1 eligible warps per scheduler). H200, f32,
//! 2^28 elements, kernel timed alone (probe of 2026-11-22), 3 -> 4 blocks (20-56 bytes then
//! spilled): argmax columns of 32 / 256 / 4096 / 262144 352.8 -> 363.7, 301.7 -> 275.4, 311.1 ->
//! 284.0, 336.3 -> 334.3 us; plus 279.4 -> 278.6, 263.9 -> 254.1, 266.9 -> 257.4, 272.4 -> 263.6.
//! 5 blocks (48 registers, 132-156 bytes spilled): 354-424 us, every shape slower. The loop of
//! 2026-11-22 (above) still spills 40-108 bytes at 5 blocks.
constexpr int column_blocks_per_sm = 4;
template <class Acc>
constexpr int column_min_blocks() {
  return sizeof(Acc) <= 16 ? column_blocks_per_sm : 1;
}

//! Segments: elements each lane of a group loads before folding any (short segments are read
//! element by element: they are rarely 16-byte aligned). The lanes per segment follow from it
//! (enqueue_segments: the average segment over this many elements, rounded down to a power of
//! two), so it also sets how many segments a warp has in flight. For the heavy-tailed case below
//! that is 2 lanes; forcing 4 / 8 / 1 lanes was slower (ncu kernel time at its locked clocks,
//! probe of 2026-11-22): 2 lanes plus 590 us / argmax 947 us, 4: 735 / 1180, 8: 1350 / 2070,
//! 1: 2660 / 3360. Swept on an H200 (heavy-tailed f32 segments, 2^28 elements, 3 blocks per SM;
//! kernel timed alone, probe of 2026-11-21): 8: plus 589 us / argmax 1099 us; 12: 637 / 1234;
//! 16: 516 / 818; 20: 548 / 913; 24: 573 / 1034; 32: 562 / 1417 (spilling). The kernel is
//! latency-bound: 16 puts 64 bytes in flight per lane for f32, twice what 8 did (ncu, plus,
//! 2026-11-22: issue active 46.8%, 18.4 of 24 warps active, 5.4 of the 10 cycles between a
//! warp's instructions waiting on L1TEX, L1 48% / L2 57% / DRAM 41% of peak; 195M warp
//! instructions). 16-byte vector loads per group instead (the aligned vectors covering a segment,
//! elements outside it masked; probe of 2026-11-22, same data) were slower at every shape tried:
//! 2 / 4 / 8 lanes a segment with 4 vectors a lane, plus 600.5 / 738.7 / 1140.9 us and argmax
//! 956.2 / 1231.6 / 1911.6 against 519.9 / 754.9.
//! Also slower (branch experiment/staged-segments, H200, preduce-bench --batched, 2026-11-22):
//! moderngpu's segmented reduction, tiles of 32 P items (elements and segment ends) loaded
//! coalesced into shared memory, each lane folding P consecutive items, the lanes joined by a
//! segmented scan, the next tile's loads issued before the current one is folded: plus 635.4 us,
//! argmax 1031.5 us (P = 15, 2 blocks of 128 registers per SM; P = 16 with a stage padded every
//! 32 elements 715.4 / 1066.4 us). ncu on its plus kernel: 285M warp instructions (~510 per
//! tile of 480 items), 19% of warp slots active, issue active 53%, 2.09 fixed-latency ("wait")
//! stalls per issue: it would need about half the instructions and more warps.
//! Also tried (branch experiment/flat-segments, H200, same data, kernel pairs timed alone, probe
//! of 2026-11-22): each warp reads its range as one array of 16-byte vectors in tiles of 32 V
//! elements whatever the lengths, a tile's ends found by a shared-memory bit mask, the lanes
//! joined by a segmented scan, closed segments staged in shared memory for the lanes holding
//! the ends: plus 537 -> 490 us but argmax 686 -> 1099 us (ncu: 208M / 548M warp instructions,
//! the arg folds' index tests and 3-word shuffles), so not taken; its variants are listed there.
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
