// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host side of the columns reductions: the launch of the columns kernel
// (columns/reduce_columns.hpp), a thread a column.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

#include <preduce/execution.hpp>
#include <preduce/backend/columns/reduce_columns.hpp>
#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Enqueues reduce_columns_kernel on s's stream: out[c * out_stride] = reduction of column c,
//! c < cols (cols >= 1), one kernel shape whatever the options.
template <class Reducer, class Source>
void enqueue_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t rows, std::size_t cols,
                     typename Reducer::result_type* d_out, std::size_t out_stride, options) {
  reduce_columns_kernel<<<grid_for(s.cu_count, cols, block_threads), block_threads, 0, s.stream>>>(red, src, rows, cols, d_out, out_stride);
  check_gpu(hipGetLastError(), "reduce_columns: launch");
}

}  // namespace backend
}  // namespace preduce
