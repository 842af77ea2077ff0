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
//! streams past the results instead of pushing them out to memory in the middle of it: argmax over
//! rows of 2048 to 16384 at 2^28 faster, sums as fast or faster, the same at 2^26 and 2^27
//! (docs/tuning/rows.md#reduce_rows_by_group_kernel).
//! Evidence: H200 argmax over rows of 2048, 239.4-239.6 -> 234.4-234.8 us.
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
