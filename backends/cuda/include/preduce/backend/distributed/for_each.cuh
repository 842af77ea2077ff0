// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the kernel that runs a step once for every index below a count, spread over threads: the
// distributed calls' merges and exchange steps (detail/merge.hpp says what each step does).
#pragma once

#include <cstdint>

#include <preduce/backend/launch.cuh>

namespace preduce {
namespace backend {

constexpr int for_each_block_threads = 256;

//! Requires: blockDim.x == for_each_block_threads, any grid; Step a copyable functor with a
//! __device__ operator()(std::uint64_t). Thread i of the grid runs step(t) for t = i, i + grid
//! threads, ... below count.
template <class Step>
__global__ void __launch_bounds__(for_each_block_threads) for_each_kernel(Step step, std::uint64_t count) {
  begin_after_prior_grid();
  const std::uint64_t threads = std::uint64_t(gridDim.x) * for_each_block_threads;
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * for_each_block_threads + threadIdx.x; t < count; t += threads) step(t);
}

}  // namespace backend
}  // namespace preduce
