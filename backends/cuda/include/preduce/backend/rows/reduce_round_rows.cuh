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
//! and none predicated, then the block reduces (block_reduce, `automatic`). Evidence (H200, graph
//! timer, probe of 2026-11-26, rows of 4096 f32 at 2^12 / 2^14 / 2^16 / 2^18 / 2^20 / 2^22, us; CUB
//! in the same run 1.39 / 1.43 / 1.56 / 2.00 / 2.78 / 5.53 for sums, 1.88 / 1.93 / 2.08 / 2.85 /
//! 3.44 / 6.31 for argmax): this kernel's shape 1.18 / 1.21 / 1.34 / 1.77 / 2.56 / 5.33 and 1.47 /
//! 1.51 / 1.61 / 2.01 / 2.85 / 5.84; the tile kernel (the path before) 1.75 / 1.78 / 1.88 / 2.47 /
//! 3.31 / 6.06 (sums, another H200 run: CUB 1.60 / 1.61 / 1.76 / 2.35 / 3.16 / 5.94). The same fold
//! with predicated loads (what fold_share does below one round, as in the one-block whole-array
//! kernel) ran from as fast to 0.4 us slower, depending on how ptxas reused the first load's
//! registers: for some reducers and kernel signatures it put the first fold between the first and
//! second loads (SASS of f32 sums), so the block waited a memory round trip with three loads
//! unissued (sums at 2^18: 2.25 us). A block of 4 or 8 warps a row through
//! reduce_rows_by_group_kernel: 1.55 / 1.41 us at 2^12.
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
