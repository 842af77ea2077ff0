// SPDX-License-Identifier: Apache-2.0
// preduce: the part of a queue's state the cuda and hip backends share (detail::gpu_queue_core):
// its stream and device, the mutex, the control block and scratch pointers, the result and status
// slots and the side stream, with the methods src/gpu_runtime.cpp defines once over the runtime's
// names (<preduce/backend/gpu_api.hpp>, which only those two backends have). Each of those
// backends' queue_state.hpp includes it and derives detail::queue_state from it, adding what
// differs: the device's shape, the control block's fields, scratch(), and cuda's counters and
// partial slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <preduce/portable/call_slots.hpp>

#include <preduce/backend/gpu_api.hpp>

namespace preduce {
namespace backend {

//! The verdict of one call's device-side offset check (a status slot of its own: see
//! detail::gpu_queue_core::status_slot_for_call). Zero when the call starts; read at the next
//! synchronizing call of the thread that made it.
struct device_status {
  unsigned int code;            //!< 0: fine; otherwise a preduce::errc value + 1
  unsigned int reserved;
  unsigned long long position;  //!< first offending position, stored as ~position under atomicMax
};

//! The fixed per-queue control block in device memory; its fields differ by backend (each
//! backend's queue_state.hpp defines it).
struct control_block;

}  // namespace backend

namespace detail {

//! What the cuda and hip backends' state behind preduce::queue shares; each backend's
//! detail::queue_state derives from it and adds what differs. Shared by every copy of a queue
//! (and, for the default queue, by every thread that makes one), so every member after `mutex`,
//! the derived queue_state's included unless it says otherwise, is guarded by it: each call
//! enqueues all its launches holding it, so the kernels of two calls never interleave on the
//! stream and the per-queue scratch, control block (and cuda's counters and partial slots) serve
//! one call at a time. What a call keeps past its enqueue (a synchronous call's result, a segment
//! call's verdict) lives in a slot of its own.
struct gpu_queue_core {
  const int device;
  const gpu::stream_t stream;  //!< nullptr: the default stream (CUDA's legacy default stream, HIP's null stream)
  const bool owns_stream;
  const bool wrapped;          //!< the caller's stream (queue::wrap): never touched after the last call returns

  std::mutex mutex;

  backend::control_block* control = nullptr;  //!< device memory, allocated by the backend's constructor
  void* workspace = nullptr;                  //!< the current scratch block, grown by the backend's scratch()
  std::size_t workspace_bytes = 0;

  //! The synchronous forms' result slots (portable::result_slot): mapped pinned host memory the
  //! kernel writes straight into, so a synchronous call has no copy to wait for (H100, f32 sum,
  //! median host time of 5000 calls at 2^10: 18.4 us through a device slot and a copy, 9.5 us
  //! written straight; docs/reliability.md#latency).
  portable::slot_pool results;
  //! The segment calls' status slots (device memory, each with a pinned host mirror) and their
  //! verdicts until delivered.
  portable::slot_pool statuses;
  portable::verdict_book verdicts;
  std::vector<void*> host_blocks;    //!< pinned blocks of the two pools, freed with the queue
  std::vector<void*> device_blocks;  //!< device blocks of the status pool, freed with the queue
  //! A private non-blocking stream that reads and clears status slots (created on first use).
  gpu::stream_t side = nullptr;

  gpu_queue_core(const gpu_queue_core&) = delete;
  gpu_queue_core& operator=(const gpu_queue_core&) = delete;

  //! A zeroed status slot for one call's offset check, entered in `verdicts` for the calling
  //! thread (or, during stream capture, for whoever replays the graph). The caller holds `mutex`.
  backend::device_status* status_slot_for_call();

  //! Throws errc::invalid_argument when the stream is capturing a graph (a synchronous call
  //! cannot wait inside a capture).
  void refuse_capture(const char* function) const;
  //! Waits for the stream, then throws for a device fault or for the first bad verdict among
  //! this thread's earlier calls (and calls captured in a graph). Takes `mutex` itself.
  void synchronize_and_check(const char* function);

  // The verdict policy of portable::deliver_verdicts (`mutex` held).
  //! Copies status blocks to their mirrors and waits.
  void read_status_blocks(const std::vector<std::size_t>& blocks);
  //! The position a status slot's mirror records, or portable::no_verdict.
  std::uint64_t bad_position(std::uint32_t slot) const;
  //! Zeroes status slots nothing is using now.
  void clear_status_slots(const std::vector<std::uint32_t>& slots);

 protected:
  //! Sets what every backend sets alike; the backend's constructor then reads its device's shape
  //! and allocates the control block.
  gpu_queue_core(int device, gpu::stream_t stream, bool owns_stream, bool wrapped);
  ~gpu_queue_core() = default;

  // The backend's destructor frees the queue: `const int previous = quiesce();`, then the device
  // blocks its queue_state declares, then `release(previous)`. Nothing there throws: a faulted
  // context makes the calls fail harmlessly.
  //! Makes `device` current and waits for the stream, except a wrapped one, which is not touched
  //! (the caller may have destroyed it after its last call; freeing device memory waits for the
  //! device's work, so no kernel still reads what is freed). Returns the caller's device, for
  //! release().
  int quiesce() noexcept;
  //! Frees what this struct holds (scratch, status blocks, control block, pinned blocks), then
  //! destroys the side stream and an owned stream, and makes `previous` current again.
  void release(int previous) noexcept;
};

}  // namespace detail
}  // namespace preduce
