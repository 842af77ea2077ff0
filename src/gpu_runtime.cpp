// SPDX-License-Identifier: Apache-2.0
// preduce: the host runtime the cuda and hip backends share, written once over their runtime's
// names (<preduce/backend/gpu_api.hpp>): default queues and new ones, the queue state's shared
// half (detail::gpu_queue_core, portable/gpu_queue_state.hpp), the result slots of the
// synchronous calls (mapped pinned memory the kernels write into), the status slots that carry
// device-side verdicts back, synchronization that turns them and device faults into
// preduce::error, device memory and copies. Each backend's runtime.cpp has the rest
// (portable/gpu_runtime.hpp says what).
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <preduce/detail/request.hpp>
#include <preduce/memory.hpp>
#include <preduce/portable/builtin_dispatch.hpp>
#include <preduce/portable/gpu_runtime.hpp>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace detail {
namespace runtime {

gpu::error_t clear_outside_capture(void* block, std::size_t bytes) {
  gpu::stream_t side = nullptr;
  gpu::error_t e = gpu::stream_create_nonblocking(&side);
  if (e != gpu::success) return e;
  e = gpu::memset_async(block, 0, bytes, side);
  if (e == gpu::success) e = gpu::stream_synchronize(side);
  const gpu::error_t d = gpu::stream_destroy(side);
  return e != gpu::success ? e : d;
}

int checked_device_count() {
  int count = 0;
  const gpu::error_t e = gpu::device_count(&count);
  if (e == gpu::no_device || e == gpu::insufficient_driver) {
    (void)gpu::last_error();
    return 0;
  }
  backend::check_gpu(e, "counting the devices");
  return count;
}

void check_device_index(int device) {
  const int count = checked_device_count();
  if (device < 0 || device >= count)
    throw error(errc::wrong_device, "queue: device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " " +
                                        gpu::name + " device(s) visible)");
}

bool capturing(gpu::stream_t stream) {
  gpu::capture_status_t status = gpu::capture_none;
  const gpu::error_t e = gpu::stream_is_capturing(stream, &status);
  if (e == gpu::capture_implicit) {
    (void)gpu::last_error();
    return true;
  }
  backend::check_gpu(e, "queue: asking whether its stream is capturing");
  return status != gpu::capture_none;
}

namespace {

//! A block of `bytes` of pinned host memory, mapped into every device's address space; the
//! device pointer (equal to the host pointer under unified addressing) goes to *device_view.
unsigned char* mapped_host_block(std::size_t bytes, unsigned char** device_view) {
  void* host = nullptr;
  void* device = nullptr;
  outside_capture("queue: allocating pinned result slots", [&] {
    gpu::error_t e = gpu::malloc_host_mapped(&host, bytes);
    if (e == gpu::success) e = gpu::host_device_pointer(&device, host);
    if (e != gpu::success && host) (void)gpu::free_host(host);
    return e;
  });
  *device_view = static_cast<unsigned char*>(device);
  return static_cast<unsigned char*>(host);
}

gpu::stream_t side_stream(gpu_queue_core& s) {
  if (s.side == nullptr) backend::check_gpu(gpu::stream_create_nonblocking(&s.side), "synchronize: creating a side stream");
  return s.side;
}

//! One default queue per device, created on first use, wrapping the default stream (CUDA's
//! legacy default stream, HIP's null stream).
std::shared_ptr<queue_state> default_state(int device) {
  static std::mutex m;
  static std::vector<std::shared_ptr<queue_state>> states;
  std::lock_guard<std::mutex> lock(m);
  if (states.empty()) states.resize(std::size_t(checked_device_count()));
  auto& s = states.at(std::size_t(device));
  if (!s) s = std::make_shared<queue_state>(device, nullptr, false, false);
  return s;
}

void copy_bytes(const queue& q, void* dst, const void* src, std::size_t bytes, gpu::copy_kind_t kind, const char* what) {
  if (bytes == 0) return;
  queue_state& s = q.state();
  backend::device_guard g(s.device);
  backend::check_gpu(gpu::memcpy_async(dst, src, bytes, kind, s.stream), what);
  backend::check_gpu(gpu::stream_synchronize(s.stream), what);
}

}  // namespace
}  // namespace runtime

gpu_queue_core::gpu_queue_core(int dev, gpu::stream_t st, bool owns, bool wraps)
    : device(dev), stream(st), owns_stream(owns), wrapped(wraps), results(max_result_bytes, 64),
      statuses(sizeof(backend::device_status), 256) {}

int gpu_queue_core::quiesce() noexcept {
  int previous = -1;
  (void)gpu::get_device(&previous);
  (void)gpu::set_device(device);
  if (!wrapped) (void)gpu::stream_synchronize(stream);
  return previous;
}

void gpu_queue_core::release(int previous) noexcept {
  if (workspace) (void)gpu::free(workspace);
  for (void* p : device_blocks) (void)gpu::free(p);
  (void)gpu::free(control);
  for (void* p : host_blocks) (void)gpu::free_host(p);
  if (side) (void)gpu::stream_destroy(side);
  if (owns_stream) (void)gpu::stream_destroy(stream);
  if (previous >= 0) (void)gpu::set_device(previous);
  (void)gpu::last_error();
}

