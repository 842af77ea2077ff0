// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the backend engine (see portable/run_request.hpp for the contract every
// backend's engine keeps). Included by the library's per-group translation units and by user
// files that include <preduce/extend.hpp>; both must be compiled by nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include <preduce/execution.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/columns/dispatch_columns.cuh>
#include <preduce/backend/distributed/dispatch_distributed.cuh>
#include <preduce/backend/rows/dispatch_rows.cuh>
#include <preduce/backend/segments/dispatch_segments.cuh>
#include <preduce/backend/whole/dispatch_whole.cuh>

namespace preduce {
namespace backend {

//! Enqueues reductions on a queue's stream; never waits; writes finalized results to device
//! memory. Each call holds the queue's mutex while it enqueues (queue_state), so any number of
//! host threads may call on one queue. Each runs the options this build compiles
//! (portable::compiled_options).
struct engine {
  template <class Reducer, class Source>
  static void whole(const queue& q, const Reducer& red, const Source& src, std::size_t n,
                    typename Reducer::result_type* d_out, options o) {
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    if constexpr (is_binned_reducer<Reducer>::value) reduce_whole_binned(s, red, src, n, d_out, portable::compiled_options(o));
    else reduce_whole(s, red, src, n, d_out, portable::compiled_options(o));
  }

  //! Rows, columns and segments pick their kernels from the shape (rows/dispatch_rows.cuh,
  //! columns/dispatch_columns.cuh, segments/dispatch_segments.cuh); all are run_to_run
  //! deterministic, except that a single column is the whole-array reduction, where
  //! determinism::fast may use atomics.
  template <class Reducer, class Source>
  static void rows(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                   typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (rows == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue_rows(s, red, src, rows, cols, d_out, out_stride, portable::compiled_options(o));
  }

  template <class Reducer, class Source>
  static void columns(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                      typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (cols == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue_columns(s, red, src, rows, cols, d_out, out_stride, portable::compiled_options(o));
  }

  template <class Reducer, class Source, class Off>
  static void segments(const queue& q, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                       std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (segments == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue_segments(s, red, src, n, d_offsets, segments, d_out, out_stride, portable::compiled_options(o));
  }

  //! sink(t, red, line t's accumulator) (distributed/partial_lines.cuh).
  template <class Reducer, class Source, class Sink>
  static void partial_lines(const queue& q, const Reducer& red, const Source& src, std::size_t lines, std::size_t length,
                            std::size_t line_step, std::size_t element_step, const Sink& sink) {
    if (lines == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue_partial_lines(s, red, src, lines, length, line_step, element_step, sink);
  }

  //! step(t) for every t < count (distributed/for_each.cuh).
  template <class Step>
  static void for_each(const queue& q, std::size_t count, const Step& step) {
    if (count == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue_for_each(s, step, count, "allreduce: launching a merge or exchange step");
  }
};

}  // namespace backend
}  // namespace preduce
