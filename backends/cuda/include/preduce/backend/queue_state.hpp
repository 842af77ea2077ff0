// SPDX-License-Identifier: Apache-2.0
// preduce cuda: what a preduce::queue holds on this backend: its stream, its device's shape, a
// per-queue scratch cache so no call allocates on the hot path, and what it lends to one call at
// a time (result and status slots), all behind one mutex so any number of threads may share it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <unordered_map>
#include <vector>

#include <preduce/execution.hpp>
#include <preduce/portable/gpu_queue_state.hpp>

namespace preduce {
namespace backend {

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

//! The state behind preduce::queue on cuda: gpu_queue_core (the stream, the mutex, the slots:
//! what it shares with the hip backend) and cuda's own members. The device's shape (sm_count to
//! whole_grid_cap) is set at creation and only read after; the members after it are guarded by
//! `mutex`, like the core's.
struct queue_state : gpu_queue_core {
  int sm_count = 0;
  int cc_major = 0;  //!< compute capability, for the tuning table
  std::size_t l2_bytes = 0;  //!< the device's L2 size (inputs larger than it are read evict_first)
  unsigned whole_grid_cap = 0;

  //! A publication slot of partial_slot_elements 8-byte elements per block of the single-pass
  //! kernel (at most whole_grid_cap blocks), zeroed at creation and left zeroed by every launch.
  unsigned long long* partial_slots = nullptr;
  void* counters = nullptr;  //!< unsigned counters, zero between kernels (see zeroed_counters)
  std::size_t counter_bytes = 0;
  std::vector<void*> retired_blocks;  //!< outgrown scratch and counters, freed with the queue
  std::unordered_map<const void*, bool> kernel_overlaps;  //!< see overlaps_prior_grid

  queue_state(int device, cudaStream_t stream, bool owns_stream, bool wrapped);
  ~queue_state();

  // Callers of the next three hold `mutex`.

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
};

}  // namespace detail
}  // namespace preduce
