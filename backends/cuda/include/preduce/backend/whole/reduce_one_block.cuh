// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the whole-array kernel for an array of at most one round: one block, the fold
// and the block reduction, nothing else.
#pragma once

#include <cstdint>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! The whole-array reduction of an array of at most one round (whole_one_block) by one block
//! under warp_algorithm::automatic: the fold of that one round and the block reduction, nothing
//! else, so the kernel's code stays small. Requires: blockDim.x == BlockThreads, one block,
//! n <= whole_block_elements(elements_per_vector<Source>()), head == vector_head(src, n), and
//! fold_share's conditions for Rounds and WholeVectors: reduce_whole takes Rounds = 1 when n is
//! one stripe round of the block (always, except for dot, whose element vectors take two loads
//! and so two rounds to fill the block's four loads a thread) and WholeVectors when, besides, the
//! array is 16-byte aligned and a whole number of vectors.
//! Writes finalize(result) to *out; the same bits as reduce_whole_kernel with one block.
//! Leaving out code a one-block array does not need pays, its instructions being fetched once
//! per launch: the warp algorithm is fixed at compile time, the fold unrolled (fold_items'
//! Rounds), and one-round kernels leave out the scalar head and tail for aligned whole vectors
//! (with two rounds that was slower).
//! Evidence: f32 plus 2^12 1.54 -> 1.41 us on an H200 (docs/tuning/whole.md#reduce_one_block_kernel).
template <int BlockThreads, int Rounds, bool WholeVectors, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_one_block_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::result_type* out) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = fold_share<vectors_in_flight, Rounds, WholeVectors>(red, src, n, head, 0, 1, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::automatic);
  if (threadIdx.x == 0) store_result(out, red.finalize(a));
}

}  // namespace backend
}  // namespace preduce
