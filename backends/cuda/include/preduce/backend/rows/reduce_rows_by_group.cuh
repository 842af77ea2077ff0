// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the row-group kernel: long aligned rows, many of them, a group of warps per row.
#pragma once

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/rows/aligned_row_fold.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Long aligned rows, many of them: a group of GroupWarps warps per row, block b taking rows b *
//! groups .. b * groups + groups - 1 (groups = BlockThreads / (32 GroupWarps)); thread t of a
//! group folds its share with fold_aligned_row, and the group's warps combine in warp order
//! through shared memory. The results are stored with store_result_kept, and a plain array is
//! read under l2_evict_first_policy where evict_input (the input is larger than the L2): it then
//! streams past the results instead of pushing them out to memory in the middle of it. Found
//! with a one-row-a-block copy of this kernel (H200, rows of 4096 f32 at 2^28, graph of 8 calls,
//! median of 6 replays, us; CUB's argmax 236.0-236.2 in the same runs, probes of 2026-11-27): the
//! argmax without its result store 234.4 against 237.3 (the fold and the block reduction
//! unchanged; 8 bytes stored instead of 16, one 16-byte store, or streaming stores: 237.2-237.5);
//! evict_first loads 235.8, evict_last stores 236.8, both 234.7 (sums 235.3-235.7 -> 234.4-234.7).
//! This kernel, plain loads and stores -> these, argmax / sum (another H200; CUB in brackets):
//! rows of 2048 239.4-239.6 / 235.7-235.8 -> 234.4-234.8 / 234.4-234.6 (238.2-238.5 / 397-401),
//! 4096 237.2-237.4 / 234.9 -> 234.9 / 233.9-234.0 (236.1-236.5 / 235.4-235.6), 8192 236.6-236.7
//! / 235.0-235.1 -> 235.4-235.5 / 234.7-234.8 (236.2 / 234.8-235.1), 16384 237.8-238.4 / 236.2-
//! 237.0 -> 236.9-237.6 / 236.8-237.0 (238.6-238.8 / 236.3); at 2^26 and 2^27 (rows of 4096) the
//! same either way, 61.3-61.7 and 119.2-119.4 (CUB 61.0-61.5 and 118.9).
//! Requires: blockDim.x == BlockThreads; GroupWarps divides BlockThreads / 32; rows_aligned(src,
//! cols); gridDim.x * groups >= rows.
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first thread.
template <int BlockThreads, int GroupWarps, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, group_row_blocks_per_sm)
    reduce_rows_by_group_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, bool evict_input,
                                typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using Acc = typename Reducer::acc_type;
  constexpr unsigned threads = GroupWarps * warp_threads, groups = BlockThreads / threads;
  static_assert(BlockThreads % threads == 0, "a block holds whole groups");
  __shared__ Acc warp_partials[BlockThreads / warp_threads];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads, t = threadIdx.x % threads;
  const std::uint64_t row = std::uint64_t(blockIdx.x) * groups + threadIdx.x / threads;
  const std::uint64_t vectors = cols / chunk_loader<Source>::width;
  Acc a = red.identity();
  if (row < rows) {
    bool folded = false;
    if constexpr (is_array_source<Source>::value) {
      if (evict_input) {  // grid-uniform
        const policy_array_source<typename Source::value_type> hinted{src.x, l2_evict_first_policy()};
        a = fold_aligned_row<threads>(red, hinted, row * cols, vectors, t);
        folded = true;
      }
    }
    if (!folded) a = fold_aligned_row<threads>(red, src, row * cols, vectors, t);
  }
  a = warp_reduce(red, a, w);
  if constexpr (GroupWarps > 1) {
    if (lane == 0) warp_partials[warp] = a;
    __syncthreads();
    if (t < warp_threads) a = warp_reduce(red, lane < GroupWarps ? warp_partials[warp + lane] : red.identity(), w);
  }
  if (t == 0 && row < rows) store_result_kept(out + row * out_stride, red.finalize(a));
}

}  // namespace backend
}  // namespace preduce
