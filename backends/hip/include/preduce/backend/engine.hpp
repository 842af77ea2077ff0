// SPDX-License-Identifier: Apache-2.0
// preduce hip: the backend engine (see portable/run_request.hpp for the contract every
// backend's engine keeps). Included by the library's per-group translation units and by user
// files that include <preduce/extend.hpp>; both must be compiled by hipcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include <preduce/execution.hpp>
#include <preduce/portable/segment_offsets.hpp>

#include "device_batched.hpp"
#include "device_for_each.hpp"
#include "device_partial_lines.hpp"
#include "device_reduce.hpp"

namespace preduce {
namespace backend {

//! Enqueues reductions on a queue's stream; never waits; writes finalized results to device
//! memory. Each launch picks the kernels instantiated for the device's wavefront size.
struct engine {
  template <class Reducer, class Source>
  static void whole(const queue& q, const Reducer& red, const Source& src, std::size_t n,
                    typename Reducer::result_type* d_out, options o) {
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    reduce_whole(s, red, src, n, d_out, o);
  }

  template <class Reducer, class Source>
  static void rows(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                   typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (rows == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    const unsigned grid = grid_for(s.cu_count, rows, 1);
    with_wave(s, [&](auto wave) {
      reduce_rows_kernel<decltype(wave)::value, block_threads><<<grid, block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride, o.warp);
    });
    check_hip(hipGetLastError(), "reduce_rows: launch");
  }

  template <class Reducer, class Source>
  static void columns(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                      typename Reducer::result_type* d_out, std::size_t out_stride, options) {
    if (cols == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    reduce_columns_kernel<<<grid_for(s.cu_count, cols, block_threads), block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride);
    check_hip(hipGetLastError(), "reduce_columns: launch");
  }

  template <class Reducer, class Source, class Off>
  static void segments(const queue& q, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                       std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    if (segments == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    device_status* status = s.status_slot_for_call();
    const unsigned check_grid = grid_for(s.cu_count, segments + 1, block_threads);
    portable::check_offsets_kernel<<<check_grid, block_threads, 0, s.stream>>>(d_offsets, segments, n, status);
    check_hip(hipGetLastError(), "reduce_segments: launching the offset check");
    // Merge-path parts of about two a resident block, at least segment_part_items items each.
    using Acc = typename Reducer::acc_type;
    const std::uint64_t items = n + segments, resident = std::uint64_t(s.cu_count) * blocks_per_cu;
    std::uint64_t per_part = (items + 2 * resident - 1) / (2 * resident);
    if (per_part < segment_part_items) per_part = segment_part_items;
    const std::uint64_t parts = (items + per_part - 1) / per_part;
    const std::size_t piece_bytes = (2 * parts * sizeof(Acc) + 7) / 8 * 8;  // then the cut entries, 8-byte aligned
    auto* space = static_cast<unsigned char*>(s.scratch(piece_bytes + parts * sizeof(std::uint64_t)));
    auto* pieces = reinterpret_cast<Acc*>(space);
    auto* cut = reinterpret_cast<std::uint64_t*>(space + piece_bytes);
    const portable::merge_path<Off> path{d_offsets, segments, per_part};
    with_wave(s, [&](auto wave) {
      reduce_segment_parts_kernel<decltype(wave)::value, block_threads><<<grid_for(s.cu_count, parts, 1), block_threads, 0, s.stream>>>(
          red, src, path, parts, d_out, out_stride, pieces, cut, status, o.warp);
    });
    check_hip(hipGetLastError(), "reduce_segments: launch");
    join_cut_segments_kernel<<<grid_for(s.cu_count, parts, block_threads), block_threads, 0, s.stream>>>(red, path, parts, pieces, cut, d_out,
                                                                                                        out_stride, status);
    check_hip(hipGetLastError(), "reduce_segments: launching the join of cut segments");
  }

  //! sink(t, the partial of line t) (device_partial_lines.hpp), a thread a line.
  template <class Reducer, class Source, class Sink>
  static void partial_lines(const queue& q, const Reducer& red, const Source& src, std::size_t lines, std::size_t length,
                            std::size_t line_step, std::size_t element_step, const Sink& sink) {
    if (lines == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    partial_lines_kernel<<<grid_for(s.cu_count, lines, block_threads), block_threads, 0, s.stream>>>(red, src, lines, length, line_step,
                                                                                                     element_step, sink);
    check_hip(hipGetLastError(), "allreduce: launching the partials of the local lines");
  }

  //! step(t) for every t < count (device_for_each.hpp), a thread an index.
  template <class Step>
  static void for_each(const queue& q, std::size_t count, const Step& step) {
    if (count == 0) return;
    detail::queue_state& s = q.state();
    std::lock_guard<std::mutex> lock(s.mutex);
    device_guard g(s.device);
    for_each_kernel<Step><<<grid_for(s.cu_count, count, block_threads), block_threads, 0, s.stream>>>(step, count);
    check_hip(hipGetLastError(), "allreduce: launching a merge or exchange step");
  }
};

}  // namespace backend
}  // namespace preduce
