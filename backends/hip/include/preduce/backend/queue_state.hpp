// SPDX-License-Identifier: Apache-2.0
// preduce hip: what a preduce::queue holds on this backend: its stream, its device's shape
// (compute units, wavefront size), and a per-queue scratch cache so no call allocates on the
// hot path.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include <preduce/execution.hpp>

namespace preduce {
namespace backend {

//! Device-side status a kernel can raise (e.g. unsorted segment offsets). Lives in the
//! queue's control block; read and cleared at the next synchronizing call.
struct device_status {
  unsigned int code;            //!< 0: fine; otherwise a preduce::errc value + 1
  unsigned int reserved;
  unsigned long long position;  //!< first offending position, stored as ~position under atomicMax
};

//! The fixed per-queue control block in device memory, zeroed once at creation. The single-pass
//! kernels leave `blocks_done` and `atomic_slot` at zero when they finish, so no call needs a
//! memset before it.
struct control_block {
  device_status status;
  unsigned int blocks_done;                   //!< last-block-done counter of the single-pass kernels
  alignas(16) unsigned char atomic_slot[16];  //!< the atomic kernels' accumulator (identity: zero bits)
  alignas(16) unsigned char result[64];       //!< the sync forms' result slot (largest result: 24 bytes)
};

}  // namespace backend

namespace detail {

//! Backend state behind preduce::queue (hip). Not thread-safe: one host thread per queue at a
//! time, like the stream it wraps.
struct queue_state {
  int device = 0;
  hipStream_t stream = nullptr;  //!< nullptr: the null (default) stream
  bool owns_stream = false;
  int cu_count = 0;  //!< compute units, for the grid size
  int wave = 0;      //!< wavefront size (64 on CDNA, 32 on RDNA): picks the kernels' instantiation

  backend::control_block* control = nullptr;  //!< device memory
  void* pinned_result = nullptr;              //!< 64 bytes of pinned host memory for results
  bool may_have_device_status = false;        //!< a kernel that can raise a status was queued

  void* workspace = nullptr;  //!< grown on demand
  std::size_t workspace_bytes = 0;

  queue_state(int device, hipStream_t stream, bool owns_stream);
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  //! At least `bytes` of device scratch, valid for work enqueued on this queue afterwards.
  void* scratch(std::size_t bytes);
  //! Waits for the stream and throws for a device fault or a raised device status.
  void synchronize_and_check();
};

}  // namespace detail
}  // namespace preduce
