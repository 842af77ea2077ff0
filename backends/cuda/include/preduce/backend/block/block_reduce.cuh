// SPDX-License-Identifier: Apache-2.0
// preduce cuda: block-level reduction: each warp reduces its lanes, one shared-memory slot per
// warp, then warp 0 reduces the slots.
#pragma once

#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Shared storage for block_reduce with BlockThreads threads.
template <class Acc, int BlockThreads>
struct block_reduce_storage {
  Acc warp_partials[BlockThreads / warp_threads];
};

//! Reduces one accumulator per thread across the block.
//! Requires: blockDim.x == BlockThreads (a multiple of 32, at most 1024); every thread calls it
//! (it holds one barrier). Each warp's lane 0 writes its own slot (consecutive slots, one writer
//! each: no bank conflicts); only warp 0 reads them after the barrier. Returns the block's
//! result in thread 0; other threads hold partial values. Before reusing `smem`, the caller
//! needs a __syncthreads() (warp 0 may still be reading it).
template <int BlockThreads, class Reducer, class Acc>
__device__ __forceinline__ Acc block_reduce(const Reducer& red, Acc v, block_reduce_storage<Acc, BlockThreads>& smem,
                                            warp_algorithm w) {
  static_assert(BlockThreads % warp_threads == 0 && BlockThreads <= 1024, "block size must be a multiple of 32, <= 1024");
  constexpr int warps = BlockThreads / warp_threads;
  const int lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  v = warp_reduce(red, v, w);
  if constexpr (warps > 1) {
    if (lane == 0) smem.warp_partials[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_reduce(red, lane < warps ? smem.warp_partials[lane] : red.identity(), w);
  }
  return v;
}

}  // namespace backend
}  // namespace preduce
