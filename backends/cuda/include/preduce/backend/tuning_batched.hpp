// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the launch shapes of the batched kernels (rows, columns, segments), each with
// the measurement or the reasoning that chose it. Measured on an H200: row_items_in_flight,
// staged_row_vectors, staged_row_blocks_per_sm, block_row_min_bytes, column_blocks_per_sm,
// segment_stage_bytes, segment_lane_elements, segment_stage_skew, segment_skew_starts,
// segment_end_weight, segment_blocks_per_sm, segment_check_offsets_in_flight; on an H100:
// small_row_items, small_staged_row_vectors, column_small_steps, the small segments' constants. The
// others are first choices from reasoning alone, to be swept with preduce-bench --shapes
// rows,columns,segments (bench/README.md).
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
//! 279.3 -> 331.4 / 291.7 us; a grid of 4 blocks per SM instead of grid_for's 8 (then), 319.7 /
//! 279.9 -> 321.3 / 280.7; a 32-bit index inside the lane runs, 317.0 / 276.4 -> 319.5 / 273.6.
//! None kept: ncu (rows of 128) shows 74% DRAM and 65% issue-active cycles, neither saturated.
//! (A grid of 64 blocks per SM did gain: batched_grid_blocks_per_sm.)
constexpr int staged_row_vectors = 8;
//! Blocks per SM the staged-row kernel is compiled for (at most 64 registers a thread): left to
//! itself the compiler took 127 registers for arg reducers with a one-instruction value combine
//! (2 blocks per SM).
constexpr int staged_row_blocks_per_sm = 4;

//! Short rows of a small input (every block of the launch resident in one wave): items a lane
//! takes, so fewer lanes share a row (small_row_items, reduce_short_rows_kernel) or more do
//! (small_staged_row_vectors, reduce_staged_rows_kernel) than at full size, where the loads in
//! flight per thread decide. Probe of 2026-11-25 (H100, f32, aligned rows, graph of 64 calls over
//! 64 input copies, us, main's shape -> this one): plus over rows of 32 (8 vectors: 8 lanes of 1
//! -> 2 lanes of 4) at 2^10 / 2^12 / 2^14 / 2^16 / 2^18 / 2^20: 1.96 / 2.02 / 2.07 / 2.15 / 2.69 /
//! 3.76 -> 1.42 / 1.61 / 1.67 / 1.71 / 2.20 / 3.30; rows of 256 (64 vectors: 32 lanes of 2 -> 16
//! of 4): 1.59 / 1.65 / 1.71 / 1.88 / 2.28 / 3.34 -> 1.50 / 1.55 / 1.75 / 1.73 / 2.19 / 3.26;
//! argmax (staged) over rows of 32 (1 lane of 8 -> 4 lanes of 2): 2.08 / 2.09 / 2.32 / 2.55 /
//! 3.06 / 3.89 -> 1.76 / 1.88 / 1.94 / 1.98 / 2.44 / 3.87; rows of 256 (8 lanes of 8 -> 32 of 2):
//! 2.34 / 2.36 / 2.66 / 2.85 / 3.34 / 4.16 -> 1.76 / 1.87 / 1.93 / 1.96 / 2.43 / 3.84. Past one
//! wave main's shapes hold: plus over rows of 32 at 2^24 / 2^26, 2 lanes of 4: 27.25 / 103.39
//! against 25.29 / 93.61.
//! What the kernel's runtime shape costs (probe of 2026-11-26, H200, f32 sums over rows of 256,
//! 16 lanes of 4 vectors, us at 2^10 / 2^12 / 2^14 / 2^16; empty launch 0.63): the library 1.38 /
//! 1.49 / 1.56 / 1.57, CUB 1.31 / 1.34 / 1.40 / 1.51; copies of reduce_short_rows_kernel with
//! lanes and items a lane as template parameters 1.08 / 1.20 / 1.26 / 1.28 (ncu at 2^10: 660 ->
//! 344 warp instructions, 59 -> 47 registers); with only the items a lane fixed, the vector path
//! known and the group reduced by xor shuffles predicated on the lane count 1.19 / 1.31 / 1.37
//! / 1.39; only the items a lane 1.31-1.49; only the lane count 1.54-1.74 (slower); a minimal
//! kernel of the same shape (32-bit indices, no reducer) 1.02 / 1.10 / 1.17 / 1.18. Taken: a
//! Small form of the kernel (small plans of a row a group: 32-bit indices, the slots' shape
//! fixed, the lane count still a parameter; now reduce_small_rows_kernel) and down_tree's steps
//! unrolled; the library then 1.18 / 1.27 / 1.32 / 1.38 in the same probe, and sums over rows of
//! 32 1.17 / 1.39 / 1.46 / 1.48 (CUB 1.36 / 1.48 / 1.65 / 2.94). A kernel per lane count (the
//! 1.08 above) would be six more instantiations for every reducer; this Small form and the
//! unrolled steps made the cuda build on the device (H200s, 16 cores) 414 -> 463 s (the segments
//! kernel's third instantiation before them: 381 -> 414).
//! Arg reducers' small plans (probe of 2026-11-26, H200, f32 argmax, us at 2^10 / 2^12 / 2^14 /
//! 2^16, rows of 32 and of 256): the staged kernel with small_staged_row_vectors a lane 1.77 /
//! 1.89 / 1.92 / 2.15 and 1.92 / 2.03 / 2.06 / 2.11; the same runs of 2 vectors loaded straight
//! from global memory by reduce_small_rows_kernel 1.39 / 1.47 / 1.51 / 1.57 and 1.51 / 1.59 /
//! 1.63 / 1.68 (CUB 1.47 / 1.57 / 1.76 / 3.38 and 1.60 / 1.67 / 1.75 / 1.83); in an earlier run
//! of the probe, runs of 4 vectors (half the lanes) 1.43 / 1.66 / 1.69 / 1.92 and 1.85 / 2.11 /
//! 2.14 / 2.20, and the sums' strided Small form over 4 items a lane 1.66 / 1.90 / 2.11 / 2.19
//! and 2.00 / 2.14 / 2.18 / 2.29.
constexpr std::uint64_t small_row_items = 4;
constexpr std::uint64_t small_staged_row_vectors = 2;

