// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: what a preduce::queue holds on this backend (an execution space instance, its
// lock, a workspace and the slots it lends to one call at a time) and the kernel-shape switches.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <preduce/execution.hpp>
#include <preduce/portable/call_slots.hpp>
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

//! The verdict of one call's offset check: a status slot of the call's own
//! (detail::queue_state::status_slot_for_call), written by the check's reduction before the
//! segment kernels read it; npos means "fine".
struct device_status {
  std::uint64_t first_bad_offset;  //!< the first offset index that breaks the contract, or npos
};

//! Initializes Kokkos if nobody has (finalizing it at exit in that case); throws preduce::error
//! if Kokkos was already finalized.
void ensure_initialized();

}  // namespace backend

namespace detail {

//! Backend state behind preduce::queue (kokkos). Shared by every copy of a queue, so its members
//! after `lock` are guarded by *lock, which each call holds while it enqueues (on host execution
//! spaces, while it runs): calls of several threads never interleave their kernels on the
//! instance or share its workspace. Queues on one execution space instance share one mutex
//! (Kokkos 3 has a single instance per space; its team and reduction scratch serve one launch at
//! a time). What a call keeps past its enqueue (a synchronous call's result, a segment call's
//! verdict) lives in a slot of its own.
struct queue_state {
  backend::exec_space exec;  //!< every kernel and copy of the queue runs on this instance
  const int device;
  const std::shared_ptr<std::mutex> lock;  //!< the instance's: see above

  std::mutex& mutex;  //!< *lock, under the name portable::deliver_verdicts uses
  portable::slot_pool results;   //!< the synchronous forms' result slots (memory_space, host mirrors)
  portable::slot_pool statuses;  //!< the segment calls' status slots (memory_space, host mirrors)
  portable::verdict_book verdicts;

  queue_state(backend::exec_space instance, int device_id, std::shared_ptr<std::mutex> instance_lock);
  ~queue_state();
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  // Callers of the next three hold *lock.

  //! At least `bytes` of device memory for partial results, valid for work enqueued on this
  //! queue afterwards (growing it waits for earlier work first).
  void* workspace(std::size_t bytes);
  //! A status slot for one call's offset check, entered in `verdicts` for the calling thread.
  backend::device_status* status_slot_for_call();
  //! A free result slot (its index), growing the pool when none is free.
  std::uint32_t take_result_slot();

  //! Waits for the instance; a failure inside Kokkos becomes preduce::error(device_fault).
  void fence(const char* function);
  //! fence(), then throws errc::bad_offsets for the first bad verdict among this thread's earlier
  //! calls. Takes *lock itself.
  void synchronize(const char* function);

  // The verdict policy of portable::deliver_verdicts.
  void read_status_blocks(const std::vector<std::size_t>& blocks);
  std::uint64_t bad_position(std::uint32_t slot) const;
  void clear_status_slots(const std::vector<std::uint32_t>&) {}  // each check rewrites its slot whole

 private:
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::vector<void*> device_blocks_;               //!< the pools' blocks, freed with the queue
  std::vector<std::unique_ptr<unsigned char[]>> mirrors_;  //!< their host mirrors
};

}  // namespace detail
}  // namespace preduce
