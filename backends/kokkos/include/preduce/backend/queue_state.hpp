// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: what a preduce::queue holds on this backend (an execution space instance, a
// device-side status record, the result slot and a workspace) and the kernel-shape switches.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

#include <preduce/execution.hpp>
#include <preduce/types.hpp>

namespace preduce {
namespace backend {

//! Everything runs on Kokkos's default execution space, in its memory space.
using exec_space = Kokkos::DefaultExecutionSpace;
using memory_space = exec_space::memory_space;

//! True where the execution space runs on the CPU (Serial, OpenMP, Threads, HPX): kernels then
//! walk contiguous chunks (cache lines, prefetchers) and give each thread whole rows, columns
//! tiles or segments. Otherwise (GPUs) they interleave chunks so neighbouring threads read
//! neighbouring elements, and use a team per row or segment.
//! PREDUCE_DETAIL_KOKKOS_DEVICE_SHAPES selects the GPU shapes on a CPU build, so the CPU-only
//! CI machine can run the GPU-shaped kernels too.
#if defined(PREDUCE_DETAIL_KOKKOS_DEVICE_SHAPES)
inline constexpr bool host_shapes = false;
#else
inline constexpr bool host_shapes = Kokkos::SpaceAccessibility<exec_space, Kokkos::HostSpace>::accessible;
#endif

//! A rank-0 and a rank-1 View over memory the library owns (never allocated by the View).
template <class T>
using device_scalar = Kokkos::View<T, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using device_array = Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

//! Device-side errors found by kernels (today: bad segment offsets). Lives at the start of the
//! queue's scratch allocation; npos means "none".
struct device_status {
  //! First offending offset index found since the last synchronizing call (sticky).
  std::uint64_t first_bad_offset;
  //! The offset check of the most recent reduce_segments call; its reduction kernel reads it
  //! and writes nothing when it is not npos.
  std::uint64_t call_bad_offset;
};

//! Bytes of scratch before the result slot: the status, padded so the slot stays 64-byte aligned.
inline constexpr std::size_t status_bytes = 64;

//! Initializes Kokkos if nobody has (finalizing it at exit in that case); throws preduce::error
//! if Kokkos was already finalized.
void ensure_initialized();

}  // namespace backend

namespace detail {

//! Backend state behind preduce::queue (kokkos). Not thread-safe: use a queue from one host
//! thread at a time, like the execution space instance it holds.
struct queue_state {
  backend::exec_space exec;  //!< every kernel and copy of the queue runs on this instance
  int device;

  queue_state(backend::exec_space instance, int device_id) : exec(std::move(instance)), device(device_id) {}
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  //! The device status record (allocated, set to "no error", on first use).
  backend::device_status* status();
  //! A device slot of at least `bytes`, 64-byte aligned, right after the status record.
  void* result_slot(std::size_t bytes);
  //! Copies the first `bytes` of the result slot to `host` together with the status, waits,
  //! and throws for a recorded device error (clearing it) or a fault.
  void read_result_slot(void* host, std::size_t bytes, const char* function);
  //! At least `bytes` of device memory for partial results, valid for work enqueued on this
  //! queue afterwards (growing it waits for earlier work first).
  void* workspace(std::size_t bytes);
  //! Waits for the instance; a failure inside Kokkos becomes preduce::error(device_fault).
  void fence(const char* function);
  //! fence(), then throws preduce::error(bad_offsets) for a recorded device error, clearing it.
  void synchronize(const char* function);

 private:
  unsigned char* scratch_ = nullptr;  //!< [device_status | padding | result slot]
  std::size_t slot_capacity_ = 0;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;

  //! Throws for a status read back from the device (after a fence), clearing it there.
  void throw_if_failed(const backend::device_status& seen, const char* function);
};

}  // namespace detail
}  // namespace preduce
