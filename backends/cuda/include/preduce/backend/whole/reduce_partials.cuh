// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the second pass of algorithm::two_pass: one block combines the first pass's
// partials.
#pragma once

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>

namespace preduce {
namespace backend {

//! Second pass of two_pass. Requires: blockDim.x == BlockThreads, one block. Folds
//! partials[0..count) (thread t takes t, t + BlockThreads, ...) and writes finalize(result) to *out.
template <int BlockThreads, class Reducer>
__global__ void __launch_bounds__(BlockThreads)
    reduce_partials_kernel(Reducer red, const typename Reducer::acc_type* partials, unsigned count,
                           typename Reducer::result_type* out, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = red.identity();
  for (unsigned i = threadIdx.x; i < count; i += BlockThreads) a = red.combine(a, partials[i]);
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (threadIdx.x == 0) store_result(out, red.finalize(a));
}

}  // namespace backend
}  // namespace preduce
