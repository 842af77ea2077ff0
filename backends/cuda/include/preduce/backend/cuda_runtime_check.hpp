// SPDX-License-Identifier: Apache-2.0
// preduce cuda: turning CUDA runtime failures into preduce::error.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include <preduce/error.hpp>

namespace preduce {
namespace backend {

//! Throws preduce::error for a failed CUDA call: out_of_memory for allocation failures,
//! device_fault for everything else (a fault in a kernel, a lost context, a bad launch).
inline void throw_cuda(cudaError_t e, const char* what) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  const errc c = e == cudaErrorMemoryAllocation ? errc::out_of_memory : errc::device_fault;
  throw error(c, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw_cuda(e, what);
}

//! Makes q's device current for a scope and restores the caller's device afterwards, so
//! launches on a queue of device k work whatever device the calling thread had selected.
class device_guard {
 public:
  explicit device_guard(int device) {
    check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice");
    else previous_ = -1;
  }
  ~device_guard() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace backend
}  // namespace preduce
