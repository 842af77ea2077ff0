// SPDX-License-Identifier: Apache-2.0
// preduce cuda: host glue: queues and their scratch, device memory, pointer checks, and
// turning device-side status and faults into preduce::error.
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
#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {

namespace detail {

queue_state::queue_state(int dev, cudaStream_t st, bool owns, bool wraps)
    : device(dev), stream(st), owns_stream(owns), wrapped(wraps), results(max_result_bytes, 64),
      statuses(sizeof(backend::device_status), 256) {
  backend::device_guard g(device);
  backend::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device), "queue: reading the SM count");
  backend::check_cuda(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device),
                      "queue: reading the compute capability");
  int l2 = 0;
  backend::check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "queue: reading the L2 size");
  l2_bytes = std::size_t(l2);
  backend::check_cuda(cudaMalloc(reinterpret_cast<void**>(&control), sizeof(backend::control_block)), "queue: allocating its control block");
  backend::check_cuda(cudaMemset(control, 0, sizeof(backend::control_block)), "queue: clearing its control block");
  whole_grid_cap = backend::whole_grid_cap(sm_count, cc_major);
  const std::size_t slot_bytes = std::size_t(whole_grid_cap) * backend::partial_slot_elements * sizeof(*partial_slots);
  backend::check_cuda(cudaMalloc(reinterpret_cast<void**>(&partial_slots), slot_bytes), "queue: allocating the partial slots");
  backend::check_cuda(cudaMemset(partial_slots, 0, slot_bytes), "queue: clearing the partial slots");
  // Enough for the whole-array partials of every built-in reducer (at most 32 bytes each), so
  // those never grow the scratch.
  scratch(std::size_t(whole_grid_cap) * 32);
}

queue_state::~queue_state() {
  // Nothing here may throw; a faulted context makes these calls fail harmlessly. A wrapped
  // stream is not touched (the caller may have destroyed it after its last call): cudaFree waits
  // for the device's work, so no kernel still reads what is freed.
  int previous = -1;
  (void)cudaGetDevice(&previous);
  (void)cudaSetDevice(device);
  if (!wrapped) (void)cudaStreamSynchronize(stream);
  if (workspace) (void)cudaFree(workspace);
  if (counters) (void)cudaFree(counters);
  for (void* p : retired_blocks) (void)cudaFree(p);
  for (void* p : device_blocks) (void)cudaFree(p);
  (void)cudaFree(partial_slots);
  (void)cudaFree(control);
  for (void* p : host_blocks) (void)cudaFreeHost(p);
  if (side) (void)cudaStreamDestroy(side);
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

namespace {
//! Whether `stream` is capturing a CUDA graph now. The legacy default stream cannot be asked
//! while another thread captures in global mode (cudaErrorStreamCaptureImplicit): that counts as
//! capturing, since work on it would fail anyway.
bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(stream, &status);
  if (e == cudaErrorStreamCaptureImplicit) {
    (void)cudaGetLastError();
    return true;
  }
  backend::check_cuda(e, "queue: asking whether its stream is capturing");
  return status != cudaStreamCaptureStatusNone;
}

//! A block of `bytes` of pinned host memory, mapped into every device's address space; the
//! device pointer (equal to the host pointer under unified addressing) goes to *device_view.
unsigned char* mapped_host_block(std::size_t bytes, unsigned char** device_view) {
  void* host = nullptr;
  void* device = nullptr;
  outside_capture("queue: allocating pinned result slots", [&] {
    cudaError_t e = cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer(&device, host, 0);
    if (e != cudaSuccess && host) (void)cudaFreeHost(host);
    return e;
  });
  *device_view = static_cast<unsigned char*>(device);
  return static_cast<unsigned char*>(host);
}
}  // namespace

