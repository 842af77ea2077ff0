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
// Runs: the symmetric path's kernel table). Not varied one at a time. max_ctas stays below the
// SM count so every CTA is resident, as the per-CTA barriers need.
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
// allreduce's two steps over exchange::store_compact's form: each line's code and three bins
// stored into the line's owner, which meets them as exchange:: does (the highest code, the bins
// moved to it, integer sums) and rounds; the value (4 or 8 bytes) back to every rank. On the wire
// a bin is its low 32 bits and its high part, Hi: int16_t where every bin fits 48 bits (lines of
// fewer than 64 elements a rank: 19 bytes a line), else int32_t (25 bytes). A thread takes four
// consecutive lines (a quad) in every phase; tiles of `tile_lines` (a quad a thread) belong to
// one CTA index on every rank. A rank's block of `block` lines (a whole number of tiles) has, in
// the first region of each rank's half, slot r from rank r: [codes | low words by bin | high
// parts by bin]; the second region holds every line's value. A rank reads its own lines where
// its fold wrote them and stores its own block's values straight into recv, so its own slot
// and its own block's values in the window stay unused: copying them through the window made
// the call 5.5% slower at 2^26 lines on two H200s (5288 against 5011 us; docs/distributed.md).
constexpr std::size_t quad = 4;
constexpr std::size_t tile_lines = quad * threads;

//! Where a slot's arrays start, for blocks of `block` lines.
template <class Hi>
struct binned_slot {
  std::size_t block;
  __host__ __device__ std::size_t low(int f) const { return block + std::size_t(f) * block * sizeof(std::uint32_t); }
  __host__ __device__ std::size_t high(int f) const {
    return block * (1 + 3 * sizeof(std::uint32_t)) + std::size_t(f) * block * sizeof(Hi);
  }
  __host__ __device__ std::size_t bytes() const { return block * (1 + 3 * (sizeof(std::uint32_t) + sizeof(Hi))); }
};

//! Four lines' codes and bins (bin f of line i at bins[f][i]).
struct binned_quad {
  std::uint32_t codes;  // line i's code in byte i
  std::int64_t bins[3][quad];
};

//! The codes of lines first .. first + 3 of the compact form (line i's in byte i), those from
//! `lines` on as zeros.
__device__ std::uint32_t load_codes(const std::uint8_t* codes, std::size_t first, std::size_t lines) {
  if (first + quad <= lines) return *reinterpret_cast<const std::uint32_t*>(codes + first);  // first is a multiple of 4
  std::uint32_t c = 0;
  for (std::size_t i = 0; first + i < lines && i < quad; ++i) c |= std::uint32_t(codes[first + i]) << (8 * i);
  return c;
}

//! Lines first .. first + 3 of the compact form, those from `lines` on as zeros.
__device__ binned_quad load_quad(const std::uint8_t* codes, const std::int64_t* limbs, std::size_t first, std::size_t lines) {
  binned_quad q{};
  q.codes = load_codes(codes, first, lines);
  if (first + quad <= lines) {  // 16-byte aligned: first is a multiple of 4, the arrays 16-byte aligned
    const auto* v = reinterpret_cast<const longlong2*>(limbs + 3 * first);
    std::int64_t l[3 * quad];
#pragma unroll
    for (int k = 0; k < 3 * int(quad) / 2; ++k) {
      const longlong2 x = v[k];
      l[2 * k] = x.x, l[2 * k + 1] = x.y;
    }
#pragma unroll
    for (int i = 0; i < int(quad); ++i)
#pragma unroll
      for (int f = 0; f < 3; ++f) q.bins[f][i] = l[3 * i + f];
    return q;
  }
  for (std::size_t i = 0; first + i < lines && i < quad; ++i)
    for (int f = 0; f < 3; ++f) q.bins[f][i] = limbs[3 * (first + i) + f];
  return q;
}

