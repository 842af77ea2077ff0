// SPDX-License-Identifier: Apache-2.0
// preduce hip: the rows kernel: one reduction per row of a row-major matrix, a block a row.
// Untuned: the cuda backend's tuned rows family is not ported.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/backend/block/block_reduce.hpp>
#include <preduce/backend/warp/warp_reduce.hpp>

namespace preduce {
namespace backend {

//! One block per row (grid-strided over rows). Requires: blockDim.x == BlockThreads; Wave ==
//! the device's wavefront size. Writes: out[row * out_stride] = finalize(reduction of row), arg
//! index = column.
template <int Wave, int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_rows_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols,
                       typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  if constexpr (!wave_matches<Wave>) {
    __builtin_trap();
  } else {
    using Acc = typename Reducer::acc_type;
    __shared__ block_reduce_storage<Acc, Wave, BlockThreads> smem;
    for (std::uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
      Acc a = red.identity();
      const std::uint64_t base = row * cols;
      for (std::uint64_t c = threadIdx.x; c < cols; c += BlockThreads) a = red.combine(a, red.lift(src[base + c], c));
      a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
      if (threadIdx.x == 0) out[row * out_stride] = red.finalize(a);
      __syncthreads();  // smem is reused by the next row
    }
  }
}

}  // namespace backend
}  // namespace preduce