backend::device_status* gpu_queue_core::status_slot_for_call() {
  const bool captured = runtime::capturing(stream);
  std::uint32_t slot = statuses.take();
  if (slot == portable::slot_pool::none && !captured) {
    portable::reclaim_clean_verdicts(*this, [&] { backend::check_gpu(gpu::stream_synchronize(stream), "reduce_segments: waiting for the queue"); });
    slot = statuses.take();
  }
  if (slot == portable::slot_pool::none) {
    void* block = nullptr;
    void* mirror = nullptr;
    runtime::outside_capture("reduce_segments: allocating status slots", [&] {
      gpu::error_t e = gpu::malloc(&block, statuses.block_bytes());
      if (e == gpu::success) e = runtime::clear_outside_capture(block, statuses.block_bytes());
      if (e == gpu::success) e = gpu::malloc_host(&mirror, statuses.block_bytes());
      if (e != gpu::success && block) (void)gpu::free(block);
      return e;
    });
    device_blocks.push_back(block);
    host_blocks.push_back(mirror);
    statuses.add_block(static_cast<unsigned char*>(block), static_cast<unsigned char*>(mirror));
    slot = statuses.take();
  }
  verdicts.add(slot, captured);
  return reinterpret_cast<backend::device_status*>(statuses.at(slot));
}

void gpu_queue_core::refuse_capture(const char* function) const {
  if (runtime::capturing(stream))
    throw error(errc::invalid_argument, std::string(function) + ": the queue's stream is capturing a " + gpu::name +
                                            " graph, and a synchronous call would have to wait inside the capture; use reduce_async "
                                            "(its result lands in device memory when the graph runs) and synchronize after launching "
                                            "the graph");
}

void gpu_queue_core::synchronize_and_check(const char* function) {
  refuse_capture(function);
  backend::device_guard g(device);
  backend::check_gpu(gpu::stream_synchronize(stream), function);
  portable::deliver_verdicts(*this);
}

void gpu_queue_core::read_status_blocks(const std::vector<std::size_t>& blocks) {
  backend::device_guard g(device);
  gpu::stream_t side = runtime::side_stream(*this);
  for (const std::size_t b : blocks)
    backend::check_gpu(gpu::memcpy_async(statuses.block_mirror(b), statuses.block(b), statuses.block_bytes(), gpu::device_to_host, side),
                       "synchronize: reading offset verdicts");
  backend::check_gpu(gpu::stream_synchronize(side), "synchronize: reading offset verdicts");
}

std::uint64_t gpu_queue_core::bad_position(std::uint32_t slot) const {
  backend::device_status st;
  std::memcpy(&st, statuses.mirror_at(slot), sizeof st);
  return st.code == 0 ? portable::no_verdict : ~st.position;
}

void gpu_queue_core::clear_status_slots(const std::vector<std::uint32_t>& slots) {
  backend::device_guard g(device);
  gpu::stream_t side = runtime::side_stream(*this);
  for (const std::uint32_t slot : slots)
    backend::check_gpu(gpu::memset_async(statuses.at(slot), 0, statuses.slot_bytes(), side), "synchronize: clearing offset verdicts");
  backend::check_gpu(gpu::stream_synchronize(side), "synchronize: clearing offset verdicts");
}

void* device_allocate(const queue& q, std::size_t bytes) {
  backend::device_guard g(q.device());
  void* p = nullptr;
  backend::check_gpu(gpu::malloc(&p, bytes), "device_buffer: allocating device memory");
  return p;
}

void device_free(const queue& q, void* p) noexcept {
  int previous = -1;
  (void)gpu::get_device(&previous);
  (void)gpu::set_device(q.device());
  (void)gpu::free(p);
  if (previous >= 0) (void)gpu::set_device(previous);
}

void copy_to_device_bytes(const queue& q, void* d, const void* h, std::size_t bytes) {
  runtime::copy_bytes(q, d, h, bytes, gpu::host_to_device, "copy_to_device");
}
void copy_to_host_bytes(const queue& q, void* h, const void* d, std::size_t bytes) {
  runtime::copy_bytes(q, h, d, bytes, gpu::device_to_host, "copy_to_host");
}
void copy_on_device_bytes(const queue& q, void* d, const void* s, std::size_t bytes) {
  runtime::copy_bytes(q, d, s, bytes, gpu::device_to_device, "copy_on_device");
}

bool device_memory_is_host_memory() noexcept { return false; }

}  // namespace detail

queue::queue() {
  int device = 0;
  if (detail::runtime::checked_device_count() == 0) throw error(errc::wrong_device, std::string("queue: no ") + gpu::name + " device is visible");
  backend::check_gpu(gpu::get_device(&device), "queue: getting the current device");
  state_ = detail::runtime::default_state(device);
}

queue::queue(int device) {
  detail::runtime::check_device_index(device);
  backend::device_guard g(device);
  gpu::stream_t stream = nullptr;
  backend::check_gpu(gpu::stream_create(&stream), "queue: creating its stream");
  state_ = std::make_shared<detail::queue_state>(device, stream, true, false);
}

int queue::device() const noexcept { return state_->device; }
void* queue::native_handle() const noexcept { return state_->stream; }
void queue::synchronize() const { state_->synchronize_and_check("synchronize"); }

int device_count() { return detail::runtime::checked_device_count(); }

namespace portable {

result_slot::result_slot(const queue& q, const char* function) : q_(q), function_(function) {
  detail::queue_state& s = q.state();
  s.refuse_capture(function);
  std::lock_guard<std::mutex> lock(s.mutex);
  index_ = s.results.take();
  if (index_ == slot_pool::none) {
    unsigned char* device_view = nullptr;
    unsigned char* host = detail::runtime::mapped_host_block(s.results.block_bytes(), &device_view);
    s.host_blocks.push_back(host);
    s.results.add_block(device_view, host);
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
