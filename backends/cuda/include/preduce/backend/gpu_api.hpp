// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the CUDA runtime under the names the cuda and hip backends' shared host code
// uses (portable/gpu_check.hpp, src/gpu_runtime.cpp): one alias or forwarding call for each
// runtime type, constant and function they call, so that code is written once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace preduce {
namespace gpu {

constexpr const char* name = "CUDA";  //!< how messages name the runtime

using error_t = cudaError_t;
using stream_t = cudaStream_t;
using capture_mode_t = cudaStreamCaptureMode;
using capture_status_t = cudaStreamCaptureStatus;
using copy_kind_t = cudaMemcpyKind;

constexpr error_t success = cudaSuccess;
constexpr error_t out_of_memory = cudaErrorMemoryAllocation;
constexpr error_t no_device = cudaErrorNoDevice;
constexpr error_t insufficient_driver = cudaErrorInsufficientDriver;
constexpr error_t capture_implicit = cudaErrorStreamCaptureImplicit;  //!< asked of the default stream while another thread captures
constexpr copy_kind_t host_to_device = cudaMemcpyHostToDevice;
constexpr copy_kind_t device_to_host = cudaMemcpyDeviceToHost;
constexpr copy_kind_t device_to_device = cudaMemcpyDeviceToDevice;
constexpr capture_mode_t capture_relaxed = cudaStreamCaptureModeRelaxed;
constexpr capture_status_t capture_none = cudaStreamCaptureStatusNone;

inline error_t last_error() { return cudaGetLastError(); }
inline const char* error_name(error_t e) { return cudaGetErrorName(e); }
inline const char* error_string(error_t e) { return cudaGetErrorString(e); }
inline error_t get_device(int* device) { return cudaGetDevice(device); }
inline error_t set_device(int device) { return cudaSetDevice(device); }
inline error_t device_count(int* count) { return cudaGetDeviceCount(count); }
inline error_t malloc(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline error_t free(void* p) { return cudaFree(p); }
//! Pinned host memory (not mapped).
inline error_t malloc_host(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
//! Pinned host memory mapped into every device's address space.
inline error_t malloc_host_mapped(void** p, std::size_t bytes) { return cudaHostAlloc(p, bytes, cudaHostAllocMapped | cudaHostAllocPortable); }
inline error_t free_host(void* p) { return cudaFreeHost(p); }
inline error_t host_device_pointer(void** device, void* host) { return cudaHostGetDevicePointer(device, host, 0); }
inline error_t memset_async(void* p, int value, std::size_t bytes, stream_t s) { return cudaMemsetAsync(p, value, bytes, s); }
inline error_t memcpy_async(void* dst, const void* src, std::size_t bytes, copy_kind_t kind, stream_t s) {
  return cudaMemcpyAsync(dst, src, bytes, kind, s);
}
inline error_t stream_create(stream_t* s) { return cudaStreamCreate(s); }
inline error_t stream_create_nonblocking(stream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
inline error_t stream_destroy(stream_t s) { return cudaStreamDestroy(s); }
inline error_t stream_synchronize(stream_t s) { return cudaStreamSynchronize(s); }
inline error_t stream_is_capturing(stream_t s, capture_status_t* status) { return cudaStreamIsCapturing(s, status); }
inline error_t exchange_capture_mode(capture_mode_t* mode) { return cudaThreadExchangeStreamCaptureMode(mode); }

}  // namespace gpu
}  // namespace preduce
