// SPDX-License-Identifier: Apache-2.0
// preduce: the NCCL adapter's collectives through symmetric memory (nccl_symmetric.hpp).
//
// The copies (allgather, alltoall, reduce_scatter) put their input into this rank's half of the
// window, meet the peers at a barrier, and read what they need from the peers' copies through
// their load/store-accessible pointers; allreduce stores into the peers' copies instead (see
// it). The barrier is per CTA (NCCL's LSA barrier, index = blockIdx.x), so a CTA only touches
// what the same CTA of every peer wrote: every array is cut into 16-byte granules and
// granule g belongs to CTA (g / blockDim.x) % gridDim.x in every phase of every kernel, on
// every rank (the grids are equal: they depend only on agreed sizes).
#include "nccl_symmetric.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <preduce/detail/merge.hpp>
#include <preduce/error.hpp>
#include <preduce/portable/gpu_check.hpp>

namespace preduce {
namespace nccl {
namespace detail {
#if __has_include(<nccl_device.h>)  // NCCL 2.28 or later
}  // namespace detail
}  // namespace nccl
}  // namespace preduce
#include <nccl_device.h>
namespace preduce {
namespace nccl {
namespace detail {
namespace {

// The kernels' shape. Evidence: with these, allreduce_columns at 2^26 on four H200s took 1.07x
// the ring's baseline; 64 CTAs and one granule a thread in flight took 1.63x (docs/distributed.md,
// "Four H200s, git 62fea08"). Not varied one at a time. max_ctas stays below the SM count so
// every CTA is resident, as the per-CTA barriers need.
constexpr int threads = 512;       // a CTA
constexpr int max_ctas = 128;      // CTAs at most
constexpr int batch = 4;           // granules a thread has in flight at once
constexpr std::size_t granule = 16;

__host__ __device__ std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
__host__ __device__ std::size_t granules(std::size_t bytes) { return (bytes + granule - 1) / granule; }

//! What a kernel needs to reach the window: this rank's and the peers' copies of one half.
struct window_half {
  ncclDevComm dev;
  ncclWindow_t window;
  std::size_t base;  //!< the half's offset in the window
  int rank, size;

