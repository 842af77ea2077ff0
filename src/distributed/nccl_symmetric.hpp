// SPDX-License-Identifier: Apache-2.0
// preduce: the NCCL adapter's collectives through symmetric memory (NCCL's device API): where
// every rank's GPU can load from every other's (NVLink or PCIe peer access on one host), one
// kernel of preduce's own moves each collective, reading the peers' copies through NCCL's
// load/store-accessible (LSA) windows. It adds floats in rank order, so the sums of rows and
// columns under run_to_run take one kernel instead of NCCL's grouped send/recv, a merge and an
// allgather: 2^26 column sums on four H200s in 1.07x the time of a local reduce_columns plus
// ncclAllReduce (that path: 1.19x on two H200s; docs/distributed.md has the design and runs).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <preduce/distributed.hpp>
#include <preduce/error.hpp>

namespace preduce {
namespace nccl {
namespace detail {

//! An NCCL failure as preduce::error(errc::communication), naming what failed.
inline void check_nccl(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw error(errc::communication, std::string(what) + ": " + ncclGetErrorString(rc));
}

//! One communicator's symmetric window and device communicator, and the kernels over them.
//! make() and the destructor are collective (every rank, at the same point of its calls); each
//! collective below is too, as NCCL's are. Kernels of one communicator run one after another
//! whatever the streams (each waits for the last), and alternate between two halves of the
//! window, so a kernel never overwrites what a slower peer may still read from the one before.
class symmetric_path {
 public:
  //! The path for comm, or null where NCCL has no load/store access between all ranks (more
  //! than one host, no peer access, NCCL built without its device API) or PREDUCE_NCCL_SYMMETRIC=0.
  //! Every rank gets the same answer (they agree on it through `side`).
  static std::unique_ptr<symmetric_path> make(ncclComm_t comm, int rank, int size, int device, cudaStream_t side);
  ~symmetric_path();
  symmetric_path(const symmetric_path&) = delete;
  symmetric_path& operator=(const symmetric_path&) = delete;

  using element = preduce::communicator::element;
  using reduction = preduce::communicator::reduction;

  //! The communicator's collectives (preduce::communicator's contracts), on `stream`.
  void allgather(cudaStream_t stream, const void* send, void* recv, std::size_t bytes);
  void alltoall(cudaStream_t stream, const void* send, void* recv, std::size_t bytes);
  void reduce_scatter(cudaStream_t stream, const void* send, void* recv, std::size_t count, element type);
  //! recv[i * recv_stride] = send of rank 0 [i] op send of rank 1 [i] op ..., in rank order.
  void allreduce(cudaStream_t stream, const void* send, void* recv, std::size_t count, std::size_t recv_stride, element type,
                 reduction op);

  //! recv[i * recv_stride] = the value of the ranks' compact binned sums of line i (codes and
  //! limbs as exchange::store_compact writes them), rounded to `type` (f32 or f64), where no
  //! rank's line holds more than `terms` terms: the communicator's binned_sum.
  void binned_sum(cudaStream_t stream, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count,
                  std::size_t recv_stride, element type, std::uint64_t terms);

  //! all[r * words ..) = rank r's mine[0 .. words), waiting for it, and true; false, doing
  //! nothing, for more words than the kernel takes: the communicator's agree.
  bool agree(const std::int64_t* mine, std::int64_t* all, std::size_t words);

  struct state;  // the NCCL handles and the window (nccl_symmetric.cu)

 private:
  explicit symmetric_path(std::unique_ptr<state> s);
  std::unique_ptr<state> s_;
};

}  // namespace detail
}  // namespace nccl
}  // namespace preduce
