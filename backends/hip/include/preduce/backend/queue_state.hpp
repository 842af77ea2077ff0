// SPDX-License-Identifier: Apache-2.0
// preduce hip: what a preduce::queue holds on this backend: its stream, its device's shape
// (compute units, wavefront size), a per-queue scratch cache so no call allocates on the hot
// path, and what it lends to one call at a time, behind one mutex.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <preduce/execution.hpp>
#include <preduce/portable/call_slots.hpp>

namespace preduce {
namespace backend {

//! The verdict of one call's device-side offset check (a status slot of its own: see
//! detail::queue_state::status_slot_for_call). Zero when the call starts; read at the next
//! synchronizing call of the thread that made it.
struct device_status {
  unsigned int code;            //!< 0: fine; otherwise a preduce::errc value + 1
  unsigned int reserved;
  unsigned long long position;  //!< first offending position, stored as ~position under atomicMax
};

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

//! Backend state behind preduce::queue (hip), the cuda backend's twin: shared by every copy of
//! a queue (and, for the default queue, by every thread that makes one), so every member after
//! `mutex` is guarded by it, and each call enqueues all its launches holding it. What a call
//! keeps past its enqueue (a synchronous call's result, a segment call's verdict) lives in a slot
//! of its own.
struct queue_state {
  const int device;
  const hipStream_t stream;  //!< nullptr: the null (default) stream
  const bool owns_stream;
  const bool wrapped;        //!< the caller's stream (queue::wrap): never touched after the last call returns
  int cu_count = 0;  //!< compute units, for the grid size
  int wave = 0;      //!< wavefront size (64 on CDNA, 32 on RDNA): picks the kernels' instantiation

  std::mutex mutex;

  backend::control_block* control = nullptr;  //!< device memory
  void* workspace = nullptr;  //!< grown on demand
  std::size_t workspace_bytes = 0;

  //! The synchronous forms' result slots: mapped pinned host memory the kernel writes into.
  portable::slot_pool results;
  //! The segment calls' status slots (device memory, pinned host mirrors) and their verdicts.
  portable::slot_pool statuses;
  portable::verdict_book verdicts;
  std::vector<void*> host_blocks;    //!< pinned blocks of the two pools, freed with the queue
  std::vector<void*> device_blocks;  //!< device blocks of the status pool, freed with the queue
  hipStream_t side = nullptr;        //!< a private non-blocking stream for the status slots

  queue_state(int device, hipStream_t stream, bool owns_stream, bool wrapped);
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  // Callers of the next two hold `mutex`.
  //! At least `bytes` of device scratch, valid for work enqueued on this queue afterwards.
  void* scratch(std::size_t bytes);
  //! A zeroed status slot for one call's offset check, entered in `verdicts` for the calling thread.
  backend::device_status* status_slot_for_call();

  //! Throws errc::invalid_argument when the stream is capturing a graph.
  void refuse_capture(const char* function) const;
  //! Waits for the stream, then throws for a device fault or for the first bad verdict among
  //! this thread's earlier calls. Takes `mutex` itself.
  void synchronize_and_check(const char* function);

  // The verdict policy of portable::deliver_verdicts (`mutex` held).
  void read_status_blocks(const std::vector<std::size_t>& blocks);
  std::uint64_t bad_position(std::uint32_t slot) const;
  void clear_status_slots(const std::vector<std::uint32_t>& slots);
};

}  // namespace detail
}  // namespace preduce
