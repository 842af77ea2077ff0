// SPDX-License-Identifier: Apache-2.0
// preduce: the NCCL adapter (nccl.hpp).
#include <preduce/nccl.hpp>

#include "nccl_symmetric.hpp"

#include <cstring>
#include <string>

#include <preduce/portable/gpu_check.hpp>
#include <preduce/error.hpp>

namespace preduce {
namespace nccl {
namespace {

using detail::check_nccl;
ncclDataType_t nccl_type(preduce::communicator::element type) {
  switch (type) {
    case preduce::communicator::element::u8: return ncclUint8;
    case preduce::communicator::element::i64: return ncclInt64;
    case preduce::communicator::element::f32: return ncclFloat;
    default: return ncclDouble;
  }
}
cudaStream_t stream_of(const queue& q, int device) {
  if (q.device() != device)
    throw error(errc::wrong_device, "allreduce: the queue runs on device " + std::to_string(q.device()) +
                                        " but the NCCL communicator on device " + std::to_string(device));
  return static_cast<cudaStream_t>(q.native_handle());
}

}  // namespace

communicator::communicator(ncclComm_t comm) : comm_(comm) {
  check_nccl(ncclCommUserRank(comm_, &rank_), "nccl::communicator: ncclCommUserRank");
  check_nccl(ncclCommCount(comm_, &size_), "nccl::communicator: ncclCommCount");
  check_nccl(ncclCommCuDevice(comm_, &device_), "nccl::communicator: ncclCommCuDevice");
  backend::device_guard d(device_);
  // The agreement's stream goes first where the local reduction leaves an SM slot free.
  int least = 0, greatest = 0;
  backend::check_gpu(cudaDeviceGetStreamPriorityRange(&least, &greatest), "nccl::communicator: cudaDeviceGetStreamPriorityRange");
  backend::check_gpu(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, greatest), "nccl::communicator: cudaStreamCreateWithPriority");
}

communicator::~communicator() {
  int previous = -1;
  (void)cudaGetDevice(&previous);
  (void)cudaSetDevice(device_);
  symmetric_.reset();
  if (side_) (void)cudaStreamSynchronize(side_);
  if (staged_) (void)cudaFree(staged_);
  if (pinned_) (void)cudaFreeHost(pinned_);
  if (side_) (void)cudaStreamDestroy(side_);
  if (previous >= 0) (void)cudaSetDevice(previous);
  (void)cudaGetLastError();
}

detail::symmetric_path* communicator::symmetric() {
  if (!symmetric_checked_) {
    symmetric_ = detail::symmetric_path::make(comm_, rank_, size_, device_, side_);
    symmetric_checked_ = true;
  }
  return symmetric_.get();
}

void communicator::allgather(const queue& q, const void* send, void* recv, std::size_t bytes) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  if (auto* s = symmetric()) return s->allgather(stream, send, recv, bytes);
  check_nccl(ncclAllGather(send, recv, bytes, ncclChar, comm_, stream), "allreduce: ncclAllGather");
}

void communicator::alltoall(const queue& q, const void* send, void* recv, std::size_t bytes) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  if (auto* s = symmetric()) return s->alltoall(stream, send, recv, bytes);
  const auto* in = static_cast<const char*>(send);
  auto* out = static_cast<char*>(recv);
  check_nccl(ncclGroupStart(), "allreduce: ncclGroupStart");
  for (int r = 0; r < size_; ++r) {
    check_nccl(ncclSend(in + std::size_t(r) * bytes, bytes, ncclChar, r, comm_, stream), "allreduce: ncclSend");
    check_nccl(ncclRecv(out + std::size_t(r) * bytes, bytes, ncclChar, r, comm_, stream), "allreduce: ncclRecv");
  }
  check_nccl(ncclGroupEnd(), "allreduce: ncclGroupEnd");
}

void communicator::allreduce(const queue& q, const void* send, void* recv, std::size_t count, element type, reduction op) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  if (auto* s = symmetric()) return s->allreduce(stream, send, recv, count, 1, type, op);
  check_nccl(ncclAllReduce(send, recv, count, nccl_type(type), op == reduction::max ? ncclMax : ncclSum, comm_, stream), "allreduce: ncclAllReduce");
}

void communicator::reduce_scatter(const queue& q, const void* send, void* recv, std::size_t count, element type) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  if (auto* s = symmetric()) return s->reduce_scatter(stream, send, recv, count, type);
  check_nccl(ncclReduceScatter(send, recv, count, nccl_type(type), ncclSum, comm_, stream), "allreduce: ncclReduceScatter");
}

bool communicator::ordered_sum(const queue& q, const void* send, void* recv, std::size_t count, std::size_t recv_stride, element type) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  auto* s = symmetric();
  if (!s || (type != element::f32 && type != element::f64)) return false;
  s->allreduce(stream, send, recv, count, recv_stride, type, reduction::sum);
  return true;
}

bool communicator::binned_sum(const queue& q, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count,
                              std::size_t recv_stride, element type, std::uint64_t terms) {
  backend::device_guard d(device_);
  const cudaStream_t stream = stream_of(q, device_);
  auto* s = symmetric();
  if (!s || (type != element::f32 && type != element::f64)) return false;
  s->binned_sum(stream, codes, limbs, recv, count, recv_stride, type, terms);
  return true;
}

void communicator::agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) {
  backend::device_guard d(device_);
  if (auto* s = symmetric(); s && s->agree(mine, all, words)) return;
  const std::size_t total = (std::size_t(size_) + 1) * words;
  if (total > staged_words_) {
    if (staged_) backend::check_gpu(cudaFree(staged_), "allreduce: cudaFree");
    if (pinned_) backend::check_gpu(cudaFreeHost(pinned_), "allreduce: cudaFreeHost");
    staged_ = nullptr;
    pinned_ = nullptr;
    staged_words_ = 0;
    backend::check_gpu(cudaMalloc(reinterpret_cast<void**>(&staged_), total * sizeof(std::int64_t)), "allreduce: cudaMalloc");
    backend::check_gpu(cudaMallocHost(reinterpret_cast<void**>(&pinned_), total * sizeof(std::int64_t)), "allreduce: cudaMallocHost");
    staged_words_ = total;
  }
  std::memcpy(pinned_, mine, words * sizeof(std::int64_t));
  backend::check_gpu(cudaMemcpyAsync(staged_, pinned_, words * sizeof(std::int64_t), cudaMemcpyHostToDevice, side_), "allreduce: cudaMemcpyAsync");
  check_nccl(ncclAllGather(staged_, staged_ + words, words, ncclInt64, comm_, side_), "allreduce: ncclAllGather (the agreement)");
  backend::check_gpu(cudaMemcpyAsync(pinned_ + words, staged_ + words, std::size_t(size_) * words * sizeof(std::int64_t), cudaMemcpyDeviceToHost, side_),
        "allreduce: cudaMemcpyAsync");
  backend::check_gpu(cudaStreamSynchronize(side_), "allreduce: waiting for the agreement");
  std::memcpy(all, pinned_ + words, std::size_t(size_) * words * sizeof(std::int64_t));
}

}  // namespace nccl
}  // namespace preduce
