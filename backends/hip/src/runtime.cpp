// SPDX-License-Identifier: Apache-2.0
// preduce hip: host glue: queues and their scratch, device memory, pointer checks, and turning
// device-side status and faults into preduce::error.
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
#include <preduce/backend/hip_runtime_check.hpp>
#include <preduce/backend/queue_state.hpp>

namespace preduce {

namespace detail {

queue_state::queue_state(int dev, hipStream_t st, bool owns) : device(dev), stream(st), owns_stream(owns) {
  backend::device_guard g(device);
  backend::check_hip(hipDeviceGetAttribute(&cu_count, hipDeviceAttributeMultiprocessorCount, device), "queue: reading the CU count");
  backend::check_hip(hipDeviceGetAttribute(&wave, hipDeviceAttributeWarpSize, device), "queue: reading the wavefront size");
  if (wave != 64 && wave != 32)
    throw error(errc::unsupported, "queue: device " + std::to_string(device) + " has wavefronts of " + std::to_string(wave) +
                                       " lanes; preduce's kernels exist for 64 and 32");
  backend::check_hip(hipMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block)), "queue: allocating its control block");
  backend::check_hip(hipMemset(control, 0, sizeof(backend::control_block)), "queue: clearing its control block");
  backend::check_hip(hipHostMalloc(&pinned_result, sizeof(backend::control_block::result), hipHostMallocDefault),
                     "queue: allocating its pinned result");
}

queue_state::~queue_state() {
  // Nothing here may throw; a faulted context makes these calls fail harmlessly.
  int previous = -1;
  (void)hipGetDevice(&previous);
  (void)hipSetDevice(device);
  (void)hipStreamSynchronize(stream);
  if (workspace) (void)hipFree(workspace);
  (void)hipFree(control);
  (void)hipHostFree(pinned_result);
  if (owns_stream) (void)hipStreamDestroy(stream);
  if (previous >= 0) (void)hipSetDevice(previous);
  (void)hipGetLastError();
}

void* queue_state::scratch(std::size_t bytes) {
  if (bytes <= workspace_bytes) return workspace;
  // HIP 5.2 documents hipMallocAsync as beta, so growth waits for the queue instead: work already
  // queued may still use the old block. Growth is rare (the largest grid times the largest
  // accumulator, once per queue).
  std::size_t grown = workspace_bytes ? workspace_bytes : 4096;
  while (grown < bytes) grown *= 2;
  backend::device_guard g(device);
  if (workspace) {
    backend::check_hip(hipStreamSynchronize(stream), "queue: waiting before growing scratch");
    backend::check_hip(hipFree(workspace), "queue: releasing scratch");
  }
  workspace = nullptr;
  workspace_bytes = 0;
  backend::check_hip(hipMalloc(&workspace, grown), "queue: allocating scratch");
  workspace_bytes = grown;
  return workspace;
}

void queue_state::synchronize_and_check() {
  backend::device_guard g(device);
  backend::check_hip(hipStreamSynchronize(stream), "synchronize");
  if (!may_have_device_status) return;
  backend::device_status st{};
  backend::check_hip(hipMemcpy(&st, &control->status, sizeof st, hipMemcpyDeviceToHost), "synchronize: reading device status");
  may_have_device_status = false;
  if (st.code == 0) return;
  backend::check_hip(hipMemset(&control->status, 0, sizeof st), "synchronize: clearing device status");
  const auto code = static_cast<errc>(st.code - 1);
  const unsigned long long position = ~st.position;
  if (code == errc::bad_offsets) throw error(code, portable::bad_offsets_message(position));
  throw error(code, "a kernel reported " + std::string(to_string(code)) + " at position " + std::to_string(position));
}

namespace {
int checked_device_count() {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e == hipErrorNoDevice || e == hipErrorInsufficientDriver) {
    (void)hipGetLastError();
    return 0;
  }
  backend::check_hip(e, "hipGetDeviceCount");
  return count;
}

void check_device_index(int device) {
  const int count = checked_device_count();
  if (device < 0 || device >= count)
    throw error(errc::wrong_device, "queue: device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                                        " HIP device(s) visible)");
}