backend::device_status* queue_state::status_slot_for_call() {
  const bool captured = capturing(stream);
  std::uint32_t slot = statuses.take();
  if (slot == portable::slot_pool::none && !captured) {
    portable::reclaim_clean_verdicts(*this, [&] { backend::check_cuda(cudaStreamSynchronize(stream), "reduce_segments: waiting for the queue"); });
    slot = statuses.take();
  }
  if (slot == portable::slot_pool::none) {
    void* block = nullptr;
    void* mirror = nullptr;
    outside_capture("reduce_segments: allocating status slots", [&] {
      cudaError_t e = cudaMalloc(&block, statuses.block_bytes());
      if (e == cudaSuccess) e = clear_outside_capture(block, statuses.block_bytes());
      if (e == cudaSuccess) e = cudaMallocHost(&mirror, statuses.block_bytes());
      if (e != cudaSuccess && block) (void)cudaFree(block);
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

void queue_state::refuse_capture(const char* function) const {
  if (capturing(stream))
    throw error(errc::invalid_argument, std::string(function) +
                                            ": the queue's stream is capturing a CUDA graph, and a synchronous call would have to "
                                            "wait inside the capture; use reduce_async (its result lands in device memory when the "
                                            "graph runs) and synchronize after launching the graph");
}

void queue_state::synchronize_and_check(const char* function) {
  refuse_capture(function);
  backend::device_guard g(device);
  backend::check_cuda(cudaStreamSynchronize(stream), function);
  portable::deliver_verdicts(*this);
}

namespace {
cudaStream_t side_stream(queue_state& s) {
  if (s.side == nullptr) backend::check_cuda(cudaStreamCreateWithFlags(&s.side, cudaStreamNonBlocking), "synchronize: creating a side stream");
  return s.side;
}
}  // namespace

void queue_state::read_status_blocks(const std::vector<std::size_t>& blocks) {
  backend::device_guard g(device);
  cudaStream_t side = side_stream(*this);
  for (const std::size_t b : blocks)
    backend::check_cuda(cudaMemcpyAsync(statuses.block_mirror(b), statuses.block(b), statuses.block_bytes(), cudaMemcpyDeviceToHost, side),
                        "synchronize: reading offset verdicts");
  backend::check_cuda(cudaStreamSynchronize(side), "synchronize: reading offset verdicts");
}

std::uint64_t queue_state::bad_position(std::uint32_t slot) const {
  backend::device_status st;
  std::memcpy(&st, statuses.mirror_at(slot), sizeof st);
  return st.code == 0 ? portable::no_verdict : ~st.position;
}

void queue_state::clear_status_slots(const std::vector<std::uint32_t>& slots) {
  backend::device_guard g(device);
  cudaStream_t side = side_stream(*this);
  for (const std::uint32_t slot : slots)
    backend::check_cuda(cudaMemsetAsync(statuses.at(slot), 0, statuses.slot_bytes(), side), "synchronize: clearing offset verdicts");
  backend::check_cuda(cudaStreamSynchronize(side), "synchronize: clearing offset verdicts");
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
  if (!s) s = std::make_shared<queue_state>(device, nullptr, false, false);
  return s;
}
}  // namespace

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
    backend::check_cuda(cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault, &found),
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
    thread_local unsigned long long last = 0;
    if (f.buffer_id == last) return;
    last = f.buffer_id;
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
  const std::string where = std::string(function) + ": " + argument + " (" + hex(reinterpret_cast<std::uintptr_t>(p)) + ")";
  if (f.type == 0) {
    CUdeviceptr start = 0;
    if (const std::size_t size = used().holding(p, &start))
      throw error(errc::not_device_memory, where + " points into device memory that has been freed (an allocation of " +
                                               std::to_string(size) + " bytes at " + hex(start) + " that an earlier call used)");
    throw error(errc::not_device_memory, where + " is host memory; pass device memory (e.g. a preduce::device_buffer)");
  }
  if (f.type == CU_MEMORYTYPE_HOST && f.device_pointer == 0)
    throw error(errc::not_device_memory, where + " is pinned host memory not mapped into the device");
  if (f.type == CU_MEMORYTYPE_DEVICE && !f.managed && f.ordinal != q.device())
    throw error(errc::wrong_device, where + " lives on device " + std::to_string(f.ordinal) + " but the queue runs on device " +
                                        std::to_string(q.device()));
  // The allocation (for memory mapped through CUDA's virtual memory calls, the reserved range)
  // must hold all `bytes`.
  const auto a = reinterpret_cast<CUdeviceptr>(p);
  if (f.size != 0 && (a < f.start || a - f.start > f.size || bytes > f.size - (a - f.start)))
    throw error(errc::out_of_bounds, where + ": " + std::to_string(bytes) + " bytes from there run past the end of its allocation (" +
                                         std::to_string(f.size) + " bytes at " + hex(f.start) + ")");
  if (f.type == CU_MEMORYTYPE_DEVICE) used().note(f);
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
  state_ = std::make_shared<detail::queue_state>(device, stream, true, false);
}

queue queue::wrap(void* native_handle, int device) {
  detail::check_device_index(device);
  const auto stream = static_cast<cudaStream_t>(native_handle);
  // The legacy and per-thread default streams (null, cudaStreamLegacy, cudaStreamPerThread)
  // belong to whichever device is current when work is queued: the queue's, here.
  if (stream != nullptr && stream != cudaStreamLegacy && stream != cudaStreamPerThread) {
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

int queue::device() const noexcept { return state_->device; }
void* queue::native_handle() const noexcept { return state_->stream; }
void queue::synchronize() const { state_->synchronize_and_check("synchronize"); }

int device_count() { return detail::checked_device_count(); }
const char* backend_name() noexcept { return "cuda"; }

namespace detail {
bool device_memory_is_host_memory() noexcept { return false; }
}  // namespace detail

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

result_slot::result_slot(const queue& q, const char* function) : q_(q), function_(function) {
  detail::queue_state& s = q.state();
  s.refuse_capture(function);
  std::lock_guard<std::mutex> lock(s.mutex);
  index_ = s.results.take();
  if (index_ == slot_pool::none) {
    unsigned char* device_view = nullptr;
    unsigned char* host = detail::mapped_host_block(s.results.block_bytes(), &device_view);
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
