// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host side of the distributed calls' device steps: the launches of the
// partial-lines kernel (distributed/partial_lines.hpp) and of the for-each kernel
// (distributed/for_each.hpp), a thread a line or an index.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

#include <preduce/backend/distributed/for_each.hpp>
#include <preduce/backend/distributed/partial_lines.hpp>
#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues partial_lines_kernel on s's stream, a thread a line: sink(t, the partial of line
//! t), t < lines (lines >= 1).
template <class Reducer, class Source, class Sink>
void enqueue_partial_lines(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t lines, std::size_t length,
                           std::size_t line_step, std::size_t element_step, const Sink& sink) {
  partial_lines_kernel<<<grid_for(s.cu_count, lines, block_threads), block_threads, 0, s.stream>>>(red, src, lines, length, line_step,
                                                                                                   element_step, sink);
  check_gpu(hipGetLastError(), "allreduce: launching the partials of the local lines");
}

//! Enqueues for_each_kernel on s's stream, a thread an index: step(t) for every t < count
//! (count >= 1).
template <class Step>
void enqueue_for_each(detail::queue_state& s, const Step& step, std::size_t count) {
  for_each_kernel<Step><<<grid_for(s.cu_count, count, block_threads), block_threads, 0, s.stream>>>(step, count);
  check_gpu(hipGetLastError(), "allreduce: launching a merge or exchange step");
}

}  // namespace backend
}  // namespace preduce
