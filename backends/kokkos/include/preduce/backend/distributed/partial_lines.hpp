// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the functor of the reproducible partials (partial_of) of many lines of a
// matrix: what the distributed allreduce_rows and allreduce_columns exchange under
// determinism::reproducible. Untuned, an iteration a line (the cuda backend's
// distributed/partial_lines.cuh says why).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/detail/merge.hpp>

namespace preduce {
namespace backend {

//! Iteration t folds line t (elements src[t * line_step + k * element_step], k < length) in k's
//! order and calls sink(t, red, its accumulator) (detail/merge.hpp's sinks). Reducer is a
//! binned reducer whose result is a partial.
template <class Reducer, class Source, class Sink>
struct partial_lines_functor {
  Reducer red;
  Source src;
  std::uint64_t length, line_step, element_step;
  Sink sink;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t line) const {
    const std::uint64_t t = std::uint64_t(line);
    sink(t, red, detail::fold_line(red, src, t, length, line_step, element_step));
  }
};

}  // namespace backend
}  // namespace preduce
