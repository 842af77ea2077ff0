// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the warp-per-row kernel: long rows, many of them, a warp per row.
#pragma once

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/rows/aligned_row_fold.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>
#include <preduce/backend/warp/warp_slice.cuh>

namespace preduce {
namespace backend {

//! Long rows, many of them: a warp per row (warp w takes rows w, w + warps, ...). Aligned rows
//! (`aligned`: rows_aligned) are folded by fold_aligned_row; others by warp_fold, which reads
//! each row's scalar head and tail around its aligned body.
//! Requires: blockDim.x == BlockThreads; a vectorized Source usable (else a scalar_view, with
//! `aligned` false).
//! Writes: out[row * out_stride] = finalize(row's reduction) from lane 0.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_rows_by_warp_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, bool aligned,
                               typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using L = chunk_loader<Source>;
  const unsigned lane = threadIdx.x % warp_threads;
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  for (std::uint64_t row = warp; row < rows; row += warps) {  // warp-uniform
    typename Reducer::acc_type a;
    bool folded = false;
    if constexpr (L::vectorized) {
      if (aligned) {
        a = warp_reduce(red, fold_aligned_row<warp_threads>(red, src, row * cols, cols / L::width, lane), w);
        folded = true;
      }
    }
    if (!folded) a = warp_fold(red, src, row * cols, row * cols + cols, 0, w);
    if (lane == 0) store_result(out + row * out_stride, red.finalize(a));
  }
}

}  // namespace backend
}  // namespace preduce
