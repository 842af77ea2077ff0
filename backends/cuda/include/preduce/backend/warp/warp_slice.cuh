// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one slice of a larger source (a row, a tile of a row, a piece of a segment) as a
// source of its own, so the thread folds of thread_load.cuh read it with its own 16-byte head,
// body and tail and lifted indices count from the start of the row or segment; and a warp
// folding one such slice.
#pragma once

#include <cstdint>
#include <utility>

#include <preduce/detail/source.hpp>

#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/whole/whole_plan.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! The source whose element i is s[first + i].
template <class T>
__host__ __device__ detail::array_source<T> slice(const detail::array_source<T>& s, std::uint64_t first) {
  return {s.x + first};
}
template <class T>
__host__ __device__ detail::pair_source<T> slice(const detail::pair_source<T>& s, std::uint64_t first) {
  return {s.x + first, s.y + first};
}
template <class Source>
__host__ __device__ scalar_view<Source> slice(const scalar_view<Source>& v, std::uint64_t first) {
  return {slice(v.s, first)};
}

//! Elements of s before its first 16-byte boundary, at most n: the `head` fold_share expects
//! (vector_head's rule, on the device). 0 for sources without vector loads.
template <class Source>
__device__ __forceinline__ std::uint64_t head_of(const Source& s, std::uint64_t n) {
  if constexpr (chunk_loader<Source>::vectorized) {
    const auto a = reinterpret_cast<std::uintptr_t>(s.base());
    const std::uint64_t h = ((vector_bytes - a % vector_bytes) % vector_bytes) / sizeof(*s.base());
    return h < n ? h : n;
  } else {
    return 0;
  }
}

//! Reducer that lifts element i with index i + base and otherwise is Reducer: a slice's elements
//! keep their position in the whole row or segment (what argmin / argmax report). Forwards the
//! chunk fold (with first + base) when Reducer has one.
template <class Reducer>
struct index_shift_reducer {
  using acc_type = typename Reducer::acc_type;
  using result_type = typename Reducer::result_type;
  static constexpr detail::fused_op fused = Reducer::fused;
  Reducer red;
  std::uint64_t base;

  __device__ acc_type identity() const { return red.identity(); }
  template <class E>
  __device__ acc_type lift(const E& x, std::uint64_t i) const {
    return red.lift(x, i + base);
  }
  __device__ acc_type combine(acc_type a, acc_type b) const { return red.combine(a, b); }
  __device__ result_type finalize(acc_type a) const { return red.finalize(a); }
  template <int W, class E, class R = Reducer>  // R: keeps the return type a substitution failure for reducers without a fold
  __device__ auto fold(acc_type a, const E (&x)[W], std::uint64_t first) const
      -> decltype(std::declval<const R&>().template fold<W>(a, x, first)) {
    return red.template fold<W>(a, x, first + base);
  }
};
template <class Reducer>
struct minmax_parts<index_shift_reducer<Reducer>, void> : minmax_parts<Reducer> {};

//! Folds src[first .. last) into one accumulator per warp, element first lifted with index
//! `index0` (and so on). Requires: all 32 lanes active; when the loader is vectorized,
//! chunk_loader<Source>::usable(src) (callers pass a scalar_view otherwise). Returns the result
//! in lane 0 (warp_reduce's contract); the fold order is fixed by (first, last), so results are
//! run_to_run deterministic.
template <class Reducer, class Source>
__device__ __forceinline__ typename Reducer::acc_type warp_fold(const Reducer& red, const Source& src, std::uint64_t first,
                                                                std::uint64_t last, std::uint64_t index0, warp_algorithm w) {
  const Source s = slice(src, first);
  const std::uint64_t n = last - first;
  const index_shift_reducer<Reducer> shifted{red, index0};
  const auto a = fold_share<vectors_in_flight>(shifted, s, n, head_of(s, n), 0, 1, threadIdx.x % warp_threads, warp_threads,
                                               red.identity());
  return warp_reduce(red, a, w);
}

}  // namespace backend
}  // namespace preduce
