// SPDX-License-Identifier: Apache-2.0
// preduce cuda: host glue: queues and their scratch, device memory, pointer checks, and
// turning device-side status and faults into preduce::error.
#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <preduce/detail/request.hpp>
#include <preduce/memory.hpp>
#include <preduce/portable/builtin_dispatch.hpp>
#include <preduce/portable/segment_offsets.hpp>
#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {

namespace detail {

queue_state::queue_state(int dev, cudaStream_t st, bool owns) : device(dev), stream(st), owns_stream(owns) {
  backend::device_guard g(device);
  backend::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device), "queue: reading the SM count");
  backend::check_cuda(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device),
                      "queue: reading the compute capability");
  int l2 = 0;
  backend::check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "queue: reading the L2 size");
  l2_bytes = std::size_t(l2);
  backend::check_cuda(cudaMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block)), "queue: allocating its control block");
  backend::check_cuda(cudaMemset(control, 0, sizeof(backend::control_block)), "queue: clearing its control block");
  backend::check_cuda(cudaMallocHost(&pinned_result, sizeof(backend::control_block::result)), "queue: allocating its pinned result");
  whole_grid_cap = backend::whole_grid_cap(sm_count, cc_major);
  const std::size_t slot_bytes = std::size_t(whole_grid_cap) * backend::partial_slot_elements * sizeof(*partial_slots);
  backend::check_cuda(cudaMalloc(reinterpret_cast<void**>(&partial_slots), slot_bytes), "queue: allocating the partial slots");
  backend::check_cuda(cudaMemset(partial_slots, 0, slot_bytes), "queue: clearing the partial slots");
  // Enough for the whole-array partials of every built-in reducer (at most 32 bytes each), so
  // those never grow the scratch.
  scratch(std::size_t(whole_grid_cap) * 32);
}

queue_state::~queue_state() {
  // Nothing here may throw; a faulted context makes these calls fail harmlessly.
  int previous = -1;
  (void)cudaGetDevice(&previous);
  (void)cudaSetDevice(device);
  (void)cudaStreamSynchronize(stream);
  if (workspace) (void)cudaFree(workspace);
  if (counters) (void)cudaFree(counters);
  for (void* p : retired_blocks) (void)cudaFree(p);
  (void)cudaFree(partial_slots);
  (void)cudaFree(control);
  (void)cudaFreeHost(pinned_result);
  if (owns_stream) (void)cudaStreamDestroy(stream);
  if (previous >= 0) (void)cudaSetDevice(previous);
  (void)cudaGetLastError();
}

namespace {
//! The doubling of `bytes` (starting from `first`) that reaches `wanted`.
std::size_t grown_size(std::size_t bytes, std::size_t wanted, std::size_t first) {
  std::size_t grown = bytes ? bytes : first;
  while (grown < wanted) grown *= 2;
  return grown;
}

//! Runs f with this thread's stream-capture mode relaxed, restoring it afterwards. cudaMalloc,
//! not a stream-ordered allocation, serves the queue's blocks: memory a graph allocates during
//! capture must be freed before the graph can be launched again. cudaMalloc (and the side
//! stream of clear_outside_capture) count as unsafe under the global capture mode.
template <class F>
void outside_capture(const char* what, F&& f) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  backend::check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "queue: entering relaxed capture mode");
  const cudaError_t e = f();
  backend::check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "queue: restoring the capture mode");
  backend::check_cuda(e, what);
}

//! Zeroes a block nothing has used yet, now, on a private non-blocking stream: never through the
//! queue's stream, which may be capturing (the memset would then run only when the graph does).
cudaError_t clear_outside_capture(void* block, std::size_t bytes) {
  cudaStream_t side = nullptr;
  cudaError_t e = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  if (e != cudaSuccess) return e;
  e = cudaMemsetAsync(block, 0, bytes, side);
  if (e == cudaSuccess) e = cudaStreamSynchronize(side);
  const cudaError_t d = cudaStreamDestroy(side);
  return e != cudaSuccess ? e : d;
}
}  // namespace

void* queue_state::scratch(std::size_t bytes) {
  if (bytes <= workspace_bytes) return workspace;
  const std::size_t grown = grown_size(workspace_bytes, bytes, 4096);
  void* block = nullptr;
  outside_capture("queue: allocating scratch", [&] { return cudaMalloc(&block, grown); });
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
  outside_capture("launch: reading a kernel's attributes", [&] { return cudaFuncGetAttributes(&attributes, kernel); });
  return kernel_overlaps[kernel] = attributes.ptxVersion >= 90;
}

unsigned* queue_state::zeroed_counters(std::size_t count) {
  const std::size_t bytes = count * sizeof(unsigned);
  if (bytes > counter_bytes) {
    const std::size_t grown = grown_size(counter_bytes, bytes, 4096);
    void* block = nullptr;
    outside_capture("queue: allocating counters", [&] {
      cudaError_t e = cudaMalloc(&block, grown);
      if (e == cudaSuccess) e = clear_outside_capture(block, grown);
      if (e != cudaSuccess && block) (void)cudaFree(block);
      return e;
    });
    if (counters) retired_blocks.push_back(counters);
    counters = block;
    counter_bytes = grown;
  }
  return static_cast<unsigned*>(counters);
}

