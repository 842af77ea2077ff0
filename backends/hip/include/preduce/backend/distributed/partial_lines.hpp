// SPDX-License-Identifier: Apache-2.0
// preduce hip: the kernel of the reproducible partials (partial_of) of many lines of a matrix:
// what the distributed allreduce_rows and allreduce_columns exchange under
// determinism::reproducible. Untuned, a thread a line (the cuda backend's
// distributed/partial_lines.cuh says why).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/detail/merge.hpp>

namespace preduce {
namespace backend {

//! Requires: any grid; Reducer is a binned reducer whose result is a partial. Thread i of the
//! grid takes lines t = i, i + grid threads, ...; line t's element k is
//! src[t * line_step + k * element_step], k < length. Calls sink(t, red, line t's accumulator)
//! (detail/merge.hpp's sinks).
template <class Reducer, class Source, class Sink>
__global__ void partial_lines_kernel(Reducer red, Source src, std::uint64_t lines, std::uint64_t length, std::uint64_t line_step,
                                     std::uint64_t element_step, Sink sink) {
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < lines; t += step) {
    sink(t, red, detail::fold_line(red, src, t, length, line_step, element_step));
  }
}

}  // namespace backend
}  // namespace preduce