  __device__ char* mine(std::size_t offset) const { return static_cast<char*>(ncclGetLocalPointer(window, base + offset)); }
  __device__ const char* peer(int r, std::size_t offset) const {
    return static_cast<const char*>(ncclGetLsaPointer(window, base + offset, r));
  }
};

//! The granules of [lo, hi) this thread owns: g with (g / blockDim.x) % gridDim.x == blockIdx.x.
template <class F>
__device__ void for_owned(std::size_t lo, std::size_t hi, F&& f) {
  const std::size_t span = std::size_t(gridDim.x) * blockDim.x;
  std::size_t g = lo / span * span + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < lo) g += span;
  for (; g < hi; g += span) f(g);
}

//! Copies n <= 16 bytes, in the widest accesses both addresses allow.
__device__ void copy_granule(char* dst, const char* src, std::size_t n) {
  const auto a = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src);
  if (n == 16 && a % 16 == 0) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if (n % 8 == 0 && a % 8 == 0) {
    for (std::size_t i = 0; i < n; i += 8) *reinterpret_cast<std::uint64_t*>(dst + i) = *reinterpret_cast<const std::uint64_t*>(src + i);
  } else if (n % 4 == 0 && a % 4 == 0) {
    for (std::size_t i = 0; i < n; i += 4) *reinterpret_cast<std::uint32_t*>(dst + i) = *reinterpret_cast<const std::uint32_t*>(src + i);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

//! Granule g of an array of `bytes`: its length (16 but for the last).
__device__ std::size_t granule_bytes(std::size_t g, std::size_t bytes) { return min(granule, bytes - g * granule); }

//! Copies `bytes` of src into the half at `offset` (this rank's copy), this thread's granules.
__device__ void copy_in(const window_half& w, std::size_t offset, const char* src, std::size_t bytes) {
  for_owned(0, granules(bytes), [&](std::size_t g) { copy_granule(w.mine(offset) + g * granule, src + g * granule, granule_bytes(g, bytes)); });
}

//! Copies block j (`bytes` at send + j * bytes) of every j < size into the half at j * slot,
//! this thread's granules: the input of alltoall and reduce_scatter.
__device__ void copy_in_blocks(const window_half& w, const char* send, std::size_t bytes, std::size_t slot) {
  for_owned(0, granules(bytes), [&](std::size_t g) {
    for (int j = 0; j < w.size; ++j)
      copy_granule(w.mine(std::size_t(j) * slot) + g * granule, send + std::size_t(j) * bytes + g * granule, granule_bytes(g, bytes));
  });
}

__device__ void sync_ranks(ncclLsaBarrierSession<ncclCoopCta>& bar) { bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel); }

// allgather: recv[r * bytes ..] = rank r's send[0 .. bytes).
__global__ void __launch_bounds__(threads) allgather_kernel(window_half w, const char* send, char* recv, std::size_t bytes) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  copy_in(w, 0, send, bytes);
  sync_ranks(bar);
  for_owned(0, granules(bytes), [&](std::size_t g) {
    for (int r = 0; r < w.size; ++r) copy_granule(recv + std::size_t(r) * bytes + g * granule, w.peer(r, g * granule), granule_bytes(g, bytes));
  });
}

// alltoall: recv[r * bytes ..] = rank r's send[rank * bytes ..) (`slot` = bytes rounded to 16).
__global__ void __launch_bounds__(threads) alltoall_kernel(window_half w, const char* send, char* recv, std::size_t bytes, std::size_t slot) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  copy_in_blocks(w, send, bytes, slot);
  sync_ranks(bar);
  for_owned(0, granules(bytes), [&](std::size_t g) {
    for (int r = 0; r < w.size; ++r)
      copy_granule(recv + std::size_t(r) * bytes + g * granule, w.peer(r, std::size_t(w.rank) * slot + g * granule), granule_bytes(g, bytes));
  });
}

// reduce_scatter of int64 sums: recv[i] = the sum over ranks r of rank r's send[rank * count + i].
__global__ void __launch_bounds__(threads) reduce_scatter_kernel(window_half w, const char* send, std::int64_t* recv, std::size_t count,
                                                                  std::size_t slot) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  const std::size_t bytes = count * sizeof(std::int64_t);
  copy_in_blocks(w, send, bytes, slot);
  sync_ranks(bar);
  for_owned(0, granules(bytes), [&](std::size_t g) {
    const std::size_t first = g * 2, n = min(std::size_t(2), count - first);
    std::int64_t sum[2] = {0, 0};
    for (int r = 0; r < w.size; ++r) {
      const auto* in = reinterpret_cast<const std::int64_t*>(w.peer(r, std::size_t(w.rank) * slot)) + first;
      for (std::size_t i = 0; i < n; ++i) sum[i] += in[i];
    }
    for (std::size_t i = 0; i < n; ++i) recv[first + i] = sum[i];
  });
}

template <class T> struct add { __device__ static T apply(T a, T b) { return a + b; } };
template <class T> struct most { __device__ static T apply(T a, T b) { return a < b ? b : a; } };