// One default queue per device, created on first use, wrapping the null stream.
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
  hipPointerAttribute_t a{};
  const hipError_t e = hipPointerGetAttributes(&a, p);
  const std::string where = std::string(function) + ": " + argument;
  if (e == hipErrorInvalidValue) {  // HIP 5.2's answer for memory it does not know: plain host memory
    (void)hipGetLastError();
    throw error(errc::not_device_memory, where + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  }
  if (e != hipSuccess) backend::throw_hip(e, function);
  if (a.isManaged) return;  // managed memory is reachable from every device
  if (a.memoryType == hipMemoryTypeDevice && a.device != q.device())
    throw error(errc::wrong_device, where + " lives on device " + std::to_string(a.device) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  if (a.memoryType == hipMemoryTypeHost && a.devicePointer == nullptr)
    throw error(errc::not_device_memory, where + " is pinned host memory not mapped into the device");
}

void* device_allocate(const queue& q, std::size_t bytes) {
  backend::device_guard g(q.device());
  void* p = nullptr;
  backend::check_hip(hipMalloc(&p, bytes), "device_buffer: hipMalloc");
  return p;
}

void device_free(const queue& q, void* p) noexcept {
  int previous = -1;
  (void)hipGetDevice(&previous);
  (void)hipSetDevice(q.device());
  (void)hipFree(p);
  if (previous >= 0) (void)hipSetDevice(previous);
}

namespace {
void copy_bytes(const queue& q, void* dst, const void* src, std::size_t bytes, hipMemcpyKind kind, const char* what) {
  if (bytes == 0) return;
  detail::queue_state& s = q.state();
  backend::device_guard g(s.device);
  backend::check_hip(hipMemcpyAsync(dst, src, bytes, kind, s.stream), what);
  backend::check_hip(hipStreamSynchronize(s.stream), what);
}
}  // namespace

void copy_to_device_bytes(const queue& q, void* d, const void* h, std::size_t bytes) {
  copy_bytes(q, d, h, bytes, hipMemcpyHostToDevice, "copy_to_device");
}
void copy_to_host_bytes(const queue& q, void* h, const void* d, std::size_t bytes) {
  copy_bytes(q, h, d, bytes, hipMemcpyDeviceToHost, "copy_to_host");
}
void copy_on_device_bytes(const queue& q, void* d, const void* s, std::size_t bytes) {
  copy_bytes(q, d, s, bytes, hipMemcpyDeviceToDevice, "copy_on_device");
}

}  // namespace detail

queue::queue() {
  int device = 0;
  if (detail::checked_device_count() == 0) throw error(errc::wrong_device, "queue: no HIP device is visible");
  backend::check_hip(hipGetDevice(&device), "hipGetDevice");
  state_ = detail::default_state(device);
}

queue::queue(int device) {
  detail::check_device_index(device);
  backend::device_guard g(device);
  hipStream_t stream = nullptr;
  backend::check_hip(hipStreamCreate(&stream), "queue: hipStreamCreate");
  state_ = std::make_shared<detail::queue_state>(device, stream, true);
}

queue queue::wrap(void* native_handle, int device) {
  detail::check_device_index(device);
  return queue(std::make_shared<detail::queue_state>(device, static_cast<hipStream_t>(native_handle), false));
}

int queue::device() const noexcept { return state_->device; }
void* queue::native_handle() const noexcept { return state_->stream; }
void queue::synchronize() const { state_->synchronize_and_check(); }

int device_count() { return detail::checked_device_count(); }
const char* backend_name() noexcept { return "hip"; }

std::string device_description(int device) {
  detail::check_device_index(device);
  hipDeviceProp_t p{};
  backend::check_hip(hipGetDeviceProperties(&p, device), "hipGetDeviceProperties");
  int driver = 0, runtime = 0;
  (void)hipDriverGetVersion(&driver);
  (void)hipRuntimeGetVersion(&runtime);
  return std::string(p.name) + ", " + p.gcnArchName + ", " + std::to_string(p.multiProcessorCount) + " CUs, wave" +
         std::to_string(p.warpSize) + ", " + std::to_string(p.totalGlobalMem >> 30) + " GiB, driver " + std::to_string(driver) +
         ", runtime " + std::to_string(runtime);
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
    backend::check_hip(hipMemcpyAsync(s.pinned_result, d_slot, bytes, hipMemcpyDeviceToHost, s.stream), "reduce: copying the result");
  }
  s.synchronize_and_check();
  std::memcpy(host, s.pinned_result, bytes);
}

}  // namespace portable
}  // namespace preduce