//! Long rows get a warp each when there are at least resident warps / this many rows: half the
//! warps busy, each with 4 x 16 bytes in flight per lane, still keeps ~64 KiB in flight per SM,
//! about 3x what Little's law asks of HBM3e (4.4 TB/s x ~0.6 us / 132 SMs ~ 20 KiB). Fewer rows
//! are split into tiles of at least row_tile_min_bytes, one block per tile.
constexpr std::uint64_t warp_rows_divisor = 2;
constexpr std::uint64_t row_tile_min_bytes = std::uint64_t(64) << 10;
//! Few long rows: tiles a row for about this many waves of batched blocks in all (rounded up to
//! a power of two, at most the row_tile_min_bytes tiles a row holds), each tile a whole number of
//! 128-byte lines. Until 2026-11-27 the tiles filled about one wave, of whole vectors: with 1024
//! rows of 262144 f32 (2^28 in all) that was 2048 blocks, and the f32 argmax kernel fits 6 an SM,
//! so 2.6 waves; with one row of 2^28, 1056 tiles of 254204 elements, which start 16 bytes off a
//! 32-byte sector in turn. H200, a graph of 8 calls, us a call, two runs each interleaved (probe
//! of that day; CUB's DeviceSegmentedReduce in the same process), the library before -> after, sum
//! / argmax: 1024 rows of 262144 234.2-234.8 / 242.1-242.3 -> 232.9-233.5 / 235.2-235.7 (CUB 249.1
//! / 242.0); 2048 rows of 131072 232.1-232.2 / 239.7-239.8 -> 233.3-233.4 / 235.4-235.5 (CUB 234.2
//! / 238.9); one row of 2^28 246.1 / 275.2-275.8 -> 238.6-238.7 / 250.2-250.3; 256 rows of 262144
//! (2^26) 63.7-63.8 / 65.7-65.9 -> 61.7-61.9 / 63.9-64.4. Variants in an earlier run of the same
//! probe: tile counts that are not powers of two ran slower, even on 128-byte lines (1024 rows in 5
//! tiles 240.5-240.7 / 243.7-243.9 against 8 tiles' 237.4-238.0 / 239.6-240.0; in whole-vector
//! tiles, 3, 5, 6 and 12 tiles 240.2-245.5 / 243.0-247.0 against 4, 8 and 16 at 237.1-238.8 /
//! 239.7-240.9); one row of 2^28 in one wave of 128-byte tiles, 239.0-239.2 / 265.6-266.2 (the
//! sum faster than 8192 tiles in that run, argmax slower).
constexpr std::uint64_t row_tile_waves = 4;

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

