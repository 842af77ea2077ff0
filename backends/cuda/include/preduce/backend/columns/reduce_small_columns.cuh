// SPDX-License-Identifier: Apache-2.0
// preduce cuda: reduce_small_columns_kernel, the columns of a small input one column tile a block
// with 32-bit indices, and its arg combine through ranks (store_column_args).
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/types.hpp>
#include <preduce/detail/reducer.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/columns/column_loader.cuh>
#include <preduce/backend/columns/column_plan.hpp>
#include <preduce/backend/columns/fold_column_rows.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_combine.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! x[k] for each k replaced by its greatest (Max) or least value over the lanes l, l + lanes,
//! l + 2 lanes, ... of the warp (lanes = 2^lanes_log2): redux.sync when lanes == 1 and w allows
//! it (warp_reduce), else an xor tree over those lanes. Requires: all 32 lanes active.
template <bool Max, class Word, int N>
__device__ __forceinline__ void strided_extreme_words(Word (&x)[N], unsigned lanes_log2, warp_algorithm w) {
  if (lanes_log2 == 0 && (w == warp_algorithm::hardware || w == warp_algorithm::automatic)) return warp_extreme_words<Max>(x);
#pragma unroll
  for (unsigned d = warp_threads / 2; d > 0; d /= 2) {
    if (d < (1u << lanes_log2)) break;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const Word y = shfl_xor(x[k], d);
      x[k] = Max ? (y > x[k] ? y : x[k]) : (y < x[k] ? y : x[k]);
    }
  }
}

//! The writer's part of store_column_args for a plan of Groups warp groups: per column, the best
//! rank over the groups and the least first index among the groups that hold it, and that
//! index's value from the group that folded its row: row r of the tile was folded by row group
//! (r >> side_log2) & (Groups - 1) (the kernel's row order: a split's rows are whole steps of
//! all its groups, so splits keep it). A column's
//! Groups ranks and indices are loaded before any is compared (ptxas interleaves the columns):
//! faster than loads under a run-time group count, than all 8 groups loaded whatever the plan,
//! or than a packed key struct; all C * Groups loaded in one loop first spilled
//! (docs/tuning/columns.md#store_best_column_args).
//! Evidence: f32 argmax 4096 rows x 64 columns 5.42 us, under `g < groups` 6.05.
template <unsigned Groups, int C, class Reducer, class Word, class V, unsigned Warps, class Sink>
__device__ __forceinline__ void store_best_column_args(const Reducer& red, const Word (&best)[C][Warps][warp_threads],
                                                       const std::uint32_t (&first)[C][Warps][warp_threads],
                                                       const V (&value)[C][Warps][warp_threads], unsigned across, unsigned cg,
                                                       unsigned vl, unsigned side_log2, std::uint32_t c0, std::uint32_t cols,
                                                       const Sink& sink) {
  constexpr std::uint32_t none = ~std::uint32_t(0);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    Word ranks[Groups];
    std::uint32_t firsts[Groups];
#pragma unroll
    for (unsigned g = 0; g < Groups; ++g) {
      ranks[g] = best[c][g * across + cg][vl];
      firsts[g] = first[c][g * across + cg][vl];
    }
    Word b = ranks[0];
#pragma unroll
    for (unsigned g = 1; g < Groups; ++g) b = ranks[g] > b ? ranks[g] : b;
    std::uint32_t f = none;
#pragma unroll
    for (unsigned g = 0; g < Groups; ++g) f = ranks[g] == b && firsts[g] < f ? firsts[g] : f;
    if (c0 + c >= cols) continue;
    sink(c0 + c, f == none ? red.identity() : arg<V>{value[c][((f >> side_log2) & (Groups - 1)) * across + cg][vl], f});
  }
}

//! The arg results of one column tile of reduce_small_columns_kernel, from each lane's C
//! accumulators a (column c0 + c, indices below 2^32), through ranks instead of a tree of arg
//! accumulators: each warp finds, per column, its best rank (arg_rank: NaN, -0 and +0 as
//! Reducer::ties has them) and the least index among its lanes that hold it
//! (strided_extreme_words); with one warp group that lane hands over its own accumulator (the
//! element's bits); otherwise each warp publishes both and that lane's value, and after one
//! barrier the column's writer combines the groups' (store_best_column_args). A column with no
//! element gets the identity. The same result as combining the accumulators in any order: the
//! best value's first index. Each column's accumulator goes to sink(column, accumulator), once.
//! Requires: every thread of the block calls it; BlockThreads == 256; lanes_log2 and
//! across_log2 the launch's plan; writer as in the kernel.
//! Against the small plans' tree (the lanes' shuffle tree, then the warp groups through shared
//! memory): faster with several warp groups, about the same with one.
//! Evidence: f32 argmax 4096 rows x 4 columns 3.82 -> 3.14 us (docs/tuning/columns.md#store_column_args).
template <int BlockThreads, int C, class Reducer, class V, class Sink>
__device__ __forceinline__ void store_column_args(const Reducer& red, const arg<V> (&a)[C], unsigned lanes_log2, unsigned across_log2,
                                                  bool writer, std::uint32_t c0, std::uint32_t cols, const Sink& sink,
                                                  warp_algorithm w) {
  using Rank = decltype(arg_rank<Reducer>(V{}));
  using Word = std::conditional_t<sizeof(Rank) == 8, unsigned long long, unsigned>;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "store_column_args: plans of 1, 2, 4 or 8 warp groups");
  __shared__ Word best[C][block_warps][warp_threads];
  __shared__ std::uint32_t first[C][block_warps][warp_threads];
  __shared__ V value[C][block_warps][warp_threads];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << lanes_log2, across = 1u << across_log2, groups = block_warps >> across_log2;
  const unsigned vl = lane & (lanes - 1), cg = warp & (across - 1);
  constexpr std::uint32_t none = ~std::uint32_t(0);

  Word own[C], top[C];  // a lane that holds no element has rank 0, below every element's
