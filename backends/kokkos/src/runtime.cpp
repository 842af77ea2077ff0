// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: queues, devices, memory, the per-queue result slot and device-side errors.
#include <cstdlib>
#include <cstring>
#include <exception>
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

constexpr device_status no_error{npos, npos};

}  // namespace

void ensure_initialized() {
  if (Kokkos::is_initialized()) return;
  std::lock_guard<std::mutex> lock(init_mutex);
  if (Kokkos::is_initialized()) return;
#if KOKKOS_VERSION >= 40000
  const bool finalized = initialized_here || Kokkos::is_finalized();
#else
  const bool finalized = initialized_here;
#endif
  if (finalized) throw preduce::error(errc::unsupported, "Kokkos has been finalized; preduce cannot run any more work");
  Kokkos::initialize();
  initialized_here = true;
  // Registered after Kokkos's own statics exist, so it runs before they are destroyed; the
  // default queue, built after this, is destroyed before it.
  std::atexit(finalize_at_exit);
}

}  // namespace backend

// ---------------------------------------------------------------------------------------------
// queue_state
// ---------------------------------------------------------------------------------------------

namespace detail {

queue_state::~queue_state() {
  if (Kokkos::is_initialized()) {
    try {
      exec.fence();
    } catch (...) {  // a destructor path: the fault was or will be reported elsewhere
    }
  }
  backend::release(scratch_);
  backend::release(workspace_);
}

backend::device_status* queue_state::status() {
  if (scratch_ == nullptr) {
    constexpr std::size_t first_slot = 64;  // every built-in result fits (moments<double>: 24 bytes)
    scratch_ = static_cast<unsigned char*>(backend::allocate(backend::status_bytes + first_slot, "queue scratch"));
    slot_capacity_ = first_slot;
    backend::translate(errc::device_fault, "queue", [&] {
      backend::enqueue_copy<backend::memory_space, Kokkos::HostSpace>(exec, scratch_, &backend::no_error, sizeof backend::no_error);
      exec.fence();
    });
  }
  return reinterpret_cast<backend::device_status*>(scratch_);
}

void* queue_state::result_slot(std::size_t bytes) {
  status();
  if (bytes > slot_capacity_) {
    // Work already enqueued may still use the old slot and status: wait, then carry the status over.
    fence("result slot");
    unsigned char* grown = static_cast<unsigned char*>(backend::allocate(backend::status_bytes + bytes, "queue scratch"));
    backend::translate(errc::device_fault, "result slot", [&] {
      backend::enqueue_copy<backend::memory_space, backend::memory_space>(exec, grown, scratch_, sizeof(backend::device_status));
      exec.fence();
    });
    backend::release(scratch_);
    scratch_ = grown;
    slot_capacity_ = bytes;
  }
  return scratch_ + backend::status_bytes;
}

void queue_state::read_result_slot(void* host, std::size_t bytes, const char* function) {
  std::vector<unsigned char> staged(backend::status_bytes + bytes);
  backend::translate(errc::device_fault, function, [&] {
    backend::enqueue_copy<Kokkos::HostSpace, backend::memory_space>(exec, staged.data(), scratch_, staged.size());
    exec.fence();
  });
  backend::device_status seen;
  std::memcpy(&seen, staged.data(), sizeof seen);
  throw_if_failed(seen, function);
  std::memcpy(host, staged.data() + backend::status_bytes, bytes);
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
  if (scratch_ == nullptr) return;  // no kernel that records errors ever ran on this queue
  backend::device_status seen;
  backend::translate(errc::device_fault, function, [&] {
    backend::enqueue_copy<Kokkos::HostSpace, backend::memory_space>(exec, &seen, scratch_, sizeof seen);
    exec.fence();
  });
  throw_if_failed(seen, function);
}

void queue_state::throw_if_failed(const backend::device_status& seen, const char* function) {
  if (seen.first_bad_offset == npos) return;
  backend::translate(errc::device_fault, function, [&] {
    backend::enqueue_copy<backend::memory_space, Kokkos::HostSpace>(exec, scratch_, &backend::no_error, sizeof backend::no_error);
    exec.fence();
  });
  throw preduce::error(errc::bad_offsets, portable::bad_offsets_message(seen.first_bad_offset));
}

// ---------------------------------------------------------------------------------------------
// Memory (memory.hpp)
// ---------------------------------------------------------------------------------------------

void* device_allocate(const queue& q, std::size_t bytes) {
  (void)q;  // one device, one memory space: every queue allocates the same way
  backend::ensure_initialized();
  return bytes ? backend::allocate(bytes, "device_buffer") : nullptr;
}

void device_free(const queue& q, void* p) noexcept {
  if (p == nullptr || !Kokkos::is_initialized()) return;
  try {
    q.state().exec.fence();  // the buffer may still be read by enqueued work
  } catch (...) {  // noexcept path: a fault surfaces at the queue's next synchronizing call
  }
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

// Host execution spaces (Serial, OpenMP, Threads, HPX) reduce host memory: every pointer is
// "device memory" and there is nothing to check. On Kokkos's CUDA backend the CUDA runtime
// tells host from device memory and which device owns it. Kokkos offers no such query for
// its other GPU backends (HIP, SYCL, OpenMPTarget): there this check is not possible, and a
// host pointer faults in the kernel (reported at the next synchronizing call, or by the
// backend's own abort).
void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument) {
  (void)bytes;
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
    return;
  }
#endif
  (void)q;
  (void)p;
  (void)function;
  (void)argument;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// queue and devices (execution.hpp)
// ---------------------------------------------------------------------------------------------

namespace {
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
  state_ = std::make_shared<detail::queue_state>(backend::new_instance(), device);
}

// On this backend a native handle points to a Kokkos::DefaultExecutionSpace. The instance is
// copied (Kokkos instances are shared handles), so the caller's object may go away; a null
// handle means the default instance.
queue queue::wrap(void* native_handle, int device) {
  backend::check_device_index(device, "queue::wrap");
  backend::ensure_initialized();
  backend::exec_space instance = native_handle ? *static_cast<const backend::exec_space*>(native_handle) : backend::exec_space();
  return queue(std::make_shared<detail::queue_state>(std::move(instance), device));
}

int queue::device() const noexcept { return state_->device; }

void* queue::native_handle() const noexcept { return &state_->exec; }

void queue::synchronize() const { state_->synchronize("synchronize"); }

int device_count() { return 1; }

const char* backend_name() noexcept { return "kokkos"; }

std::string device_description(int device) {
  backend::check_device_index(device, "device_description");
  backend::ensure_initialized();
  const int v = KOKKOS_VERSION;
  const int threads = backend::exec_space().concurrency();
  return "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) + " " +
         backend::exec_space::name() + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// ---------------------------------------------------------------------------------------------
// The sync forms' result slot (portable/builtin_dispatch.hpp)
// ---------------------------------------------------------------------------------------------

namespace portable {

void* result_scratch(const queue& q, std::size_t bytes) { return q.state().result_slot(bytes); }

void read_result(const queue& q, void* host, const void* d_slot, std::size_t bytes) {
  detail::queue_state& s = q.state();
  if (d_slot != s.result_slot(bytes)) detail::fail(errc::invalid_argument, "read_result", "the slot is not this queue's result slot");
  s.read_result_slot(host, bytes, "reduce");
}

}  // namespace portable
}  // namespace preduce
