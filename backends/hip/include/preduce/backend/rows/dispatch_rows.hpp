// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host side of the rows reductions: the launch of the rows kernel
// (rows/reduce_rows.hpp), a block a row.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

#include <preduce/execution.hpp>

#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/launch.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/rows/reduce_rows.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues reduce_rows_kernel on s's stream, for the queue's wavefront size: out[r *
//! out_stride] = reduction of row r, r < rows (rows >= 1).
template <class Reducer, class Source>
void enqueue_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                  typename Reducer::result_type* d_out, std::size_t out_stride, options o) {
  const unsigned grid = grid_for(s.cu_count, rows, 1);
  with_wave(s, [&](auto wave) {
    reduce_rows_kernel<decltype(wave)::value, block_threads><<<grid, block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride, o.warp);
  });
  check_gpu(hipGetLastError(), "reduce_rows: launch");
}

}  // namespace backend
}  // namespace preduce