// allreduce in two steps, every transfer a store into a peer's copy (NVLink writes; loads from
// the peers, tried first, reached 200 GB/s a GPU where NCCL's ring reaches 280): each rank
// sends block j of its input into slot `rank` of rank j's first region; rank j combines the
// slots of its block in rank order and stores the result into block j of every rank's second
// region; every rank copies that region to recv[i * stride], i < count. Blocks hold `block`
// elements (a whole number of granules); the padding after count is combined but never read.
template <class T, class Op>
__global__ void __launch_bounds__(threads) allreduce_kernel(window_half w, const char* send, T* recv, std::size_t count, std::size_t stride,
                                                             std::size_t block) {
  constexpr std::size_t per = granule / sizeof(T);
  union lanes {
    uint4 v;
    T t[per];
  };
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  const std::size_t bytes = count * sizeof(T), block_granules = block / per, region = std::size_t(w.size) * block * sizeof(T);
  const std::size_t span = std::size_t(gridDim.x) * blockDim.x, mine = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t input = granules(bytes), full = bytes / granule;
  const bool aligned_in = reinterpret_cast<std::uintptr_t>(send) % granule == 0;
  // 1. Block j of the input into slot `rank` of rank j, rank i starting with block i + 1: the
  //    ranks that wrote to one peer at a time all wrote to the same one (4 GPUs: 190 GB/s).
  for (int k = 1; k <= w.size; ++k) {
    const int j = (w.rank + k) % w.size;
    const std::size_t lo = std::size_t(j) * block_granules, hi = min(lo + block_granules, input);
    char* slot = const_cast<char*>(w.peer(j, std::size_t(w.rank) * block_granules * granule));  // granule lo's place
    std::size_t g = lo / span * span + mine;
    if (g < lo) g += span;
    for (; g < hi; g += batch * span) {
      uint4 v[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const std::size_t h = g + b * span;
        if (aligned_in && h < min(hi, full)) v[b] = reinterpret_cast<const uint4*>(send)[h];
      }
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const std::size_t h = g + b * span;
        if (h >= hi) break;
        if (aligned_in && h < full) *reinterpret_cast<uint4*>(slot + (h - lo) * granule) = v[b];
        else copy_granule(slot + (h - lo) * granule, send + h * granule, granule_bytes(h, bytes));
      }
    }
  }
  sync_ranks(bar);
  // 2. This rank's block: its slots combined in rank order, stored into every rank's copy.
  const std::size_t lo = std::size_t(w.rank) * block_granules, hi = lo + block_granules;
  for_owned(lo, hi, [&](std::size_t g) {
    const std::size_t t = g - lo;
    lanes a, b;
    a.v = *reinterpret_cast<const uint4*>(w.mine(t * granule));
    for (int r = 1; r < w.size; ++r) {
      b.v = *reinterpret_cast<const uint4*>(w.mine((std::size_t(r) * block_granules + t) * granule));
#pragma unroll
      for (std::size_t i = 0; i < per; ++i) a.t[i] = Op::apply(a.t[i], b.t[i]);
    }
    for (int k = 0; k < w.size; ++k) {
      const int r = (w.rank + k) % w.size;  // the ranks in turn, each rank starting with a different peer
      *reinterpret_cast<uint4*>(const_cast<char*>(w.peer(r, region + g * granule))) = a.v;
    }
  });
  sync_ranks(bar);
  // 3. The combined blocks into recv.
  const bool vector_out = stride == 1 && reinterpret_cast<std::uintptr_t>(recv) % granule == 0;
  for (std::size_t g = mine; g < input; g += batch * span) {
    lanes v[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b)
      if (g + b * span < input) v[b].v = *reinterpret_cast<const uint4*>(w.mine(region + (g + b * span) * granule));
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const std::size_t h = g + b * span, first = h * per;
      if (h >= input) break;
      const std::size_t n = min(per, count - first);
      if (vector_out && n == per) {
        *reinterpret_cast<uint4*>(recv + first) = v[b].v;
      } else {
        for (std::size_t i = 0; i < n; ++i) recv[(first + i) * stride] = v[b].t[i];
      }
    }
  }
}

// The binned sums of lines in one kernel (the reproducible sums of rows and columns), the
// allreduce's two steps over exchange::store_compact's form: 25 bytes a line (a code, three int64
// bins) stored into the line's owner, which meets them as exchange:: does (the highest code, the
// bins moved to it, integer sums) and rounds; 4 or 8 bytes a line back to every rank. Lines go in
// tiles of `tile_lines`: a tile belongs to one CTA index on every rank, its threads copy its
// bytes as granules and meet its lines one a thread. A rank's block of `block` lines (a whole
// number of tiles) has, in the first region of each rank's half, slot r = [codes | bins] from
// rank r; the second region holds every line's value.
constexpr std::size_t tile_lines = 1024;

