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
//! Evidence: H200, graph timer, probe of 2026-11-22, us per call at 2^12 (CUB in the same run
//! 1.28, 1.21, 1.34, 1.22): reduce_whole_kernel's one-block path, f32 plus / i32 plus / f32
//! maximum / i32 maximum 1.54 / 1.44 / 1.48 / 1.39; the same fold and block reduction with the
//! warp algorithm fixed at compile time 1.41 / 1.28 / 1.30 / 1.22. (A kernel with no head, tail
//! or predicates, for exactly 2 vectors a thread, took 1.20 / 1.07 / 1.12 / 1.07.)
//! preduce-bench --shapes whole (H200, 2026-11-22, us, before -> with this kernel, CUB in the
//! second run): 2^12 f32 plus 1.55 -> 1.42 (1.27), f32 maximum 1.48 -> 1.37 (1.34), i32 maximum
//! 1.39 -> 1.26 (1.22), i32 minmax 1.55 -> 1.27 (2.30), f64 argmax 2.18 -> 2.06 (2.75); 2^10
//! f32 dot 1.53 -> 1.35 (1.72). Only bf16 dot lost (2^12 1.59 -> 1.69, CUB 1.51). That form
//! folded its round in a loop; the fold is now unrolled (fold_items' Rounds), see there.
//! Leaving out code pays here too (H200, graph timer, probes of 2026-11-23, us per call, main
//! -> without the scalar head and tail for aligned whole vectors): f32 dot 2^12 1.46 -> 1.34,
//! bf16 dot 2^12 1.76 -> 1.73, bf16 plus 2^12 1.37 -> 1.33, f64 argmax 2^10 1.84 -> 1.76 (CUB
//! 1.74), f32 plus 2^12 1.27 -> 1.27 (CUB 1.24); with a dot of one round folded in one round,
//! not two: bf16 dot 2^12 1.78 -> 1.55, f32 dot 1.47 -> 1.33 (preduce-bench's CUB: 1.51, 1.40).
//! Two rounds without the head and tail were slower (bf16 dot 2^14 2.09 -> 2.24), so only
//! one-round kernels leave them out.
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
