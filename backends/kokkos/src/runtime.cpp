// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: queues, devices, memory, the per-queue result slot and device-side errors.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <preduce/backend/queue_state.hpp>
#include <preduce/detail/request.hpp>
#include <preduce/error.hpp>
#include <preduce/execution.hpp>
#include <preduce/memory.hpp>
#include <preduce/portable/builtin_dispatch.hpp>
#include <preduce/portable/segment_offsets.hpp>

namespace preduce {
namespace backend {
namespace {

using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

std::mutex init_mutex;
bool initialized_here = false;  // guarded by init_mutex
std::atomic<bool> ready{false};  // Kokkos is initialized (by anyone)

void finalize_at_exit() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

//! Kokkos reports failures as exceptions derived from std::exception; turn them into ours.
template <class F>
void translate(errc code, const std::string& context, F&& f) {
  try {
    f();
  } catch (const preduce::error&) {
    throw;
  } catch (const std::exception& e) {
    throw preduce::error(code, context + ": Kokkos: " + e.what());
  }
}

void* allocate(std::size_t bytes, const char* what) {
  void* p = nullptr;
  translate(errc::out_of_memory, std::string(what) + ": allocating " + std::to_string(bytes) + " bytes of device memory",
            [&] { p = Kokkos::kokkos_malloc<memory_space>(std::string("preduce::") + what, bytes); });
  return p;
}

// Memory freed after Kokkos::finalize (a global device_buffer or queue destroyed after the
// library finalized Kokkos at exit) is left to the process teardown: Kokkos aborts otherwise.
void release(void* p) noexcept {
  if (p == nullptr || !Kokkos::is_initialized()) return;
  try {
    Kokkos::kokkos_free<memory_space>(p);
  } catch (...) {  // a destructor path: nothing useful to do with a failure here
  }
}

//! Enqueues a copy of `bytes` from src (in SrcSpace) to dst (in DstSpace) on exec.
template <class DstSpace, class SrcSpace>
void enqueue_copy(const exec_space& exec, void* dst, const void* src, std::size_t bytes) {
  Kokkos::View<unsigned char*, DstSpace, unmanaged> d(static_cast<unsigned char*>(dst), bytes);
  Kokkos::View<const unsigned char*, SrcSpace, unmanaged> s(static_cast<const unsigned char*>(src), bytes);
  Kokkos::deep_copy(exec, d, s);
}

void check_device_index(int device, const char* function) {
  if (device != 0)
    throw preduce::error(errc::wrong_device, std::string(function) + ": device " + std::to_string(device) +
                                                 " does not exist: Kokkos drives one device per process (device 0)");
}

//! A new instance of the default execution space where Kokkos can make one (4.x:
//! partition_space gives CUDA and HIP a new stream); Kokkos 3 has no portable way, so the
//! queue shares the default instance (still in order; only concurrency between queues is lost).
exec_space new_instance() {
#if KOKKOS_VERSION >= 40000
  return Kokkos::Experimental::partition_space(exec_space(), 1)[0];
#else
  return exec_space();
#endif
}

}  // namespace

void ensure_initialized() {
  // `ready` (not Kokkos::is_initialized alone) makes the fast path race-free for threads that
  // meet here while another initializes.
  if (ready.load(std::memory_order_acquire) && Kokkos::is_initialized()) return;
  std::lock_guard<std::mutex> lock(init_mutex);
  if (Kokkos::is_initialized()) {
    ready.store(true, std::memory_order_release);
    return;
  }
#if KOKKOS_VERSION >= 40000
  const bool finalized = initialized_here || Kokkos::is_finalized();
#else
  const bool finalized = initialized_here;
#endif
  if (finalized) throw preduce::error(errc::unsupported, "Kokkos has been finalized; preduce cannot run any more work");
  Kokkos::initialize();
  initialized_here = true;
  ready.store(true, std::memory_order_release);
  // Registered after Kokkos's own statics exist, so it runs before they are destroyed; the
  // default queue, built after this, is destroyed before it.
  std::atexit(finalize_at_exit);
}

}  // namespace backend

// ---------------------------------------------------------------------------------------------
// queue_state
// ---------------------------------------------------------------------------------------------

namespace detail {

queue_state::queue_state(backend::exec_space instance, int device_id, std::shared_ptr<std::mutex> instance_lock)
    : exec(std::move(instance)), device(device_id), lock(std::move(instance_lock)), mutex(*lock),
      results(max_result_bytes, 64), statuses(sizeof(backend::device_status), 256) {}

queue_state::~queue_state() {
  if (Kokkos::is_initialized()) {
    try {
      exec.fence();
    } catch (...) {  // a destructor path: the fault was or will be reported elsewhere
    }
  }
  backend::release(workspace_);
  for (void* block : device_blocks_) backend::release(block);
}

namespace {
//! Adds a block of pool's size in memory_space, with a host mirror, to `pool`.
void grow(portable::slot_pool& pool, std::vector<void*>& blocks, std::vector<std::unique_ptr<unsigned char[]>>& mirrors, const char* what) {
  unsigned char* block = static_cast<unsigned char*>(backend::allocate(pool.block_bytes(), what));
  blocks.push_back(block);
  mirrors.emplace_back(new unsigned char[pool.block_bytes()]);
  pool.add_block(block, mirrors.back().get());
}
}  // namespace

backend::device_status* queue_state::status_slot_for_call() {
  std::uint32_t slot = statuses.take();
  if (slot == portable::slot_pool::none) {
    portable::reclaim_clean_verdicts(*this, [&] { fence("reduce_segments"); });
    slot = statuses.take();
  }
  if (slot == portable::slot_pool::none) {
    grow(statuses, device_blocks_, mirrors_, "status slots");
    slot = statuses.take();
  }
  verdicts.add(slot, false);
  return reinterpret_cast<backend::device_status*>(statuses.at(slot));
}

std::uint32_t queue_state::take_result_slot() {
  std::uint32_t slot = results.take();
  if (slot == portable::slot_pool::none) {
    grow(results, device_blocks_, mirrors_, "result slots");
    slot = results.take();
  }
  return slot;
}

void* queue_state::workspace(std::size_t bytes) {
  if (bytes > workspace_bytes_) {
    fence("workspace");  // enqueued work may still read the old workspace
    backend::release(workspace_);
    workspace_ = nullptr;
    workspace_bytes_ = 0;
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    workspace_ = backend::allocate(rounded, "queue workspace");
    workspace_bytes_ = rounded;
  }
  return workspace_;
}

void queue_state::fence(const char* function) {
  backend::translate(errc::device_fault, function, [&] { exec.fence(); });
}

void queue_state::synchronize(const char* function) {
  fence(function);
  portable::deliver_verdicts(*this);
}

void queue_state::read_status_blocks(const std::vector<std::size_t>& blocks) {
  backend::translate(errc::device_fault, "synchronize: reading offset verdicts", [&] {
    for (const std::size_t b : blocks)
      backend::enqueue_copy<Kokkos::HostSpace, backend::memory_space>(exec, statuses.block_mirror(b), statuses.block(b), statuses.block_bytes());
    exec.fence();
  });
}

std::uint64_t queue_state::bad_position(std::uint32_t slot) const {
  backend::device_status st;
  std::memcpy(&st, statuses.mirror_at(slot), sizeof st);
  return st.first_bad_offset == npos ? portable::no_verdict : st.first_bad_offset;
}

// ---------------------------------------------------------------------------------------------
// Memory (memory.hpp)
// ---------------------------------------------------------------------------------------------

namespace {
//! The live allocations of device_allocate (base -> bytes), so pointer checks can hold a range
//! inside the allocation it starts in where it is preduce's own (Kokkos has no query for memory
//! it did not allocate through us).
class allocations {
 public:
  void add(const void* p, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  void remove(const void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  //! The allocation holding p as {base, bytes}, or {0, 0}.
  std::pair<std::uintptr_t, std::size_t> holding(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.upper_bound(a);
    if (it == live_.begin()) return {0, 0};
    --it;
    return a - it->first < it->second ? *it : std::pair<const std::uintptr_t, std::size_t>{0, 0};
  }

 private:
  std::mutex mutex_;
  std::map<std::uintptr_t, std::size_t> live_;
};

//! Never destroyed: buffers in other static objects are freed at exit, after a static registry
//! would be gone.
allocations& preduce_allocations() {
  static allocations* const a = new allocations;
  return *a;
}
}  // namespace

void* device_allocate(const queue& q, std::size_t bytes) {
  (void)q;  // one device, one memory space: every queue allocates the same way
  backend::ensure_initialized();
  if (bytes == 0) return nullptr;
  void* p = backend::allocate(bytes, "device_buffer");
  preduce_allocations().add(p, bytes);
  return p;
}

void device_free(const queue& q, void* p) noexcept {
  if (p == nullptr || !Kokkos::is_initialized()) return;
  try {
    q.state().fence("device_buffer");  // the buffer may still be read by enqueued work
  } catch (...) {  // noexcept path: a fault surfaces at the queue's next synchronizing call
  }
  preduce_allocations().remove(p);
  backend::release(p);
}

namespace {
//! Copies bytes from SrcSpace to DstSpace on q's instance and waits for the copy.
template <class DstSpace, class SrcSpace>
void copy_bytes(const queue& q, void* dst, const void* src, std::size_t bytes, const char* function) {
  if (bytes == 0) return;
  if (dst == nullptr || src == nullptr) fail(errc::null_pointer, function, "null pointer");
  queue_state& s = q.state();
  backend::translate(errc::device_fault, function, [&] {
    backend::enqueue_copy<DstSpace, SrcSpace>(s.exec, dst, src, bytes);
    s.exec.fence();
  });
}
}  // namespace

void copy_to_device_bytes(const queue& q, void* d_dst, const void* h_src, std::size_t bytes) {
  copy_bytes<backend::memory_space, Kokkos::HostSpace>(q, d_dst, h_src, bytes, "copy_to_device");
}
void copy_to_host_bytes(const queue& q, void* h_dst, const void* d_src, std::size_t bytes) {
  copy_bytes<Kokkos::HostSpace, backend::memory_space>(q, h_dst, d_src, bytes, "copy_to_host");
}
void copy_on_device_bytes(const queue& q, void* d_dst, const void* d_src, std::size_t bytes) {
  copy_bytes<backend::memory_space, backend::memory_space>(q, d_dst, d_src, bytes, "copy_on_device");
}

// ---------------------------------------------------------------------------------------------
// Pointer checks (request.hpp)
// ---------------------------------------------------------------------------------------------

// Host execution spaces (Serial, OpenMP, Threads, HPX) reduce host memory: any address is
// "device memory". On Kokkos's CUDA backend the CUDA runtime tells host from device memory and
// which device owns it. Kokkos offers no such query for its other GPU backends (HIP, SYCL,
// OpenMPTarget): there a host pointer faults in the kernel (reported at the next synchronizing
// call, or by the backend's own abort). On every space, a range that starts inside memory of a
// preduce::device_buffer must end inside it.
void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<backend::exec_space, Kokkos::Cuda>::value) {
    cudaPointerAttributes attributes{};
    const cudaError_t rc = cudaPointerGetAttributes(&attributes, p);
    if (rc != cudaSuccess) (void)cudaGetLastError();  // older runtimes flag unregistered host memory; clear it
    if (rc != cudaSuccess || attributes.type == cudaMemoryTypeUnregistered || attributes.type == cudaMemoryTypeHost)
      fail(errc::not_device_memory, function, std::string(argument) + " is not device memory");
    if (attributes.type == cudaMemoryTypeDevice && attributes.device != q.state().exec.cuda_device())
      fail(errc::wrong_device, function,
           std::string(argument) + " is on device " + std::to_string(attributes.device) + ", not on Kokkos's device");
  }
#endif
  (void)q;
  const auto [base, size] = preduce_allocations().holding(p);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (size != 0 && bytes > size - (a - base))
    fail(errc::out_of_bounds, function,
         std::string(argument) + ": " + std::to_string(bytes) + " bytes from there run past the end of its device_buffer (" +
             std::to_string(size) + " bytes)");
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// queue and devices (execution.hpp)
// ---------------------------------------------------------------------------------------------

namespace {
//! The lock of the default execution space instance, which every default queue (and, before
//! Kokkos 4, every queue: new_instance) runs on.
std::shared_ptr<std::mutex> default_instance_lock() {
  static const auto lock = std::make_shared<std::mutex>();
  return lock;
}

//! The queue that queue() copies: the default instance, built on first use (after Kokkos is
//! initialized, so it is destroyed before the library finalizes Kokkos at exit).
const queue& default_queue() {
  static const queue q = queue::wrap(nullptr, 0);
  return q;
}
}  // namespace

queue::queue() : queue(default_queue()) {}

queue::queue(int device) {
  backend::check_device_index(device, "queue");
  backend::ensure_initialized();
#if KOKKOS_VERSION >= 40000
  state_ = std::make_shared<detail::queue_state>(backend::new_instance(), device, std::make_shared<std::mutex>());
#else
  state_ = std::make_shared<detail::queue_state>(backend::new_instance(), device, default_instance_lock());
#endif
}

// As on every backend, a native handle is the execution space's native stream (cudaStream_t
// under Kokkos::Cuda, hipStream_t under Kokkos::HIP), and null means the default instance.
// Host execution spaces have no native stream: only null is accepted there.
queue queue::wrap(void* native_handle, int device) {
  backend::check_device_index(device, "queue::wrap");
  backend::ensure_initialized();
  if (native_handle == nullptr)
    return queue(std::make_shared<detail::queue_state>(backend::exec_space(), device, default_instance_lock()));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<backend::exec_space, Kokkos::Cuda>::value)
    return queue(std::make_shared<detail::queue_state>(Kokkos::Cuda(static_cast<cudaStream_t>(native_handle)), device,
                                                       std::make_shared<std::mutex>()));
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<backend::exec_space, Kokkos::HIP>::value)
    return queue(std::make_shared<detail::queue_state>(Kokkos::HIP(static_cast<hipStream_t>(native_handle)), device,
                                                       std::make_shared<std::mutex>()));
#endif
  throw error(errc::unsupported, std::string("queue::wrap: Kokkos's ") + backend::exec_space::name() +
                                     " execution space has no native stream to wrap; pass nullptr for its default instance");
}

int queue::device() const noexcept { return state_->device; }

void* queue::native_handle() const noexcept {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<backend::exec_space, Kokkos::Cuda>::value) return state_->exec.cuda_stream();
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<backend::exec_space, Kokkos::HIP>::value) return state_->exec.hip_stream();
#endif
  return nullptr;
}

