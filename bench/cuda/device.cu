// SPDX-License-Identifier: Apache-2.0
// preduce-bench cuda: the device side of the benchmark on NVIDIA GPUs: description, the event
// timer, the read-bandwidth ceiling kernel, and which CUB form serves each case.
#include <cub/version.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cub_common.cuh"

namespace preduce {
namespace bench {
namespace nvidia {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw error(errc::device_fault, std::string("preduce-bench: ") + what + ": " + cudaGetErrorString(e));
}

namespace {

cudaStream_t stream_of(const queue& q) { return static_cast<cudaStream_t>(q.native_handle()); }

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

//! Holds back the stream behind it until the host has enqueued a whole batch of timed calls, so
//! the events time the device's work and not the host's launch rate.
//! Requires: one thread (<<<1, 1>>>); `release` in host-mapped memory, written by the host.
//! Writes: returns once *release != 0; if timeout_ns of %globaltimer pass first, sets
//! *timed_out = 1 and returns (the host then blocked inside a call, or enqueued too slowly).
__global__ void hold_stream(const volatile int* release, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));  // nanoseconds since some epoch
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
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
//! fill CUDA's launch queue (about a thousand entries) while the stream is held.
constexpr int calls_per_hold = 64;
constexpr unsigned long long hold_timeout_ns = 2'000'000'000ull;

//! Publishes the release flag to hold_stream (host-mapped memory: a fenced volatile store).
void release(int* flag, int value) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile int*>(flag) = value;
}

//! time_calls' host-mapped flags ([0]: release, [1]: timed out) and events. The destructor lets
//! a held stream go and waits for it before freeing, also when a call threw.
struct timer_state {
  cudaStream_t stream;
  int* flags = nullptr;
  std::vector<cudaEvent_t> events;
  explicit timer_state(cudaStream_t s) : stream(s), events(calls_per_hold + 1, nullptr) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&flags), 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc (timer flags)");
    for (auto& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
  }
  timer_state(const timer_state&) = delete;
  timer_state& operator=(const timer_state&) = delete;
  ~timer_state() {
    if (flags) release(flags, 1);
    (void)cudaStreamSynchronize(stream);
    for (auto e : events)
      if (e) (void)cudaEventDestroy(e);
    if (flags) (void)cudaFreeHost(flags);
  }
};

}  // namespace
}  // namespace nvidia

