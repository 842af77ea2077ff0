// SPDX-License-Identifier: Apache-2.0
// preduce hip: the columns kernel: one reduction per column of a row-major matrix, a thread a
// column. Untuned: the cuda backend's tuned columns family is not ported.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

namespace preduce {
namespace backend {

//! One thread per column (grid-strided over columns), rows visited in order; a wavefront reads
//! consecutive columns of a row, so loads coalesce. No wavefront reduction, so one
//! instantiation serves both wavefront sizes. Writes: out[col * out_stride], arg index = row.
template <class Reducer, class Source>
__global__ void reduce_columns_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols,
                                      typename Reducer::result_type* out, std::uint64_t out_stride) {
  using Acc = typename Reducer::acc_type;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t col = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; col < cols; col += stride) {
    Acc a = red.identity();
    for (std::uint64_t row = 0; row < rows; ++row) a = red.combine(a, red.lift(src[row * cols + col], row));
    out[col * out_stride] = red.finalize(a);
  }
}

}  // namespace backend
}  // namespace preduce