//! Copies `bytes` from src to dst (both 16-byte aligned), the CTA's threads in turn, `batch`
//! granules a thread in flight.
__device__ void cta_copy(char* dst, const char* src, std::size_t bytes) {
  const std::size_t n = granules(bytes), full = bytes / granule;
  for (std::size_t g = threadIdx.x; g < n; g += batch * blockDim.x) {
    uint4 v[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const std::size_t h = g + b * blockDim.x;
      if (h < full) v[b] = reinterpret_cast<const uint4*>(src)[h];
    }
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const std::size_t h = g + b * blockDim.x;
      if (h >= n) break;
      if (h < full) reinterpret_cast<uint4*>(dst)[h] = v[b];
      else copy_granule(dst + h * granule, src + h * granule, bytes - h * granule);
    }
  }
}

template <class R>
__global__ void __launch_bounds__(threads) binned_sum_kernel(window_half w, const std::uint8_t* codes, const std::int64_t* limbs, R* recv,
                                                              std::size_t lines, std::size_t stride, std::size_t block) {
  namespace ex = ::preduce::detail::exchange;
  namespace binned = ::preduce::detail::binned;
  constexpr std::size_t limb_bytes = binned::folds * sizeof(std::int64_t);
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  const std::size_t slot = block * (1 + limb_bytes), values = std::size_t(w.size) * slot;
  const std::size_t tiles = block / tile_lines;  // a block's
  // 1. Block j's tiles into slot `rank` of rank j, rank i starting with block i + 1.
  for (int k = 1; k <= w.size; ++k) {
    const int j = (w.rank + k) % w.size;
    char* to = const_cast<char*>(w.peer(j, std::size_t(w.rank) * slot));
    for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
      const std::size_t in_block = u * tile_lines, first = std::size_t(j) * block + in_block;
      if (first >= lines) break;
      const std::size_t n = min(tile_lines, lines - first);
      cta_copy(to + in_block, reinterpret_cast<const char*>(codes + first), n);
      cta_copy(to + block + in_block * limb_bytes, reinterpret_cast<const char*>(limbs + binned::folds * first), n * limb_bytes);
    }
  }
  sync_ranks(bar);
  // 2. This rank's lines: every rank's bins at the highest code, summed, rounded, stored into
  //    every rank's second region.
  for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
    for (std::size_t t = u * tile_lines + threadIdx.x; t < (u + 1) * tile_lines; t += blockDim.x) {
      const std::size_t line = std::size_t(w.rank) * block + t;
      if (line >= lines) break;
      std::uint8_t common = 0;  // the highest code (special_code, 255, above every level)
      for (int r = 0; r < w.size; ++r) {
        const std::uint8_t c = *reinterpret_cast<const std::uint8_t*>(w.mine(std::size_t(r) * slot + t));
        if (c > common) common = c;
      }
      std::int64_t sum[binned::folds] = {};
      for (int r = 0; r < w.size; ++r) {
        const std::uint8_t own = *reinterpret_cast<const std::uint8_t*>(w.mine(std::size_t(r) * slot + t));
        const auto* l = reinterpret_cast<const std::int64_t*>(w.mine(std::size_t(r) * slot + block + t * limb_bytes));
        if (common == ex::special_code) {  // only the flags of the lines that saw a special count
          if (own == ex::special_code)
            for (int f = 0; f < binned::folds; ++f) sum[f] += l[f];
          continue;
        }
        const int shift = int(common) - int(own);  // exchange::align_step's move
        for (int f = shift; f < binned::folds; ++f) sum[f] += l[f - shift];
      }
      const R v = binned::round_to<R>(ex::digits_of(common, sum));
      for (int k = 0; k < w.size; ++k) {
        const int r = (w.rank + k) % w.size;
        *reinterpret_cast<R*>(const_cast<char*>(w.peer(r, values + line * sizeof(R)))) = v;
      }
    }
  }
  sync_ranks(bar);
  // 3. Every line's value into recv, each CTA its tiles' (what the same CTA of the owner stored).
  for (int j = 0; j < w.size; ++j) {
    for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
      const std::size_t first = std::size_t(j) * block + u * tile_lines;
      for (std::size_t line = first + threadIdx.x; line < min(first + tile_lines, lines); line += blockDim.x)
        recv[line * stride] = *reinterpret_cast<const R*>(w.mine(values + line * sizeof(R)));
    }
  }
}

}  // namespace

