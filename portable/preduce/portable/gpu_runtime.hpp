// SPDX-License-Identifier: Apache-2.0
// preduce: what the cuda and hip backends' host runtimes share (src/gpu_runtime.cpp defines
// it, and the queue, memory, copy and result-slot functions both runtimes have alike); each
// backend's runtime.cpp keeps what truly differs: its queue_state's creation and scratch, the
// pointer checks, queue::wrap and the device description.
#pragma once

#include <cstddef>
#include <utility>

#include <preduce/portable/gpu_check.hpp>

namespace preduce {
namespace detail {
namespace runtime {

//! The doubling of `bytes` (starting from `first`) that reaches `wanted`.
inline std::size_t grown_size(std::size_t bytes, std::size_t wanted, std::size_t first) {
  std::size_t grown = bytes ? bytes : first;
  while (grown < wanted) grown *= 2;
  return grown;
}

//! Runs f (returning a gpu::error_t) with this thread's stream-capture mode relaxed, restoring it
//! afterwards, and throws f's failure as `what`. Plain allocations, not stream-ordered ones,
//! serve the queue's blocks: memory a graph allocates during capture must be freed before the
//! graph can be launched again; and allocations (and the side stream of clear_outside_capture)
//! count as unsafe under the global capture mode.
template <class F>
void outside_capture(const char* what, F&& f) {
  gpu::capture_mode_t mode = gpu::capture_relaxed;
  backend::check_gpu(gpu::exchange_capture_mode(&mode), "queue: entering relaxed capture mode");
  const gpu::error_t e = std::forward<F>(f)();
  backend::check_gpu(gpu::exchange_capture_mode(&mode), "queue: restoring the capture mode");
  backend::check_gpu(e, what);
}

//! Zeroes a block nothing has used yet, now, on a private non-blocking stream: never through a
//! queue's stream, which may be capturing (the memset would then run only when the graph does).
gpu::error_t clear_outside_capture(void* block, std::size_t bytes);

//! Whether `stream` is capturing a graph now. The default stream cannot be asked while another
//! thread captures in global mode (capture_implicit): that counts as capturing, since work on it
//! would fail anyway.
bool capturing(gpu::stream_t stream);

//! The devices the runtime sees (0 where there is no device or driver).
int checked_device_count();

//! Throws errc::wrong_device unless `device` is one of them.
void check_device_index(int device);

}  // namespace runtime
}  // namespace detail
}  // namespace preduce
