// SPDX-License-Identifier: Apache-2.0
// preduce hip: the merge of pieces' results in piece order (the distributed calls' last step:
// detail/merge.hpp says what a merge is; this file only spreads it over threads).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/detail/merge.hpp>

namespace preduce {
namespace backend {

//! Requires: any grid. Thread i of the grid takes results t = i, i + grid threads, ... below
//! `results`. Writes: out[t * out_stride] = detail::merge_one<Reducer>(pieces, count, stride, t,
//! shift).
template <class Reducer, class Out>
__global__ void merge_results_kernel(const typename Reducer::result_type* pieces, std::uint64_t count, std::uint64_t stride,
                                     std::uint64_t results, std::uint64_t shift, Out* out, std::uint64_t out_stride) {
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < results; t += step)
    detail::merge_one<Reducer>(pieces, count, stride, t, shift, out + t * out_stride);
}

}  // namespace backend
}  // namespace preduce
