// SPDX-License-Identifier: Apache-2.0
// preduce hip: block-level reduction: each wavefront reduces its lanes, one shared-memory slot
// per wavefront, then wavefront 0 reduces the slots with the partial-wavefront shuffle tree.
#pragma once

#include <preduce/backend/warp/warp_reduce.hpp>

namespace preduce {
namespace backend {

//! Shared storage for block_reduce with BlockThreads threads in wavefronts of Wave lanes.
template <class Acc, int Wave, int BlockThreads>
struct block_reduce_storage {
  Acc wave_partials[BlockThreads / Wave];
};

//! Reduces one accumulator per thread across the block.
//! Requires: blockDim.x == BlockThreads, a multiple of Wave (no partial wavefronts), with at
//! most Wave wavefronts; every thread calls it (it holds one barrier). Each wavefront's lane 0
//! writes its own slot; after the barrier, wavefront 0 reads the BlockThreads / Wave slots into
//! its first lanes and reduces those lanes alone (a partial wavefront: the other lanes keep
//! their own values, which are never combined in). Returns the block's result in thread 0;
//! other threads hold partial values. Before reusing `smem`, the caller needs a
//! __syncthreads() (wavefront 0 may still be reading it).
template <int Wave, int BlockThreads, class Reducer, class Acc>
__device__ __forceinline__ Acc block_reduce(const Reducer& red, Acc v, block_reduce_storage<Acc, Wave, BlockThreads>& smem,
                                            warp_algorithm w) {
  constexpr int waves = BlockThreads / Wave;
  static_assert(BlockThreads % Wave == 0 && waves <= Wave, "a block is 1 .. Wave whole wavefronts");
  const int lane = int(threadIdx.x) % Wave, wave = int(threadIdx.x) / Wave;
  v = warp_reduce<Wave>(red, v, w);
  if constexpr (waves > 1) {
    if (lane == 0) smem.wave_partials[wave] = v;
    __syncthreads();
    if (wave == 0) v = warp_reduce_shuffle<Wave, waves>(red, lane < waves ? smem.wave_partials[lane] : v);
  }
  return v;
}

}  // namespace backend
}  // namespace preduce
