// SPDX-License-Identifier: Apache-2.0
// preduce: where work runs (queue) and how (options).
#pragma once

#include <memory>
#include <string>

namespace preduce {

//! How much run-to-run freedom the library has in ordering floating-point operations.
enum class determinism {
  run_to_run,    //!< default: same input, device and library version -> bit-identical results
  fast,          //!< atomics allowed: float results may differ in the last bits between calls
  reproducible,  //!< same bits on every device, backend, launch shape and split (reproducible.hpp)
};

//! Which device-level algorithm to use; `automatic` lets the backend's tuning table choose. The
//! others exist so users and preduce-bench can study each one; every backend accepts every value
//! and runs its nearest equivalent where it has no such kernel.
enum class algorithm {
  automatic,
  single_pass,  //!< one launch: one block gathers the other blocks' partials and reduces them in
                //!< a fixed order
  two_pass,     //!< partials per block, then a second launch reduces them (CUB's shape)
  atomic,       //!< one launch, blocks merge partials with atomics (float order varies: needs
                //!< determinism::fast; under run_to_run it runs single_pass instead)
};

//! How a warp (wavefront) combines its lanes' values. Same fallback rule as `algorithm`.
enum class warp_algorithm {
  automatic,
  shuffle,        //!< shuffle-down tree, operator applied in C++
  fused_shuffle,  //!< shuffle and operator fused in one asm block under the shuffle's predicate
                  //!< (CUDA PTX shfl.sync+op; AMD DPP-modified ALU instructions)
  hardware,       //!< a whole-warp reduction instruction (CUDA redux.sync on sm_80+: 32-bit
                  //!< integer add/min/max/and/or/xor; min/max/minmax of floats and 64-bit
                  //!< integers, and argmin/argmax, as integer ranks)
};

//! Per-call options. The defaults are what most callers want.
struct options {
  determinism det = determinism::run_to_run;
  algorithm algo = algorithm::automatic;
  warp_algorithm warp = warp_algorithm::automatic;
};

namespace detail {
struct queue_state;  // defined by the backend: stream, device, scratch cache, pending errors
}

//! An in-order work queue on one device: a CUDA or HIP stream, or a Kokkos execution-space
//! instance. Copies share the same underlying queue.
//!
//! Threads: any number of host threads may call every preduce function at once, on one queue
//! object, on copies of it, on default queues or on queues of their own. Each call enters its
//! queue whole, in the order calls reach it, so the calls one thread makes on a queue run in
//! that thread's order; calls on different queues may run concurrently. A synchronizing call
//! (synchronize(), a synchronous reduce) reports the device-side errors of its own thread's
//! earlier calls on the queue, never another thread's.
class queue {
 public:
  //! The default queue of the current device: CUDA's and HIP's legacy default stream, or the
  //! default Kokkos execution space instance. Work on it is ordered with other work there.
  queue();
  //! A new queue on `device` (an index below device_count()).
  explicit queue(int device);
  //! Wraps an existing native stream on `device`: a cudaStream_t or hipStream_t (of that
  //! device), or, on Kokkos, the native stream of its execution space (Kokkos::Cuda,
  //! Kokkos::HIP); null means the default stream (Kokkos: the default instance, the only one
  //! host execution spaces accept). The caller keeps ownership; the stream must outlive the
  //! calls made through the queue, and preduce never touches it after the last of them returns
  //! (destroying the queue does not).
  static queue wrap(void* native_handle, int device);

  //! The device this queue runs on.
  int device() const noexcept;
  //! The native stream (cudaStream_t / hipStream_t; on Kokkos, its execution space's native
  //! stream, null on host execution spaces).
  void* native_handle() const noexcept;
  //! Waits for all work on the queue; throws preduce::error for a device fault or for a bad
  //! argument found on the device (unsorted segment offsets) by this thread's earlier calls on
  //! the queue: the first such call's first bad offset. Inside a CUDA graph capture of the
  //! queue's stream it throws errc::invalid_argument (nothing can wait there).
  void synchronize() const;

  //! Backend state; not part of the API.
  detail::queue_state& state() const noexcept { return *state_; }

 private:
  explicit queue(std::shared_ptr<detail::queue_state> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::queue_state> state_;
};

//! Number of devices the backend sees (1 for Kokkos host execution spaces).
int device_count();
//! Name of the backend this libpreduce was built for: "cuda", "hip" or "kokkos".
const char* backend_name() noexcept;
//! A one-line description of `device` (e.g. "NVIDIA H200, sm_90, 132 SMs, 141 GiB").
std::string device_description(int device);

}  // namespace preduce
