// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the reproducible partials (partial_of) of many lines of a matrix: what the
// distributed allreduce_rows and allreduce_columns exchange under determinism::reproducible.
// Untuned on purpose: the tuned rows and columns kernels instantiated for partials doubled the
// longest unit of the library's build (binned_sums narrow, 232 -> 473 s on an H100 host). What
// costs here is each line's finish, not its fold: the sinks take the accumulator, and the compact
// exchange's cuts it to 64-bit bins inline (docs/distributed.md).
#pragma once

#include <cstdint>

#include <preduce/detail/merge.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

constexpr int partial_lines_block_threads = 256;

//! Requires: blockDim.x == partial_lines_block_threads; Reducer is a binned reducer whose
//! result is a partial (its combine exact, so any order gives the same state). Line t's element k
//! is src[t * line_step + k * element_step], k < length. Contiguous lines (element_step == 1) go
//! a warp a line, its lanes striding along the line and meeting by shuffles; strided lines
//! (columns) go a thread a line, neighbouring threads reading neighbouring addresses. Calls
//! sink(t, red, line t's accumulator), for every t < lines (detail/merge.hpp's sinks).
template <class Reducer, class Source, class Sink>
__global__ void __launch_bounds__(partial_lines_block_threads)
    partial_lines_kernel(Reducer red, Source src, std::uint64_t lines, std::uint64_t length, std::uint64_t line_step,
                         std::uint64_t element_step, Sink sink) {
  begin_after_prior_grid();
  const std::uint64_t thread = std::uint64_t(blockIdx.x) * partial_lines_block_threads + threadIdx.x;
  const std::uint64_t threads = std::uint64_t(gridDim.x) * partial_lines_block_threads;
  if (element_step == 1) {
    const unsigned lane = threadIdx.x % warp_threads;
    // t is the same for every lane of a warp, so every shuffle has all 32 lanes.
    for (std::uint64_t t = thread / warp_threads; t < lines; t += threads / warp_threads) {
      auto a = red.identity();
      for (std::uint64_t k = lane; k < length; k += warp_threads) a = red.combine(a, red.lift(src[t * line_step + k], k));
      a = warp_reduce_shuffle(red, a);
      if (lane == 0) sink(t, red, a);
    }
  } else {
    for (std::uint64_t t = thread; t < lines; t += threads) sink(t, red, detail::fold_line(red, src, t, length, line_step, element_step));
  }
}

}  // namespace backend
}  // namespace preduce