#pragma unroll
  for (int c = 0; c < C; ++c) own[c] = top[c] = a[c].index != npos ? Word(arg_rank<Reducer>(a[c].value)) : Word(0);
  strided_extreme_words<true>(top, lanes_log2, w);
  std::uint32_t index[C], low[C];
#pragma unroll
  for (int c = 0; c < C; ++c) index[c] = low[c] = a[c].index != npos && own[c] == top[c] ? std::uint32_t(a[c].index) : none;
  strided_extreme_words<false>(low, lanes_log2, w);
  if (groups == 1) {  // block-uniform: each warp holds whole columns
#pragma unroll
    for (int c = 0; c < C; ++c) {
      if (c0 + c >= cols) continue;
      if (low[c] != none && index[c] == low[c]) sink(c0 + c, a[c]);
      else if (low[c] == none && lane < lanes) sink(c0 + c, red.identity());
    }
    return;
  }
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (lane < lanes) {
      best[c][warp][vl] = top[c];
      first[c][warp][vl] = low[c];
    }
    if (low[c] != none && index[c] == low[c]) value[c][warp][vl] = a[c].value;
  }
  __syncthreads();
  if (!writer) return;
  const unsigned side_log2 = 5 - lanes_log2;
  if (groups == 2) store_best_column_args<2>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
  else if (groups == 4) store_best_column_args<4>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
  else store_best_column_args<8>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
}

//! Columns of a small input (plan_small_columns' plan over 16-byte loads), one column tile a
//! block, with 32-bit indices and only the parameters it reads: reduce_columns_kernel's rows,
//! order and results for one split, without its item loop and split code: faster than
//! reduce_columns_kernel's Small form (formerly a template flag of that kernel, with its
//! partials, counters and item loop). The plan comes as the struct: given lanes_log2 and
//! across_log2 as two scalar parameters, NVVM recomputed each load's address from the
//! parameters, and the sums ran no faster than the Small form.
//! Evidence: argmax 4096 rows x 16 columns 3.46 -> 3.27 us (docs/tuning/columns.md#reduce_small_columns_kernel).
//! Requires: blockDim.x == BlockThreads == 256; gridDim.x == p.tiles * splits, splits = 1, or
//! 2^column_arg_splits_log2 with Split (only p.lanes_log2 and p.across_log2 are read); Split
//! only for arg reducers, with tile width (across * lanes * C) <= BlockThreads,
//! counters[0 .. p.tiles) zero on entry (zero again on exit) and slots the queue's partial
//! slots (zero), p.tiles * splits * tile width of them; column_loader<Source>::usable;
//! (rows + 256) * cols and cols * out_stride below 2^31.
//! Work and order: reduce_columns_kernel's, RowsInFlight of a lane's rows loaded before any is
//! folded (column_rows_in_flight, or column_deep_rows_in_flight where a warp takes more row
//! steps than that); with splits, block b takes split b % splits of tile b / splits, whose rows
//! are the tile's row steps k, k + splits, ... (as if a tile had splits times the warp groups).
//! Combines: arg reducers through ranks (store_column_args), and with splits each block
//! publishes its columns' accumulators in their slots (publish_partial: flagged words, no fence),
//! counts itself in counters[tile], and the tile's last block collects the splits' in split
//! order (the arg combine keeps the least index among ties, so the order does not change the
//! result); others the side rows of a warp (strided_reduce_each), then a tree over the warp
//! groups through shared memory, group g taking g + half for half = groups / 2, ..., 1.
//! Split is a template flag: with the splits a run-time count (p.splits), the unsplit arg plans
//! ran 3-7% slower (same section of docs/tuning/columns.md).
//! Writes: out[c * out_stride] = finalize(column c) for each column c < cols of the block's tile.
template <int BlockThreads, int RowsInFlight, bool Split, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, RowsInFlight > column_rows_in_flight ? column_deep_min_blocks
                                                                                    : column_min_blocks<typename Reducer::acc_type>())
    reduce_small_columns_kernel(Reducer red, Source src, std::uint32_t rows, std::uint32_t cols, column_plan p,
                                typename Reducer::result_type* out, std::uint32_t out_stride, unsigned long long* slots,
                                unsigned* counters, warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using I = std::uint32_t;
  static_assert(!Split || detail::has_value_reducer<Reducer>::value, "row splits: arg reducers only");
  const unsigned lanes_log2 = p.lanes_log2, across_log2 = p.across_log2;
  constexpr unsigned splits_log2 = Split ? column_arg_splits_log2 : 0u;
  using Acc = typename Reducer::acc_type;
  constexpr int C = column_loader<Source>::columns;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "reduce_small_columns_kernel: plans of 8 warps a block");
  static_assert(sizeof(Acc) * C * BlockThreads <= 32768, "small plans: accumulators of at most 16 bytes");
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << lanes_log2, side = warp_threads >> lanes_log2;
  const unsigned across = 1u << across_log2, groups = block_warps >> across_log2;
  const unsigned cg = warp & (across - 1), rg = warp >> across_log2;
  const unsigned vl = lane & (lanes - 1), ro = lane >> lanes_log2;
  const unsigned step_log2 = (5 - lanes_log2) + (3 - across_log2) + splits_log2;
  const I step = I(1) << step_log2;
  const bool writer = rg == 0 && lane < lanes;
  const unsigned tile = blockIdx.x >> splits_log2, split = blockIdx.x & ((1u << splits_log2) - 1u);
  const I tile_width = across * lanes * C;
  const I c0 = I(tile) * tile_width + (cg * lanes + vl) * C;

  Acc a[C];