device_report describe_device(const queue& q) {
  cudaDeviceProp p{};
  nvidia::check(cudaGetDeviceProperties(&p, q.device()), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  nvidia::check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  nvidia::check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  device_report d;
  d.device = device_description(q.device());
  d.driver = "CUDA driver " + nvidia::cuda_version(driver);
  d.runtime = "CUDA runtime " + nvidia::cuda_version(runtime);
  d.vendor = "CUB";
  d.vendor_version = std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." + std::to_string(CUB_SUBMINOR_VERSION);
  d.memory_bytes = p.totalGlobalMem;
  d.cache_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.host = false;
  return d;
}

namespace nvidia {
namespace {
enum class timer_kind { graph, events };
timer_kind selected_timer = timer_kind::graph;

//! Owns a captured graph and its executable form.
struct graph_exec {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  graph_exec() = default;
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;
  ~graph_exec() {
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
  }
};

//! The graph timer: captures min(count, calls_per_hold) consecutive calls into one CUDA graph and
//! replays it `count` times, an event pair around each replay; a sample is a replay's time over
//! its calls. Launch gaps inside a graph are what a pipeline of back-to-back calls sees; the
//! event timer's extra ~3 us per call (an empty kernel measured 3.3 us between events, 0.57 us
//! per call in a graph: H200, 2026-11-21) is not.
std::vector<double> time_calls_graph(cudaStream_t s, int count, const std::function<void(int)>& call) {
  const int calls = std::min(count, calls_per_hold);
  graph_exec g;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  try {
    for (int i = 0; i < calls; ++i) call(i);
  } catch (...) {
    (void)cudaStreamEndCapture(s, &g.graph);
    throw;
  }
  check(cudaStreamEndCapture(s, &g.graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&g.exec, g.graph, 0), "cudaGraphInstantiate");
  check(cudaGraphUpload(g.exec, s), "cudaGraphUpload");
  cudaEvent_t ev[2] = {nullptr, nullptr};
  struct events_guard {
    cudaEvent_t* e;
    ~events_guard() {
      for (int k = 0; k < 2; ++k)
        if (e[k]) (void)cudaEventDestroy(e[k]);
    }
  } guard{ev};
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  std::vector<double> ms;
  ms.reserve(count);
  for (int r = 0; r < count; ++r) {
    check(cudaEventRecord(ev[0], s), "cudaEventRecord");
    check(cudaGraphLaunch(g.exec, s), "cudaGraphLaunch");
    check(cudaEventRecord(ev[1], s), "cudaEventRecord");
    check(cudaEventSynchronize(ev[1]), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, ev[0], ev[1]), "cudaEventElapsedTime");
    ms.push_back(double(t) / calls);
  }
  return ms;
}

//! The event timer: an event between consecutive calls, each batch of up to calls_per_hold calls
//! held behind hold_stream until fully enqueued; a sample is one call.
std::vector<double> time_calls_events(cudaStream_t s, int count, const std::function<void(int)>& call) {
  timer_state st(s);
  std::vector<double> ms;
  ms.reserve(count);
  bool timed_out = false;
  for (int first = 0; first < count; first += calls_per_hold) {
    const int batch = std::min(calls_per_hold, count - first);
    release(st.flags, 0);
    st.flags[1] = 0;
    hold_stream<<<1, 1, 0, st.stream>>>(st.flags, st.flags + 1, hold_timeout_ns);
    check(cudaGetLastError(), "hold_stream launch");
    check(cudaEventRecord(st.events[0], st.stream), "cudaEventRecord");
    for (int i = 0; i < batch; ++i) {
      call(first + i);
      check(cudaEventRecord(st.events[i + 1], st.stream), "cudaEventRecord");
    }
    release(st.flags, 1);
    check(cudaEventSynchronize(st.events[batch]), "cudaEventSynchronize");
    timed_out = timed_out || st.flags[1] != 0;
    for (int i = 0; i < batch; ++i) {
      float t = 0;
      check(cudaEventElapsedTime(&t, st.events[i], st.events[i + 1]), "cudaEventElapsedTime");
      ms.push_back(t);
    }
  }
  if (timed_out) std::fprintf(stderr, "preduce-bench: warning: a timed call blocked the host; its times include host gaps\n");
  return ms;
}
}  // namespace
}  // namespace nvidia

bool select_timer(const std::string& name) {
  if (name == "graph") nvidia::selected_timer = nvidia::timer_kind::graph;
  else if (name == "events") nvidia::selected_timer = nvidia::timer_kind::events;
  else return false;
  return true;
}

const char* timer_names() { return "graph|events"; }

const char* timer_method() {
  if (nvidia::selected_timer == nvidia::timer_kind::graph)
    return "CUDA graph of up to 64 consecutive calls (rotating input copies) replayed; each sample is one replay's "
           "event-timed duration divided by its calls";
  return "CUDA events on the queue's stream between consecutive calls; each batch of up to 64 calls is held "
         "behind a spin kernel until fully enqueued, so host-side launch overhead is not timed";
}

std::vector<double> time_calls(const queue& q, int count, const std::function<void(int)>& call) {
  const cudaStream_t s = nvidia::stream_of(q);
  return nvidia::selected_timer == nvidia::timer_kind::graph ? nvidia::time_calls_graph(s, count, call)
                                                              : nvidia::time_calls_events(s, count, call);
}

ceiling_run run_read_ceiling(const queue& q, std::size_t bytes, int reps) {
  using nvidia::check;
  const std::size_t words = bytes / sizeof(uint4);
  nvidia::device_bytes buffer(words * sizeof(uint4));
  nvidia::device_bytes sink(sizeof(uint4));
  const cudaStream_t s = nvidia::stream_of(q);
  check(cudaMemsetAsync(buffer.get(), 0xa5, words * sizeof(uint4), s), "cudaMemsetAsync (ceiling buffer)");

  constexpr int block = 256;
  int sms = 0, blocks_per_sm = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, q.device()), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, nvidia::stream_read, block, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const int grid = sms * blocks_per_sm;
  auto pass = [&](int) {
    nvidia::stream_read<<<grid, block, 0, s>>>(static_cast<const uint4*>(buffer.get()), words, static_cast<uint4*>(sink.get()));
    check(cudaGetLastError(), "stream_read launch");
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
  if (c.layout == shape::whole) return nvidia::make_cub_whole(q, c);
  return nvidia::make_cub_segmented(q, c);  // rows, columns and segments
}

}  // namespace bench
}  // namespace preduce
