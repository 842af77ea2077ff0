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

queue_state::queue_state(int dev, hipStream_t st, bool owns, bool wraps)
    : device(dev), stream(st), owns_stream(owns), wrapped(wraps), results(max_result_bytes, 64),
      statuses(sizeof(backend::device_status), 256) {
  backend::device_guard g(device);
  backend::check_hip(hipDeviceGetAttribute(&cu_count, hipDeviceAttributeMultiprocessorCount, device), "queue: reading the CU count");
  backend::check_hip(hipDeviceGetAttribute(&wave, hipDeviceAttributeWarpSize, device), "queue: reading the wavefront size");
  if (wave != 64 && wave != 32)
    throw error(errc::unsupported, "queue: device " + std::to_string(device) + " has wavefronts of " + std::to_string(wave) +
                                       " lanes; preduce's kernels exist for 64 and 32");
  backend::check_hip(hipMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block)), "queue: allocating its control block");
  backend::check_hip(hipMemset(control, 0, sizeof(backend::control_block)), "queue: clearing its control block");
}

queue_state::~queue_state() {
  // Nothing here may throw; a faulted context makes these calls fail harmlessly. A wrapped
  // stream is not touched (the caller may have destroyed it after its last call): hipFree waits
  // for the device's work, so no kernel still reads what is freed.
  int previous = -1;
  (void)hipGetDevice(&previous);
  (void)hipSetDevice(device);
  if (!wrapped) (void)hipStreamSynchronize(stream);
  if (workspace) (void)hipFree(workspace);
  for (void* p : device_blocks) (void)hipFree(p);
  (void)hipFree(control);
  for (void* p : host_blocks) (void)hipHostFree(p);
  if (side) (void)hipStreamDestroy(side);
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

namespace {
//! Whether `stream` is capturing a graph now.
bool capturing(hipStream_t stream) {
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  const hipError_t e = hipStreamIsCapturing(stream, &status);
  if (e == hipErrorStreamCaptureImplicit) {
    (void)hipGetLastError();
    return true;
  }
  backend::check_hip(e, "queue: asking whether its stream is capturing");
  return status != hipStreamCaptureStatusNone;
}

hipStream_t side_stream(queue_state& s) {
  if (s.side == nullptr) backend::check_hip(hipStreamCreateWithFlags(&s.side, hipStreamNonBlocking), "synchronize: creating a side stream");
  return s.side;
}
}  // namespace

backend::device_status* queue_state::status_slot_for_call() {
  const bool captured = capturing(stream);
  std::uint32_t slot = statuses.take();
  if (slot == portable::slot_pool::none && !captured) {
    portable::reclaim_clean_verdicts(*this, [&] { backend::check_hip(hipStreamSynchronize(stream), "reduce_segments: waiting for the queue"); });
    slot = statuses.take();
  }
  if (slot == portable::slot_pool::none) {
    void* block = nullptr;
    void* mirror = nullptr;
    backend::check_hip(hipMalloc(&block, statuses.block_bytes()), "reduce_segments: allocating status slots");
    device_blocks.push_back(block);
    backend::check_hip(hipMemset(block, 0, statuses.block_bytes()), "reduce_segments: clearing status slots");
    backend::check_hip(hipHostMalloc(&mirror, statuses.block_bytes(), hipHostMallocDefault), "reduce_segments: allocating status mirrors");
    host_blocks.push_back(mirror);
    statuses.add_block(static_cast<unsigned char*>(block), static_cast<unsigned char*>(mirror));
    slot = statuses.take();
  }
  verdicts.add(slot, captured);
  return reinterpret_cast<backend::device_status*>(statuses.at(slot));
}

void queue_state::refuse_capture(const char* function) const {
  if (capturing(stream))
    throw error(errc::invalid_argument, std::string(function) +
                                            ": the queue's stream is capturing a graph, and a synchronous call would have to wait "
                                            "inside the capture; use reduce_async and synchronize after launching the graph");
}

void queue_state::synchronize_and_check(const char* function) {
  refuse_capture(function);
  backend::device_guard g(device);
  backend::check_hip(hipStreamSynchronize(stream), function);
  portable::deliver_verdicts(*this);
}

void queue_state::read_status_blocks(const std::vector<std::size_t>& blocks) {
  backend::device_guard g(device);
  hipStream_t side = side_stream(*this);
  for (const std::size_t b : blocks)
    backend::check_hip(hipMemcpyAsync(statuses.block_mirror(b), statuses.block(b), statuses.block_bytes(), hipMemcpyDeviceToHost, side),
                       "synchronize: reading offset verdicts");
  backend::check_hip(hipStreamSynchronize(side), "synchronize: reading offset verdicts");
}

std::uint64_t queue_state::bad_position(std::uint32_t slot) const {
  backend::device_status st;
  std::memcpy(&st, statuses.mirror_at(slot), sizeof st);
  return st.code == 0 ? portable::no_verdict : ~st.position;
}

void queue_state::clear_status_slots(const std::vector<std::uint32_t>& slots) {
  backend::device_guard g(device);
  hipStream_t side = side_stream(*this);
  for (const std::uint32_t slot : slots)
    backend::check_hip(hipMemsetAsync(statuses.at(slot), 0, statuses.slot_bytes(), side), "synchronize: clearing offset verdicts");
  backend::check_hip(hipStreamSynchronize(side), "synchronize: clearing offset verdicts");
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
  if (!s) s = std::make_shared<queue_state>(device, nullptr, false, false);
  return s;
}
}  // namespace

