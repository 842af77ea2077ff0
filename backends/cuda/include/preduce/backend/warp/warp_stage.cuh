// SPDX-License-Identifier: Apache-2.0
// preduce cuda: a warp copying a range of a source's elements into its own piece of shared
// memory with 16-byte asynchronous copies (cp.async on sm_80 and later: global to shared memory
// without a register round trip, so a lane has every vector of the range in flight at once),
// and reading elements back from there. Each of the source's arrays is staged at its own
// 16-byte alignment, so dot's x and y need not share one.
#pragma once

#include <cstdint>

#include <preduce/detail/source.hpp>

#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! How a source's elements are staged: its arrays (`arrays` of them, elements of type `raw`),
//! and an element read back from the arrays' copies (at[a][k]: the k-th element after the one
//! at[a] points to in array a's copy).
template <class Source>
struct stage_traits;

template <class T>
struct stage_traits<detail::array_source<T>> {
  using raw = T;
  static constexpr int arrays = 1;
  __device__ static const T* array(const detail::array_source<T>& s, int) { return s.x; }
  __device__ static T read(const detail::array_source<T>&, const T* const (&at)[arrays], unsigned k) { return at[0][k]; }
};

template <class T>
struct stage_traits<detail::pair_source<T>> {
  using raw = T;
  static constexpr int arrays = 2;
  __device__ static const T* array(const detail::pair_source<T>& s, int a) { return a == 0 ? s.x : s.y; }
  __device__ static detail::pair_of<T> read(const detail::pair_source<T>&, const T* const (&at)[arrays], unsigned k) {
    return {at[0][k], at[1][k]};
  }
};

template <class Source, class F>
struct stage_traits<detail::transform_source<Source, F>> {
  using inner = stage_traits<Source>;
  using raw = typename inner::raw;
  static constexpr int arrays = inner::arrays;
  __device__ static const raw* array(const detail::transform_source<Source, F>& s, int a) { return inner::array(s.s, a); }
  __device__ static auto read(const detail::transform_source<Source, F>& s, const raw* const (&at)[arrays], unsigned k) {
    return s.f(inner::read(s.s, at, k));
  }
};

//! The scalar fallback of with_loadable reads the same arrays.
template <class Source>
struct stage_traits<scalar_view<Source>> {
  using inner = stage_traits<Source>;
  using raw = typename inner::raw;
  static constexpr int arrays = inner::arrays;
  __device__ static const raw* array(const scalar_view<Source>& v, int a) { return inner::array(v.s, a); }
  __device__ static auto read(const scalar_view<Source>& v, const raw* const (&at)[arrays], unsigned k) {
    return inner::read(v.s, at, k);
  }
};

//! Byte b of a copy laid out with a skew every 2^row_shift bytes (row_shift 31: none): where it
//! lies in the stage. The one definition of the layout, for the copy (stage_range) and its reads
//! (staged_array).
__device__ __forceinline__ unsigned skewed_byte(unsigned b, unsigned row_shift) { return b + (b >> row_shift) * vector_bytes; }

//! The offset of p in its 16-byte vector: where element 0 of a range copied from p lies in its
//! first chunk (staged_array::first_byte).
__device__ __forceinline__ unsigned offset_in_vector(const void* p) {
  return unsigned(reinterpret_cast<std::uintptr_t>(p) % vector_bytes);
}

//! A staged array as stage_range lays it out: 16-byte chunks; in a skewed copy chunk q lies at
//! byte (q + q / SkewChunks) * 16 of the stage, so every SkewChunks chunks the copy moves one
//! chunk on, else at q * 16. Lanes folding segments of equal length from an unskewed copy read
//! the same bank: with 32 segments of 32 f32 elements, element t of every lane's segment lies
//! in bank t. Element k of the range is at byte first_byte + k * sizeof(T) of the unskewed copy.
template <class T, int SkewChunks>
struct staged_array {
  static_assert((SkewChunks & (SkewChunks - 1)) == 0, "a power of two: the skew is a shift");
  const unsigned char* stage;
  unsigned first_byte;
  unsigned row_shift;  //!< log2 of the bytes between skews: of SkewChunks * 16, or 31 when not skewed
  //! Element k of the range. Aligned for T: chunks are 16-byte aligned and the copy keeps each
  //! element's offset in its chunk.
  __device__ __forceinline__ const T* at(unsigned k) const {
    return reinterpret_cast<const T*>(stage + skewed_byte(first_byte + k * unsigned(sizeof(T)), row_shift));
  }
  //! Elements from k on that lie next to each other (up to the skew after k).
  __device__ __forceinline__ unsigned run(unsigned k) const {
    const unsigned row = 1u << row_shift;
    return (row - ((first_byte + k * unsigned(sizeof(T))) & (row - 1))) / unsigned(sizeof(T));
  }
};

//! Elements of Source a warp's stage of `Bytes` bytes holds in every case, skewed or not: each
//! array gets Bytes / arrays, of which SkewChunks / (SkewChunks + 1) hold data when skewed, and
//! a range's 16-byte chunks take up to 2 * (16 - sizeof(raw)) bytes more than its elements.
template <class Source, int Bytes, int SkewChunks>
PREDUCE_HD constexpr std::uint64_t stage_elements() {
  using S = stage_traits<Source>;
  constexpr int chunks = Bytes / S::arrays / vector_bytes;
  return std::uint64_t((chunks * SkewChunks / (SkewChunks + 1) - 2) * vector_bytes) / sizeof(typename S::raw);
}

