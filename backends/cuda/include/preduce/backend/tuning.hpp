// SPDX-License-Identifier: Apache-2.0
// preduce cuda: launch shapes, one table per architecture. Each entry says what chose it; the
// measurements are in bench/results/ (H200; sm_80 has not run at all, so its entries are the
// sm_90 choices, unmeasured).
#pragma once

#include <cstdint>

#include <preduce/config.hpp>
#include <preduce/detail/reducer.hpp>

namespace preduce {
namespace backend {

//! Threads per block of the batched kernels: 8 warps keep the block reduction to one barrier
//! and let 8 blocks (2048 threads, the sm_80/sm_90 maximum) share an SM.
constexpr int block_threads = 256;
//! Resident blocks per SM the batched kernels' grids are capped at (one full wave).
constexpr int batched_blocks_per_sm = 8;

//! The whole-array kernel's launch shape: 512 threads, at most 4 blocks per SM (one full wave of
//! 2048 threads), each thread loading `vectors_in_flight` 16-byte vectors before folding any
//! (64 bytes in flight per thread, 128 KiB per SM).
//! Evidence (bench/results/h200-cuda-whole-shapes.txt: f32 sum, graph replays over rotating
//! buffers, us per call), single-pass with the start-ticket collector at 256x8 / 512x4 / 1024x2
//! threads x blocks per SM:
//!   2^16: 2.41 / 2.38 / 2.47    2^20: 3.46 / 3.50 / 3.77    2^22: 7.11 / 6.21 / 6.44
//!   2^24: 18.08 / 17.51 / 17.39  2^26: 61.64 / 60.66 / 60.29  2^28: 234.59 / 233.74 / 232.32
//! 512x4 is within 1% of the best shape from 2^22 up and best or near it below; 1024x2 loses
//! 8% at 2^20; 256x8's 1056 blocks cost 15% at 2^22 (more partials, more contention).
//! With 512x4 and the grid capped by measured occupancy, f32 sum at 2^28 reads at 100.3% of
//! the ceiling preduce-bench measured (bench/results/h200-cuda-*.json).
constexpr int whole_block_threads = 512;
constexpr int whole_blocks_per_sm = 4;
constexpr int vectors_in_flight = 4;

//! The whole-array kernel asks ptxas for no register cap (no minimum blocks per SM). argmin /
//! argmax kernels take 40 registers and so 3 blocks of 512 per SM. A cap of 32 registers (4
//! blocks) once helped argmax at 2^28 (91.1% -> 94.4% of the ceiling, h200-cuda-args-minmax.json),
//! but at 32 registers ptxas keeps only 2 of the 4 loads of a round in flight (cuobjdump of the
//! f32 argmax kernel), and since the arg chunk fold became a tree of pairs the cap loses at every
//! size: H200, graph timer, probe of 2026-11-22, us per call, 32-register cap -> none: f32
//! 2^14 3.79 -> 3.62, 2^20 5.69 -> 5.31, 2^24 23.31 -> 19.61, 2^28 248.2 -> 241.1; f64 2^20
//! 6.08 -> 5.44, 2^24 43.7 -> 34.2, 2^28 489.0 -> 475.9; bf16 argmin 2^24 13.17 -> 11.90, 2^28
//! 133.7 -> 131.2.
//! At 3 blocks per SM one wave's round is 396 x 8192 elements for f32, short of 2^22, so the arg
//! kernels fold a second, partial round there (argmax f32 2^22 0.94x CUB). Arg reducers past
//! one wave's round therefore take a second kernel, deep_arg_vectors in flight at
//! deep_arg_blocks_per_sm (below). 6 vectors was no better than 8 (2^22 8.04 -> 8.04, 2^21 5.57
//! -> 6.25). Balancing the last partial round over all blocks (each a contiguous chunk of it)
//! instead was slower: argmax f32 2^22 8.10 -> 8.45, 1e6 4.58 -> 4.95.
//! Deep arg kernel: 8 vectors in flight at 2 blocks per SM (__launch_bounds__(512, 2): 63
//! registers, no spill). H200, graph timer, probe of 2026-11-23, us per call, the 4-vector
//! kernel -> this one: argmax f32 2^20 4.17 -> 4.38, 3e6 6.47 -> 7.15, 2^22 7.70 -> 7.27, 2^23
//! 11.53 -> 11.04, 2^24 18.68 -> 18.25, 2^26 61.61 -> 61.97, 2^28 233.5 -> 234.2; argmin i32
//! 2^22 7.46 -> 7.02, 2^23 10.99 -> 10.76; argmax f64 within 1% from 2^20 to 2^27. So it serves
//! arrays longer than one wave's round of the 4-vector kernel (whose second round is the
//! partial one that costs) and at most deep_arg_max_rounds of its own wave's rounds (2^24 f32
//! elements are 3.9 of them, 2^26 15.5); 8-byte values keep the 4-vector kernel (reduce_whole).
//! preduce-bench --shapes whole, H200, git 241ec10 -> aba1505, CUB time / preduce time: argmax /
//! argmin f32 at 2^22 0.951 / 0.943 -> 0.996 / 0.985, i32 0.979 / 0.987 -> 1.028 / 1.032, bf16
//! at 2^24 1.46 / 1.45 -> 1.59 / 1.57.
constexpr int deep_arg_vectors = 8;
constexpr int deep_arg_blocks_per_sm = 2;
constexpr std::uint64_t deep_arg_max_rounds = 4;

//! Elements one block of the whole-array kernel takes per round (whole_grid's `round`): every
//! thread's `vectors` vectors (vectors_in_flight, or deep_arg_vectors for the deep arg kernel) of
//! `elements_per_vector` elements.
constexpr std::uint64_t whole_block_elements(std::uint64_t elements_per_vector, int vectors = vectors_in_flight) {
  return std::uint64_t(whole_block_threads) * std::uint64_t(vectors) * elements_per_vector;
}

//! Blocks per SM a whole-array grid uses (its wave): `resident_per_sm` (the kernel's occupancy),
//! at least 1 and at most whole_blocks_per_sm.
inline std::uint64_t whole_wave_blocks_per_sm(int resident_per_sm) {
  return std::uint64_t(resident_per_sm < 1 ? 1 : (resident_per_sm < whole_blocks_per_sm ? resident_per_sm : whole_blocks_per_sm));
}

//! Whether an arg reducer over n elements takes the deep arg kernel: n is longer than one wave's
//! round of the 4-vector kernel (whole_grid's wave, from `per_sm` resident blocks on each of
//! sm_count SMs) and at most deep_arg_max_rounds waves' rounds of the deep kernel (from
//! `deep_per_sm`).
inline bool whole_deep_arg(std::uint64_t n, std::uint64_t elements_per_vector, int sm_count, int per_sm, int deep_per_sm) {
  const std::uint64_t wave = std::uint64_t(sm_count) * whole_wave_blocks_per_sm(per_sm) * whole_block_elements(elements_per_vector);
  const std::uint64_t deep_wave =
      std::uint64_t(sm_count) * whole_wave_blocks_per_sm(deep_per_sm) * whole_block_elements(elements_per_vector, deep_arg_vectors);
  return n > wave && n <= deep_arg_max_rounds * deep_wave;
}

//! Element vectors a thread reads in one stripe round of `loads` 16-byte loads when each element
//! vector takes loads_per_vector of them (a dot's: one of x, one of y): at least one.
PREDUCE_HD constexpr int vectors_per_round(int loads, int loads_per_vector) {
  return loads / loads_per_vector > 0 ? loads / loads_per_vector : 1;
}

//! Elements one block of the whole-array kernel folds in one stripe round (the one-block
//! kernel's Rounds count these): every thread's vectors_in_flight loads, read as
//! vectors_per_round element vectors of `elements_per_vector` elements. A whole round
//! (whole_block_elements) is one stripe round, or two for a dot.
constexpr std::uint64_t whole_stripe_elements(std::uint64_t elements_per_vector, int loads_per_vector) {
  return std::uint64_t(whole_block_threads) * std::uint64_t(vectors_per_round(vectors_in_flight, loads_per_vector)) * elements_per_vector;
}

//! Whether n elements are one block of the whole-array kernel: no more than one round.
constexpr bool whole_one_block(std::uint64_t n, std::uint64_t round) { return n <= round; }

//! Most blocks a whole-array launch uses on a device (the size of its partial slots).
inline unsigned whole_grid_cap(int sm_count, int /*cc_major*/) { return unsigned(sm_count) * whole_blocks_per_sm; }

//! Whole-array grids for arg reducers split each block's round (whole_block_elements) in two
//! (whole_arg_split) once the array is longer than one round, while the split grid has at most
//! whole_warp_collector_blocks (32) blocks: each thread then folds half a round (below one round for the
//! whole grid fold_items hands out stripes), spreading the arg fold's instructions over more
//! SMs. Past 32 blocks the collector gathers the partials with the whole block (a block
//! reduction) instead of one warp, and the split costs more than it saves; an unsplit grid
//! also folds whole rounds, unpredicated tiles. Evidence (H200, graph timer, probe of
//! 2026-11-22, us per call, split 1 / split 2, the split grid's blocks in brackets):
//!   argmax f32  2^14 2.52 / 2.48 (4)  2^16 2.61 / 2.67 (16)  2^17 2.89 / 2.78 (32)  2^18 3.19 / 3.50 (64)
//!               2^20 4.19 / 4.38 (256)  2^21 5.31 / 5.54 (396)
//!   argmax f64  2^16 3.01 / 2.89 (32)  2^17 3.29 / 3.67 (64)  2^18 3.76 / 3.80  2^20 5.25 / 5.42
//!   argmax i32  2^14 2.62 / 2.55 (4)  2^17 2.95 / 2.86 (32)  2^18 3.32 / 3.74 (64)  2^21 5.44 / 5.68
//!   argmax bf16 2^15 3.16 / 2.86 (4)  2^18 3.42 / 3.14 (32)  2^19 3.90 / 3.92 (64)  2^20 4.36 / 4.21
//!               (128)  2^21 4.84 / 5.20 (256)
//! (argmin f32 as argmax within 0.1 us; bf16 at 2^20 is the one size the rule loses.) Before the
//! tiled fold (git 1cba348) the split won at every size below the grid cap (argmax f32 2^20
//! 4.69 / 4.55). plus gains nothing from a split (f32 2^16 2.56 / 2.72, f64 2^20 5.39 / 6.12),
//! and a one-round array stays one block: the collector's rendezvous costs more than the split
//! saves (argmax f64 2^12: one block 2.68, split in two 3.44).
//! Min and max over 8-byte values (f64, 64-bit integers: their warp reduction takes two
//! instructions a rank step) split in two as well, while the split grid still has at most one
//! block per SM: H200, graph timer, probe of 2026-11-22, us per call, split 1 / 2 (the split
//! grid's blocks): f64 maximum 2^13 2.53 / 2.43 (4), 2^16 2.97 / 2.74 (32), 2^17 3.38 / 3.50
//! (64), 2^18 3.75 / 3.67 (128), 2^19 4.25 / 4.20 (unsplit: 256 > 132 SMs); int64 maximum 2^16
//! 2.75 / 2.59, 2^17 3.15 / 3.22, 2^18 3.37 / 3.44. Measured and not taken: f32 maximum (2^14
//! 2.14 -> 2.01, 2^16 2.20 -> 2.30), f64 plus (2^14 2.83 -> 2.84, 2^16 3.08 -> 3.16); a grid cap
//! of 2 blocks per SM instead of whole_blocks_per_sm helped only f64 plus at 2^22 (11.85 ->
//! 11.37, CUB 10.42).
constexpr unsigned whole_arg_split = 2;
//! Most blocks whose partials the single-pass collector gathers with one warp, one partial a
//! lane (reduce_whole_kernel; a larger grid is gathered by the whole block): the warp width.
//! It is also the most blocks a split arg grid may have (above). Measured and not taken: warp 0
//! collecting two partials a lane up to 64 blocks (H200, graph timer, probe of 2026-11-23, us
//! per call, the whole block collecting -> two a lane): f64 argmax 2^18 3.75 -> 3.87, f64 plus
//! 2^18 3.17 -> 3.38, f32 plus 2^19 3.35 -> 3.60; grids of 32 blocks or fewer, whose path did
//! not change, slowed too (f64 argmax 2^17 3.18 -> 3.34): the loop's code costs more than the
//! block's barriers.
constexpr unsigned whole_warp_collector_blocks = 32;
//! The split whole_grid takes for Reducer over n elements, `round` elements a block's round, on
//! sm_count SMs: for arg reducers whole_arg_split while the split grid has at most
//! whole_warp_collector_blocks blocks; for min and max over 8-byte values 2 while it has at most
//! one block per SM; otherwise 1.
template <class Reducer>
constexpr unsigned whole_split(std::uint64_t n, std::uint64_t round, int sm_count) {
  const std::uint64_t blocks = (n + round - 1) / round;
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    return whole_arg_split * blocks <= whole_warp_collector_blocks ? whole_arg_split : 1;
  } else if constexpr (detail::is_extreme_reducer<Reducer>::value && sizeof(typename Reducer::acc_type) == 8) {
    return 2 * blocks <= std::uint64_t(sm_count) ? 2 : 1;
  } else {
    return 1;
  }
}

//! Blocks of the whole-array kernel for n elements, `round` elements being one block's round
//! (whole_block_elements): one block while n fits in one round (whole_one_block), otherwise one
//! block per round / split elements; capped at one wave, whole_blocks_per_sm or, if fewer fit
//! (registers), `resident_per_sm` blocks per SM, so every block runs at once and none waits for a
//! second wave. Requires: split divides round.
inline unsigned whole_grid(int sm_count, int resident_per_sm, std::uint64_t n, std::uint64_t round, unsigned split) {
  const std::uint64_t per_block = round / split, cap = std::uint64_t(sm_count) * whole_wave_blocks_per_sm(resident_per_sm);
  const std::uint64_t needed = whole_one_block(n, round) ? 1 : (n + per_block - 1) / per_block;
  return unsigned(needed < cap ? needed : cap);
}

//! Blocks per SM grid_for caps the row kernels' grids at (they grid-stride over the rest): 8
//! waves at batched_blocks_per_sm, 16 at the 4 blocks per SM the staged and warp-per-row
//! kernels fit. One wave (8 blocks per SM, 4 of them resident at a time) was slower for every
//! row kernel: H200, f32 at 2^28, kernels timed alone (probe of 2026-11-23, us, plus / argmax,
//! one wave -> 64 blocks per SM): short rows (reduce_short_rows_kernel for plus,
//! reduce_staged_rows_kernel for argmax) of 4 324.4 / 775.2 -> 315.4 / 741.8, 32 278.5 / 290.4 ->
//! 276.9 / 282.2, 128 265.2 / 277.9 -> 262.8 / 269.4, 256 257.7 / 276.5 -> 251.0 / 268.8, 512
//! 252.0 / 275.1 -> 246.3 / 265.6; a warp per row (reduce_rows_by_warp_kernel) of 516 308.3 /
//! 302.2 -> 288.5 / 282.8, 1024 266.7 / 263.6 -> 258.0 / 251.2, 1536 271.8 / 256.1 -> 253.6 /
//! 248.4, unaligned rows of 2049 282.8 / 267.4 -> 269.1 / 253.9. 32 and 128 blocks per SM were
//! within 1-2% of 64 for sums and up to 3% slower for argmax (staged rows of 512 272.9 at 96,
//! warp rows of 640 289.5 at 128); one block per round of rows (no grid-stride loop) 1-14%
//! slower than 64 except sums over rows of 512 (245.3 against 246.3).
constexpr int batched_grid_blocks_per_sm = 64;

//! Blocks for `work_items` items at `per_block` items a block, capped at
//! batched_grid_blocks_per_sm blocks per SM (the kernels grid-stride over the rest); at least 1.
inline unsigned grid_for(int sm_count, int cc_major, std::uint64_t work_items, std::uint64_t per_block) {
  const std::uint64_t needed = (work_items + per_block - 1) / per_block;
  (void)cc_major;  // one shape on sm_80 and sm_90 so far
  const std::uint64_t cap = std::uint64_t(sm_count) * batched_grid_blocks_per_sm;
  return unsigned(needed < 1 ? 1 : (needed < cap ? needed : cap));
}

}  // namespace backend
}  // namespace preduce