void queue_state::synchronize_and_check() {
  backend::device_guard g(device);
  backend::check_cuda(cudaStreamSynchronize(stream), "synchronize");
  if (!may_have_device_status) return;
  backend::device_status st{};
  backend::check_cuda(cudaMemcpy(&st, &control->status, sizeof st, cudaMemcpyDeviceToHost), "synchronize: reading device status");
  may_have_device_status = false;
  if (st.code == 0) return;
  backend::check_cuda(cudaMemset(&control->status, 0, sizeof st), "synchronize: clearing device status");
  const auto code = static_cast<errc>(st.code - 1);
  const unsigned long long position = ~st.position;
  if (code == errc::bad_offsets) throw error(code, portable::bad_offsets_message(position));
  throw error(code, "a kernel reported " + std::string(to_string(code)) + " at position " + std::to_string(position));
}

namespace {
int checked_device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();
    return 0;
  }
  backend::check_cuda(e, "cudaGetDeviceCount");
  return count;
}

void check_device_index(int device) {
  const int count = checked_device_count();
  if (device < 0 || device >= count)
    throw error(errc::wrong_device, "queue: device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                                        " CUDA device(s) visible)");
}

// One default queue per device, created on first use, wrapping the legacy default stream.
std::shared_ptr<queue_state> default_state(int device) {
  static std::mutex m;
  static std::vector<std::shared_ptr<queue_state>> states;
  std::lock_guard<std::mutex> lock(m);
  if (states.empty()) states.resize(std::size_t(checked_device_count()));
  auto& s = states.at(std::size_t(device));
  if (!s) s = std::make_shared<queue_state>(device, nullptr, false);
  return s;
}
}  // namespace

void check_device_pointer(const queue& q, const void* p, std::size_t, const char* function, const char* argument) {
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (e == cudaErrorInvalidValue) a.type = cudaMemoryTypeUnregistered;
    else backend::throw_cuda(e, function);
  }
  const std::string where = std::string(function) + ": " + argument;
  if (a.type == cudaMemoryTypeUnregistered)
    throw error(errc::not_device_memory, where + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  if (a.type == cudaMemoryTypeDevice && a.device != q.device())
    throw error(errc::wrong_device, where + " lives on device " + std::to_string(a.device) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  if (a.type == cudaMemoryTypeHost && a.devicePointer == nullptr)
    throw error(errc::not_device_memory, where + " is pinned host memory not mapped into the device");
}

void* device_allocate(const queue& q, std::size_t bytes) {
  backend::device_guard g(q.device());
  void* p = nullptr;
  backend::check_cuda(cudaMalloc(&p, bytes), "device_buffer: cudaMalloc");
  return p;
}

void device_free(const queue& q, void* p) noexcept {
  int previous = -1;
  (void)cudaGetDevice(&previous);
  (void)cudaSetDevice(q.device());
  (void)cudaFree(p);
  if (previous >= 0) (void)cudaSetDevice(previous);
}

namespace {
void copy_bytes(const queue& q, void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* what) {
  if (bytes == 0) return;
  detail::queue_state& s = q.state();
  backend::device_guard g(s.device);
  backend::check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, s.stream), what);
  backend::check_cuda(cudaStreamSynchronize(s.stream), what);
}
}  // namespace

void copy_to_device_bytes(const queue& q, void* d, const void* h, std::size_t bytes) {
  copy_bytes(q, d, h, bytes, cudaMemcpyHostToDevice, "copy_to_device");
}
void copy_to_host_bytes(const queue& q, void* h, const void* d, std::size_t bytes) {
  copy_bytes(q, h, d, bytes, cudaMemcpyDeviceToHost, "copy_to_host");
}
void copy_on_device_bytes(const queue& q, void* d, const void* s, std::size_t bytes) {
  copy_bytes(q, d, s, bytes, cudaMemcpyDeviceToDevice, "copy_on_device");
}

}  // namespace detail

queue::queue() {
  int device = 0;
  if (detail::checked_device_count() == 0) throw error(errc::wrong_device, "queue: no CUDA device is visible");
  backend::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  state_ = detail::default_state(device);
}

queue::queue(int device) {
  detail::check_device_index(device);
  backend::device_guard g(device);
  cudaStream_t stream = nullptr;
  backend::check_cuda(cudaStreamCreate(&stream), "queue: cudaStreamCreate");
  state_ = std::make_shared<detail::queue_state>(device, stream, true);
}

queue queue::wrap(void* native_handle, int device) {
  detail::check_device_index(device);
  return queue(std::make_shared<detail::queue_state>(device, static_cast<cudaStream_t>(native_handle), false));
}

int queue::device() const noexcept { return state_->device; }
void* queue::native_handle() const noexcept { return state_->stream; }
void queue::synchronize() const { state_->synchronize_and_check(); }

int device_count() { return detail::checked_device_count(); }
const char* backend_name() noexcept { return "cuda"; }

std::string device_description(int device) {
  detail::check_device_index(device);
  cudaDeviceProp p{};
  backend::check_cuda(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  return std::string(p.name) + ", sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(p.totalGlobalMem >> 30) + " GiB, driver " +
         std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) + ", runtime " + std::to_string(runtime / 1000) +
         "." + std::to_string(runtime % 1000 / 10);
}

namespace portable {

void* result_scratch(const queue& q, std::size_t bytes) {
  if (bytes > sizeof(backend::control_block::result))
    throw error(errc::unsupported, "reduce: result type larger than the result slot (" + std::to_string(bytes) + " bytes)");
  return q.state().control->result;
}

void read_result(const queue& q, void* host, const void* d_slot, std::size_t bytes) {
  detail::queue_state& s = q.state();
  {
    backend::device_guard g(s.device);
    backend::check_cuda(cudaMemcpyAsync(s.pinned_result, d_slot, bytes, cudaMemcpyDeviceToHost, s.stream), "reduce: copying the result");
  }
  s.synchronize_and_check();
  std::memcpy(host, s.pinned_result, bytes);
}

}  // namespace portable
}  // namespace preduce
