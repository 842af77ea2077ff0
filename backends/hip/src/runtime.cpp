// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host runtime's HIP-only half: a queue's state (its device's compute units and
// wavefront size, control block), scratch, pointer checks, queue::wrap and the device
// description. src/gpu_runtime.cpp has the half shared with the cuda backend.
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <preduce/detail/request.hpp>
#include <preduce/memory.hpp>
#include <preduce/portable/builtin_dispatch.hpp>
#include <preduce/portable/segment_offsets.hpp>
#include <preduce/portable/gpu_runtime.hpp>
#include <preduce/backend/queue_state.hpp>

namespace preduce {

namespace detail {

queue_state::queue_state(int dev, hipStream_t st, bool owns, bool wraps)
    : gpu_queue_core(dev, st, owns, wraps) {
  backend::device_guard g(device);
  backend::check_gpu(hipDeviceGetAttribute(&cu_count, hipDeviceAttributeMultiprocessorCount, device), "queue: reading the CU count");
  backend::check_gpu(hipDeviceGetAttribute(&wave, hipDeviceAttributeWarpSize, device), "queue: reading the wavefront size");
  if (wave != 64 && wave != 32)
    throw error(errc::unsupported, "queue: device " + std::to_string(device) + " has wavefronts of " + std::to_string(wave) +
                                       " lanes; preduce's kernels exist for 64 and 32");
  // A queue may be made while its stream captures a graph: allocate and clear outside it.
  runtime::outside_capture("queue: allocating its control block", [&] {
    hipError_t e = hipMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block));
    if (e == hipSuccess) e = runtime::clear_outside_capture(control, sizeof(backend::control_block));
    return e;
  });
}

queue_state::~queue_state() { release(quiesce()); }

void* queue_state::scratch(std::size_t bytes) {
  if (bytes <= workspace_bytes) return workspace;
  // HIP 5.2 documents hipMallocAsync as beta, so growth waits for the queue instead: work already
  // queued may still use the old block. Growth is rare (the largest grid times the largest
  // accumulator, once per queue).
  const std::size_t grown = runtime::grown_size(workspace_bytes, bytes, 4096);
  backend::device_guard g(device);
  if (workspace) {
    backend::check_gpu(hipStreamSynchronize(stream), "queue: waiting before growing scratch");
    backend::check_gpu(hipFree(workspace), "queue: releasing scratch");
  }
  workspace = nullptr;
  workspace_bytes = 0;
  backend::check_gpu(hipMalloc(&workspace, grown), "queue: allocating scratch");
  workspace_bytes = grown;
  return workspace;
}

void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument) {
  hipPointerAttribute_t a{};
  const hipError_t e = hipPointerGetAttributes(&a, p);
  auto where = [&] { return std::string(function) + ": " + argument; };  // made only for a refusal
  if (e == hipErrorInvalidValue) {  // HIP 5.2's answer for memory it does not know: plain host memory
    (void)hipGetLastError();
    throw error(errc::not_device_memory, where() + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  }
  if (e != hipSuccess) backend::throw_gpu(e, function);
  if (!a.isManaged && a.memoryType == hipMemoryTypeDevice && a.device != q.device())
    throw error(errc::wrong_device, where() + " lives on device " + std::to_string(a.device) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  if (a.memoryType == hipMemoryTypeHost && a.devicePointer == nullptr)
    throw error(errc::not_device_memory, where() + " is pinned host memory not mapped into the device");
  // The allocation must hold all `bytes` (where the runtime reports its range).
  hipDeviceptr_t base = nullptr;
  std::size_t size = 0;
  if (hipMemGetAddressRange(&base, &size, const_cast<void*>(p)) != hipSuccess) {
    (void)hipGetLastError();
    return;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(p), start = reinterpret_cast<std::uintptr_t>(base);
  if (size != 0 && (at < start || at - start > size || bytes > size - (at - start)))
    throw error(errc::out_of_bounds, where() + ": " + std::to_string(bytes) + " bytes from there run past the end of its allocation (" +
                                         std::to_string(size) + " bytes)");
}

}  // namespace detail

queue queue::wrap(void* native_handle, int device) {
  detail::runtime::check_device_index(device);
  const auto stream = static_cast<hipStream_t>(native_handle);
  if (stream != nullptr && stream != hipStreamPerThread && !detail::runtime::capturing(stream)) {
    const int owner = hipGetStreamDeviceId(stream);
    if (owner < 0) throw error(errc::invalid_argument, "queue::wrap: the handle is not a HIP stream");
    if (owner != device)
      throw error(errc::wrong_device, "queue::wrap: the stream belongs to device " + std::to_string(owner) + ", not device " +
                                          std::to_string(device));
  }
  return queue(std::make_shared<detail::queue_state>(device, stream, false, true));
}

const char* backend_name() noexcept { return "hip"; }

std::string device_description(int device) {
  detail::runtime::check_device_index(device);
  hipDeviceProp_t p{};
  backend::check_gpu(hipGetDeviceProperties(&p, device), "hipGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  return std::string(p.name) + ", " + p.gcnArchName + ", " + std::to_string(p.multiProcessorCount) + " CUs, wave" +
         std::to_string(p.warpSize) + ", " + std::to_string(p.totalGlobalMem >> 30) + " GiB, driver " + std::to_string(driver) +
         ", runtime " + std::to_string(runtime);
}

}  // namespace preduce
