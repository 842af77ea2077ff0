// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the host runtime's CUDA-only half: a queue's state (its device's shape, control
// block, partial slots), scratch and counters grown outside any graph capture, the
// programmatic-launch check, pointer checks through the driver, queue::wrap and the device
// description. src/gpu_runtime.cpp has the half shared with the hip backend.
#include <cuda.h>  // the driver's pointer attributes (types only: no libcuda link)
#include <cuda_runtime_api.h>

#include <cstdio>
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
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {

namespace detail {

queue_state::queue_state(int dev, cudaStream_t st, bool owns, bool wraps)
    : gpu_queue_core(dev, st, owns, wraps) {
  backend::device_guard g(device);
  backend::check_gpu(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device), "queue: reading the SM count");
  backend::check_gpu(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device),
                      "queue: reading the compute capability");
  int l2 = 0;
  backend::check_gpu(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "queue: reading the L2 size");
  l2_bytes = std::size_t(l2);
  // A queue may be made while its stream captures a graph (a framework's capture stream, met
  // first inside the capture): allocate and clear outside it.
  runtime::outside_capture("queue: allocating its control block", [&] {
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block));
    if (e == cudaSuccess) e = runtime::clear_outside_capture(control, sizeof(backend::control_block));
    return e;
  });
  whole_grid_cap = backend::whole_grid_cap(sm_count, cc_major);
  const std::size_t slot_bytes = std::size_t(whole_grid_cap) * backend::partial_slot_elements * sizeof(*partial_slots);
  runtime::outside_capture("queue: allocating the partial slots", [&] {
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&partial_slots), slot_bytes);
    if (e == cudaSuccess) e = runtime::clear_outside_capture(partial_slots, slot_bytes);
    return e;
  });
  // Enough for the whole-array partials of every built-in reducer (at most 32 bytes each), so
  // those never grow the scratch.
  scratch(std::size_t(whole_grid_cap) * 32);
}

queue_state::~queue_state() {
  const int previous = quiesce();
  if (counters) (void)cudaFree(counters);
  for (void* p : retired_blocks) (void)cudaFree(p);
  (void)cudaFree(partial_slots);
  release(previous);
}

void* queue_state::scratch(std::size_t bytes) {
  if (bytes <= workspace_bytes) return workspace;
  const std::size_t grown = runtime::grown_size(workspace_bytes, bytes, 4096);
  void* block = nullptr;
  runtime::outside_capture("queue: allocating scratch", [&] { return cudaMalloc(&block, grown); });
  if (workspace) retired_blocks.push_back(workspace);
  workspace = block;
  workspace_bytes = grown;
  return workspace;
}

bool queue_state::overlaps_prior_grid(const void* kernel) {
  if (cc_major < 9) return false;
  const auto known = kernel_overlaps.find(kernel);
  if (known != kernel_overlaps.end()) return known->second;
  cudaFuncAttributes attributes{};
  runtime::outside_capture("launch: reading a kernel's attributes", [&] { return cudaFuncGetAttributes(&attributes, kernel); });
  return kernel_overlaps[kernel] = attributes.ptxVersion >= 90;
}

unsigned* queue_state::zeroed_counters(std::size_t count) {
  const std::size_t bytes = count * sizeof(unsigned);
  if (bytes > counter_bytes) {
    const std::size_t grown = runtime::grown_size(counter_bytes, bytes, 4096);
    void* block = nullptr;
    runtime::outside_capture("queue: allocating counters", [&] {
      cudaError_t e = cudaMalloc(&block, grown);
      if (e == cudaSuccess) e = runtime::clear_outside_capture(block, grown);
      if (e != cudaSuccess && block) (void)cudaFree(block);
      return e;
    });
    if (counters) retired_blocks.push_back(counters);
    counters = block;
    counter_bytes = grown;
  }
  return static_cast<unsigned*>(counters);
}

namespace {
//! What the driver knows of an address: one cuPointerGetAttributes call (about 0.14 us on an
//! H100; docs/reliability.md#latency), reached through the runtime's entry-point table so that
//! libpreduce links no libcuda.
struct pointer_facts {
  unsigned type = 0;  //!< CUmemorytype; 0 where the driver does not know the address
  int ordinal = -1;
  CUdeviceptr start = 0;
  std::size_t size = 0;
  unsigned long long buffer_id = 0;
  CUdeviceptr device_pointer = 0;
  int managed = 0;
};

pointer_facts ask_driver(const void* p) {
  using get_attributes = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  static const get_attributes get = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    backend::check_gpu(cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault, &found),
                        "queue: finding cuPointerGetAttributes");
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
      throw error(errc::unsupported, "queue: the CUDA driver has no cuPointerGetAttributes");
    return reinterpret_cast<get_attributes>(fn);
  }();
  pointer_facts f;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                 CU_POINTER_ATTRIBUTE_BUFFER_ID,        CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* data[] = {&f.type, &f.ordinal, &f.start, &f.size, &f.buffer_id, &f.device_pointer, &f.managed};
  const CUresult e = get(unsigned(sizeof which / sizeof which[0]), which, data, reinterpret_cast<CUdeviceptr>(p));
  if (e != CUDA_SUCCESS) throw error(errc::device_fault, "cuPointerGetAttributes failed with CUresult " + std::to_string(int(e)));
  if (f.type == 0) return pointer_facts{};  // the outputs of an unknown address are not all written
  return f;
}

