// SPDX-License-Identifier: Apache-2.0
// preduce cuda: reduce_columns_kernel, one result per column of a row-major rows x cols matrix
// for every shape: lanes own up to 4 consecutive columns, a warp reads 32 / lanes rows side by
// side, the warps of a block split the rows of its column tile, and row splits among blocks are
// combined by the tile's last block (fold_splits).
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/columns/column_loader.cuh>
#include <preduce/backend/columns/column_plan.hpp>
#include <preduce/backend/columns/fold_column_rows.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! The fold of one column's row splits by the tile's last block in reduce_columns_kernel: the
//! identity combined with p[0], p[stride], ..., p[(count - 1) * stride] (partials that other
//! blocks of this launch stored with store_words and released), in that order, with up to
//! column_splits_in_flight of them loaded (load_coherent) before any is combined, so a share of
//! k splits costs about k / column_splits_in_flight L2 round trips instead of k.
//! Not inlined: the loads in flight live in this function's own registers, and the kernel's main
//! loop is compiled as if the fold were not there (inlined, the same batched loads made the
//! loop slower even for shapes with no splits; column_splits_in_flight has the figures).
template <class Reducer>
__device__ __noinline__ typename Reducer::acc_type fold_splits(const Reducer& red, const typename Reducer::acc_type* p,
                                                               std::uint64_t stride, std::uint64_t count) {
  using Acc = typename Reducer::acc_type;
  constexpr int F = column_splits_in_flight<Acc>();
  Acc b = red.identity();
  std::uint64_t k = 0;
  for (; k + F <= count; k += F) {
    Acc q[F];
#pragma unroll
    for (int f = 0; f < F; ++f) q[f] = load_coherent(p + (k + f) * stride);
#pragma unroll
    for (int f = 0; f < F; ++f) b = red.combine(b, q[f]);
  }
  for (; k < count; ++k) b = red.combine(b, load_coherent(p + k * stride));
  return b;
}

