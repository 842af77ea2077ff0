// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the row-tile kernel: long rows, a block per tile of a row, the tiles of a row
// combined by the row's last block (one tile a row: a block per row).
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_slice.cuh>

namespace preduce {
namespace backend {

//! Long rows, few of them: block b reduces tile b % tiles of row b / tiles, the columns
//! [t * tile_len, min(cols, (t + 1) * tile_len)). Requires: blockDim.x == BlockThreads; grid ==
//! rows * tiles; tiles >= 1; when tiles > 1, counters[0 .. rows) zero on entry (they are zero
//! again on exit) and partials holds rows * tiles accumulators; a vectorized Source usable
//! (else a scalar_view).
//! Writes: with one tile, out[row * out_stride] = finalize(tile). Otherwise the block stores its
//! tile's accumulator to partials[b]; the row's last block to finish (an acq_rel counter per
//! row, as in reduce_whole_kernel) folds the row's partials in tile order through a fixed tree
//! and writes out[row * out_stride].
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_row_tiles_kernel(Reducer red, Source src, std::uint64_t cols, std::uint64_t tiles, std::uint64_t tile_len,
                            typename Reducer::acc_type* partials, unsigned* counters, typename Reducer::result_type* out,
                            std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  w = portable::compiled_warp(w);
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  __shared__ bool is_last;
  const std::uint64_t row = blockIdx.x / tiles, t = blockIdx.x % tiles;
  const std::uint64_t first = t * tile_len, len = cols - first < tile_len ? cols - first : tile_len;
  const Source s = slice(src, row * cols + first);
  const index_shift_reducer<Reducer> shifted{red, first};
  Acc a = fold_share<vectors_in_flight>(shifted, s, len, head_of(s, len), 0, 1, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (tiles == 1) {
    if (threadIdx.x == 0) store_result(out + row * out_stride, red.finalize(a));
    return;
  }
  if (threadIdx.x == 0) {
    store_words(partials + blockIdx.x, a);
    // acq_rel: releases this tile's partial with the count; the last block acquires the others.
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(counters[row]);
    is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == tiles - 1;
  }
  __syncthreads();  // extends thread 0's acquire to the block; smem is free again
  if (!is_last) return;
  a = red.identity();
  for (std::uint64_t i = threadIdx.x; i < tiles; i += BlockThreads) a = red.combine(a, load_coherent(partials + row * tiles + i));
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (threadIdx.x == 0) {
    store_result(out + row * out_stride, red.finalize(a));
    counters[row] = 0;
  }
}

}  // namespace backend
}  // namespace preduce