//! Many aligned rows of at least this many bytes (8 KiB: one round of vectors_in_flight loads for 4
//! warps) get a group of 4 warps each (reduce_rows_by_group_kernel, one block per 2 rows, no
//! grid-stride loop), ahead of a warp per row (reduce_rows_by_warp_kernel, then a grid of one wave
//! striding over the rows) and a block per row. H200, f32 at 2^28, kernels timed alone (probe of
//! 2026-11-23, us, plus / argmax, the kernel main chose -> the group kernel at 6 blocks per SM):
//! rows of 2048 272.6 / 255.0 -> 240.3 / 244.2, 3000 282.7 / 262.2 -> 239.4 / 245.6, 4096 239.0 /
//! 251.1 -> 239.6 / 242.6, 8192 239.8 / 250.2 -> 239.3 / 241.3, 16384 239.5 / 251.7 -> 239.6 /
//! 242.4; below 8 KiB it loses for argmax (rows of 1536: 256.6 -> 264.6, 1024: 262.4 -> 328.7). In
//! an earlier probe the same rows with 1, 2 or 8 warps a row: 2 and 4 within 1% from 4096 up, 2
//! slower at 2048 (argmax 247.2 against 244.1), 8 slower at 2048 (plus 294.0, argmax 321.0); each
//! thread loading 4 consecutive vectors instead of vectors t, t + 128, ...: no faster (argmax rows
//! of 4096 242.5 against 243.2). Rows that are not 16-byte aligned keep the other kernels (a
//! runtime group size, reading their scalar head and tail through fold_share: rows of 2048 plus
//! 280.4 -> 322.4 us, 4096 argmax 259.0 -> 280.4 at 4 warps a row).
constexpr std::uint64_t group_row_min_bytes = std::uint64_t(4) * warp_threads * vectors_in_flight * vector_bytes;
//! Blocks per SM reduce_rows_by_group_kernel is compiled for: 6 (at most 40 registers) against 4
//! (62 for plus, 42 for argmax) and 5, probe above: rows of 3000 plus 257.0 / 240.2 / 239.4,
//! argmax 258.8 / 259.8 / 245.6; rows of 1536 argmax 279.0 / 278.7 / 264.6; from 4096 up within
//! 1%.
//! Until 2026-11-27 CUB's DeviceSegmentedReduce::ArgMax stayed 0.4-0.9% faster than this kernel
//! over rows of 2048 to 16384 (its sums did not); what closed it was where the results and the
//! input sit in the L2 (evict_first loads, evict_last stores: evidence beside the kernel), after
//! the probes below, which all stored their results plainly. Probes of 2026-11-23 (H200, f32 argmax
//! at 2^28, graph of 16 launches, us, this kernel / CUB in the same process, rows of 2048 / 4096 /
//! 6144 / 8192 / 16384): 240.0 / 238.1, 238.9 / 237.0, 238.0 / 236.7, 238.1 / 236.9, 239.0 / 238.1.
//! None of these closed the gap (rows of 4096, same runs): 8 blocks per SM (32 registers) 244.5
//! against 244.1 under events; whole rounds of 8 vectors a thread at 4 or 5 blocks per SM 238.47 /
//! 238.49 against 238.61 (and 247.5 at rows of 2048, half a round); a thread's best kept as a float
//! and a 32-bit in-row index, combined through one redux.sync for the index, 238.20 against 238.88;
//! that fold with a NaN-unaware compare 237.98, so the compare is not the cost; CUB's own shape, a
//! block of 256 threads per row with 16 scalar 4-byte loads a thread (its kernel reads through
//! ArgIndexInputIterator: LDG.E, not LDG.E.128), 237.89 against CUB's 237.01; the 4 warps' partials
//! combined by one thread instead of a second warp reduction: equal.
//! Probes of 2026-11-27 (H200s, f32 argmax over rows of 4096 at 2^28, graph of 8 calls, median of
//! 6 replays, us; CUB and this kernel in every run; the runs' cards differed in speed by 1.5%, so
//! compare within a run): the gap is a rate, not a fixed cost (2^26 / 2^27 / 2^28: this
//! kernel 62.1 / 120.7 / 238.1, CUB 61.6 / 119.8 / 236.2). Sums through this kernel took 235.0,
//! CUB's argmax 236.0, this kernel's argmax 237.9 (run A); in run A also: 8 warps a row, one round
//! of loads, 237.5; a block of 128 a row 237.7; 8 blocks per SM (32 registers) 237.4; CUB's shape
//! (a block of 256 a row, 16 scalar loads a thread, 8 blocks per SM) folding with `better` alone
//! 236.9, the same launched without overlap 237.3, with a 32-bit index pair reduction 237.6. Run B
//! (CUB 233.0, this kernel 234.6): ld.global.nc, ld.global, L1::no_allocate and both, 16-byte
//! loads at 8 blocks per SM: 234.1-234.4 each. Run C (CUB 237.0, this kernel 238.7): a fold of
//! about 2 ALU instructions an element instead of 7 (a max.NaN tree, then the first position
//! holding the maximum), 238.2, against 238.1 for the same shape with fold_chunk: not the
//! instructions. Shared-memory pipelines over a grid of one wave, so that loads stay in flight
//! through each row's block reduction, were slower for sums too: run D (CUB 232.5, this kernel
//! 234.2, its sums 231.0), a bulk copy (cp.async.bulk) a row a stage, 2-4 stages, argmax 242.0-
//! 255.4, sums 234.2-234.8; run E (CUB 232.8, this kernel 234.5, sums 231.5), each thread's
//! vectors through 16-byte cp.async, 2-4 stages, argmax 241.5-247.6, sums 242.0-245.7.
constexpr int group_row_blocks_per_sm = 6;

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
//! Small inputs (2^16 to 2^20 f32) are latency-bound, and more splits do not help: probe of
//! 2026-11-23 (H200, graph of 16 launches, us, min steps 8 / 4 / 2 / 1), 2^20 columns of 4096
//! plus 4.99 / 5.75 / 7.82 / 7.93, argmax 16.99 / 25.66 / 42.23 / 43.24; 2^16 columns of 256
//! plus 4.04 / 3.73 / 3.83 / 3.92, argmax 8.19 / 8.39 / 9.44 / 11.47 (CUB 2.10 and 2.27 in
//! preduce-bench). The argmax cost is the tile's last block folding the splits' partials one
//! L2 round trip at a time; loading 8 of them before combining any took 2^20 columns of 4096
//! argmax from 17.45 to 14.66 us but, through the registers it holds, 2^28 columns of 32 /
//! 4096 from 304.4 / 248.1 to 436.4 / 348.9 (and heavy-tailed segments argmax 353.6 -> 403.0
//! with the same change to their pieces), so it was not taken then. Since 2026-11-25 the splits'
//! fold is a function of its own that loads them 8 at a time (fold_splits,
//! column_splits_in_flight), which keeps the gain without the loss.
constexpr std::uint64_t column_min_steps = 8;
//! Columns: most row steps a warp takes under plan_small_columns (one block per column tile, no
//! row splits, all tiles in one wave; 16 = 4 rounds of column_rows_in_flight, or one of
//! column_deep_rows_in_flight for reducers without an index). Small inputs are
//! latency-bound: each row split adds a fence, a counter and a fold of partials to the chain,
//! and a serial fold per lane costs arg reducers far more than a tree of shuffles. Probe of
//! 2026-11-25 (H100, f32, every plan of reduce_columns_kernel at 2^10 to 2^24 elements, graph of
//! 64 calls over 64 input copies, us, main's plan -> plan_small_columns' plan, fastest plan of
//! the sweep in brackets where faster; CUB in preduce-bench on an H100 in brackets after "CUB"):
//! columns of 32 at 2^12 / 2^14 / 2^16 / 2^18: plus 2.12 / 2.24 / 2.35 / 2.99 -> 1.98 / 2.04 /
//! 2.13 / 2.62, argmax 3.88 / 4.22 / 4.44 / 5.11 -> 2.12 / 2.14 / 2.29 / 3.23 (CUB 1.85 / 2.04 /
//! 4.13 / 14.37); columns of 256 at 2^12 .. 2^20: plus 2.52 / 4.28 / 4.44 / 5.17 / 5.96 -> 2.37 /
//! 2.45 / 2.60 / 3.06 / 4.26, argmax 4.64 / 7.82 / 8.51 / 9.14 / 9.90 -> 2.70 / 3.06 / 3.17 / 3.60 /
//! 5.17 [4.86] (CUB 1.76 / 1.99 / 2.40 / 4.09 / 10.80); columns of 4096 (16 steps a warp) at
//! 2^14 .. 2^22: plus 4.79 / 4.77 / 5.11 / 6.76 / 10.83 -> 3.02 / 3.70 / 5.59 [4.92 with 64 row
//! splits] / 5.96 / 11.49 [9.61], argmax 8.87 / 8.97 / 9.68 / 13.85 / 20.25 -> 5.31 / 5.79 /
//! 7.44 / 7.77 / 14.20 [11.06]. Row splits were the fastest plan in 1 of those 44 cases. Wider
//! than one wave the narrow tiles lose (a block then reads only part of a 32-byte sector of each
//! row and the sector is fetched again for the next tile): argmax over columns of 32 at 2^20, 1024
//! tiles of 4 columns, 6.98 against main's 6.12, so main's plan keeps those. One case lost:
//! argmax over 4 columns of 256 rows (2^10), 2.35 -> 3.80, where the one tile's 8 warps combined
//! through shared memory; since 2026-11-25 a tile wider than the columns keeps its other warps
//! idle instead (probe of that day, H100, same method: 2.56, and 2.41 with one warp a column;
//! sums over 32 columns of 32 rows 2.24 -> 2.14). Where the one-round tiles exceed a wave,
//! plan_half_wave_columns (at most half a wave of tiles, the fewest row steps a warp) replaced
//! the split plan: same probe, us, split plan -> that plan's time in the sweep [fastest]:
//! argmax over columns of 32 at 2^20 / 2^22 6.09 / 11.24 -> 5.50 / 8.70 [4.99 / 8.70], over
//! columns of 256 at 2^22 15.37 -> 10.52 [10.02]; sums over columns of 256 at 2^22 10.06 -> 8.00
//! [7.96], over columns of 32 at 2^22 7.65 -> 7.63. These figures are of the 64-bit kernel; since
//! git c5cc9b7 the plans run in 32-bit indices (reduce_small_columns_kernel since the commit
//! after cc83403; launch_columns has the figures).
constexpr std::uint64_t column_small_steps = 16;
//! Columns: rows a lane loads before folding any in reduce_small_columns_kernel where a warp
//! takes more than column_rows_in_flight row steps (columns of 1025 to 4096 rows under
//! plan_small_columns), for reducers without an index (sums, min, max, minmax): all of its
//! steps in one round instead of up to 4. Arg reducers keep column_rows_in_flight (their folds
//! hold the round's rows longer: mixed below). H100 probe of 2026-11-26 (f32, graph of 64 calls,
//! us, a copy of the kernel at 4 / 8 / 16 rows in flight, 3 or 2 blocks an SM at 8): sums over
//! 2048 rows x 4 / 16 / 64 columns 1.81 / 2.16 / 3.28 -> 1.66 / 2.09 / 3.00 at 8 -> 1.73 / 2.13 /
//! 3.03 at 16; over 4096 rows x 4 / 16 / 64 / 256 2.19 / 2.93 / 4.81 / 5.02 -> 1.98 / 2.85 / 4.53
//! / 4.82 at 8 -> 1.89 / 2.80 / 4.17 / 4.58 at 16 (CUB over 4096 x 64: 4.52); argmax over 4096
//! rows x 4 / 16 / 64 / 256 3.03 / 3.53 / 5.28 / 5.52 -> 2.84 / 3.76 / 5.14 / 5.53 at 16. Up to
//! 1024 rows (one round) nothing moved (512 x 64, 1024 x 16 and 1024 x 64 within 0.04 us). The
//! library before -> after, same probe and machine: sums over 4096 x 4 / 64 / 256 2.24 / 4.86 /
//! 5.07 -> 1.96 / 4.23 / 4.64, over 2048 x 64 3.32 -> 3.10 (8 would gain 0.07 more over 2048
//! rows: not worth a third instantiation).
constexpr int column_deep_rows_in_flight = 16;
static_assert(column_deep_rows_in_flight >= int(column_small_steps), "one round covers a small plan's steps");
//! Columns: blocks per SM the column_deep_rows_in_flight instantiation is compiled for: its 16
//! rows of 16 bytes take 64 registers alone, so at column_blocks_per_sm (64 registers a
//! thread) it would spill; at 2, ptxas (sm_90) gives it 108 registers for f32 sums, 110 for f32
//! maximum and minmax, 119 for f64 sums, 60 for int8 sums, and no spills.
constexpr int column_deep_min_blocks = 2;
//! Columns: row steps a warp takes under plan_small_columns for arg reducers in
//! reduce_small_columns_kernel, whose warp groups combine through ranks (store_column_args) at
//! little cost per group: their per-element fold (three compares and three selects in the sm_90
//! SASS for f32) is what costs, so the rows are spread over up to 8 warps. H200 probe of
//! 2026-11-26 (f32 argmax, graph of 64 calls, us, warps on a column 1 / 2 / 4 / 8 over 256 rows
//! of 4 / 16 / 64 / 256 columns): 4 columns 1.83 / 1.84 / 1.79 / 1.87, 16 2.01 / 2.07 / 1.93 /
//! 1.94, 64 2.82 / 2.38 / 2.11 / 2.07, 256 2.90 / 2.43 / 2.14 / 2.13 (a round a warp,
//! column_rows_in_flight, took 2 warps); over 32 rows of 32 / 128 columns (one step) 1.63 / 1.69
//! with one warp, 1.81 / 1.86 with 8 (CUB 1.53 / 1.65 / 1.84 / 2.20 over 256 rows, 1.55 / 1.72
//! over 32).
constexpr std::uint64_t column_arg_warp_steps = 1;
//! Columns, arg reducers under plan_small_columns: where a warp would take more than
//! column_arg_split_steps row steps (columns of more than 2048 rows at one lane a row), a
//! tile's rows are split among 2^column_arg_splits_log2 blocks (reduce_small_columns_kernel's
//! splits: published accumulators, the tile's last block combining them), as long as that
//! makes at most column_arg_split_blocks blocks. An arg fold costs six instructions an element, and on a
//! column tile a block those folds sat on few SMs (16 blocks over 4096 x 64). H100 probe of
//! 2026-11-26 (f32 argmax, graph of 64 calls, us; a copy of the kernel whose splits stored
//! their results, fenced and counted, before -> 2 / 4 / 8 splits): 4096 rows x 4 / 16 / 64 / 256
//! columns 3.10 / 3.52 / 5.22 / 5.53 -> 3.33 / 3.77 / 4.96 / 5.79, 2.97 / 3.42 / 4.11 / 5.75,
//! 3.03 / 3.46 / 4.04 / 6.25 (CUB 3.72 / 4.08 / 5.01 / 9.39); 2048 rows x 16 / 64 2.59 / 3.62 ->
//! at best 3.11 / 3.69 (4 splits), 1024 x 64 2.59 -> at best 3.38. With the splits as they are
//! (flagged words, no fence; H100, the library before -> after, both in one call): 4096 rows
//! x 4 / 16 / 64 columns 3.07 / 3.50 / 5.21 -> 2.94 / 3.39 / 4.03-4.11 (two passes), 3000 x 64
//! 3.88 (CUB 7.05), 4096 x 256 (not split) 5.53 -> 5.66 in an earlier call; 2048 x 64 (8 steps
//! a warp, not split) stays below CUB: 3.62 against 3.36. Over 256 columns (64 tiles, 256 blocks
//! split) every split count lost above, hence column_arg_split_blocks. Collected one split at a
//! time (collect_partial in a loop, a round trip each) the splits were slower: 3.69 / 4.22 /
//! 4.86 over 4096 x 4 / 16 / 64.
constexpr std::uint64_t column_arg_split_steps = 8;
constexpr unsigned column_arg_splits_log2 = 2;
constexpr std::uint64_t column_arg_split_blocks = 64;
//! Columns: row splits' partials the tile's last block loads before combining any (fold_splits), as
//! many as fit 128 bytes of registers a thread, at most 8 (8 for sums, min/max, minmax and arg
//! reducers of 4- and 8-byte types; 1 or 2 for binned accumulators). The fold is a function of its
//! own (__noinline__): inlined into reduce_columns_kernel, the same 8 loads in flight made the main
//! loop slower (column_min_steps' note). ptxas (sm_90, f32): the kernel stays at 64 registers;
//! argmax's stack frame grows from 8 to 24 bytes, the registers saved around the call.
//! H100, preduce-bench, graph timer, f32, us, git e5e6cba -> this fold (2026-11-25,
//! two machines of the same kind, columns of 32 to 262144 at 2^12 to 2^24; between the two runs CUB
//! moved by -6% to +5% and the sums, whose few 4-byte partials per split cost little either way, by
//! -13% to +14% with no trend): argmax columns of 262144 at 2^22 / 2^24 24.77 / 91.46 -> 20.36 /
//! 54.44, columns of 4096 at 2^20 / 2^22 17.84 / 22.88 -> 14.05 / 20.44. At 2^28 (read ceiling 3073
//! GB/s) argmax over columns of 32 / 256 / 4096 / 262144 ran at 91.4 / 97.6 / 98.1 / 96.5% of the
//! ceiling: the inlined loop's slowdown (a third at columns of 32) is not there. But on an H200 the
//! call's saved registers spilled into the main loop's first round: argmax over columns of 32 at
//! 2^28 took 304.4-305.4 us at git ce34713 and 313.7-314.7 at 48aec82, which brought this fold
//! (bisection of 2026-11-27, graph of 8 calls); fold_column_rows' unpredicated first round took
//! the spill away.
template <class Acc>
__host__ __device__ constexpr int column_splits_in_flight() {
  constexpr int fit = int(128 / sizeof(Acc));
  return fit < 1 ? 1 : fit > 8 ? 8 : fit;
}
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

