// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the backend engine (see portable/run_request.hpp for the contract every
// backend's engine keeps). Included by the library's per-group translation units and by user
// files that include <preduce/extend.hpp>; both are compiled by Kokkos's compiler.
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <string>

#include <preduce/error.hpp>
#include <preduce/execution.hpp>

#include <preduce/backend/columns/dispatch_columns.hpp>
#include <preduce/backend/distributed/dispatch_distributed.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/rows/dispatch_rows.hpp>
#include <preduce/backend/segments/dispatch_segments.hpp>
#include <preduce/backend/whole/dispatch_whole.hpp>

namespace preduce {
namespace backend {

//! Calls enqueue(s) with the queue's lock held; an exception from Kokkos (a failed launch, a
//! failed allocation inside it) becomes preduce::error(device_fault) naming `function`.
//! preduce::error passes through.
template <class Enqueue>
void on_queue(const queue& q, const char* function, const Enqueue& enqueue) {
  detail::queue_state& s = q.state();
  std::lock_guard<std::mutex> lock(s.mutex);
  try {
    enqueue(s);
  } catch (const preduce::error&) {
    throw;
  } catch (const std::exception& e) {
    throw preduce::error(errc::device_fault, std::string(function) + ": Kokkos: " + e.what());
  }
}

//! Enqueues reductions on a queue's execution space instance; never waits; writes finalized
//! results to device memory. Each call holds the instance's lock while it enqueues
//! (queue_state), so any number of host threads may call on one queue. Every kernel is
//! run_to_run deterministic whatever the options, since none uses atomics (determinism::fast
//! gains nothing here); the algorithm option is advisory and ignored: this backend has one
//! kernel shape per layout and device kind.
struct engine {
  template <class Reducer, class Source>
  static void whole(const queue& q, const Reducer& red, const Source& src, std::size_t n,
                    typename Reducer::result_type* d_out, options) {
    on_queue(q, "reduce", [&](detail::queue_state& s) { enqueue_whole(s, red, src, n, d_out); });
  }

  template <class Reducer, class Source>
  static void rows(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                   typename Reducer::result_type* d_out, std::size_t out_stride, options) {
    if (rows == 0) return;
    on_queue(q, "reduce_rows", [&](detail::queue_state& s) {
      enqueue_rows(s, red, src, rows, cols, d_out, out_stride);
    });
  }

  template <class Reducer, class Source>
  static void columns(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                      typename Reducer::result_type* d_out, std::size_t out_stride, options) {
    if (cols == 0) return;
    on_queue(q, "reduce_columns", [&](detail::queue_state& s) {
      enqueue_columns(s, red, src, rows, cols, d_out, out_stride);
    });
  }

  template <class Reducer, class Source, class Off>
  static void segments(const queue& q, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                       std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options) {
    if (segments == 0) return;
    on_queue(q, "reduce_segments", [&](detail::queue_state& s) {
      enqueue_segments(s, red, src, n, d_offsets, segments, d_out, out_stride);
    });
  }

  //! sink(t, red, line t's accumulator) (distributed/partial_lines.hpp), an iteration a line.
  template <class Reducer, class Source, class Sink>
  static void partial_lines(const queue& q, const Reducer& red, const Source& src, std::size_t lines, std::size_t length,
                            std::size_t line_step, std::size_t element_step, const Sink& sink) {
    if (lines == 0) return;
    on_queue(q, "allreduce", [&](detail::queue_state& s) {
      enqueue_partial_lines(s, red, src, lines, length, line_step, element_step, sink);
    });
  }

  //! step(t) for every t < count (distributed/for_each.hpp).
  template <class Step>
  static void for_each(const queue& q, std::size_t count, const Step& step) {
    if (count == 0) return;
    on_queue(q, "allreduce", [&](detail::queue_state& s) { enqueue_for_each(s, step, count); });
  }
};

}  // namespace backend
}  // namespace preduce