struct symmetric_path::state {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1, ctas = 1;
  cudaStream_t side = nullptr;
  ncclDevComm dev{};
  bool dev_made = false;
  void* buffer = nullptr;  // ncclMemAlloc'd, two halves
  ncclWindow_t window = nullptr;
  std::size_t half = 0;
  int* flag = nullptr;  // a device word for the host-side agreements below
  cudaEvent_t last = nullptr;
  bool ran = false;  // a kernel ran: the next waits for `last`
  unsigned parity = 0;

  ~state() {
    if (ran) (void)cudaEventSynchronize(last);
    release_window();
    if (dev_made) (void)ncclDevCommDestroy(comm, &dev);
    if (flag) (void)cudaFree(flag);
    if (last) (void)cudaEventDestroy(last);
  }

  //! The minimum over ranks of `mine` (every rank calls it at the same point).
  int agree_min(int mine) {
    backend::check_gpu(cudaMemcpyAsync(flag, &mine, sizeof mine, cudaMemcpyHostToDevice, side), "nccl symmetric: cudaMemcpyAsync");
    check_nccl(ncclAllReduce(flag, flag, 1, ncclInt32, ncclMin, comm, side), "nccl symmetric: ncclAllReduce");
    int all = 0;
    backend::check_gpu(cudaMemcpyAsync(&all, flag, sizeof all, cudaMemcpyDeviceToHost, side), "nccl symmetric: cudaMemcpyAsync");
    backend::check_gpu(cudaStreamSynchronize(side), "nccl symmetric: cudaStreamSynchronize");
    return all;
  }

  //! Halves of at least `bytes`: a new window where the old is smaller, once every rank's
  //! kernels on the old one are done (the ranks ask for the same sizes at the same calls).
  void reserve(std::size_t bytes) {
    if (bytes <= half) return;
    if (ran) backend::check_gpu(cudaEventSynchronize(last), "nccl symmetric: cudaEventSynchronize");
    (void)agree_min(1);  // every rank's kernels on the old window are done
    release_window();
    const std::size_t grown = round_up(std::max(bytes, 2 * half), std::size_t(1) << 21);
    check_nccl(ncclMemAlloc(&buffer, 2 * grown), "nccl symmetric: ncclMemAlloc");
    check_nccl(ncclCommWindowRegister(comm, buffer, 2 * grown, &window, NCCL_WIN_COLL_SYMMETRIC), "nccl symmetric: ncclCommWindowRegister");
    half = grown;
  }

  void release_window() {
    if (window) (void)ncclCommWindowDeregister(comm, window);
    if (buffer) (void)ncclMemFree(buffer);
    window = nullptr;
    buffer = nullptr;
    half = 0;
  }

  //! The next kernel's half of the window (`bytes` of it), ordered after the last kernel.
  window_half begin(cudaStream_t stream, std::size_t bytes) {
    reserve(bytes);
    if (ran) backend::check_gpu(cudaStreamWaitEvent(stream, last, 0), "nccl symmetric: cudaStreamWaitEvent");
    window_half w{dev, window, parity * half, rank, size};
    parity ^= 1u;
    return w;
  }
  void end(cudaStream_t stream) {
    backend::check_gpu(cudaGetLastError(), "nccl symmetric: launching a kernel");
    backend::check_gpu(cudaEventRecord(last, stream), "nccl symmetric: cudaEventRecord");
    ran = true;
  }
  unsigned grid(std::size_t granule_count) const {
    return unsigned(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(ctas), (granule_count + threads - 1) / threads)));
  }
};