//! Stores a quad at in-block line o of a slot (`to`): its codes, low words and high parts.
template <class Hi>
__device__ void store_quad(char* to, binned_slot<Hi> at, std::size_t o, const binned_quad& q) {
  *reinterpret_cast<std::uint32_t*>(to + o) = q.codes;
#pragma unroll
  for (int f = 0; f < 3; ++f) {
    *reinterpret_cast<uint4*>(to + at.low(f) + o * sizeof(std::uint32_t)) =
        make_uint4(std::uint32_t(q.bins[f][0]), std::uint32_t(q.bins[f][1]), std::uint32_t(q.bins[f][2]), std::uint32_t(q.bins[f][3]));
    Hi h[quad];
#pragma unroll
    for (int i = 0; i < int(quad); ++i) h[i] = Hi(q.bins[f][i] >> 32);
    if constexpr (sizeof(Hi) == 2) *reinterpret_cast<uint2*>(to + at.high(f) + o * sizeof(Hi)) = *reinterpret_cast<const uint2*>(h);
    else *reinterpret_cast<uint4*>(to + at.high(f) + o * sizeof(Hi)) = *reinterpret_cast<const uint4*>(h);
  }
}

//! The quad at in-block line o of a slot (`from`), its bins whole again.
template <class Hi>
__device__ binned_quad read_quad(const char* from, binned_slot<Hi> at, std::size_t o) {
  binned_quad q;
  q.codes = *reinterpret_cast<const std::uint32_t*>(from + o);
#pragma unroll
  for (int f = 0; f < 3; ++f) {
    const uint4 lo = *reinterpret_cast<const uint4*>(from + at.low(f) + o * sizeof(std::uint32_t));
    Hi h[quad];
    if constexpr (sizeof(Hi) == 2) *reinterpret_cast<uint2*>(h) = *reinterpret_cast<const uint2*>(from + at.high(f) + o * sizeof(Hi));
    else *reinterpret_cast<uint4*>(h) = *reinterpret_cast<const uint4*>(from + at.high(f) + o * sizeof(Hi));
    const std::uint32_t l[quad] = {lo.x, lo.y, lo.z, lo.w};
#pragma unroll
    for (int i = 0; i < int(quad); ++i) q.bins[f][i] = std::int64_t(std::uint64_t(std::int64_t(h[i])) << 32 | l[i]);
  }
  return q;
}

//! Four lines' values, as values and as 16-byte granules.
template <class R>
union value_quad {
  static constexpr int granules = int(quad * sizeof(R) / 16);
  R r[quad];
  uint4 v[granules];
};

//! Lines first .. first + 3 of recv (those below `lines`), in granules where recv is contiguous
//! and 16-byte aligned (`vector_out`).
template <class R>
__device__ void store_values(R* recv, std::size_t first, std::size_t lines, std::size_t stride, bool vector_out, const value_quad<R>& q) {
  if (vector_out && first + quad <= lines) {
#pragma unroll
    for (int h = 0; h < value_quad<R>::granules; ++h) reinterpret_cast<uint4*>(recv + first)[h] = q.v[h];
  } else {
    for (std::size_t i = 0; i < quad && first + i < lines; ++i) recv[(first + i) * stride] = q.r[i];
  }
}

template <class R, class Hi>
__global__ void __launch_bounds__(threads) binned_sum_kernel(window_half w, const std::uint8_t* codes, const std::int64_t* limbs, R* recv,
                                                              std::size_t lines, std::size_t stride, std::size_t block) {
  namespace ex = ::preduce::detail::exchange;
  namespace binned = ::preduce::detail::binned;
  static_assert(binned::folds == 3, "three bins a line");
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  const binned_slot<Hi> at{block};
  const std::size_t values = std::size_t(w.size) * at.bytes(), tiles = block / tile_lines;  // tiles: a block's
  const std::size_t mine = quad * threadIdx.x;  // this thread's first line in a tile
  // 1. Block j's quads into slot `rank` of rank j (every peer j), rank i starting with block i + 1.
  for (int k = 1; k < w.size; ++k) {
    const int j = (w.rank + k) % w.size;
    char* to = const_cast<char*>(w.peer(j, std::size_t(w.rank) * at.bytes()));
    for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
      const std::size_t o = u * tile_lines + mine, first = std::size_t(j) * block + o;
      if (first < lines) store_quad(to, at, o, load_quad(codes, limbs, first, lines));
    }
  }
  sync_ranks(bar);
  // 2. This rank's quads: every rank's bins at the highest code, summed, rounded, stored into
  //    every peer's second region and into recv.
  const bool vector_out = stride == 1 && reinterpret_cast<std::uintptr_t>(recv) % 16 == 0;
  for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
    const std::size_t o = u * tile_lines + mine, first = std::size_t(w.rank) * block + o;
    if (first >= lines) continue;
    std::uint8_t common[quad] = {};  // the highest code (special_code, 255, above every level)
    for (int r = 0; r < w.size; ++r) {
      const std::uint32_t c =
          r == w.rank ? load_codes(codes, first, lines) : *reinterpret_cast<const std::uint32_t*>(w.mine(std::size_t(r) * at.bytes() + o));
#pragma unroll
      for (int i = 0; i < int(quad); ++i)
        if (std::uint8_t(c >> (8 * i)) > common[i]) common[i] = std::uint8_t(c >> (8 * i));
    }
    std::int64_t sum[quad][3] = {};
    for (int r = 0; r < w.size; ++r) {
      const binned_quad q = r == w.rank ? load_quad(codes, limbs, first, lines) : read_quad(w.mine(std::size_t(r) * at.bytes()), at, o);
#pragma unroll
      for (int i = 0; i < int(quad); ++i) {
        const std::uint8_t own = std::uint8_t(q.codes >> (8 * i));
        if (common[i] == ex::special_code) {  // only the flags of the lines that saw a special count
          if (own == ex::special_code)
            for (int f = 0; f < 3; ++f) sum[i][f] += q.bins[f][i];
          continue;
        }
        const int shift = int(common[i]) - int(own);  // exchange::align_step's move (>= 0)
#pragma unroll
        for (int f = 0; f < 3; ++f) {
          std::int64_t moved = 0;  // bin f - shift, chosen among constant indices (registers, not local memory)
#pragma unroll
          for (int s = 0; s <= f; ++s)
            if (shift == s) moved = q.bins[f - s][i];
          sum[i][f] += moved;
        }
      }
    }
    value_quad<R> out;
