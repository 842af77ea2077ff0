// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the round-row kernel: few aligned rows of exactly one round of a block's loads,
// a block per row (round_row_vectors: the vectors of that round).
#pragma once

#include <cstdint>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/rows/aligned_row_fold.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_slice.cuh>

namespace preduce {
namespace backend {

//! Element vectors in one round of a block of BlockThreads threads over Source: every thread's
//! vectors_in_flight 16-byte loads (two a vector for a dot's pair of arrays).
template <int BlockThreads, class Source>
__host__ __device__ constexpr std::uint64_t round_row_vectors() {
  return std::uint64_t(BlockThreads) * vectors_per_round(vectors_in_flight, chunk_loader<Source>::loads_per_vector);
}

//! Few aligned rows of exactly one round of a block each (items = round_row_vectors vectors): block
//! b folds row b, thread t its vectors t, t + BlockThreads, ..., all loaded before any is folded
//! and none predicated, then the block reduces (block_reduce, `automatic`). Faster than the tile
//! kernel (the path before) and than 4 or 8 warps a row through reduce_rows_by_group_kernel;
//! predicated loads were as fast to 0.4 us slower, depending on where ptxas put the first fold.
//! Evidence: sums over rows of 4096 at 2^12 1.75 -> 1.18 us (docs/tuning/rows.md#reduce_round_rows_kernel).
//! Requires: blockDim.x == BlockThreads; gridDim.x == rows; chunk_loader<Source> vectorized and
//! rows_aligned(src, cols); cols / width == round_row_vectors<BlockThreads, Source>().
//! Writes: out[b * out_stride] = finalize(row b's reduction) from thread 0. Lifts element (b, c)
//! with index c.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_round_rows_kernel(Reducer red, Source src, std::uint64_t cols, typename Reducer::result_type* out, std::uint64_t out_stride) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  constexpr int U = int(round_row_vectors<BlockThreads, Source>() / BlockThreads);
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  const Source row = slice(src, std::uint64_t(blockIdx.x) * cols);
  Acc a = fold_row_round<BlockThreads, U, true>(red, row, 0u, unsigned(threadIdx.x), red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::automatic);
  if (threadIdx.x == 0) store_result(out + blockIdx.x * out_stride, red.finalize(a));
}

}  // namespace backend
}  // namespace preduce
