// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the whole-array kernel, in its three device-level shapes, which share one
// thread fold (thread/thread_load.cuh) and one block reduction:
//   single_pass  one launch; the block that takes the last start ticket collects every other
//                block's published partial and reduces them in a fixed order: deterministic.
//   two_pass     partials, then a second one-block launch (reduce_partials.cuh; CUB's shape,
//                kept for comparison).
//   atomic       one launch; blocks merge partials into one accumulator with atomics, the last
//                block finalizes (determinism::fast; float results vary in the last bits).
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

#include <preduce/portable/atomic_merge.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

using portable::atomic_merge;
using portable::has_atomic_merge;

enum class device_shape { single_pass, two_pass_partials, atomic };

static_assert(whole_warp_collector_blocks == warp_threads, "the warp collector takes one partial a lane");

//! The whole-array kernel (all three shapes; the second pass of two_pass is
//! reduce_partials_kernel below). Each thread has Vectors 16-byte loads in flight (fold_share);
//! MinBlocks is __launch_bounds__' resident blocks per SM (1: no register cap beyond the block
//! size's; the deep arg kernel asks for 2 with 8 vectors, see whole_deep_arg).
//! Requires: blockDim.x == BlockThreads; head == vector_head(src, n); gridDim.x <= the slots'
//! length; on entry *tickets == 0, every slot is 0 and, for atomic, *blocks_done == 0 and
//! *atomic_slot == identity (zero bits); all of these hold again on exit.
//! Writes: with one block, finalize(result) to *out. Otherwise:
//!  - single_pass: each block takes a start ticket; the block with the last ticket is the
//!    collector (every other block has started by then, so waiting for them cannot deadlock).
//!    The others publish their partial (publish_partial) and exit; the collector folds its own
//!    share, then combines all partials in an order fixed by the grid alone, so the result does
//!    not depend on which block collects: with at most 32 blocks lane b of warp 0 takes block
//!    b's partial and one warp_reduce combines them; with more, thread t takes blocks t,
//!    t + BlockThreads, ... and block_reduce combines them. It writes finalize(result) to *out.
//!    The lanes poll their slots independently (collect_partial's loop ends at a different
//!    round in each lane), and an explicit __syncwarp() reconverges them before the shuffles of
//!    the warp or block reduction: without it the collection took 300-600 ns longer.
//!    Evidence: f64 plus 2^14 2.69 -> 2.11 us on an H200 (docs/tuning/whole.md#reduce_whole_kernel).
//!  - two_pass_partials: partials[b] = block b's partial.
//!  - atomic: merges each partial into *atomic_slot; the last block to finish (acq_rel counter)
//!    writes finalize(*atomic_slot) to *out.
template <device_shape Shape, int BlockThreads, int Vectors, int MinBlocks, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    reduce_whole_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::acc_type* partials,
                        unsigned long long* slots, control_block* control, typename Reducer::result_type* out,
                        warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  __shared__ unsigned ticket;
  __shared__ bool is_last;
  __shared__ Acc own;
  // The ticket's round trip overlaps the loads below; it is read after block_reduce's barrier.
  if (Shape == device_shape::single_pass && gridDim.x > 1 && threadIdx.x == 0) ticket = atomicAdd(&control->tickets, 1u);
  Acc a = fold_share<Vectors>(red, src, n, head, blockIdx.x, gridDim.x, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) store_result(out, red.finalize(a));
    return;
  }
  if constexpr (Shape == device_shape::two_pass_partials) {
    if (threadIdx.x == 0) store_words(partials + blockIdx.x, a);
  } else if constexpr (Shape == device_shape::single_pass) {
    __syncthreads();  // publishes `ticket`; warp 0 is done with smem
    if (ticket != gridDim.x - 1) {
      if (threadIdx.x == 0) publish_partial(a, blockIdx.x, partials, slots);
      return;
    }
    if (gridDim.x <= whole_warp_collector_blocks) {  // warp 0 alone: no barrier and one warp reduction
      if (threadIdx.x >= warp_threads) return;
      const Acc mine = shfl_from(a, 0);
      const unsigned b = threadIdx.x;
      a = b >= gridDim.x ? red.identity() : b == blockIdx.x ? mine : collect_partial(b, partials, slots);
      __syncwarp();  // the polling lanes reconverge before any shuffle (see above)
      a = warp_reduce(red, a, w);
      if (threadIdx.x == 0) {
        store_result(out, red.finalize(a));
        control->tickets = 0;  // every ticket has been taken
      }
      return;
    }
    if (threadIdx.x == 0) own = a;
    __syncthreads();
    a = red.identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BlockThreads)
      a = red.combine(a, b == blockIdx.x ? own : collect_partial(b, partials, slots));
    __syncwarp();  // the polling lanes reconverge before any shuffle (see above)
    a = block_reduce<BlockThreads>(red, a, smem, w);
    if (threadIdx.x == 0) {
      store_result(out, red.finalize(a));
      control->tickets = 0;  // every ticket has been taken
    }
  } else {
    if (threadIdx.x == 0) {
      atomic_merge<Reducer>(reinterpret_cast<Acc*>(control->atomic_slot), a);
      // acq_rel: releases this block's merge with the count and, for the last block, acquires
      // every other block's.
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(control->blocks_done);
      is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
      Acc* slot = reinterpret_cast<Acc*>(control->atomic_slot);
      store_result(out, red.finalize(load_coherent(slot)));
      *slot = Acc(0);
      control->blocks_done = 0;
    }
  }
}

}  // namespace backend
}  // namespace preduce
