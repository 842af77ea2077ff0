// SPDX-License-Identifier: Apache-2.0
// preduce: the distributed calls over MPI (CMake: find_package(preduce COMPONENTS mpi), target
// preduce::mpi). Works with every backend and any MPI: device buffers go to MPI directly where
// it can read them (host memory: the kokkos backend on a host execution space; a CUDA-aware MPI
// with the cuda backend), else they are staged through host memory.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "distributed.hpp"

namespace preduce {
namespace mpi {

//! A preduce::communicator over the caller's MPI communicator, which the caller keeps (and
//! frees after the last call). MPI must be initialized; if several threads call preduce with one
//! communicator at once, MPI must provide MPI_THREAD_MULTIPLE (preduce runs one call on a
//! communicator at a time, but other code may call MPI meanwhile). An MPI error becomes
//! preduce::error(errc::communication) where the communicator's error handler returns errors
//! (MPI's default aborts the job).
class communicator final : public preduce::communicator {
 public:
  //! How device buffers reach MPI.
  enum class buffers {
    detect,  //!< direct where MPI can read device memory (see the file comment), else staged
    staged,  //!< always through host memory
    direct,  //!< always directly: the caller vouches that MPI reads this backend's device memory
  };
  explicit communicator(MPI_Comm comm, buffers how = buffers::detect);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool device_collectives() const override { return direct_; }
  void allgather(const queue& q, const void* send, void* recv, std::size_t bytes) override;
  void alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) override;
  void allreduce(const queue& q, const void* send, void* recv, std::size_t count, element type, reduction op) override;
  void reduce_scatter(const queue& q, const void* send, void* recv, std::size_t count, element type) override;
  void agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) override;

  //! The MPI communicator it runs on.
  MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  bool direct_ = false;
};

}  // namespace mpi
}  // namespace preduce