#pragma unroll
    for (int i = 0; i < int(quad); ++i) out.r[i] = first + i < lines ? ex::value_of<R>(common[i], sum[i]) : R(0);
    for (int k = 1; k < w.size; ++k) {
      auto* to = reinterpret_cast<uint4*>(const_cast<char*>(w.peer((w.rank + k) % w.size, values + first * sizeof(R))));
#pragma unroll
      for (int h = 0; h < value_quad<R>::granules; ++h) to[h] = out.v[h];
    }
    store_values(recv, first, lines, stride, vector_out, out);
  }
  sync_ranks(bar);
  // 3. The peers' lines' values into recv, each CTA its tiles' (what the same CTA of the owner stored).
  for (int j = 0; j < w.size; ++j) {
    if (j == w.rank) continue;
    for (std::size_t u = blockIdx.x; u < tiles; u += gridDim.x) {
      const std::size_t first = std::size_t(j) * block + u * tile_lines + mine;
      if (first >= lines) continue;
      value_quad<R> in;
      const auto* from = reinterpret_cast<const uint4*>(w.mine(values + first * sizeof(R)));
#pragma unroll
      for (int h = 0; h < value_quad<R>::granules; ++h) in.v[h] = from[h];
      store_values(recv, first, lines, stride, vector_out, in);
    }
  }
}

// The agreement (preduce::communicator::agree): every rank's words into `all` (host memory the
// device can store to), rank r's at all[r * words ..). One CTA: a rank stores its words into its
// own copy, meets the peers at CTA 0's barrier, and loads theirs. Was ncclAllGather between two
// copies on the side stream: 24.6 us a call on two H200s (docs/distributed.md, Status).
constexpr std::size_t max_agreement_words = 8;
struct agreement_words {
  std::int64_t w[max_agreement_words];
};

