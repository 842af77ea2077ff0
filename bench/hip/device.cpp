// SPDX-License-Identifier: Apache-2.0
// preduce-bench hip: the device side of the benchmark on AMD GPUs: description, the event
// timer, the read-bandwidth ceiling kernel, and which rocPRIM form serves each case.
#include <hip/hip_runtime.h>
#include <rocprim/rocprim_version.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "rocprim_common.hpp"

namespace preduce {
namespace bench {
namespace amd {

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) throw error(errc::device_fault, std::string("preduce-bench: ") + what + ": " + hipGetErrorString(e));
}

namespace {

hipStream_t stream_of(const queue& q) { return static_cast<hipStream_t>(q.native_handle()); }

//! s_memrealtime: a constant 100 MHz clock on gfx9 and gfx10 (HIP's wall_clock64, which this
//! HIP declares for the device pass only).
__device__ long long realtime_ticks() {
#if defined(__HIP_DEVICE_COMPILE__)
  return static_cast<long long>(__builtin_amdgcn_s_memrealtime());
#else
  return 0;
#endif
}

//! Holds back the stream behind it until the host has enqueued a whole batch of timed calls, so
//! the events time the device's work and not the host's launch rate.
//! Requires: one thread (<<<1, 1>>>); `release` in host-mapped memory, written by the host.
//! Writes: returns once *release != 0; if timeout_ticks of realtime_ticks() pass first (2e8
//! ticks: 2 s), sets *timed_out = 1 and returns.
__global__ void hold_stream(const volatile int* release, int* timed_out, long long timeout_ticks) {
  const long long start = realtime_ticks();
  while (*release == 0) {
    if (realtime_ticks() - start > timeout_ticks) {
      *timed_out = 1;
      return;
    }
  }
}

//! The read-bandwidth ceiling: streams `count` 16-byte words once, nothing else.
//! Requires: 1-D blocks and grid of any size; `words` 16-byte aligned.
//! Writes: every thread xors the words it reads (4 independent 16-byte loads in flight before
//! any is used) and stores its xor to *sink only if it equals a value the fill pattern cannot
//! produce, so the loads cannot be dropped and nothing is written in practice.
__global__ void stream_read(const uint4* __restrict__ words, std::size_t count, uint4* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (; i + 3 * stride < count; i += 4 * stride) {
    const uint4 a = words[i], b = words[i + stride], c = words[i + 2 * stride], d = words[i + 3 * stride];
    acc.x ^= a.x ^ b.x ^ c.x ^ d.x;
    acc.y ^= a.y ^ b.y ^ c.y ^ d.y;
    acc.z ^= a.z ^ b.z ^ c.z ^ d.z;
    acc.w ^= a.w ^ b.w ^ c.w ^ d.w;
  }
  for (; i < count; i += stride) {
    const uint4 a = words[i];
    acc.x ^= a.x;
    acc.y ^= a.y;
    acc.z ^= a.z;
    acc.w ^= a.w;
  }
  if (acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u) *sink = acc;
}

//! Calls enqueued behind one hold_stream: few enough that a call's kernels and events never
//! fill the runtime's launch queue while the stream is held (the cuda side's value; unmeasured
//! on ROCm).
constexpr int calls_per_hold = 64;
constexpr long long hold_timeout_ticks = 200'000'000;

//! Publishes the release flag to hold_stream (host-mapped memory: a fenced volatile store).
void release(int* flag, int value) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile int*>(flag) = value;
}

//! time_calls' host-mapped flags ([0]: release, [1]: timed out) and events. The destructor lets
//! a held stream go and waits for it before freeing, also when a call threw.
struct timer_state {
  hipStream_t stream;
  int* flags = nullptr;
  int* device_flags = nullptr;
  std::vector<hipEvent_t> events;
  explicit timer_state(hipStream_t s) : stream(s), events(calls_per_hold + 1, nullptr) {
    check(hipHostMalloc(reinterpret_cast<void**>(&flags), 2 * sizeof(int), hipHostMallocMapped), "hipHostMalloc (timer flags)");
    check(hipHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags, 0), "hipHostGetDevicePointer (timer flags)");
    for (auto& e : events) check(hipEventCreate(&e), "hipEventCreate");
  }
  timer_state(const timer_state&) = delete;
  timer_state& operator=(const timer_state&) = delete;
  ~timer_state() {
    if (flags) release(flags, 1);
    (void)hipStreamSynchronize(stream);
    for (auto e : events)
      if (e) (void)hipEventDestroy(e);
    if (flags) (void)hipHostFree(flags);
  }
};

}  // namespace
}  // namespace amd

