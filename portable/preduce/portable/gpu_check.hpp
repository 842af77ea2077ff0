// SPDX-License-Identifier: Apache-2.0
// preduce: turning CUDA and HIP runtime failures into preduce::error, and the scoped current
// device: written once for the cuda and hip backends over their runtime's names
// (<preduce/backend/gpu_api.hpp>, which only those two backends have).
#pragma once

#include <string>

#include <preduce/error.hpp>

#include <preduce/backend/gpu_api.hpp>

namespace preduce {
namespace backend {

//! Throws preduce::error for a failed runtime call: out_of_memory for allocation failures,
//! device_fault for everything else (a fault in a kernel, a lost context, a bad launch, no code
//! object for this GPU).
inline void throw_gpu(gpu::error_t e, const char* what) {
  (void)gpu::last_error();  // clear a non-sticky error so the next call starts clean
  const errc c = e == gpu::out_of_memory ? errc::out_of_memory : errc::device_fault;
  throw error(c, std::string(what) + ": " + gpu::error_name(e) + " (" + gpu::error_string(e) + ")");
}

inline void check_gpu(gpu::error_t e, const char* what) {
  if (e != gpu::success) throw_gpu(e, what);
}

//! Makes q's device current for a scope and restores the caller's device afterwards, so
//! launches on a queue of device k work whatever device the calling thread had selected.
class device_guard {
 public:
  explicit device_guard(int device) {
    check_gpu(gpu::get_device(&previous_), "getting the current device");
    if (previous_ != device) check_gpu(gpu::set_device(device), "setting the current device");
    else previous_ = -1;
  }
  ~device_guard() {
    if (previous_ >= 0) (void)gpu::set_device(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace backend
}  // namespace preduce
