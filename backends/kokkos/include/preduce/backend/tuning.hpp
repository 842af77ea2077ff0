// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the launch-shape constants of the kokkos backend, each with why it was chosen.
// Only `chunk` is measured so far; the batched shapes' constants are reasoned first choices for
// preduce-bench to confirm or replace.
#pragma once

#include <cstdint>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! Elements a GPU thread folds per iteration of the whole-array reduction (interleaved, as a
//! pairwise tree: that many independent loads in flight), and the unit of every contiguous fold
//! (fold_chunk: the reducer's chunk fold, a vectorizable tree or an in-order loop).
//! H200, Kokkos 4.6.1 + CUDA 13, 2^28 f32 (median of 9, including the fence):
//!   chunk  8: plus 4181 GB/s, maximum 4117 GB/s   <- chosen
//!   chunk 16: plus 3598 GB/s, maximum 3309 GB/s
//!   chunk 32: plus 3794 GB/s, maximum 3677 GB/s
//!   plain Kokkos::parallel_reduce, one element per iteration: 2488 / 2490 GB/s
//! (2^26: chunk 8 at 3342 / 3191 GB/s against 2201 / 2213 GB/s plain.)
inline constexpr int chunk = 8;

//! Elements one iteration of the whole-array reduction folds in order on a CPU (8 KiB of
//! floats, in L1): long enough that the running extreme of argmin/argmax rarely changes (so
//! its branch predicts) and the per-iteration join is noise, short enough to balance threads.
inline constexpr std::uint64_t host_block = 2048;

//! Lines (rows, segments, parts) of fewer elements than this fold argmin / argmax on a CPU by
//! selects (fold_arg_by_selects; f32 lines only below host_arg_extreme_elements, next); longer
//! ones, and whole arrays' host_block iterations, by lanes
//! (fold_chunk_by_lanes), whose search for the winner's index mispredicts on a short line, where
//! the running best changes often. Kokkos 4.6 OpenMP, 2 threads, 2^22 f32 argmax over rows, best
//! of 41, three runs: selects against lanes 1607-2952 / 4565-4762 us at 32 columns, 1735-2344 /
//! 2246-2626 at 256, 1650-2128 / 2257-2319 at 512, 1937-1998 / 1534-1589 at 1024
//! (docs/performance-log.md, section 8).
inline constexpr std::uint64_t host_arg_select_elements = 1024;

//! f32 argmin / argmax lines (and whole arrays' host_block iterations) of this many elements or
//! more fold on a CPU extreme first, then the index (fold_arg_by_extreme), in
//! host_arg_extreme_lanes lanes: the fewest gcc 12 vectorizes at x86-64's baseline (at 16 it
//! unrolls the loop first and keeps it scalar). Kokkos 4.6 OpenMP, 2 threads, 2^22 f32 rows of
//! 256 / 4096, argmax 1787-1854 / 1560-1717 us against 1816-2339 / 1728-1959 by selects and
//! lanes (0.93-1.01x / 1.04x plain Kokkos, was 0.72-0.97x / 0.82-0.96x; docs/performance-log.md).
//! Shorter lines (they lost in a probe of the loop) and f64 keep the selects and lanes.
inline constexpr std::uint64_t host_arg_extreme_elements = 128;
inline constexpr int host_arg_extreme_lanes = 32;

//! Columns each CPU thread walks together in reduce_columns: 16 floats are one cache line, so a
//! row step reads whole lines. On GPUs a thread takes one column; its neighbours take the next
//! ones, which makes every row step one coalesced read.
inline constexpr int column_tile = host_shapes ? 16 : 1;

//! GPU rows of fewer columns than this go to a team thread's vector lanes (the sub-warp
//! shape: vector_length 2^ceil(log2 cols)) instead of a team each, which would leave most of
//! the team idle.
inline constexpr std::uint64_t short_row = 32;

//! Elements (or merge-path items) per part on CPUs, where rows too few for the threads are cut
//! into parts and segments are cut into merge-path parts: 256 KiB of floats, a long stretch for
//! one thread's prefetchers and enough parts for every thread of a large CPU at 2^28 elements.
inline constexpr std::uint64_t host_part_items = std::uint64_t(1) << 16;

//! Fewest elements (or merge-path items) per part on GPUs: a team of 256 threads then folds at
//! least 16 elements a thread, so the part's join and its fold pass stay small beside it.
inline constexpr std::uint64_t gpu_part_items = 4096;

//! Threads a GPU team is assumed to have when deciding whether rows fill the device
//! (Kokkos::AUTO picks 128 to 256 on NVIDIA and AMD GPUs for these reductions).
inline constexpr int team_threads_estimate = host_shapes ? 1 : 256;

//! Most teams (or ranges of rows) one launch has; teams loop over further rows or segments.
//! 2^16 teams of 256 threads are dozens of waves on the largest GPUs.
inline constexpr int max_league = 1 << 16;

//! Fewest rows one part of a split reduce_columns walks: below it, the second pass over the
//! parts would cost more than the parallelism gained.
inline constexpr std::uint64_t min_rows_per_part = 256;

}  // namespace backend
}  // namespace preduce
