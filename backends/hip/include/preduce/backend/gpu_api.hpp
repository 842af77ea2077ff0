// SPDX-License-Identifier: Apache-2.0
// preduce hip: the HIP runtime under the names the cuda and hip backends' shared host code
// uses (portable/gpu_check.hpp, src/gpu_runtime.cpp): one alias or forwarding call for each
// runtime type, constant and function they call, so that code is written once.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>

namespace preduce {
namespace gpu {

constexpr const char* name = "HIP";  //!< how messages name the runtime

using error_t = hipError_t;
using stream_t = hipStream_t;
using capture_mode_t = hipStreamCaptureMode;
using capture_status_t = hipStreamCaptureStatus;
using copy_kind_t = hipMemcpyKind;

constexpr error_t success = hipSuccess;
constexpr error_t out_of_memory = hipErrorOutOfMemory;
constexpr error_t no_device = hipErrorNoDevice;
constexpr error_t insufficient_driver = hipErrorInsufficientDriver;
constexpr error_t capture_implicit = hipErrorStreamCaptureImplicit;  //!< asked of the default stream while another thread captures
constexpr copy_kind_t host_to_device = hipMemcpyHostToDevice;
constexpr copy_kind_t device_to_host = hipMemcpyDeviceToHost;
constexpr copy_kind_t device_to_device = hipMemcpyDeviceToDevice;
constexpr capture_mode_t capture_relaxed = hipStreamCaptureModeRelaxed;
constexpr capture_status_t capture_none = hipStreamCaptureStatusNone;

inline error_t last_error() { return hipGetLastError(); }
inline const char* error_name(error_t e) { return hipGetErrorName(e); }
inline const char* error_string(error_t e) { return hipGetErrorString(e); }
inline error_t get_device(int* device) { return hipGetDevice(device); }
inline error_t set_device(int device) { return hipSetDevice(device); }
inline error_t device_count(int* count) { return hipGetDeviceCount(count); }
inline error_t malloc(void** p, std::size_t bytes) { return hipMalloc(p, bytes); }
inline error_t free(void* p) { return hipFree(p); }
//! Pinned host memory (not mapped).
inline error_t malloc_host(void** p, std::size_t bytes) { return hipHostMalloc(p, bytes, hipHostMallocDefault); }
//! Pinned host memory mapped into every device's address space.
inline error_t malloc_host_mapped(void** p, std::size_t bytes) { return hipHostMalloc(p, bytes, hipHostMallocMapped | hipHostMallocPortable); }
inline error_t free_host(void* p) { return hipHostFree(p); }
inline error_t host_device_pointer(void** device, void* host) { return hipHostGetDevicePointer(device, host, 0); }
inline error_t memset_async(void* p, int value, std::size_t bytes, stream_t s) { return hipMemsetAsync(p, value, bytes, s); }
inline error_t memcpy_async(void* dst, const void* src, std::size_t bytes, copy_kind_t kind, stream_t s) {
  return hipMemcpyAsync(dst, src, bytes, kind, s);
}
inline error_t stream_create(stream_t* s) { return hipStreamCreate(s); }
inline error_t stream_create_nonblocking(stream_t* s) { return hipStreamCreateWithFlags(s, hipStreamNonBlocking); }
inline error_t stream_destroy(stream_t s) { return hipStreamDestroy(s); }
inline error_t stream_synchronize(stream_t s) { return hipStreamSynchronize(s); }
inline error_t stream_is_capturing(stream_t s, capture_status_t* status) { return hipStreamIsCapturing(s, status); }
inline error_t exchange_capture_mode(capture_mode_t* mode) { return hipThreadExchangeStreamCaptureMode(mode); }

}  // namespace gpu
}  // namespace preduce
