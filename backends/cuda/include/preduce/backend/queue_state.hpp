// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what a preduce::queue holds on this backend: its stream, its device's shape,
// and a per-queue scratch cache so no call allocates on the hot path.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <preduce/execution.hpp>

namespace preduce {
namespace backend {

//! Device-side status a kernel can raise (e.g. unsorted segment offsets). Lives in the
//! queue's control block; read and cleared at the next synchronizing call.
struct device_status {
  unsigned int code;           //!< 0: fine; otherwise a preduce::errc value + 1
  unsigned int reserved;
  unsigned long long position;  //!< first offending position (e.g. offset index)
};

//! The fixed per-queue control block in device memory, zeroed once at creation. The whole-array
//! kernels leave `tickets`, `blocks_done` and `atomic_slot` at zero when they finish, so no call
//! needs a memset before it (and a captured CUDA graph replays correctly).
struct control_block {
  device_status status;
  unsigned int tickets;                       //!< start tickets of the single-pass kernel
  unsigned int blocks_done;                   //!< last-block-done counter of the atomic kernel
  alignas(16) unsigned char atomic_slot[16];  //!< the atomic kernels' accumulator (identity: zero bits)
  //! The sync forms' result slot (largest result: reproducible_partial<moments_result<A>>, 120 bytes).
  alignas(16) unsigned char result[128];
};

//! 8-byte elements in a block's publication slot (device_reduce.cuh, publish_partial): room
//! for a partial of up to four 32-bit words, each with its ready flag.
constexpr unsigned partial_slot_elements = 4;

}  // namespace backend

namespace detail {

//! Backend state behind preduce::queue (cuda). Not thread-safe: one host thread per queue at
//! a time, like the stream it wraps.
struct queue_state {
  int device = 0;
  cudaStream_t stream = nullptr;  //!< nullptr: the legacy default stream
  bool owns_stream = false;
  int sm_count = 0;
  int cc_major = 0;  //!< compute capability, for the tuning table
  std::size_t l2_bytes = 0;  //!< the device's L2 size (inputs larger than it are read evict_first)

  backend::control_block* control = nullptr;  //!< device memory
  void* pinned_result = nullptr;              //!< pinned host memory for results, as large as the slot
  bool may_have_device_status = false;        //!< a kernel that can raise a status was queued

  //! A publication slot of partial_slot_elements 8-byte elements per block of the single-pass
  //! kernel (at most whole_grid_cap blocks), zeroed at creation and left zeroed by every launch.
  unsigned long long* partial_slots = nullptr;
  unsigned whole_grid_cap = 0;

  void* workspace = nullptr;  //!< see scratch()
  std::size_t workspace_bytes = 0;
  void* counters = nullptr;  //!< unsigned counters, zero between kernels (see zeroed_counters)
  std::size_t counter_bytes = 0;
  std::vector<void*> retired_blocks;  //!< outgrown scratch and counters, freed with the queue
  std::unordered_map<const void*, bool> kernel_overlaps;  //!< see overlaps_prior_grid

  queue_state(int device, cudaStream_t stream, bool owns_stream);
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

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
  //! Waits for the stream and throws for a device fault or a raised device status.
  void synchronize_and_check();
};

}  // namespace detail
}  // namespace preduce
