// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the host side of the distributed calls' device steps: the launches of the
// partial-lines kernel (distributed/partial_lines.cuh) and of the for-each kernel
// (distributed/for_each.cuh), on the batched kernels' grid (batched_plan.hpp's grid_for).
#pragma once

#include <cstdint>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/distributed/for_each.cuh>
#include <preduce/backend/distributed/partial_lines.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! Enqueues for_each_kernel on s's stream, on the batched kernels' grid (batched_plan.hpp's grid_for).
template <class Step>
void enqueue_for_each(detail::queue_state& s, const Step& step, std::uint64_t count) {
  launch(s, for_each_kernel<Step>, grid_for(s.sm_count, s.cc_major, count, for_each_block_threads), for_each_block_threads,
         "allreduce: launching a merge or exchange step", step, count);
}

//! Enqueues partial_lines_kernel on s's stream: a thread (or warp) a line, on the batched
//! kernels' grid (batched_plan.hpp's grid_for).
template <class Reducer, class Source, class Sink>
void enqueue_partial_lines(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t lines, std::uint64_t length,
                           std::uint64_t line_step, std::uint64_t element_step, const Sink& sink) {
  const std::uint64_t per_block = element_step == 1 ? partial_lines_block_threads / warp_threads : partial_lines_block_threads;
  launch(s, partial_lines_kernel<Reducer, Source, Sink>, grid_for(s.sm_count, s.cc_major, lines, per_block), partial_lines_block_threads,
         "allreduce: launching the partials of the local lines", red, src, lines, length, line_step, element_step, sink);
}

}  // namespace backend
}  // namespace preduce