device_report describe_device(const queue& q) {
  hipDeviceProp_t p{};
  amd::check(hipGetDeviceProperties(&p, q.device()), "hipGetDeviceProperties");
  int driver = 0, runtime = 0;
  amd::check(hipDriverGetVersion(&driver), "hipDriverGetVersion");
  amd::check(hipRuntimeGetVersion(&runtime), "hipRuntimeGetVersion");
  device_report d;
  d.device = device_description(q.device());
  d.driver = "HIP driver " + std::to_string(driver);
  d.runtime = "HIP runtime " + std::to_string(runtime);
  d.vendor = "rocPRIM";
  d.vendor_version = std::to_string(ROCPRIM_VERSION_MAJOR) + "." + std::to_string(ROCPRIM_VERSION_MINOR) + "." +
                     std::to_string(ROCPRIM_VERSION_PATCH);
  d.memory_bytes = p.totalGlobalMem;
  d.cache_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.host = false;
  return d;
}

bool select_timer(const std::string& name) { return name == "events"; }
const char* timer_names() { return "events"; }

const char* timer_method() {
  return "HIP events on the queue's stream between consecutive calls; each batch of up to 64 calls is held "
         "behind a spin kernel until fully enqueued, so host-side launch overhead is not timed";
}

std::vector<double> time_calls(const queue& q, int count, const std::function<void(int)>& call) {
  using amd::check;
  amd::timer_state st(amd::stream_of(q));
  std::vector<double> ms;
  ms.reserve(count);
  bool timed_out = false;
  for (int first = 0; first < count; first += amd::calls_per_hold) {
    const int batch = std::min(amd::calls_per_hold, count - first);
    amd::release(st.flags, 0);
    st.flags[1] = 0;
    amd::hold_stream<<<1, 1, 0, st.stream>>>(st.device_flags, st.device_flags + 1, amd::hold_timeout_ticks);
    check(hipGetLastError(), "hold_stream launch");
    check(hipEventRecord(st.events[0], st.stream), "hipEventRecord");
    for (int i = 0; i < batch; ++i) {
      call(first + i);
      check(hipEventRecord(st.events[i + 1], st.stream), "hipEventRecord");
    }
    amd::release(st.flags, 1);
    check(hipEventSynchronize(st.events[batch]), "hipEventSynchronize");
    timed_out = timed_out || st.flags[1] != 0;
    for (int i = 0; i < batch; ++i) {
      float t = 0;
      check(hipEventElapsedTime(&t, st.events[i], st.events[i + 1]), "hipEventElapsedTime");
      ms.push_back(t);
    }
  }
  if (timed_out) std::fprintf(stderr, "preduce-bench: warning: a timed call blocked the host; its times include host gaps\n");
  return ms;
}

ceiling_run run_read_ceiling(const queue& q, std::size_t bytes, int reps) {
  using amd::check;
  const std::size_t words = bytes / sizeof(uint4);
  amd::device_bytes buffer(words * sizeof(uint4));
  amd::device_bytes sink(sizeof(uint4));
  const hipStream_t s = amd::stream_of(q);
  check(hipMemsetAsync(buffer.get(), 0xa5, words * sizeof(uint4), s), "hipMemsetAsync (ceiling buffer)");

  constexpr int block = 256;
  int cus = 0, blocks_per_cu = 0;
  check(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, q.device()), "hipDeviceGetAttribute");
  check(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_cu, amd::stream_read, block, 0),
        "hipOccupancyMaxActiveBlocksPerMultiprocessor");
  const int grid = cus * blocks_per_cu;
  auto pass = [&](int) {
    amd::stream_read<<<grid, block, 0, s>>>(static_cast<const uint4*>(buffer.get()), words, static_cast<uint4*>(sink.get()));
    check(hipGetLastError(), "stream_read launch");
  };
  time_calls(q, 3, pass);  // warm-up
  ceiling_run c;
  c.bytes = words * sizeof(uint4);
  c.ms = time_calls(q, reps, pass);
  c.method = "read-only streaming kernel: 16-byte loads, 4 in flight per thread, " + std::to_string(grid) + " blocks of " +
             std::to_string(block) + " threads (full occupancy), xor of all words consumed";
  return c;
}

vendor_plan make_vendor(const queue& q, const case_spec& c) {
  switch (c.layout) {
    case shape::whole: return amd::make_rocprim_whole(q, c);
    case shape::rows:
    case shape::segments: return amd::make_rocprim_segmented(q, c);
    case shape::columns: break;
  }
  return {nullptr, "rocPRIM has no column reduction (a segmented reduce over a strided iterator is not a fair stand-in)"};
}

}  // namespace bench
}  // namespace preduce