__global__ void __launch_bounds__(32) agree_kernel(window_half w, agreement_words mine, std::size_t words, std::int64_t* all) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), w.dev, ncclTeamTagLsa(), blockIdx.x);
  if (threadIdx.x < words) reinterpret_cast<std::int64_t*>(w.mine(0))[threadIdx.x] = mine.w[threadIdx.x];
  sync_ranks(bar);
  for (std::size_t i = threadIdx.x; i < std::size_t(w.size) * words; i += blockDim.x)
    all[i] = reinterpret_cast<const std::int64_t*>(w.peer(int(i / words), 0))[i % words];
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
  std::int64_t* agreed = nullptr;  // pinned: the agreement kernel's output
  std::size_t agreed_words = 0;
  cudaEvent_t last = nullptr;
  bool ran = false;  // a kernel ran: the next waits for `last`
  unsigned parity = 0;

  ~state() {
    if (ran) (void)cudaEventSynchronize(last);
    release_window();
    if (dev_made) (void)ncclDevCommDestroy(comm, &dev);
    if (flag) (void)cudaFree(flag);
    if (agreed) (void)cudaFreeHost(agreed);
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
    // The registration is collective: a rank whose allocation failed must not leave the others
    // waiting in it, so the ranks agree on the allocations first and all throw alike.
    const ncclResult_t allocated = ncclMemAlloc(&buffer, 2 * grown);
    if (allocated != ncclSuccess) buffer = nullptr;
    if (!agree_min(allocated == ncclSuccess ? 1 : 0)) {
      release_window();
      if (allocated != ncclSuccess) check_nccl(allocated, "nccl symmetric: ncclMemAlloc");
      throw error(errc::communication, "nccl symmetric: another rank could not allocate the symmetric window (ncclMemAlloc of " +
                                           std::to_string(2 * grown) + " bytes)");
    }
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

bool symmetric_path::agree(const std::int64_t* mine, std::int64_t* all, std::size_t words) {
  if (words == 0 || words > max_agreement_words) return false;
  if (s_->agreed_words < std::size_t(s_->size) * words) {
    if (s_->agreed) backend::check_gpu(cudaFreeHost(s_->agreed), "nccl symmetric: cudaFreeHost");
    s_->agreed = nullptr;
    s_->agreed_words = 0;
    backend::check_gpu(cudaMallocHost(reinterpret_cast<void**>(&s_->agreed), std::size_t(s_->size) * words * sizeof(std::int64_t)),
                       "nccl symmetric: cudaMallocHost");
    s_->agreed_words = std::size_t(s_->size) * words;
  }
  agreement_words in{};
  std::memcpy(in.w, mine, words * sizeof(std::int64_t));
  const window_half w = s_->begin(s_->side, words * sizeof(std::int64_t));
  agree_kernel<<<1, 32, 0, s_->side>>>(w, in, words, s_->agreed);
  s_->end(s_->side);
  backend::check_gpu(cudaStreamSynchronize(s_->side), "nccl symmetric: waiting for the agreement");
  std::memcpy(all, s_->agreed, std::size_t(s_->size) * words * sizeof(std::int64_t));
  return true;
}

void symmetric_path::binned_sum(cudaStream_t stream, const std::uint8_t* codes, const std::int64_t* limbs, void* recv, std::size_t count,
                                std::size_t recv_stride, element type, std::uint64_t terms) {
  if (count == 0) return;
  if (type != element::f32 && type != element::f64) throw error(errc::unsupported, "nccl symmetric: binned sums round to float or double");
  if ((reinterpret_cast<std::uintptr_t>(codes) | reinterpret_cast<std::uintptr_t>(limbs)) % granule != 0)
    throw error(errc::unsupported, "nccl symmetric: the binned sums' codes and bins must be 16-byte aligned");
  const std::size_t size = std::size_t(s_->size), block = round_up((count + size - 1) / size, tile_lines);
  const unsigned grid = unsigned(std::min<std::size_t>(std::size_t(s_->ctas), block / tile_lines));
  // A bin total of `terms` terms has at most bit_length(terms) + 40 bits and a sign (exchange::).
  const int length = ::preduce::detail::binned::bit_length64(terms);
  auto run = [&](auto value, auto high) {
    using R = decltype(value);
    using Hi = decltype(high);
    const window_half w = s_->begin(stream, size * (binned_slot<Hi>{block}.bytes() + block * sizeof(R)));
    binned_sum_kernel<R, Hi><<<grid, threads, 0, stream>>>(w, codes, limbs, static_cast<R*>(recv), count, recv_stride, block);
    s_->end(stream);
  };
  const bool narrow = length + 41 <= 48;
  if (type == element::f64) return narrow ? run(double{}, std::int16_t{}) : run(double{}, std::int32_t{});
  return narrow ? run(float{}, std::int16_t{}) : run(float{}, std::int32_t{});
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
void symmetric_path::binned_sum(cudaStream_t, const std::uint8_t*, const std::int64_t*, void*, std::size_t, std::size_t, element, std::uint64_t) {
  throw error(errc::unsupported, "nccl symmetric: no device API");
}
bool symmetric_path::agree(const std::int64_t*, std::int64_t*, std::size_t) { throw error(errc::unsupported, "nccl symmetric: no device API"); }
#endif
}  // namespace detail
}  // namespace nccl
}  // namespace preduce
