// SPDX-License-Identifier: Apache-2.0
// preduce cuda: block-level reduction: warp shuffles, one shared-memory word per warp, then a
// final warp.
#pragma once

#include "warp_reduce.cuh"

namespace preduce {
namespace backend {

//! Shared storage for block_reduce with BlockThreads threads.
template <class Acc, int BlockThreads>
struct block_reduce_storage {
  Acc warp_partials[BlockThreads / warp_threads];
};

//! Reduces one accumulator per thread across the block.
//! Requires: blockDim.x == BlockThreads (a multiple of 32, at most 1024), every thread calls it
//! (it contains barriers). Each warp's partial goes to its own shared slot (no bank conflicts:
//! consecutive words, one writer each). Returns the block's result in thread 0; others hold
//! partial values. Safe to call again after a __syncthreads().
template <int BlockThreads, class Reducer, class Acc>
__device__ __forceinline__ Acc block_reduce(const Reducer& red, Acc v, block_reduce_storage<Acc, BlockThreads>& smem) {
  static_assert(BlockThreads % warp_threads == 0 && BlockThreads <= 1024, "block size must be a multiple of 32, <= 1024");
  constexpr int warps = BlockThreads / warp_threads;
  const int lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  v = warp_reduce(red, v);
  if constexpr (warps > 1) {
    if (lane == 0) smem.warp_partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
      v = lane < warps ? smem.warp_partials[lane] : red.identity();
      v = warp_reduce(red, v);
    }
  }
  return v;
}

}  // namespace backend
}  // namespace preduce
