// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the merge of pieces' results in piece order (the distributed calls' last step:
// detail/merge.hpp says what a merge is; this file only spreads it over threads).
#pragma once

#include <cstddef>
#include <cstdint>

#include <preduce/detail/merge.hpp>

#include "launch.cuh"
#include "queue_state.hpp"

namespace preduce {
namespace backend {

constexpr int merge_block_threads = 256;

//! Requires: any grid. Thread i of the grid takes results t = i, i + grid threads, ... below
//! `results`. Writes: out[t * out_stride] = detail::merge_one<Reducer>(pieces, count, stride, t,
//! shift): the merge of pieces[k * stride + t] over k < count in k's order, arg indices shifted
//! by `shift` (partials: the value of their exact sum).
template <class Reducer, class Out>
__global__ void __launch_bounds__(merge_block_threads)
    merge_results_kernel(const typename Reducer::result_type* pieces, std::uint64_t count, std::uint64_t stride, std::uint64_t results,
                         std::uint64_t shift, Out* out, std::uint64_t out_stride) {
  begin_after_prior_grid();
  const std::uint64_t step = std::uint64_t(gridDim.x) * merge_block_threads;
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * merge_block_threads + threadIdx.x; t < results; t += step)
    detail::merge_one<Reducer>(pieces, count, stride, t, shift, out + t * out_stride);
}

//! Enqueues merge_results_kernel on s's stream, at most 8 blocks an SM.
template <class Reducer, class Out>
void enqueue_merge(detail::queue_state& s, const typename Reducer::result_type* pieces, std::uint64_t count, std::uint64_t stride,
                   std::uint64_t results, std::uint64_t shift, Out* out, std::uint64_t out_stride) {
  const std::uint64_t wanted = (results + merge_block_threads - 1) / merge_block_threads, most = std::uint64_t(s.sm_count) * 8;
  launch(s, merge_results_kernel<Reducer, Out>, unsigned(wanted < most ? wanted : most), merge_block_threads,
         "allreduce: launching the merge of the ranks' results", pieces, count, stride, results, shift, out, out_stride);
}

}  // namespace backend
}  // namespace preduce
