// SPDX-License-Identifier: Apache-2.0
// preduce cuda: whole-array reduction in two passes: every block reduces a grid-strided share
// to one partial, then one block reduces the partials in index order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "block_reduce.cuh"
#include "queue_state.hpp"
#include "tuning.hpp"
#include "cuda_runtime_check.hpp"

namespace preduce {
namespace backend {

//! Pass 1. Requires: blockDim.x == BlockThreads. Thread t of block b folds elements
//! b*BlockThreads + t + k*gridDim.x*BlockThreads (k = 0, 1, ...) below n, in increasing k.
//! Writes: with one block, finalize(result) to *out; otherwise block b's partial to partials[b].
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_partials_kernel(Reducer red, Source src, std::uint64_t n, typename Reducer::acc_type* partials,
                           typename Reducer::result_type* out) {
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = red.identity();
  const std::uint64_t stride = std::uint64_t(gridDim.x) * BlockThreads;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x; i < n; i += stride)
    a = red.combine(a, red.lift(src[i], i));
  a = block_reduce<BlockThreads>(red, a, smem);
  if (threadIdx.x == 0) {
    if (gridDim.x == 1) *out = red.finalize(a);
    else partials[blockIdx.x] = a;
  }
}

//! Pass 2. Requires: blockDim.x == BlockThreads, one block. Folds partials[0..count) (thread t
//! takes t, t + BlockThreads, ...) and writes finalize(result) to *out.
template <int BlockThreads, class Reducer>
__global__ void __launch_bounds__(BlockThreads)
    reduce_final_kernel(Reducer red, const typename Reducer::acc_type* partials, unsigned count,
                        typename Reducer::result_type* out) {
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = red.identity();
  for (unsigned i = threadIdx.x; i < count; i += BlockThreads) a = red.combine(a, partials[i]);
  a = block_reduce<BlockThreads>(red, a, smem);
  if (threadIdx.x == 0) *out = red.finalize(a);
}

//! Enqueues the two-pass reduction of src[0..n) on q; writes finalize(result) to d_out.
template <class Reducer, class Source>
void reduce_two_pass(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                     typename Reducer::result_type* d_out) {
  using Acc = typename Reducer::acc_type;
  const std::uint64_t blocks_needed = (std::uint64_t(n) + block_threads - 1) / block_threads;
  const std::uint64_t resident = std::uint64_t(s.sm_count) * blocks_per_sm;
  const unsigned grid = unsigned(blocks_needed < 1 ? 1 : (blocks_needed < resident ? blocks_needed : resident));
  Acc* partials = grid > 1 ? static_cast<Acc*>(s.scratch(grid * sizeof(Acc))) : nullptr;
  reduce_partials_kernel<block_threads><<<grid, block_threads, 0, s.stream>>>(red, src, n, partials, d_out);
  check_cuda(cudaGetLastError(), "reduce: launching the partials kernel");
  if (grid > 1) {
    reduce_final_kernel<block_threads><<<1, block_threads, 0, s.stream>>>(red, partials, grid, d_out);
    check_cuda(cudaGetLastError(), "reduce: launching the final kernel");
  }
}

}  // namespace backend
}  // namespace preduce