//! Device allocations that calls have used, so that a pointer into one that has since been
//! freed is named so, not called host memory. The driver keeps a freed range's addresses out of
//! host allocations, so an unknown address inside one was device memory. Bounded: the most
//! recent `kept` allocations.
class used_allocations {
 public:
  void note(const pointer_facts& f) {
    // A call names up to four allocations (input, dot's second input, offsets, output): a
    // thread that repeats its calls finds them here and takes no lock.
    thread_local unsigned long long recent[4] = {};
    thread_local unsigned next_recent = 0;
    for (unsigned long long id : recent)
      if (id == f.buffer_id) return;
    recent[next_recent++ % 4] = f.buffer_id;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& a : seen_)
      if (a.buffer_id == f.buffer_id) return;
    if (seen_.size() < kept) seen_.push_back({f.start, f.size, f.buffer_id});
    else seen_[next_++ % kept] = {f.start, f.size, f.buffer_id};
  }
  //! The size of a noted allocation holding p, or 0.
  std::size_t holding(const void* p, CUdeviceptr* start) {
    const auto a = reinterpret_cast<CUdeviceptr>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& r : seen_)
      if (r.start <= a && a - r.start < r.size) {
        *start = r.start;
        return r.size;
      }
    return 0;
  }

 private:
  static constexpr std::size_t kept = 256;
  struct range {
    CUdeviceptr start;
    std::size_t size;
    unsigned long long buffer_id;
  };
  std::mutex mutex_;
  std::vector<range> seen_;
  std::size_t next_ = 0;
};

//! Never destroyed, so calls from other static objects' destructors at exit find it.
used_allocations& used() {
  static used_allocations* const u = new used_allocations;
  return *u;
}

std::string hex(std::uintptr_t v) {
  char b[2 + 16 + 1];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument) {
  const pointer_facts f = ask_driver(p);
  // The message's prefix is made only for a refusal: an accepted call builds no string.
  auto where = [&] { return std::string(function) + ": " + argument + " (" + hex(reinterpret_cast<std::uintptr_t>(p)) + ")"; };
  if (f.type == 0) {
    CUdeviceptr start = 0;
    if (const std::size_t size = used().holding(p, &start))
      throw error(errc::not_device_memory, where() + " points into device memory that has been freed (an allocation of " +
                                               std::to_string(size) + " bytes at " + hex(start) + " that an earlier call used)");
    throw error(errc::not_device_memory, where() + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  }
  if (f.type == CU_MEMORYTYPE_HOST && f.device_pointer == 0)
    throw error(errc::not_device_memory, where() + " is pinned host memory not mapped into the device");
  if (f.type == CU_MEMORYTYPE_DEVICE && !f.managed && f.ordinal != q.device())
    throw error(errc::wrong_device, where() + " lives on device " + std::to_string(f.ordinal) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  // The allocation (for memory mapped through CUDA's virtual memory calls, the reserved range)
  // must hold all `bytes`.
  const auto a = reinterpret_cast<CUdeviceptr>(p);
  if (f.size != 0 && (a < f.start || a - f.start > f.size || bytes > f.size - (a - f.start)))
    throw error(errc::out_of_bounds, where() + ": " + std::to_string(bytes) + " bytes from there run past the end of its allocation (" +
                                         std::to_string(f.size) + " bytes at " + hex(f.start) + ")");
  if (f.type == CU_MEMORYTYPE_DEVICE) used().note(f);
}

}  // namespace detail

queue queue::wrap(void* native_handle, int device) {
  detail::runtime::check_device_index(device);
  const auto stream = static_cast<cudaStream_t>(native_handle);
  // The legacy and per-thread default streams (null, cudaStreamLegacy, cudaStreamPerThread)
  // belong to whichever device is current when work is queued: the queue's, here.
  // A capturing stream cannot be asked its device (and asking would end the capture): the
  // caller's word stands for it.
  if (stream != nullptr && stream != cudaStreamLegacy && stream != cudaStreamPerThread && !detail::runtime::capturing(stream)) {
    int owner = -1;
    const cudaError_t e = cudaStreamGetDevice(stream, &owner);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw error(errc::invalid_argument, std::string("queue::wrap: the handle is not a CUDA stream (") + cudaGetErrorName(e) + ")");
    }
    if (owner != device)
      throw error(errc::wrong_device, "queue::wrap: the stream belongs to device " + std::to_string(owner) + ", not device " +
                                          std::to_string(device));
  }
  return queue(std::make_shared<detail::queue_state>(device, stream, false, true));
}

const char* backend_name() noexcept { return "cuda"; }

std::string device_description(int device) {
  detail::runtime::check_device_index(device);
  cudaDeviceProp p{};
  backend::check_gpu(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  return std::string(p.name) + ", sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(p.totalGlobalMem >> 30) + " GiB, driver " +
         std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) + ", runtime " + std::to_string(runtime / 1000) +
         "." + std::to_string(runtime % 1000 / 10);
}

}  // namespace preduce
