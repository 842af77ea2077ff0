// SPDX-License-Identifier: Apache-2.0
// preduce hip: turning HIP runtime failures into preduce::error.
#pragma once

#include <hip/hip_runtime_api.h>

#include <string>

#include <preduce/error.hpp>

namespace preduce {
namespace backend {

//! Throws preduce::error for a failed HIP call: out_of_memory for allocation failures,
//! device_fault for everything else (a fault in a kernel, a lost context, a bad launch, no code
//! object for this GPU).
inline void throw_hip(hipError_t e, const char* what) {
  (void)hipGetLastError();  // clear a non-sticky error so the next call starts clean
  const errc c = e == hipErrorOutOfMemory ? errc::out_of_memory : errc::device_fault;
  throw error(c, std::string(what) + ": " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ")");
}

inline void check_hip(hipError_t e, const char* what) {
  if (e != hipSuccess) throw_hip(e, what);
}

//! Makes q's device current for a scope and restores the caller's device afterwards, so
//! launches on a queue of device k work whatever device the calling thread had selected.
class device_guard {
 public:
  explicit device_guard(int device) {
    check_hip(hipGetDevice(&previous_), "hipGetDevice");
    if (previous_ != device) check_hip(hipSetDevice(device), "hipSetDevice");
    else previous_ = -1;
  }
  ~device_guard() {
    if (previous_ >= 0) (void)hipSetDevice(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace backend
}  // namespace preduce
