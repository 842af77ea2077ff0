// SPDX-License-Identifier: Apache-2.0
// preduce hip: the whole-array kernel. Three device-level shapes share one thread fold
// (portable/thread_fold.hpp, thread/thread_load.hpp) and one block reduction, as on the cuda
// backend:
//   single_pass  one launch; each block stores its partial, the last block to finish (an acq_rel
//                counter at agent scope) reduces the partials in a fixed order: deterministic.
//   two_pass     partials, then a second one-block launch (reduce_partials.hpp; kept for
//                comparison).
//   atomic       one launch; blocks merge partials into one accumulator with atomics, the last
//                block finalizes (determinism::fast; float results vary in the last bits).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

#include <preduce/portable/atomic_merge.hpp>

#include <preduce/backend/block/block_reduce.hpp>
#include <preduce/backend/thread/thread_load.hpp>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.hpp>

namespace preduce {
namespace backend {

using portable::atomic_merge;
using portable::has_atomic_merge;

enum class device_shape { single_pass, two_pass_partials, atomic };

//! The whole-array kernel (all three shapes; the second pass of two_pass is
//! reduce_partials_kernel, whole/reduce_partials.hpp).
//! Requires: blockDim.x == BlockThreads; Wave == the device's wavefront size; head ==
//! vector_head(src, n); for single_pass and atomic, *blocks_done == 0 on entry (it is 0 again on
//! exit); for atomic, *slot == identity (zero bits, restored on exit).
//! Writes: with one block, finalize(result) to *out. Otherwise single_pass and two_pass store
//! block b's partial to partials[b]; single_pass's last block (found by the acq_rel counter)
//! then writes finalize(the partials reduced in a fixed order) to *out; atomic merges each
//! block's partial into *slot and its last block writes finalize(*slot) to *out.
template <device_shape Shape, int Wave, int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_whole_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::acc_type* partials,
                        unsigned* blocks_done, typename Reducer::result_type* out, warp_algorithm w) {
  if constexpr (!wave_matches<Wave>) {
    __builtin_trap();
  } else {
    using Acc = typename Reducer::acc_type;
    __shared__ block_reduce_storage<Acc, Wave, BlockThreads> smem;
    __shared__ bool is_last;
    Acc a = portable::fold_share<vectors_in_flight, vector_load>(red, src, n, head, std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x,
                                                                 std::uint64_t(gridDim.x) * BlockThreads, red.identity());
    a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
    if (gridDim.x == 1) {
      if (threadIdx.x == 0) *out = red.finalize(a);
      return;
    }
    if constexpr (Shape == device_shape::two_pass_partials) {
      if (threadIdx.x == 0) partials[blockIdx.x] = a;
    } else {
      if (threadIdx.x == 0) {
        if constexpr (Shape == device_shape::atomic) atomic_merge<Reducer>(reinterpret_cast<Acc*>(partials), a);
        else partials[blockIdx.x] = a;
        // acq_rel at agent scope: releases this block's partial with the count and, for the last
        // block, acquires every other block's.
        is_last = __hip_atomic_fetch_add(blocks_done, 1u, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT) == gridDim.x - 1;
      }
      __syncthreads();
      if (!is_last) return;
      // Every thread of the last block acquires at agent scope too (invalidating this CU's L1),
      // so the partials it reads are the other blocks' stores, not stale cache lines.
      __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
      if constexpr (Shape == device_shape::atomic) {
        if (threadIdx.x == 0) {
          Acc* slot = reinterpret_cast<Acc*>(partials);
          *out = red.finalize(*slot);
          *slot = Acc(0);
          *blocks_done = 0;
        }
      } else {
        // Up to 4 partials per thread loaded before any is combined, so the L2 round trips overlap.
        constexpr int per_thread = 4;
        a = red.identity();
        for (unsigned base = 0; base < gridDim.x; base += per_thread * BlockThreads) {
          Acc p[per_thread];
#pragma unroll
          for (int k = 0; k < per_thread; ++k) {
            const unsigned i = base + k * BlockThreads + threadIdx.x;
            p[k] = i < gridDim.x ? partials[i] : red.identity();
          }
#pragma unroll
          for (int k = 0; k < per_thread; ++k) a = red.combine(a, p[k]);
        }
        a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
        if (threadIdx.x == 0) {
          *out = red.finalize(a);
          *blocks_done = 0;
        }
      }
    }
  }
}

}  // namespace backend
}  // namespace preduce
