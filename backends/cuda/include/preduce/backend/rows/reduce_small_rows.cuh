// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the small-row kernel: a small input's short aligned rows, one row a group, with
// fixed slots and 32-bit indices.
#pragma once

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/rows/row_slots.cuh>
#include <preduce/backend/rows/stages_rows.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/subwarp_reduce.cuh>

namespace preduce {
namespace backend {

//! Short aligned rows of a small input (small_row_items): a group of lanes = 2^lanes_log2 <= 32
//! per row, one row a group, over 16-byte vectors, with 32-bit indices and each lane's slots
//! known at compile time (against reduce_short_rows_kernel's and reduce_staged_rows_kernel's
//! runtime shape, which cost a small launch about 0.3 us: probes beside small_row_items). Lane j
//! of group g holds, of row first + g:
//!  - arg reducers (stages_rows): the run of vectors j * P .. j * P + P - 1, P =
//!    small_staged_row_vectors, loaded straight from global memory (at this size there is nothing
//!    to gain from staging them), folded in index order; the group's lanes then combine in lane
//!    order (group_reduce_ordered): reduce_staged_rows_kernel's order;
//!  - other reducers: vectors j, j + lanes, ..., S = small_row_items of them, folded by a pairwise
//!    tree over slots, then group_reduce: reduce_short_rows_kernel's order for per = S.
//! Requires: blockDim.x == BlockThreads; chunk_loader<Source> vectorized; rows_aligned(src,
//! cols); rows * cols < 2^31; items = cols / width <= lanes * (P or S).
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first lane.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_small_rows_kernel(Reducer red, Source src, unsigned rows, unsigned cols, unsigned lanes_log2,
                             typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  static_assert(L::vectorized, "the small form reads 16-byte vectors");
  constexpr bool runs = stages_rows<Reducer, Source>();
  constexpr int W = L::width, S = int(runs ? small_staged_row_vectors : small_row_items);
  const unsigned lanes = 1u << lanes_log2, groups = warp_threads >> lanes_log2;
  const unsigned lane = threadIdx.x % warp_threads, g = lane >> lanes_log2, j = lane & (lanes - 1);
  const unsigned items = cols / W;
  const unsigned warp = (blockIdx.x * BlockThreads + threadIdx.x) / warp_threads;
  const unsigned warps = gridDim.x * (BlockThreads / warp_threads);
  const auto item_of = [&](int k) { return runs ? j * S + unsigned(k) : j + unsigned(k) * lanes; };
  for (unsigned first = warp * groups; first < rows; first += warps * groups) {  // warp-uniform
    const unsigned row = first + g;
    typename L::element e[S][W];
    bool has[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      has[k] = row < rows && item_of(k) < items;
      if (has[k]) L::load(src, row * cols + item_of(k) * W, e[k]);
    }
    Acc a = red.identity();
    if constexpr (runs) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        // After the lane's first chunk, arg folds skip the identity test (fold_chunk_after_first).
        if (has[k]) a = k == 0 ? fold_chunk(red, a, e[k], item_of(k) * W) : fold_chunk_after_first(red, a, e[k], item_of(k) * W);
      }
      a = group_reduce_ordered(red, a, lanes, w);
    } else {
      Acc slot[S];
#pragma unroll
      for (int k = 0; k < S; ++k) slot[k] = has[k] ? fold_chunk(red, red.identity(), e[k], item_of(k) * W) : red.identity();
      combine_row_slots(red, slot, unsigned(S));
      a = group_reduce(red, slot[0], lanes, w);
    }
    if (j == 0 && row < rows) store_result(out + row * out_stride, red.finalize(a));
  }
}

}  // namespace backend
}  // namespace preduce
