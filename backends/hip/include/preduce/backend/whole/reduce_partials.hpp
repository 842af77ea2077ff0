// SPDX-License-Identifier: Apache-2.0
// preduce hip: the second pass of algorithm::two_pass: one block combines the first pass's
// partials.
#pragma once

#include <hip/hip_runtime.h>

#include <preduce/backend/block/block_reduce.hpp>
#include <preduce/backend/warp/warp_reduce.hpp>

namespace preduce {
namespace backend {

//! Second pass of two_pass. Requires: blockDim.x == BlockThreads, one block, Wave == the
//! device's wavefront size. Folds partials[0..count) (thread t takes t, t + BlockThreads, ...)
//! and writes finalize(result) to *out.
template <int Wave, int BlockThreads, class Reducer>
__global__ void __launch_bounds__(BlockThreads)
    reduce_partials_kernel(Reducer red, const typename Reducer::acc_type* partials, unsigned count,
                           typename Reducer::result_type* out, warp_algorithm w) {
  if constexpr (!wave_matches<Wave>) {
    __builtin_trap();
  } else {
    using Acc = typename Reducer::acc_type;
    __shared__ block_reduce_storage<Acc, Wave, BlockThreads> smem;
    Acc a = red.identity();
    for (unsigned i = threadIdx.x; i < count; i += BlockThreads) a = red.combine(a, partials[i]);
    a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
    if (threadIdx.x == 0) *out = red.finalize(a);
  }
}

}  // namespace backend
}  // namespace preduce
