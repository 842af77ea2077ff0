// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what a preduce::queue holds on this backend: its stream, its device's shape, a
// per-queue scratch cache so no call allocates on the hot path, and what it lends to one call at
// a time (result and status slots), all behind one mutex so any number of threads may share it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
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

//! The fixed per-queue control block in device memory, zeroed once at creation. The whole-array
//! kernels leave `tickets`, `blocks_done` and `atomic_slot` at zero when they finish, so no call
//! needs a memset before it (and a captured CUDA graph replays correctly). Only the kernels of one
//! call use it at a time: a call's launches are enqueued under the queue's mutex, and kernels on
//! one stream run in order.
struct control_block {
  unsigned int tickets;                       //!< start tickets of the single-pass kernel
  unsigned int blocks_done;                   //!< last-block-done counter of the atomic kernel
  alignas(16) unsigned char atomic_slot[16];  //!< the atomic kernels' accumulator (identity: zero bits)
};

//! 8-byte elements in a block's publication slot (block/partial_publication.cuh,
//! publish_partial): room for a partial of up to four 32-bit words, each with its ready flag.
constexpr unsigned partial_slot_elements = 4;

}  // namespace backend

namespace detail {

//! Backend state behind preduce::queue (cuda). Shared by every copy of a queue (and, for the
//! default queue, by every thread that makes one), so every member after `mutex` is guarded by
//! it: each call enqueues all its launches holding it, so the kernels of two calls never
//! interleave on the stream and the per-queue scratch, counters and control block serve one call
//! at a time. What a call keeps past its enqueue (a synchronous call's result, a segment call's
//! verdict) lives in a slot of its own.
struct queue_state {
  const int device;
  const cudaStream_t stream;  //!< nullptr: the legacy default stream
  const bool owns_stream;
  const bool wrapped;         //!< the caller's stream (queue::wrap): never touched after the last call returns
  int sm_count = 0;
  int cc_major = 0;  //!< compute capability, for the tuning table
  std::size_t l2_bytes = 0;  //!< the device's L2 size (inputs larger than it are read evict_first)
  unsigned whole_grid_cap = 0;

  std::mutex mutex;

  backend::control_block* control = nullptr;  //!< device memory
  //! A publication slot of partial_slot_elements 8-byte elements per block of the single-pass
  //! kernel (at most whole_grid_cap blocks), zeroed at creation and left zeroed by every launch.
  unsigned long long* partial_slots = nullptr;

  void* workspace = nullptr;  //!< see scratch()
  std::size_t workspace_bytes = 0;
  void* counters = nullptr;  //!< unsigned counters, zero between kernels (see zeroed_counters)
  std::size_t counter_bytes = 0;
  std::vector<void*> retired_blocks;  //!< outgrown scratch and counters, freed with the queue
  std::unordered_map<const void*, bool> kernel_overlaps;  //!< see overlaps_prior_grid

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
  cudaStream_t side = nullptr;

  queue_state(int device, cudaStream_t stream, bool owns_stream, bool wrapped);
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  // Callers of the next four hold `mutex`.

  //! At least `bytes` of device scratch for work enqueued on this queue afterwards. Outgrown
  //! blocks are kept until the queue dies, so a CUDA graph captured from this queue stays valid
  //! for the queue's lifetime, whatever later calls need (its replays must be ordered with the
  //! queue's other work, which shares the scratch). Growing works during stream capture.
  void* scratch(std::size_t bytes);
  //! Whether `kernel` may be launched to overlap the kernel before it on the stream (launch.cuh):
  //! where the device has programmatic dependent launch (compute capability 9.0 and up) and the
  //! code it runs there was compiled for it (PTX of compute_90 or later; code compiled for an
  //! earlier virtual architecture and JIT-compiled here has no begin_after_prior_grid and must
  //! not start early). Asks the driver once per kernel; works during stream capture.
  bool overlaps_prior_grid(const void* kernel);
  //! At least `count` device counters, zero for work enqueued on this queue afterwards, for
  //! kernels that find the last of several blocks (or warps) per result and leave them zero
  //! again, so no call needs a memset (and a captured graph replays). Grows like scratch (and
  //! during stream capture); newly allocated counters are cleared at once, outside the stream.
  unsigned* zeroed_counters(std::size_t count);
  //! A zeroed status slot for one call's offset check, entered in `verdicts` for the calling
  //! thread (or, during stream capture, for whoever replays the graph).
  backend::device_status* status_slot_for_call();

  //! Throws errc::invalid_argument when the stream is capturing a CUDA graph (a synchronous call
  //! cannot wait inside a capture).
  void refuse_capture(const char* function) const;
  //! Waits for the stream, then throws for a device fault or for the first bad verdict among
  //! this thread's earlier calls (and calls captured in a graph). Takes `mutex` itself.
  void synchronize_and_check(const char* function);

  // The verdict policy of portable::deliver_verdicts.
  //! Copies status blocks to their mirrors and waits (`mutex` held).
  void read_status_blocks(const std::vector<std::size_t>& blocks);
  //! The position a status slot's mirror records, or portable::no_verdict.
  std::uint64_t bad_position(std::uint32_t slot) const;
  //! Zeroes status slots nothing is using now.
  void clear_status_slots(const std::vector<std::uint32_t>& slots);
};

}  // namespace detail
}  // namespace preduce
