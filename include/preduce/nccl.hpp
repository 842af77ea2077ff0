// SPDX-License-Identifier: Apache-2.0
// preduce: the distributed calls over NCCL (cuda backend; CMake: find_package(preduce COMPONENTS
// nccl), target preduce::nccl). The ranks' results travel in device memory on the calling
// queue's stream; nothing is staged through the host but the agreement's few words. Where every
// rank's GPU can load from every other's (one host: NVLink or PCIe peer access), the exchanges
// run as preduce's own kernels over NCCL's symmetric memory (its device API), adding floats in
// rank order; elsewhere, or with PREDUCE_NCCL_SYMMETRIC=0 on every rank, through NCCL's
// collectives.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "distributed.hpp"

namespace preduce {
namespace nccl {
namespace detail {
class symmetric_path;  // the exchanges over symmetric memory (src/distributed/nccl_symmetric.hpp)
}  // namespace detail

//! A preduce::communicator over the caller's NCCL communicator, which the caller keeps (and
//! destroys after the last call). Queues passed to the calls must be on the communicator's
//! device. An NCCL error becomes preduce::error(errc::communication). NCCL's multicast (NVLS)
//! is the caller's to configure. The first distributed call sets up a symmetric window (a
//! collective of NCCL's), which the destructor hands back: destroy the adapter on every rank,
//! before the NCCL communicator, as NCCL's own objects.
class communicator final : public preduce::communicator {
 public:
  explicit communicator(ncclComm_t comm);
  ~communicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool device_collectives() const override { return true; }
  void allgather(const queue& q, const void* send, void* recv, std::size_t bytes) override;
  void alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) override;
  void allreduce(const queue& q, const void* send, void* recv, std::size_t count, element type, reduction op) override;
  void reduce_scatter(const queue& q, const void* send, void* recv, std::size_t count, element type) override;
  bool ordered_sum(const queue& q, const void* send, void* recv, std::size_t count, std::size_t recv_stride, element type) override;
  bool binned_sum(const queue& q, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count, std::size_t recv_stride,
                  element type, std::uint64_t terms) override;
  //! Through device memory on a stream of its own: NCCL orders it with the communicator's other
  //! work, and it waits for no queue's.
  void agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) override;

  //! The NCCL communicator it runs on, and its device.
  ncclComm_t get() const noexcept { return comm_; }
  int device() const noexcept { return device_; }

 private:
  ncclComm_t comm_;
  int rank_ = 0, size_ = 1, device_ = 0;
  cudaStream_t side_ = nullptr;            //!< the agreement's stream
  std::int64_t* staged_ = nullptr;         //!< the agreement's device words (size_ + 1 times `words`)
  std::int64_t* pinned_ = nullptr;         //!< their host mirror
  std::size_t staged_words_ = 0;
  std::unique_ptr<detail::symmetric_path> symmetric_;  //!< null where NCCL's collectives carry the exchanges
  bool symmetric_checked_ = false;
  detail::symmetric_path* symmetric();  //!< set up at the first exchange (collective)
};

}  // namespace nccl
}  // namespace preduce