void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument) {
  hipPointerAttribute_t a{};
  const hipError_t e = hipPointerGetAttributes(&a, p);
  const std::string where = std::string(function) + ": " + argument;
  if (e == hipErrorInvalidValue) {  // HIP 5.2's answer for memory it does not know: plain host memory
    (void)hipGetLastError();
    throw error(errc::not_device_memory, where + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  }
  if (e != hipSuccess) backend::throw_hip(e, function);
  if (!a.isManaged && a.memoryType == hipMemoryTypeDevice && a.device != q.device())
    throw error(errc::wrong_device, where + " lives on device " + std::to_string(a.device) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  if (a.memoryType == hipMemoryTypeHost && a.devicePointer == nullptr)
    throw error(errc::not_device_memory, where + " is pinned host memory not mapped into the device");
  // The allocation must hold all `bytes` (where the runtime reports its range).
  hipDeviceptr_t base = nullptr;
  std::size_t size = 0;
  if (hipMemGetAddressRange(&base, &size, const_cast<void*>(p)) != hipSuccess) {
    (void)hipGetLastError();
    return;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(p), start = reinterpret_cast<std::uintptr_t>(base);
  if (size != 0 && (at < start || at - start > size || bytes > size - (at - start)))
    throw error(errc::out_of_bounds, where + ": " + std::to_string(bytes) + " bytes from there run past the end of its allocation (" +
                                         std::to_string(size) + " bytes)");
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
  state_ = std::make_shared<detail::queue_state>(device, stream, true, false);
}

queue queue::wrap(void* native_handle, int device) {
  detail::check_device_index(device);
  const auto stream = static_cast<hipStream_t>(native_handle);
  if (stream != nullptr && stream != hipStreamPerThread) {
    const int owner = hipGetStreamDeviceId(stream);
    if (owner < 0) throw error(errc::invalid_argument, "queue::wrap: the handle is not a HIP stream");
    if (owner != device)
      throw error(errc::wrong_device, "queue::wrap: the stream belongs to device " + std::to_string(owner) + ", not device " +
                                          std::to_string(device));
  }
  return queue(std::make_shared<detail::queue_state>(device, stream, false, true));
}

int queue::device() const noexcept { return state_->device; }
void* queue::native_handle() const noexcept { return state_->stream; }
void queue::synchronize() const { state_->synchronize_and_check("synchronize"); }

int device_count() { return detail::checked_device_count(); }
const char* backend_name() noexcept { return "hip"; }

namespace detail {
bool device_memory_is_host_memory() noexcept { return false; }
}  // namespace detail

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

result_slot::result_slot(const queue& q, const char* function) : q_(q), function_(function) {
  detail::queue_state& s = q.state();
  s.refuse_capture(function);
  std::lock_guard<std::mutex> lock(s.mutex);
  index_ = s.results.take();
  if (index_ == slot_pool::none) {
    void* host = nullptr;
    void* device = nullptr;
    backend::check_hip(hipHostMalloc(&host, s.results.block_bytes(), hipHostMallocMapped | hipHostMallocPortable),
                       "reduce: allocating pinned result slots");
    s.host_blocks.push_back(host);
    backend::check_hip(hipHostGetDevicePointer(&device, host, 0), "reduce: mapping pinned result slots");
    s.results.add_block(static_cast<unsigned char*>(device), static_cast<unsigned char*>(host));
    index_ = s.results.take();
  }
  device_ = s.results.at(index_);
  host_ = s.results.mirror_at(index_);
}

result_slot::~result_slot() {
  detail::queue_state& s = q_.state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.results.give_back(index_);
}

void result_slot::read(void* host, std::size_t bytes) {
  q_.state().synchronize_and_check(function_);
  std::memcpy(host, host_, bytes);
}

}  // namespace portable
}  // namespace preduce