//! Segments: shared memory per warp for a round of complete segments (stage_range; 8 warps a
//! block, 48 KiB a block, the most a block takes without opting in, 144 KiB for the kernel's 3
//! blocks an SM): 1436 f32 elements, about 44 segments of the heavy-tailed case's 0..64, so a
//! round takes 32 and a lane folds one. Probe of 2026-11-23 (H200, f32 at 2^28, launches timed
//! alone, us, plus / argmax): 4608 bytes, always skewed every 8 chunks, the whole warp folding
//! each segment over 64 elements: heavy-tailed 412 / 544, uniform segments of 100 665 / 838;
//! with groups of lanes (below), 4608 -> 6144 bytes: heavy-tailed 415 / 571 -> 415 / 551,
//! uniform 100 392 / 592 -> 357 / 490, uniform 64 350 / 480 -> 389 / 405.
constexpr int segment_stage_bytes = 6144;
//! Segments: a round's segments spread over the warp, 32 / 2^ceil(log2 k) lanes each for k
//! segments, and one lane (or group) folds at most segment_lane_elements elements per lane;
//! longer ones of the round are folded by the whole warp from the stage. 32 instead of 64 sent
//! the heavy-tailed case's 33..64-element segments to the whole warp: plus 412 -> 1050 us,
//! argmax 544 -> 1321 (probe above).
constexpr std::uint64_t segment_lane_elements = 64;
//! Segments: the stage is copied skewed (one 16-byte chunk of padding every segment_stage_skew
//! chunks) when at least segment_skew_starts of a round's segments (groups) start in the same
//! shared-memory bank; a skewed copy costs a little on every element (its runs end at each
//! skew), an unskewed one with equal-length segments costs a bank conflict per lane. Probe
//! (above; plus / argmax, us, main's kernel before this stage in brackets): never skewed:
//! heavy-tailed 368 / 444, uniform 32 1137 / 1147 (615 / 622), uniform 64 614 / 638 (473 / 508);
//! always skewed every 16 chunks: heavy 404 / 586, uniform 32 357 / 377, 64 332 / 355; skewed
//! from 6 starts in a bank: heavy 368 / 438 (549 / 712), uniform 32 355 / 373, 64 329 / 350, 16
//! 427 / 477 (653 / 667), 100 331 / 443 (438 / 495), 7 806 / 868 (816 / 1008), 3000 271 / 283
//! (386 / 352); from 4: heavy 381 / 507; every 8 chunks from 6: heavy 366 / 429, uniform 64 388 /
//! 406.
constexpr int segment_stage_skew = 16;
constexpr unsigned segment_skew_starts = 6;
//! History of the short-segment path before the stage (all H200, heavy-tailed f32 segments at
//! 2^28): groups of 2^k lanes per segment (k from the average length) loading 16 elements a
//! lane from global memory before folding any: plus 516 us / argmax 818 us (kernel timed
//! alone, 2026-11-21); ncu: latency-bound, issue active 46.8%, 195M warp instructions, about 34
//! a segment. 16-byte loads per group over the aligned vectors covering a segment: slower
//! (plus 600.5 us at 2 lanes a segment). Branch experiment/staged-segments: moderngpu's
//! segmented reduction (tiles of 32 P items staged in shared memory, a lane folding P
//! consecutive items, a segmented scan across lanes): plus 635.4 us, argmax 1031.5 us (285M warp
//! instructions). Branch experiment/flat-segments: a warp's range read as one array of 16-byte
//! vectors whatever the lengths, joined by a segmented scan: plus 490 us, argmax 1099 us (548M
//! warp instructions: the arg folds' index tests and 3-word shuffles). With the stage (probe of
//! 2026-11-23): the whole warp's folds from global memory (cut pieces, segments longer than the
//! stage) with 8 16-byte loads a lane in flight instead of vectors_in_flight: slower, heavy-tailed
//! plus 478 -> 501 us, argmax 696 -> 721, uniform segments of 3000 270 -> 304 / 282 -> 332.
//! Those folds through the warp's stage instead (pieces of a whole stage copied with cp.async
//! and folded from there, lane j taking elements j, j + 32, ...; probe of 2026-11-23, us, plus /
//! argmax): one segment of 2^28 262 / 301 -> 297 / 367, the heavy-tailed case's 9 long segments
//! alone 105 / 132 -> 116 / 157; with two half stages, the next piece copied while this one is
//! folded: 341 / 384 and 143 / 159.
//! Also measured with the stage and not taken (probe of 2026-11-23, us, plus / argmax, this
//! kernel -> the variant): a lane folding its run of the copy four elements at a time through
//! the reducer's chunk fold (an arg reducer's tree of pairs): heavy-tailed 366 / 430 -> 368 /
//! 425 and 365 / 426 -> 366 / 429, short segments alone 244 / 299 -> 244 / 298 (not
//! instruction-bound); an L2 prefetch of the next round's elements issued before this round
//! is folded: heavy-tailed 358 / 428 -> 374 / 466, uniform 32 350 / 372 -> 369 / 389.
//! Probe of 2026-11-23 (later; same units, kernel before -> after): stage_range's copy loop
//! without a bounds test per chunk (taken; ncu: 188M -> 154M warp instructions for plus over
//! segments of 0..64, 274M -> 242M for argmax): heavy-tailed 360 / 430 -> 362 / 407, segments of
//! 0..64 alone 361 / 443 -> 359 / 415, uniform 100 329 / 444 -> 323 / 409, uniform 32 354 / 375 ->
//! 352 / 371, 3000 269 / 282 -> 272 / 282. What the rest costs (segments of 0..64, before):
//! without the fold 354 / 367, without the copies 273 / 419, so plus waits on the copies and
//! argmax on both. Not taken: the round's elements dealt evenly over the lanes (lane l folding
//! [l E, (l + 1) E), E odd, a segmented scan joining pieces across lanes; bank-conflict free
//! where a lane a segment averages 2.3-way conflicts and leaves lanes idle): heavy-tailed 364 /
//! 430 -> 475 / 621, uniform 32 354 / 375 -> 503 / 632 (a test per element and the scan cost
//! more than the idle lanes); two 3 KiB buffers a warp, round r + 1 copied while r is folded:
//! 363 / 428 -> 415 / 617 (106-172 bytes spilled at 80 registers), and at 2 blocks per SM (no
//! spills) 419 / 488 -> 451 / 626 (smaller rounds; the old kernel at 2 blocks in brackets).
//! Rounds of up to 64 segments (lane l also folding segment 32 + l; the stage holds about 44 of
//! the heavy-tailed case's): heavy-tailed 357 / 403 -> 363 / 488, uniform 7 849 / 896 -> 618 /
//! 707, 16 423 / 475 -> 402 / 461, 100 323 / 410 -> 321 / 423; taking the second 32 only when
//! the first 32 fill at most half the stage: heavy-tailed 353 / 406 -> 355 / 431, uniform 7 853
//! / 906 -> 602 / 711, 100 323 / 413 -> 323 / 425 (the extra offsets and code cost arg
//! reducers on every layout; short segments of a few elements would gain). With the copy as it
//! is now, also not taken: the copy through Hopper's bulk copy engine (cp.async.bulk, one copy
//! per 16 chunks, completing on an mbarrier): heavy-tailed 361 / 404 -> 353 / 411, uniform 16
//! 427 / 477 -> 463 / 524, 3000 272 / 282 -> 271 / 336; 4 blocks per SM (84 bytes spilled):
//! heavy-tailed 358 / 405 -> 362 / 417, uniform 7 850 / 900 -> 769 / 878, 3000 272 / 282 -> 275 /
//! 309; and at 4 blocks a stage of 4096 bytes: heavy-tailed 366 / 440. More warps, larger rounds
//! and a cheaper copy each leave sums at ~360 us here: what bounds them is not found yet. Not
//! the round structure itself: a synthetic kernel (probe of 2026-11-23, same grid and shared
//! memory: each warp an equal contiguous share of 2^28 f32, cp.async rounds of 2 / 4 / 6 KiB,
//! waited for and summed from shared memory, lane l reading l, l + 32, ...) streams 4208 / 4339
//! / 4326 GB/s, 4297 with a dependent load (from a 16 MiB table) each round, against 4417 for
//! LDG.128 with 4 in flight; summed with lane l reading its own 32 consecutive elements (a
//! 32-way bank conflict) it fell to ~1000 GB/s. So the lead is the segment rounds' own work between copies.
//! Not the fold's shared loads for sums, either: a lane folding its segment a 16-byte chunk at a
//! time (one 16-byte shared load per chunk, elements outside the segment skipped) left sums
//! where they were and slowed arg reducers: heavy-tailed 354 / 404 -> 364 / 667, uniform 32 350
//! / 368 -> 349 / 408, 100 322 / 410 -> 319 / 410.

