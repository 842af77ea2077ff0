// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the reproducible partials (partial_of) of many lines of a matrix: what the
// distributed allreduce_rows and allreduce_columns exchange under determinism::reproducible.
// Untuned, an iteration a line (the cuda backend's device_partial_lines.cuh says why).
#pragma once

#include <cstdint>

#include <preduce/detail/merge.hpp>

#include "device_reduce.hpp"  // range_policy
#include "queue_state.hpp"

namespace preduce {
namespace backend {

//! Iteration t folds line t (elements src[t * line_step + k * element_step], k < length) in k's
//! order and calls sink(t, Reducer::finalize of it) (detail/merge.hpp's sinks). Reducer is a
//! binned reducer whose result is a partial.
template <class Reducer, class Source, class Sink>
struct partial_lines_functor {
  Reducer red;
  Source src;
  std::uint64_t length, line_step, element_step;
  Sink sink;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t line) const {
    const std::uint64_t t = std::uint64_t(line);
    sink(t, red.finalize(detail::fold_line(red, src, t, length, line_step, element_step)));
  }
};

template <class Reducer, class Source, class Sink>
void enqueue_partial_lines(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t lines, std::uint64_t length,
                           std::uint64_t line_step, std::uint64_t element_step, const Sink& sink) {
  Kokkos::parallel_for("preduce_partial_lines", range_policy(s.exec, 0, std::int64_t(lines)),
                       partial_lines_functor<Reducer, Source, Sink>{red, src, length, line_step, element_step, sink});
}

}  // namespace backend
}  // namespace preduce