std::unique_ptr<symmetric_path> symmetric_path::make(ncclComm_t comm, int rank, int size, int device, cudaStream_t side) {
  auto s = std::make_unique<state>();
  s->comm = comm;
  s->rank = rank;
  s->size = size;
  s->side = side;
  int sms = 0;
  backend::check_gpu(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "nccl symmetric: cudaDeviceGetAttribute");
  s->ctas = std::max(1, std::min(sms, max_ctas));
  backend::check_gpu(cudaMalloc(reinterpret_cast<void**>(&s->flag), sizeof(int)), "nccl symmetric: cudaMalloc");
  backend::check_gpu(cudaEventCreateWithFlags(&s->last, cudaEventDisableTiming), "nccl symmetric: cudaEventCreate");
  const char* env = std::getenv("PREDUCE_NCCL_SYMMETRIC");
  const bool wanted = size > 1 && !(env && std::strcmp(env, "0") == 0);
  if (!s->agree_min(wanted ? 1 : 0)) return nullptr;
  ncclDevCommRequirements reqs;
  std::memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = s->ctas;
  const bool made = ncclDevCommCreate(comm, &reqs, &s->dev) == ncclSuccess;
  s->dev_made = made;
  const bool usable = made && s->dev.lsaSize == size && s->dev.lsaRank == rank;
  if (!s->agree_min(usable ? 1 : 0)) return nullptr;
  s->reserve(std::size_t(1) << 21);
  return std::unique_ptr<symmetric_path>(new symmetric_path(std::move(s)));
}

symmetric_path::symmetric_path(std::unique_ptr<state> s) : s_(std::move(s)) {}

symmetric_path::~symmetric_path() = default;

void symmetric_path::allgather(cudaStream_t stream, const void* send, void* recv, std::size_t bytes) {
  if (bytes == 0) return;
  const window_half w = s_->begin(stream, round_up(bytes, granule));
  allgather_kernel<<<s_->grid(granules(bytes)), threads, 0, stream>>>(w, static_cast<const char*>(send), static_cast<char*>(recv), bytes);
  s_->end(stream);
}

void symmetric_path::alltoall(cudaStream_t stream, const void* send, void* recv, std::size_t bytes) {
  if (bytes == 0) return;
  const std::size_t slot = round_up(bytes, granule);
  const window_half w = s_->begin(stream, slot * std::size_t(s_->size));
  alltoall_kernel<<<s_->grid(granules(bytes)), threads, 0, stream>>>(w, static_cast<const char*>(send), static_cast<char*>(recv), bytes, slot);
  s_->end(stream);
}

void symmetric_path::reduce_scatter(cudaStream_t stream, const void* send, void* recv, std::size_t count, element type) {
  if (type != element::i64) throw error(errc::unsupported, "nccl symmetric: reduce_scatter takes int64 sums");
  if (count == 0) return;
  const std::size_t bytes = count * sizeof(std::int64_t), slot = round_up(bytes, granule);
  const window_half w = s_->begin(stream, slot * std::size_t(s_->size));
  reduce_scatter_kernel<<<s_->grid(granules(bytes)), threads, 0, stream>>>(w, static_cast<const char*>(send), static_cast<std::int64_t*>(recv),
                                                                          count, slot);
  s_->end(stream);
}