#pragma unroll
  for (int c = 0; c < C; ++c) a[c] = red.identity();
  const I r_first = ((split << (3 - across_log2)) + rg) * side + ro;
  const I left = c0 < cols && r_first < rows ? (rows - r_first + step - 1) >> step_log2 : 0;
  fold_column_rows<true, RowsInFlight>(red, src, a, r_first * cols + c0, r_first, left, step * cols, step, unsigned(C));

  if constexpr (!Split && detail::has_value_reducer<Reducer>::value) {
    store_column_args<BlockThreads>(red, a, lanes_log2, across_log2, writer, c0, cols,
                                    [&](I col, const Acc& r) { store_result(out + col * out_stride, red.finalize(r)); }, w);
  } else if constexpr (Split) {
    constexpr unsigned K = 1u << splits_log2;
    const auto slot = [&](unsigned k, I col) { return ((tile << splits_log2) + k) * tile_width + (col - tile * tile_width); };
    store_column_args<BlockThreads>(red, a, lanes_log2, across_log2, writer, c0, cols,
                                    [&](I col, const Acc& r) { publish_partial(r, slot(split, col), static_cast<Acc*>(nullptr), slots); },
                                    w);
    __shared__ bool last;
    __syncthreads();  // every column of the block published
    if (threadIdx.x == 0) last = atomicAdd(&counters[tile], 1u) == K - 1u;
    __syncthreads();
    if (!last) return;  // block-uniform
    // The splits' words may land after their counts: collect_published waits for them.
    const I col = tile * tile_width + threadIdx.x;
    if (threadIdx.x < tile_width && col < cols) {
      unsigned b[K];
      Acc parts[K];
#pragma unroll
      for (unsigned k = 0; k < K; ++k) b[k] = slot(k, col);
      collect_published(b, slots, parts);
      Acc r = parts[0];
#pragma unroll
      for (unsigned k = 1; k < K; ++k) r = red.combine(r, parts[k]);
      store_result(out + col * out_stride, red.finalize(r));
    }
    if (threadIdx.x == 0) counters[tile] = 0;
  } else {
    __shared__ Acc exchange[block_warps][warp_threads][C];
    if (side > 1) strided_reduce_each(red, a, lanes, w);
    // A tree over the groups: at each level the upper half of the groups still holding partials
    // passes them to the lower half (group g takes g + half). A level writes only slots that no
    // earlier level read. Faster than group 0 folding the others in turn
    // (docs/tuning/columns.md#reduce_small_columns_kernel-group-tree).
    // Evidence: H100 argmax over columns of 4096 at 2^16, 5.40 -> 4.36 us.
#pragma unroll
    for (unsigned half = block_warps / 2; half > 0; half /= 2) {
      if (half >= groups) continue;  // block-uniform
      if (rg >= half && rg < 2 * half && lane < lanes) {
#pragma unroll
        for (int c = 0; c < C; ++c) exchange[warp][lane][c] = a[c];
      }
      __syncthreads();
      if (rg < half && lane < lanes) {
#pragma unroll
        for (int c = 0; c < C; ++c) a[c] = device_combine(red, a[c], exchange[(rg + half) * across + cg][lane][c]);
      }
    }
    if (writer) {
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (c0 + c < cols) store_result(out + (c0 + c) * out_stride, red.finalize(a[c]));
    }
  }
}

}  // namespace backend
}  // namespace preduce
