// SPDX-License-Identifier: Apache-2.0
// preduce hip: the kernel that runs a step once for every index below a count, spread over
// threads: the distributed calls' merges and exchange steps (detail/merge.hpp says what each step
// does).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

namespace preduce {
namespace backend {

//! Requires: any grid; Step a copyable functor with a __device__ operator()(std::uint64_t).
//! Thread i of the grid runs step(t) for t = i, i + grid threads, ... below count.
template <class Step>
__global__ void for_each_kernel(Step step, std::uint64_t count) {
  const std::uint64_t threads = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += threads) step(t);
}

}  // namespace backend
}  // namespace preduce
