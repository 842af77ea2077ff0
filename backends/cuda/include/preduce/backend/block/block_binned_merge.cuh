// SPDX-License-Identifier: Apache-2.0
// preduce cuda: block_reduce for the binned accumulators of determinism::reproducible and
// partial_of. Kernels include this header instead of block_reduce.cuh, declare
// `block_reduce_storage<Acc, BlockThreads>` and call `block_reduce` as for any accumulator; for a
// binned accumulator both resolve to the exact block merge below.
//
// Merging binned accumulators pairwise (renormalizing both, aligning levels) at every step of
// the warp-and-slot tree took 5 to 15 us for one 256-thread block. Instead every thread raises its
// accumulator to the block's highest level and renormalizes it, and the block adds the bins'
// integer counts (portable::binned::lattice_counts, exact in int64 for 2^12 threads) with integer
// shuffles. Merge order does not matter (binned merges are exact), only the finalized bits.
// Evidence: 2^28 f32 sum 301.6 -> 278.3 us on an H200 (docs/tuning/building-blocks.md#block_merge).
#pragma once

#include <cstdint>

#include <preduce/portable/binned_reducers.hpp>

#include <preduce/backend/block/block_reduce.cuh>

namespace preduce {
namespace backend {

//! A thread's bin counts and special-value flags, summed across the block.
struct counted_bins {
  portable::binned::lattice_counts counts;
  std::uint32_t specials;
};

//! Sums counted_bins (block_reduce's reducer interface).
struct counted_bins_sum {
  using acc_type = counted_bins;
  static constexpr detail::fused_op fused = detail::fused_op::none;
  __device__ static counted_bins identity() { return {}; }
  __device__ static counted_bins combine(const counted_bins& a, const counted_bins& b) {
    counted_bins r;
    for (int k = 0; k < portable::binned::folds; ++k) {
      r.counts.drift[k] = a.counts.drift[k] + b.counts.drift[k];
      r.counts.carried[k] = a.counts.carried[k] + b.counts.carried[k];
    }
    r.specials = a.specials | b.specials;
    return r;
  }
};

//! Shared storage for merging one binned sum across a block.
template <int BlockThreads>
struct block_merge_storage {
  block_reduce_storage<int, BlockThreads> levels;
  block_reduce_storage<counted_bins, BlockThreads> bins;
  int level;
};

//! block_reduce's storage for a binned sum.
template <class Layout, int BlockThreads>
struct block_reduce_storage<portable::binned::accumulator<Layout>, BlockThreads> : block_merge_storage<BlockThreads> {};

//! block_reduce's storage for binned moments: the sums' storage (reused by both) and the counts'.
template <class T, int BlockThreads>
struct block_reduce_storage<portable::binned::moments_accumulator<T>, BlockThreads> : block_merge_storage<BlockThreads> {
  block_reduce_storage<std::uint64_t, BlockThreads> counts;
};

//! The exact merge of the block's binned sums, in thread 0 (other threads: unspecified).
//! Requires: every thread calls it (three barriers); smem may be reused after a __syncthreads().
template <int BlockThreads, class Layout>
__device__ portable::binned::accumulator<Layout> block_merge(portable::binned::accumulator<Layout> a,
                                                             block_merge_storage<BlockThreads>& smem) {
  namespace bin = portable::binned;
  if (a.level == bin::raw_level) a = bin::materialized(a);
  int level = block_reduce<BlockThreads>(detail::reducer<maximum, int>{}, int(a.level), smem.levels, warp_algorithm::shuffle);
  if (threadIdx.x == 0) smem.level = level;
  __syncthreads();
  level = smem.level;
  if (a.level < level) bin::raise_level(a, level);
  bin::renormalize(a);
  const counted_bins total =
      block_reduce<BlockThreads>(counted_bins_sum{}, counted_bins{bin::counts_of(a), a.specials}, smem.bins, warp_algorithm::shuffle);
  return bin::from_counts<Layout>(level, total.counts, total.specials);
}

//! block_reduce of binned sums: block_merge (the reducer and warp algorithm are not needed).
template <int BlockThreads, class Reducer, class Layout>
__device__ portable::binned::accumulator<Layout> block_reduce(
    const Reducer&, portable::binned::accumulator<Layout> a,
    block_reduce_storage<portable::binned::accumulator<Layout>, BlockThreads>& smem, warp_algorithm) {
  return block_merge<BlockThreads>(a, smem);
}

//! block_reduce of binned moments: the element counts, then block_merge of the sums and of the
//! sums of squares.
template <int BlockThreads, class Reducer, class T>
__device__ portable::binned::moments_accumulator<T> block_reduce(
    const Reducer&, portable::binned::moments_accumulator<T> a,
    block_reduce_storage<portable::binned::moments_accumulator<T>, BlockThreads>& smem, warp_algorithm) {
  portable::binned::moments_accumulator<T> r;
  r.count = block_reduce<BlockThreads>(detail::reducer<plus<std::uint64_t>, std::uint64_t>{}, a.count, smem.counts,
                                       warp_algorithm::shuffle);
  r.sum = block_merge<BlockThreads>(a.sum, smem);
  r.squares = block_merge<BlockThreads>(a.squares, smem);
  return r;
}

}  // namespace backend
}  // namespace preduce
