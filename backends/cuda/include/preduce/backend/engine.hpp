// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the backend engine (see portable/run_request.hpp for the contract every
// backend's engine keeps). Included by the library's per-group translation units and by user
// files that include <preduce/extend.hpp>; both must be compiled by nvcc.
#pragma once

#include <cstddef>
#include <cstdint>

#include <preduce/execution.hpp>

#include "device_batched.cuh"
#include "device_binned.cuh"
#include "device_reduce.cuh"

namespace preduce {
namespace backend {

//! Enqueues reductions on a queue's stream; never waits; writes finalized results to device
//! memory.
struct engine {
  template <class Reducer, class Source>
  static void whole(const queue& q, const Reducer& red, const Source& src, std::size_t n,
                    typename Reducer::result_type* d_out, options o) {
    detail::queue_state& s = q.state();
    device_guard g(s.device);
    if constexpr (is_binned_reducer<Reducer>::value) reduce_whole_binned(s, red, src, n, d_out, o);
    else reduce_whole(s, red, src, n, d_out, o);
  }

  template <class Reducer, class Source>
  static void rows(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                   typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    detail::queue_state& s = q.state();
    device_guard g(s.device);
    const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, 1);
    reduce_rows_kernel<block_threads><<<grid, block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride, o.warp);
    check_cuda(cudaGetLastError(), "reduce_rows: launch");
  }

  template <class Reducer, class Source>
  static void columns(const queue& q, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                      typename Reducer::result_type* d_out, std::size_t out_stride, options) {
    detail::queue_state& s = q.state();
    device_guard g(s.device);
    reduce_columns_kernel<<<grid_for(s.sm_count, s.cc_major, cols, block_threads), block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride);
    check_cuda(cudaGetLastError(), "reduce_columns: launch");
  }

  template <class Reducer, class Source, class Off>
  static void segments(const queue& q, const Reducer& red, const Source& src, std::size_t n, const Off* d_offsets,
                       std::size_t segments, typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
    detail::queue_state& s = q.state();
    device_guard g(s.device);
    device_status* status = &s.control->status;
    s.may_have_device_status = true;
    check_offsets_kernel<<<grid_for(s.sm_count, s.cc_major, segments + 1, block_threads), block_threads, 0, s.stream>>>(d_offsets, segments, n, status);
    check_cuda(cudaGetLastError(), "reduce_segments: launching the offset check");
    const unsigned grid = grid_for(s.sm_count, s.cc_major, segments, 1);
    reduce_segments_kernel<block_threads><<<grid, block_threads, 0, s.stream>>>(red, src, d_offsets, segments, d_out, out_stride, status, o.warp);
    check_cuda(cudaGetLastError(), "reduce_segments: launch");
  }
};

}  // namespace backend
}  // namespace preduce
