// SPDX-License-Identifier: Apache-2.0
// preduce hip: what a preduce::queue holds on this backend: its stream, its device's shape
// (compute units, wavefront size), a per-queue scratch cache so no call allocates on the hot
// path, and what it lends to one call at a time, behind one mutex.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>

#include <preduce/execution.hpp>
#include <preduce/portable/gpu_queue_state.hpp>

namespace preduce {
namespace backend {

//! The fixed per-queue control block in device memory, zeroed once at creation. The single-pass
//! kernels leave `blocks_done` and `atomic_slot` at zero when they finish, so no call needs a
//! memset before it. Only the kernels of one call use it at a time: a call's launches are
//! enqueued under the queue's mutex, and kernels on one stream run in order.
struct control_block {
  unsigned int blocks_done;                   //!< last-block-done counter of the single-pass kernels
  alignas(16) unsigned char atomic_slot[16];  //!< the atomic kernels' accumulator (identity: zero bits)
};

}  // namespace backend

namespace detail {

//! The state behind preduce::queue on hip: gpu_queue_core (the stream, the mutex, the slots:
//! what it shares with the cuda backend) and the device's shape, set at creation and only read
//! after.
struct queue_state : gpu_queue_core {
  int cu_count = 0;  //!< compute units, for the grid size
  int wave = 0;      //!< wavefront size (64 on CDNA, 32 on RDNA): picks the kernels' instantiation

  queue_state(int device, hipStream_t stream, bool owns_stream, bool wrapped);
  ~queue_state();

  //! At least `bytes` of device scratch, valid for work enqueued on this queue afterwards. The
  //! caller holds `mutex`.
  void* scratch(std::size_t bytes);
};

}  // namespace detail
}  // namespace preduce