//! Requires: blockDim.x == BlockThreads == 256 (8 warps); Vector (one load per lane and row,
//! else element by element) only when column_loader<Source>::usable; grid-strides over tiles *
//! splits work items, item i being tile i / splits and split i % splits; when splits > 1,
//! across_log2 == 0, counters[0 .. tiles) zero on entry (zero again on exit) and partials holds
//! splits * cols accumulators.
//! Work: lane l of warp k owns columns c0 .. c0 + C - 1 of its tile (C = column_loader::columns;
//! c0 = tile * tile width + ((k % across) * lanes + l % lanes) * C) and, within the split's rows
//! [r0, r1), rows r0 + (i * groups + k / across) * side + l / lanes for i = 0, 1, ... (side =
//! 32 / lanes rows per warp step, groups = 8 / across warps per column), folded in that order
//! as fold_column_rows has them.
//! Combines, in a fixed order: the side rows of a warp (strided_reduce_each), then the warp groups
//! of the block through shared memory (group 0 folds groups 1, 2, ... in turn), then, with several
//! splits, the tile's last block (acq_rel counter per tile) folds the splits: thread t takes column
//! t % tile width and a contiguous share of the splits, and the shares are folded in order.
//! Writes: out[c * out_stride] = finalize(column c) for each column c < cols of the item's
//! tile (with splits, partials[split * cols + c] first, and out from the tile's last block).
template <int BlockThreads, class Reducer, class Source, bool Vector>
__global__ void __launch_bounds__(BlockThreads, column_min_blocks<typename Reducer::acc_type>())
    reduce_columns_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, column_plan p,
                          typename Reducer::acc_type* partials, unsigned* counters, typename Reducer::result_type* out,
                          std::uint64_t out_stride, warp_algorithm w) {
  wait_for_prior_grid();  // the next grid launches as this one's blocks exit (launch.cuh's evidence)
  w = portable::compiled_warp(w);
  using I = std::uint64_t;
  using Acc = typename Reducer::acc_type;
  constexpr int C = column_loader<Source>::columns;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "reduce_columns_kernel: column_plan assumes 8 warps per block");
  // Columns exchanged per barrier: all C while that fits in 32 KiB of shared memory, else one at
  // a time (binned accumulators are 64-150 bytes: C of them per thread would not fit at all).
  constexpr int XC = sizeof(Acc) * C * BlockThreads <= 32768 ? C : 1;
  __shared__ Acc exchange[block_warps][warp_threads][XC];
  __shared__ bool is_last;

  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << p.lanes_log2, side = warp_threads >> p.lanes_log2;
  const unsigned across = 1u << p.across_log2, groups = block_warps >> p.across_log2;
  const unsigned cg = warp & (across - 1), rg = warp >> p.across_log2;
  const unsigned vl = lane & (lanes - 1), ro = lane >> p.lanes_log2;
  const I tile_width = I(across) * lanes * C;
  // Rows from a lane's row to its next: side * groups = 2^(log2(32 / lanes) + log2(8 / across)).
  const unsigned step_log2 = (5 - p.lanes_log2) + (3 - p.across_log2);
  const I step = I(1) << step_log2;
  const bool writer = rg == 0 && lane < lanes;

  const I splits = p.splits, split_rows = p.split_rows;
  for (I item = blockIdx.x; item < I(p.tiles) * splits; item += gridDim.x) {  // block-uniform
    const I tile = splits == 1 ? item : item / splits, split = item - tile * splits;
    const I c0 = tile * tile_width + (I(cg) * lanes + vl) * C;
    const I r_begin = split * split_rows;
    const I r_end = r_begin + split_rows < rows ? r_begin + split_rows : rows;  // <= r_begin: no rows
    Acc a[C];
#pragma unroll
    for (int c = 0; c < C; ++c) a[c] = red.identity();

    // This lane's rows: r_first, r_first + step, ... below r_end; none when its columns lie past cols.
    const I r_first = r_begin + I(rg) * side + ro;
    const I left = c0 < cols && r_first < r_end ? (r_end - r_first + step - 1) >> step_log2 : 0;
    const unsigned valid = cols - c0 < I(C) ? unsigned(cols - c0) : unsigned(C);  // when left > 0
    fold_column_rows<Vector>(red, src, a, r_first * cols + c0, r_first, left, step * cols, step, valid);

    if (side > 1) strided_reduce_each(red, a, lanes, w);
    if (groups > 1) {
#pragma unroll
      for (int first = 0; first < C; first += XC) {
        if (first > 0) __syncthreads();  // the previous columns' exchange has been read
        // Group 0 folds groups 1, 2, ... in turn (a tree's extra barriers and live values made
        // this 64-register kernel spill: ptxas, f32 argmax, 32 -> 104 bytes of stack;
        // reduce_small_columns_kernel takes the tree).
        if (rg > 0 && lane < lanes) {
#pragma unroll
          for (int c = 0; c < XC; ++c) exchange[warp][lane][c] = a[first + c];
        }
        __syncthreads();
        if (writer) {
          for (unsigned g = 1; g < groups; ++g) {
#pragma unroll
            for (int c = 0; c < XC; ++c) a[first + c] = red.combine(a[first + c], exchange[g * across + cg][lane][c]);
          }
        }
      }
    }

    if (splits == 1) {
      if (writer) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (c0 + c < cols) store_result(out + (c0 + c) * out_stride, red.finalize(a[c]));
      }
    } else {
      if (writer) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (c0 + c < cols) store_words(partials + split * cols + c0 + c, a[c]);
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
      }
      __syncthreads();  // every writer's partials are released before thread 0 counts the block
      if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(counters[tile]);
        is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == splits - 1;
      }
      __syncthreads();  // extends thread 0's acquire to the block
      if (is_last) {
        // tile_width (<= 32 * 4) divides BlockThreads: `shares` threads per column.
        const unsigned width = unsigned(tile_width), shares = BlockThreads / width;
        const unsigned k = threadIdx.x % width, h = threadIdx.x / width;
        const I col = tile * tile_width + k;
        Acc b = red.identity();
        if (col < cols) {
          const I lo = h * splits / shares, hi = (h + 1) * splits / shares;
          b = fold_splits(red, partials + lo * cols + col, cols, hi - lo);
        }
        Acc* stage = &exchange[0][0][0];  // block_warps * 32 * XC >= BlockThreads slots
        stage[threadIdx.x] = b;
        __syncthreads();
        if (h == 0 && col < cols) {
          for (unsigned g = 1; g < shares; ++g) b = red.combine(b, stage[g * width + k]);
          store_result(out + col * out_stride, red.finalize(b));
        }
        if (threadIdx.x == 0) counters[tile] = 0;
      }
    }
    __syncthreads();  // exchange and is_last are reused by the block's next item
  }
}

}  // namespace backend
}  // namespace preduce
