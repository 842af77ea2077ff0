// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the whole-array kernel of the binned (determinism::reproducible and partial_of)
// reducers. They run through the same thread fold as every other reducer (thread_load.cuh:
// 16-byte vector loads, the reducers' chunk fold); what differs is the register budget and the
// block reduction. A binned accumulator is 64-72 bytes, and the generic single-pass kernel's
// last block holds four partials per thread at once, which makes ptxas give every thread of
// the kernel 126 (f32) to 165 (f64) registers: one or two 256-thread blocks per SM, too few
// loads in flight to stream at the bandwidth ceiling. This kernel caps registers through its
// launch bounds; blocks merge their accumulators exactly through block/block_binned_merge.cuh.
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

#include <preduce/portable/binned_reducers.hpp>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! Resident 256-thread blocks per SM the binned kernel is built for, by accumulator size. Launch
//! bounds then cap registers at 65536 / (blocks * 256). Reasoned from ptxas -v (CUDA 13, sm_90):
//!   one binned sum (64-72 bytes): 3 blocks, 80 registers: plus f32 and f64 fit without
//!     spilling in the fold loop (f64 needs ~80 with 4 vectors in flight, 46 with one), and
//!     768 threads x 64 bytes in flight keep 48 KiB per SM in flight (6.3 MB on an H200's 132
//!     SMs: 4.4 TB/s at up to 1.4 us of latency).
//!   moments (two sums, ~150 bytes): 2 blocks, 128 registers (at 80 it spills ~8 KB).
//! With the current block merge, 4 blocks of f32 plus spill 88 bytes and are slower
//! (docs/tuning/whole.md#binned_blocks_per_sm).
//! Evidence: f32 plus 2^28 on an H100, 3 blocks 368.6 us, 4 blocks 395.0.
template <class Acc>
constexpr int binned_blocks_per_sm() {
  return sizeof(Acc) <= 80 ? 3 : 2;
}

//! True for the binned reducers (portable/binned_reducers.hpp), which mark themselves.
template <class Reducer, class = void>
struct is_binned_reducer : std::false_type {};
template <class Reducer>
struct is_binned_reducer<Reducer, std::void_t<decltype(Reducer::binned)>> : std::bool_constant<Reducer::binned> {};

//! The whole-array kernel for binned reducers.
//! Requires: blockDim.x == BlockThreads; head == vector_head(src, n); *blocks_done == 0 on
//! entry (0 again on exit) unless Partials.
//! Writes: with one block, finalize(result) to *out. Otherwise block b's partial to
//! partials[b]; unless Partials (two_pass: reduce_partials_kernel finishes), the last block to
//! finish (an acq_rel counter) merges the partials and writes finalize(total) to *out.
//! Grid-stride shares leave the blocks finishing up to 35 us apart at 2^28 f32 (H200: folds of
//! 237-273 us, event-timed stamps in a device probe). Blocks claiming 32-256 KiB tiles from a
//! counter instead took 288-368 us in the same kind of probe, block_merge included: tiles read
//! memory more slowly than the grid-stride window, so the shares stay grid-stride.
template <bool Partials, int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, binned_blocks_per_sm<typename Reducer::acc_type>())
    reduce_binned_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::acc_type* partials,
                         unsigned* blocks_done, typename Reducer::result_type* out) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  __shared__ bool is_last;
  // One group of all the grid's threads: grid-wide stripes (the whole-array kernel's tiles are
  // unmeasured here).
  Acc a = fold_share<vectors_in_flight>(red, src, n, head, 0, 1, blockIdx.x * BlockThreads + threadIdx.x, gridDim.x * BlockThreads,
                                        red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::shuffle);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) store_result(out, red.finalize(a));
    return;
  }
  if (threadIdx.x == 0) {
    store_words(partials + blockIdx.x, a);
    if constexpr (!Partials) {
      // acq_rel: releases this block's partial with the count; the last block acquires all.
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
      is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
  }
  if constexpr (!Partials) {
    __syncthreads();
    if (!is_last) return;
    a = threadIdx.x < gridDim.x ? load_coherent(partials + threadIdx.x) : red.identity();
    for (unsigned i = threadIdx.x + BlockThreads; i < gridDim.x; i += BlockThreads) a = red.combine(a, load_coherent(partials + i));
    a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::shuffle);
    if (threadIdx.x == 0) {
      store_result(out, red.finalize(a));
      *blocks_done = 0;
    }
  }
}

}  // namespace backend
}  // namespace preduce