//! Segments: blocks of block_threads the kernel must fit per SM (__launch_bounds__): without
//! it ptxas gives the kernel up to 128 registers (2 blocks, 16 warps per SM); 3 caps it at 80
//! registers (24 warps per SM; no spills for sum, argmax or dot, 80 bytes for f64 moments). 4
//! blocks (64 registers; probe of 2026-11-23, stage of 4608 bytes always skewed every 8 chunks):
//! heavy-tailed plus 412 -> 428 us, argmax 544 -> 561, uniform 100 665 -> 628 / 838 -> 819.
constexpr int segment_blocks_per_sm = 3;
//! Segments: units of work a segment's end item counts for in the merge path (an element counts
//! one). With 1 (the plain merge path: elements plus segments) the heavy-tailed case's warps
//! over segments of 0..64 set its time while the warps over its long segments, which fold from
//! global memory far faster per element, finished early and left: segments of 0..64 alone took
//! as long as the heavy-tailed case (plus 358 / argmax 413 us against 358 / 402), though they
//! hold all 2^28 elements rather than 69% of them. Weighting the end item moves units of the
//! long segments onto fewer warps and gives each warp over short ones fewer segments. Probe of
//! 2026-11-23 (H200, f32 at 2^28, launches timed alone, us, plus / argmax), heavy-tailed by
//! weight: 1 358 / 405, 8 349 / 382, 12 352 / 376, 16 337 / 363, 20 338 / 357, 24 341 / 360, 32
//! 347 / 375, 48 347 / 396, 64 357 / 424, 96 385 / 489 (past ~20 the long segments' warps are the
//! slower ones). Layouts without long segments do not move (uniform 7, 16, 32, 100 and 3000,
//! segments of 0..64 alone, the 9 long ones alone: within 1.5% of weight 1 at every weight).
//! preduce-bench --batched --shapes segments (H200, heavy-tailed f32 at 2^28, weight 1 at
//! e73054b -> 20): plus 350.1 -> 335.3 us (72.6% -> 75.8% of the read ceiling), argmax 397.3 ->
//! 352.3 us (67.7% -> 76.3%).
//! Also measured: the long pieces folded with more loads a lane in flight than warp_fold's
//! vectors_in_flight (4): 6 loads, heavy-tailed 343 / 378 at weight 16, 336 / 369 at 24, 336 /
//! 361 at 32, but other layouts' argmax 1-8% slower (uniform 3000 282 -> 306); 8 loads spill
//! (176 bytes) and gave 357 / 395 at 16. Not taken.
constexpr std::uint64_t segment_end_weight = 20;
//! Segments: fewest items (elements + segment ends) per warp before a smaller grid is launched.
constexpr std::uint64_t segment_min_items_per_warp = 256;
//! Segments, the merge path's offset check (check_and_split_segments_kernel): offsets a thread
//! loads before it tests any, on grid_for's grid (up to 64 blocks an SM, several waves; more
//! where the merge path's searches need them, enqueue_segments); the same kernel finds each
//! merge-path warp's first segment, so reduce_segments_kernel reads its range instead of
//! searching the offsets for it. H200, the bench's heavy-tailed f32 segments at 2^28
//! (6.0M int64 offsets), a graph of 8 calls, us a call, plus / argmax (probes of 2026-11-27):
//! the portable check (one offset a thread, an ordinary launch) and the search in the merge path
//! 339.9-341.8 / 366.5-367.1; the search in this check, 4 offsets a thread 329.0-329.4 /
//! 365.4-366.1 (and 329.0-330.1 / 352.9-353.9 with fold_staged_run's 32-bit index); with that
//! fold, the check before the searches 331.8-332.1 / 355.9-356.4, and a grid of one wave (8
//! blocks an SM) at 4 / 8 / 16 offsets a thread 419-427 / 384-386 / 336.5-336.8 plus, 407-423 /
//! 431-444 / 354.0-354.2 argmax, although ncu (locked clocks) timed that check alone at 18-20 us
//! (4 and 8) against 21-22 for this one and the portable one: why the calls were slower was not
//! found. All of these ran with the merge path still letting the next grid launch at its start,
//! which slowed other layouts by up to 38% (reduce_segments_kernel's note): the one-wave grid
//! has not been measured without that.
constexpr int segment_check_offsets_in_flight = 4;
//! Segments, small inputs (reduce_segments_small_kernel, one launch that checks the offsets
//! itself): fewer than small_segment_offsets segments (every block stages all offsets in shared
//! memory, 4 bytes each: 16 KiB, and checks them all), whose elements plus segment ends fit
//! small_segment_blocks blocks: as many blocks as it takes at half of small_segment_items units
//! a thread (up to small_segment_blocks), else at small_segment_items, else at twice as many.
//! Since git 5d64170 it takes only inputs past short_segment_max_elements (the short-segment
//! kernel below takes the rest), so never one block, where small_segment_items a thread was
//! faster (below).
//! Probes of 2026-11-25 (H100, f32, preduce-bench's heavy-tailed layouts, graph of 64 calls over
//! 64 input copies, us). The kernel as first written (segments cut between blocks joined by a
//! last-arrival counter, offsets stored as each loaded), at 4 / 8 / 16 units a thread, then the
//! two-launch path and CUB's DeviceSegmentedReduce, plus: 2^10 (32 segments) 4.19 / 3.44 / 4.41,
//! 8.42, CUB 1.62; 2^12 (100) 5.05 / 5.50 / 6.01, 9.04, 1.97; 2^14 (350) 5.88 / 6.33 / 7.58,
//! 9.59, 1.94; 2^16 (1436) - / 7.17 / 7.98, 10.13, 3.57; 2^17 (2756) - / - / 8.95, 11.26, 9.46;
//! argmax 2^10 5.37 / 4.41 / 5.61, 9.62, 1.72; 2^16 - / 8.34 / 9.43, 11.64, 4.78. Cut short
//! after each step (2^10, one block, plus): empty launch 0.83, offsets staged and checked 1.29,
//! the search 1.62, elements loaded 2.38, folded 2.68, the scan 3.13 (argmax 4.00), whole 3.28
//! (4.29); the last-arrival join added 2.0 us at 2^12 (3 blocks) and 2.4 at 2^16 (33), and
//! staging 1437 offsets cost 1.4 us against 0.5 for 33 (a round trip per offset a thread
//! stored). As it is now (offsets loaded before any is stored, pieces through the partial slots
//! with start tickets), the library's choice (8 units a thread, 16 at 2^17) -> 4 units a thread:
//! plus 2^10 3.61 -> 3.74, 2^11 4.39 -> 3.83, 2^12 4.36 -> 3.87, 2^13 4.45 -> 3.97, 2^14 4.69 ->
//! 4.26, 2^15 5.04 -> 4.51, 2^16 5.43, 2^17 7.37 (CUB 9.52); argmax 4.33 -> 4.84, 5.47 -> 4.98,
//! 5.55 -> 5.05, 5.80 -> 5.12, 5.77 -> 5.44, 6.10 -> 5.60, 6.60, 8.59 (CUB 11.86); the two-launch
//! path 8.39-11.29 / 9.60-12.60, CUB 1.63-3.64 / 1.74-4.79 to 2^16. (4 units a thread: taken on
//! 2026-11-26, below.)
//! clock64 stamps through a copy of the kernel (H200, 2^10, one block, plus, cycles from the
//! first stamp): offsets staged 1350, checked 610, the search 830, the element loads issued 1085,
//! folded 880, the scan in the warp 455, across the warps 565, the last barrier 765. Since then
//! the search takes the same halving steps in every thread, a thread reads its segments' end
//! items together before issuing its loads (no shared-memory read between them), the warp totals
//! are scanned by shuffles, and one block skips the last barrier. The probe above, both builds in
//! one call on an H200, us, old -> new: plus 2^10 3.36 -> 3.19, 2^12 4.08 -> 4.09, 2^14 4.42 ->
//! 4.27, 2^16 5.24 -> 4.94; argmax 4.06 -> 4.07, 5.29 -> 5.25, 5.56 -> 5.43, 6.35 -> 6.11 (CUB
//! 1.37-3.02 / 1.48-3.94), while the untouched two-launch path ran 3-5% slower in the new build's
//! run (7.64 -> 7.99 us at 2^10, 9.26 -> 9.61 at 2^16): less of the kernel's saved cycles reach
//! the launch's time than the stamps promise, as with the column kernel's argmax.
//! 2026-11-26 (H200): a shared-memory size costs a launch nothing (a 1-block graph launch of a
//! kernel with 0 to 48 KiB static shared memory: 0.68-0.70 us; dynamic 0.75); a dependent L2
//! round trip costs 0.19 us (0 / 1 / 2 / 4 / 8 of them: 0.68 / 0.81 / 1.09 / 1.50 / 2.21 us).
//! ncu at 2^10 (plus, one block): 11216 warp instructions, 7900 of them the 16 predicated offset
//! slots a thread issued whatever the count; staging only the slots the count needs (1, 4 or
//! 16), checking each offset against the one before it in registers (one barrier, not two) and
//! a radix-4 search: 3138 instructions, and us (probe, both builds in one call, HEAD -> new):
//! plus 2^10 3.02 -> 2.53, 2^11 3.82 -> 3.28, 2^12 3.94 -> 3.45, 2^14 4.12 -> 3.65, 2^16 4.78
//! -> 4.45, 2^17 6.51 -> 5.80; argmax 3.90 -> 3.49, 4.92 -> 4.63, 5.11 -> 4.71, 5.26 -> 4.97,
//! 5.93 -> 5.74, 7.92 -> 7.50. Stamps then (2^10, plus, cycles): staging with the check 700,
//! the search 640, end items 390, element loads issued 520, folded (their round trip in it)
//! 850, the scan in the warp 570 (argmax 1470), across the warps 790 (1110). In that run 4
//! units a thread beat 8 once the input takes more than one block (2 blocks at 8 against 3 at 4
//! at 2^11): plus 2^11 3.27 -> 2.93, 2^12 3.44 -> 3.00, 2^13 3.42 -> 3.05, 2^14 3.65 -> 3.40,
//! 2^15 3.84 -> 3.53; argmax 4.63 -> 4.24, 4.71 -> 4.20, 4.87 -> 4.31, 4.96 -> 4.68, 5.11 ->
//! 4.70; at 2^10 (one block at 8, two at 4) 8 is faster: 2.52 / 3.49 against 2.90 / 4.17.
//! Not taken (H100 probe of 2026-11-26, both builds in one call, the library's choice of units
//! a thread, us, HEAD -> variant): the search and the end-item reads replaced by a bitmap of
//! the block's end items in shared memory (each thread marking the segments it staged, one more
//! barrier, the segment of a thread's first unit from a warp scan of the words' counts): plus
//! 2^10 2.59 -> 2.55, 2^12 3.06 -> 3.05, 2^14 3.40 -> 3.32, 2^16 4.50 -> 4.52, 2^17 5.86 -> 6.26;
//! argmax 3.55 -> 3.41, 4.27 -> 4.17, 4.68 -> 4.51, 5.79 -> 5.67, 7.52 -> 7.59 (CUB 1.45-3.41 /
//! 1.55-4.52 to 2^16). The stamps overstate what the search costs the launch, as they did for
//! the column kernel's arg combine.
constexpr std::uint64_t small_segment_offsets = 4096;
//! Segments, small inputs with short segments (reduce_short_segments_kernel: a warp a segment of
//! up to 32 * short_segment_lane_items elements, a block one of up to short_segment_block_threads
//! * short_segment_lane_items, longer ones in pieces joined across warps): fewer than
//! small_segment_offsets segments over at most short_segment_max_elements elements.
//! Probe of 2026-11-26 (H100, f32, preduce-bench's heavy-tailed layouts, graph of 64 calls over
//! 64 input copies, us, plus / argmax at 2^10, 2^11, 2^12, 2^13, 2^14, 2^15, 2^16; the longest
//! segment is n / 4, the next ones up to n / 27000):
//!   lane items / block threads 16 / 256: 1.58 / 1.82, 1.63 / 1.86, 2.14 / 2.68, 2.20 / 2.78,
//!     2.29 / 2.87, 3.60 / 4.25, 4.95 / 5.92
//!   8 / 256: 1.50 / 1.62, 1.91 / 2.32, 1.95 / 2.34, 2.02 / 2.46, 3.36 / 3.72, 3.72 / 4.14,
//!     5.48 / 6.34
//!   16 / 512: 1.81 / 2.27, 1.83 / 2.28, 2.46 / 3.44, 2.48 / 3.47, 2.53 / 3.50, 2.73 / 3.72,
//!     4.99 / 5.85
//!   32 / 512: 2.17 / 3.31, 2.20 / 3.34, 2.22 / 3.34, 3.20 / 5.64, 3.16 / 5.64, 3.46 / 5.87,
//!     3.72 / 6.10
//!   reduce_segments_small_kernel (below): 2.60 / 3.50, 3.04 / 4.22, 3.10 / 4.38, 3.13 / 4.40,
//!     3.43 / 4.73, 3.52 / 4.75, 4.46 / 5.82 (2^17: 5.79 / 7.41, against 7.33 / 8.44 here)
//!   CUB's DeviceSegmentedReduce: 1.45 / 1.56, 1.52 / 1.67, 1.80 / 1.98, 2.15 / 1.78, 1.73 /
//!     2.08, 2.16 / 2.72, 3.02 / 3.93.
//! Each step up in the path the longest segment takes costs about 0.5 us: a warp's (to 2^11 at
//! 16 / 256), a block's (to 2^14), pieces joined across warps (from 2^15). clock64 stamps at
//! 2^12 (16 / 256, plus): every block issues its element loads about 1270 cycles after it
//! starts (the offsets' round trip among them), passes the check's barrier 110 later and is
//! done 490 after that; the block holding the 1024-element segment issues its loads 420 cycles
//! later than the others and ends 660 cycles after its warps' own segments, about 1070 cycles
//! behind: the instructions only it runs. Larger blocks or more lane items take a longer segment
//! a step lower but cost every launch (more predicated loads and folds). From 2^15 the
//! heavy-tailed case's longest segment is joined from pieces. The figures above are of a form
//! whose piece blocks marked, inside the check, each of their warps' ranges a long segment
//! covers (a loop over the block's warps with shared-memory atomics, inlined into each of the
//! check's up to 16 offset slots): those blocks passed the check's barrier about 3200 cycles
//! after they started at 2^15 (729 offsets) and 5000-6300 at 2^16 (1436), against about 1380 at
//! 2^12 (100). Listing the long segments instead (one shared atomicAdd and three stores each;
//! the warps test the list after the barrier, a lane an entry), both in one call, HEAD -> list:
//! 2^15 3.61 / 4.25 -> 2.90 / 3.58, 2^16 4.94 / 5.87 -> 4.15 / 5.25, 2^10-2^14 within 0.06 us.
//! That beats reduce_segments_small_kernel at 2^16 (4.48 / 5.83 in that call) but not at 2^17
//! (6.40 / 7.58 against 5.77 / 7.38), hence 2^16.
//! Measured and not taken (the marking form, 2^15 / 2^16 plus, us): the piece blocks' element
//! loads issued after the offsets' instead of before them, 3.59 / 4.94 -> 3.72 / 5.17;
//! offsets[i - 1] taken from the lane before by a shuffle instead of loaded again (an L1 hit),
//! 3.59 / 4.91 -> 3.98 / 5.47 (and 2^10 1.59 -> 1.66). An earlier form, where every block
//! staged the offsets in shared memory, a piece warp searched them (32 probes a round) and a
//! warp loaded only its own segment's two offsets, joined pieces faster than the marking form
//! (2^15 / 2^16 plus 3.19 / 4.37) but ran slower below (2^10 / 2^12 / 2^14 1.83 / 2.40 / 2.57).
//! Since 2026-11-26 (H100 probe, same method, us, plus / argmax): clock64 stamps of the 2^16 case
//! had the segment blocks issue their element loads about 2900 cycles after they started (178
//! blocks each loading all 1437 offsets) and the piece blocks pass the check at about 3600 and
//! end at 5200-6700, the 32 piece warps of the n / 4 segment counting on one word and the last
//! collecting. Piece warps numbered by start ticket, the segment's last piece warp collecting
//! the others (join_piece_in_order; loads wait for the ticket's round trip), plus the block
//! segment's loads and fold before the warps' own, blocks of 256 throughout (2^10 .. 2^16):
//! 1.60 / 1.84, 1.62 / 1.87, 2.12 / 2.64, 2.13 / 2.68, 2.22 / 2.77, 3.13 / 3.69, 4.00 / 4.95;
//! the same with blocks of 512: 1.80 / 2.29, 1.80 / 2.28, 2.39 / 3.36, 2.42 / 3.38, 2.47 /
//! 3.41, 2.71 / 3.63, 3.17 / 3.84 (blocks of 512 with the counting join: 2^15 2.72 / 3.75,
//! 2^16 3.72 / 4.57). Taken: 256 to short_segment_narrow_elements, 512 above, against the form
//! before in one call: 1.59 / 1.82 -> 1.60 / 1.85, 1.63 / 1.86 -> 1.63 / 1.88, 2.16 / 2.74 ->
//! 2.10 / 2.62, 2.22 / 2.84 -> 2.12 / 2.66, 2.29 / 2.91 -> 2.19 / 2.73, 2.91 / 3.58 -> 2.70 /
//! 3.64, 4.17 / 5.25 -> 3.10 / 3.81 (CUB 1.45 / 1.56, 1.53 / 1.69, 1.84 / 2.03, 2.06 / 1.73,
//! 1.77 / 2.09, 2.32 / 2.81, 3.01 / 3.93). Then (arg folds leaving the loop early, see the
//! kernel) stamps of 2^12 had the block holding the 1024-element segment fold its warps' own
//! segments 440 (plus) to 630 (argmax) cycles after its block segment, and 2^16's piece blocks
//! end 2000-3900 cycles after their check, every warp folding two accumulators. Folding a block
//! segment beside the warps' own (one warp_reduce_each), and one accumulator where a piece
//! warp's range lies inside one segment, in one call: 1.58 / 1.69 -> 1.61 / 1.74, 1.61 / 1.81
//! -> 1.64 / 1.86, 2.09 / 2.43 -> 2.05 / 2.26, 2.12 / 2.51 -> 2.09 / 2.35, 2.20 / 2.51 -> 2.18
//! / 2.56, 2.69 / 3.31 -> 2.61 / 3.17, 3.12 / 3.80 -> 3.00 / 3.75 (the piece fold alone: 3.00 /
//! 3.64 at 2^16 and no change below; the block fold alone: 4.01 us argmax at 2^16). Measured
//! and not taken: every segment block issuing a block segment's loads and folding it, predicated
//! off where it has none (so those instructions are no code of their own for the block that
//! has one), 2^10 / 2^11 1.61 / 1.74, 1.64 / 1.86 -> 1.81 / 1.95, 1.84 / 2.07, 2^12 - 2^16
//! within 0.04 us plus, 0.07-0.18 us slower argmax.
constexpr std::uint64_t short_segment_max_elements = std::uint64_t(1) << 16;
constexpr int short_segment_lane_items = 16;
constexpr int short_segment_block_threads = 256;
//! Inputs of more elements take blocks of short_segment_wide_block_threads (half as many blocks,
//! each loading all the offsets; figures above).
constexpr std::uint64_t short_segment_narrow_elements = std::uint64_t(1) << 14;
constexpr int short_segment_wide_block_threads = 512;

constexpr int small_segment_items = 8;
constexpr std::uint64_t small_segment_blocks = 64;

}  // namespace backend
}  // namespace preduce