//! cp.async of one 16-byte vector from global memory to shared address `to` (L1 bypassed).
//! The copies a thread issues are committed as one group by stage_range and completed by
//! stage_wait, both in PTX as well (cp.async.commit_group / cp.async.wait_group).
__device__ __forceinline__ void copy_vector_async(unsigned to, std::uintptr_t from) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(from) : "memory");
}

//! Copies elements [first, last) of `src` (last - first <= stage_elements<Source, Bytes,
//! SkewChunks>()) into `stage` (Bytes bytes, 16-byte aligned, this warp's own), skewed or not,
//! and sets at[a] to array a's copy (element 0 of it is element `first`). Only elements of
//! [lo, hi) are read (the caller's bounds: the segments' span), so nothing outside what the
//! call was given is touched: a chunk at either end that crosses those bounds is copied
//! element by element, every other one with a 16-byte cp.async, lane l taking chunks l, l + 32,
//! ... in a loop with no bounds test, which the compiler unrolls to under 5 instructions a
//! chunk (ncu, H200, f32 plus over segments of 0..64 elements: a loop testing every chunk's
//! bounds and converting its shared address took about 30 a chunk, 67M of the segment kernel's
//! 188M instructions; 154M without; docs/tuning/segments.md has the times). Requires: all 32 lanes
//! active. The copies are in flight on return; stage_wait() completes them.
template <int Bytes, int SkewChunks, class Source>
__device__ __forceinline__ void stage_range(
    const Source& src, std::uint64_t first, std::uint64_t last, std::uint64_t lo, std::uint64_t hi, bool skewed,
    unsigned char* stage, staged_array<typename stage_traits<Source>::raw, SkewChunks> (&at)[stage_traits<Source>::arrays]) {
  using S = stage_traits<Source>;
  using T = typename S::raw;
  static_assert(warp_threads % SkewChunks == 0, "a lane's chunks are a whole number of skews apart");
  constexpr int per_array = (Bytes / S::arrays / vector_bytes) * vector_bytes;
  const unsigned lane = threadIdx.x % warp_threads;
  constexpr unsigned skew_shift = __builtin_ctz(SkewChunks * vector_bytes);
  const unsigned row_shift = skewed ? skew_shift : 31;  // unskewed: no skew inside the stage
  // Chunk q lies at (q + q / SkewChunks) * 16 when skewed; a lane's next chunk, 32 on, 32 * 16
  // bytes plus 32 / SkewChunks chunks of skew further.
  const unsigned step = (warp_threads + (skewed ? warp_threads / SkewChunks : 0)) * vector_bytes;
#pragma unroll
  for (int a = 0; a < S::arrays; ++a) {
    const T* const x = S::array(src, a);
    unsigned char* const to = stage + a * per_array;
    const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(x + first), end = reinterpret_cast<std::uintptr_t>(x + last);
    const std::uintptr_t ok_begin = reinterpret_cast<std::uintptr_t>(x + lo), ok_end = reinterpret_cast<std::uintptr_t>(x + hi);
    const unsigned first_byte = offset_in_vector(x + first);
    const std::uintptr_t v0 = begin - first_byte;
    at[a] = {to, first_byte, row_shift};
    if (begin >= end) continue;
    const unsigned chunks = unsigned((end - v0 + vector_bytes - 1) / vector_bytes);
    const unsigned to_shared = unsigned(__cvta_generic_to_shared(to));
    const auto place = [&](unsigned q) { return skewed_byte(q * vector_bytes, row_shift); };
    // The end chunks that cross [lo, hi), element by element (lane 0 the first, lane 1 the last).
    const bool head_cut = v0 < ok_begin;
    const bool tail_cut = v0 + std::uintptr_t(chunks) * vector_bytes > ok_end && !(chunks == 1 && head_cut);
    const auto copy_elements = [&](unsigned q) {
      const std::uintptr_t v = v0 + std::uintptr_t(q) * vector_bytes;
      unsigned char* const d = to + place(q);
      for (std::uintptr_t p = v; p < v + vector_bytes; p += sizeof(T))
        if (p >= ok_begin && p < ok_end) *reinterpret_cast<T*>(d + (p - v)) = *reinterpret_cast<const T*>(p);
    };
    if (head_cut && lane == 0) copy_elements(0);
    if (tail_cut && lane == 1) copy_elements(chunks - 1);
    const unsigned q_end = chunks - (tail_cut ? 1 : 0);
    unsigned q = (head_cut ? 1 : 0) + lane;
    std::uintptr_t v = v0 + std::uintptr_t(q) * vector_bytes;
    for (unsigned d = to_shared + place(q); q < q_end; q += warp_threads, v += warp_threads * vector_bytes, d += step)
      copy_vector_async(d, v);
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

//! Waits for this lane's stage_range copies and makes every lane's visible to the whole warp.
__device__ __forceinline__ void stage_wait() {
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncwarp();
}

}  // namespace backend
}  // namespace preduce
