// SPDX-License-Identifier: Apache-2.0
// preduce hip: many reductions per launch: rows and columns of a row-major matrix, and
// variable segments given by offsets (the cuda backend's shapes: a block per row or segment,
// a thread per column).
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "block_reduce.hpp"
#include "hip_runtime_check.hpp"
#include "queue_state.hpp"
#include "tuning.hpp"

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

//! One block per segment (grid-strided over segments). Requires: blockDim.x == BlockThreads;
//! Wave == the device's wavefront size; check_offsets_kernel enqueued before it. Writes nothing
//! if the status is raised; otherwise out[s * out_stride] = finalize(reduction of
//! src[offsets[s] .. offsets[s+1])), arg index = position within the segment.
template <int Wave, int BlockThreads, class Reducer, class Source, class Off>
__global__ void __launch_bounds__(BlockThreads)
    reduce_segments_kernel(Reducer red, Source src, const Off* offsets, std::uint64_t segments,
                           typename Reducer::result_type* out, std::uint64_t out_stride, const device_status* status,
                           warp_algorithm w) {
  if constexpr (!wave_matches<Wave>) {
    __builtin_trap();
  } else {
    using Acc = typename Reducer::acc_type;
    __shared__ block_reduce_storage<Acc, Wave, BlockThreads> smem;
    if (status->code != 0) return;
    for (std::uint64_t seg = blockIdx.x; seg < segments; seg += gridDim.x) {
      const std::uint64_t begin = std::uint64_t(offsets[seg]), end = std::uint64_t(offsets[seg + 1]);
      Acc a = red.identity();
      for (std::uint64_t i = begin + threadIdx.x; i < end; i += BlockThreads) a = red.combine(a, red.lift(src[i], i - begin));
      a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
      if (threadIdx.x == 0) out[seg * out_stride] = red.finalize(a);
      __syncthreads();
    }
  }
}

}  // namespace backend
}  // namespace preduce