void queue::synchronize() const { state_->synchronize("synchronize"); }

int device_count() { return 1; }

const char* backend_name() noexcept { return "kokkos"; }

namespace detail {
bool device_memory_is_host_memory() noexcept {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, backend::memory_space>::accessible;
}
}  // namespace detail

std::string device_description(int device) {
  backend::check_device_index(device, "device_description");
  backend::ensure_initialized();
  const int v = KOKKOS_VERSION;
  const int threads = backend::exec_space().concurrency();
  return "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) + " " +
         backend::exec_space::name() + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// ---------------------------------------------------------------------------------------------
// The synchronous forms' result slot (portable/builtin_dispatch.hpp)
// ---------------------------------------------------------------------------------------------

namespace portable {

result_slot::result_slot(const queue& q, const char* function) : q_(q), function_(function) {
  detail::queue_state& s = q.state();
  std::lock_guard<std::mutex> lock(s.mutex);
  index_ = s.take_result_slot();
  device_ = s.results.at(index_);
  host_ = s.results.mirror_at(index_);
}

result_slot::~result_slot() {
  detail::queue_state& s = q_.state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.results.give_back(index_);
}

void result_slot::read(void* host, std::size_t bytes) {
  detail::queue_state& s = q_.state();
  s.synchronize(function_);
  backend::translate(errc::device_fault, function_, [&] {
    std::lock_guard<std::mutex> lock(s.mutex);
    backend::enqueue_copy<Kokkos::HostSpace, backend::memory_space>(s.exec, host, device_, bytes);
    s.exec.fence();
  });
}

}  // namespace portable
}  // namespace preduce