void symmetric_path::allreduce(cudaStream_t stream, const void* send, void* recv, std::size_t count, std::size_t recv_stride, element type,
                               reduction op) {
  if (count == 0) return;
  auto run = [&](auto zero, auto op_tag) {
    using T = decltype(zero);
    using Op = decltype(op_tag);
    constexpr std::size_t per = granule / sizeof(T);
    const std::size_t block = round_up((count + std::size_t(s_->size) - 1) / std::size_t(s_->size), per);
    const std::size_t region = std::size_t(s_->size) * block * sizeof(T);
    const window_half w = s_->begin(stream, 2 * region);
    allreduce_kernel<T, Op><<<s_->grid(granules(count * sizeof(T))), threads, 0, stream>>>(w, static_cast<const char*>(send),
                                                                                         static_cast<T*>(recv), count, recv_stride, block);
    s_->end(stream);
  };
  const bool sum = op == reduction::sum;
  switch (type) {
    case element::f32: return sum ? run(float{}, add<float>{}) : run(float{}, most<float>{});
    case element::f64: return sum ? run(double{}, add<double>{}) : run(double{}, most<double>{});
    case element::i64: return sum ? run(std::int64_t{}, add<std::int64_t>{}) : run(std::int64_t{}, most<std::int64_t>{});
    case element::u8: return sum ? run(std::uint8_t{}, add<std::uint8_t>{}) : run(std::uint8_t{}, most<std::uint8_t>{});
  }
}

void symmetric_path::binned_sum(cudaStream_t stream, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count,
                                std::size_t recv_stride, element type) {
  if (count == 0) return;
  if (type != element::f32 && type != element::f64) throw error(errc::unsupported, "nccl symmetric: binned sums round to float or double");
  if ((reinterpret_cast<std::uintptr_t>(codes) | reinterpret_cast<std::uintptr_t>(limbs)) % granule != 0)
    throw error(errc::unsupported, "nccl symmetric: the binned sums' codes and bins must be 16-byte aligned");
  const std::size_t size = std::size_t(s_->size), block = round_up((count + size - 1) / size, tile_lines);
  const std::size_t value = type == element::f64 ? sizeof(double) : sizeof(float);
  const std::size_t limb_bytes = ::preduce::detail::binned::folds * sizeof(std::int64_t);
  const window_half w = s_->begin(stream, size * block * (1 + limb_bytes + value));
  const unsigned grid = unsigned(std::min<std::size_t>(std::size_t(s_->ctas), block / tile_lines));
  if (type == element::f64)
    binned_sum_kernel<double><<<grid, threads, 0, stream>>>(w, codes, limbs, static_cast<double*>(recv), count, recv_stride, block);
  else
    binned_sum_kernel<float><<<grid, threads, 0, stream>>>(w, codes, limbs, static_cast<float*>(recv), count, recv_stride, block);
  s_->end(stream);
}

#else  // an NCCL without its device API: its own collectives carry every exchange

struct symmetric_path::state {};
std::unique_ptr<symmetric_path> symmetric_path::make(ncclComm_t, int, int, int, cudaStream_t) { return nullptr; }
symmetric_path::symmetric_path(std::unique_ptr<state> s) : s_(std::move(s)) {}
symmetric_path::~symmetric_path() = default;
// No path is ever made, so none of these runs.
void symmetric_path::allgather(cudaStream_t, const void*, void*, std::size_t) { throw error(errc::unsupported, "nccl symmetric: no device API"); }
void symmetric_path::alltoall(cudaStream_t, const void*, void*, std::size_t) { throw error(errc::unsupported, "nccl symmetric: no device API"); }
void symmetric_path::reduce_scatter(cudaStream_t, const void*, void*, std::size_t, element) {
  throw error(errc::unsupported, "nccl symmetric: no device API");
}
void symmetric_path::allreduce(cudaStream_t, const void*, void*, std::size_t, std::size_t, element, reduction) {
  throw error(errc::unsupported, "nccl symmetric: no device API");
}
void symmetric_path::binned_sum(cudaStream_t, const std::uint8_t*, const std::int64_t*, void*, std::size_t, std::size_t, element) {
  throw error(errc::unsupported, "nccl symmetric: no device API");
}
#endif
}  // namespace detail
}  // namespace nccl
}  // namespace preduce
