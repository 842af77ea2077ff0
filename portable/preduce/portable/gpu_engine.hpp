// SPDX-License-Identifier: Apache-2.0
// preduce: the engine of the cuda and hip backends (portable/run_request.hpp says what an
// engine does), written once. Each entry takes the queue's mutex, makes the queue's device
// current and calls the backend's host planning for its shape, which the backend's engine.hpp
// includes before this file:
//
//   enqueue_whole(s, red, src, n, d_out, opt)                       whole/dispatch_whole
//   enqueue_rows(s, red, src, rows, cols, d_out, out_stride, opt)   rows/dispatch_rows
//   enqueue_columns(s, red, src, rows, cols, d_out, out_stride, opt)
//   enqueue_segments(s, red, src, n, d_offsets, segments, d_out, out_stride, opt)
//   enqueue_partial_lines(s, red, src, lines, length, line_step, element_step, sink)
//   enqueue_for_each(s, step, count)                                distributed/dispatch_distributed
//
// each with s the queue's detail::queue_state, enqueueing on s.stream, never waiting. Options
// reach them as portable::compiled_options leaves them (the study variants a build does not
// compile run as automatic).
#pragma once

#include <cstddef>
#include <mutex>

#include <preduce/execution.hpp>
#include <preduce/portable/gpu_check.hpp>
#include <preduce/portable/study_kernels.hpp>

namespace preduce {
namespace backend {

//! Enqueues reductions on a queue's stream; never waits; writes finalized results to device
//! memory. Each call holds the queue's mutex while it enqueues (queue_state), so any number of
//! host threads may call on one queue, and the kernels of two calls never interleave.
struct engine {
 private:
  //! Calls enqueue(s) with the queue's mutex held and its device current.
  template <class Enqueue>
  static void on_queue(const queue& q, const Enqueue& enqueue) {
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    enqueue(s);
  }

 public:
  template <class Reducer, class Source>
  static void whole(const queue& q, const Reducer& red, const Source& src, std::size_t n,
                    typename Reducer::result_type* d_out, options o) {
    on_queue(q, [&](detail::queue_state& s) { enqueue_whole(s, red, src, n, d_out, portable::compiled_options(o)); });
  }

  template <class Reducer, class Source>
  static void rows(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                   typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (rows == 0) return;
    on_queue(q, [&](detail::queue_state& s) {
      enqueue_rows(s, red, src, rows, cols, d_out, out_stride, portable::compiled_options(o));
    });
  }

  template <class Reducer, class Source>
  static void columns(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                      typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (cols == 0) return;
    on_queue(q, [&](detail::queue_state& s) {
      enqueue_columns(s, red, src, rows, cols, d_out, out_stride, portable::compiled_options(o));
    });
  }

  template <class Reducer, class Source, class Off>
  static void segments(const queue& q, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                       std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (segments == 0) return;
    on_queue(q, [&](detail::queue_state& s) {
      enqueue_segments(s, red, src, n, d_offsets, segments, d_out, out_stride, portable::compiled_options(o));
    });
  }

  //! sink(t, red, line t's accumulator).
  template <class Reducer, class Source, class Sink>
  static void partial_lines(const queue& q, const Reducer& red, const Source& src, std::size_t lines, std::size_t length,
                            std::size_t line_step, std::size_t element_step, const Sink& sink) {
    if (lines == 0) return;
    on_queue(q, [&](detail::queue_state& s) {
      enqueue_partial_lines(s, red, src, lines, length, line_step, element_step, sink);
    });
  }

  //! step(t) for every t < count.
  template <class Step>
  static void for_each(const queue& q, std::size_t count, const Step& step) {
    if (count == 0) return;
    on_queue(q, [&](detail::queue_state& s) { enqueue_for_each(s, step, count); });
  }
};

}  // namespace backend
}  // namespace preduce
