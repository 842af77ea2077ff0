// SPDX-License-Identifier: Apache-2.0
// preduce cuda: thread-level input folding with 16-byte vector loads. An array is split into a
// scalar head (up to the first 16-byte boundary), a body of 16-byte vectors, and a scalar tail,
// so any alignment works and the body is read with the widest load the memory system serves.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/detail/source.hpp>

#include "device_combine.cuh"

namespace preduce {
namespace backend {

constexpr int vector_bytes = 16;

//! 16-byte read through the read-only (non-coherent) path; the input is never written during
//! a reduction.
__device__ __forceinline__ uint4 load_vector(const void* p) { return __ldg(static_cast<const uint4*>(p)); }

//! How a source maps onto raw arrays for vector loads. The primary template is the scalar
//! fallback (any source, element by element).
template <class Source, class Enable = void>
struct chunk_loader {
  static constexpr bool vectorized = false;
};

//! A plain array of T.
template <class T>
struct chunk_loader<detail::array_source<T>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::array_source<T>;
  using element = T;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));  //!< elements per vector
  static constexpr int loads_per_vector = 1;                     //!< 16-byte loads per vector
  static constexpr bool always_usable = true;
  static const void* base(const source& s) { return s.x; }
  static bool usable(const source&) { return true; }
  __device__ static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    const uint4 v = load_vector(s.x + i);
    std::memcpy(e, &v, sizeof v);
  }
};

//! dot's two arrays: vectorized only when x and y sit at the same offset from a 16-byte boundary.
template <class T>
struct chunk_loader<detail::pair_source<T>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::pair_source<T>;
  using element = detail::pair_of<T>;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));
  static constexpr int loads_per_vector = 2;
  static constexpr bool always_usable = false;
  static const void* base(const source& s) { return s.x; }
  static bool usable(const source& s) {
    return (reinterpret_cast<std::uintptr_t>(s.x) - reinterpret_cast<std::uintptr_t>(s.y)) % vector_bytes == 0;
  }
  __device__ static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    const uint4 vx = load_vector(s.x + i), vy = load_vector(s.y + i);
    T x[width], y[width];
    std::memcpy(x, &vx, sizeof vx);
    std::memcpy(y, &vy, sizeof vy);
#pragma unroll
    for (int k = 0; k < width; ++k) e[k] = {x[k], y[k]};
  }
};

//! A user transform over a plain array: raw vectors, transformed per element.
template <class T, class F>
struct chunk_loader<detail::transform_source<detail::array_source<T>, F>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::transform_source<detail::array_source<T>, F>;
  using element = typename source::value_type;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));
  static constexpr int loads_per_vector = 1;
  static constexpr bool always_usable = true;
  static const void* base(const source& s) { return s.s.x; }
  static bool usable(const source&) { return true; }
  __device__ static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    const uint4 v = load_vector(s.s.x + i);
    T x[width];
    std::memcpy(x, &v, sizeof v);
#pragma unroll
    for (int k = 0; k < width; ++k) e[k] = s.f(x[k]);
  }
};

//! The same elements as Source, read one at a time: the fallback for a call whose arrays cannot
//! share vector loads (dot with x and y at different offsets from a 16-byte boundary).
template <class Source>
struct scalar_view {
  using value_type = typename Source::value_type;
  Source s;
  __device__ value_type operator[](std::uint64_t i) const { return s[i]; }
};

//! Elements before the first 16-byte boundary (the scalar head), at most n. 0 when the source
//! cannot be vectorized, in which case the kernels use the scalar path.
template <class Source>
std::uint64_t vector_head(const Source& src, std::uint64_t n) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) {
    const auto a = reinterpret_cast<std::uintptr_t>(L::base(src));
    const std::uint64_t h = ((vector_bytes - a % vector_bytes) % vector_bytes) / sizeof(typename std::remove_pointer_t<decltype(src.base())>);
    return h < n ? h : n;
  } else {
    return 0;
  }
}

//! Elements a thread reads per vector slot of a fold over `Source`: a vector's width, or 1 on the
//! scalar path.
template <class Source>
constexpr std::uint64_t elements_per_vector() {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) return L::width;
  else return 1;
}

//! Runs launch(source) with src, or with scalar_view<Source>{src} when src's arrays cannot share
//! vector loads (dot with x and y at different offsets from a 16-byte boundary). For either,
//! vector_head(source, n) and elements_per_vector<decltype(source)>() describe the fold.
template <class Source, class Launch>
void with_loadable(const Source& src, Launch&& launch) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized && !L::always_usable) {
    if (!L::usable(src)) return launch(scalar_view<Source>{src});
  }
  launch(src);
}

//! Folds width elements starting at index `first` into a. Reducers with a `fold` member (e.g.
//! moments, which merges a whole chunk at once) use it; others combine element by element
//! (device_combine).
template <class Reducer, class Acc, class E, int W>
__device__ __forceinline__ Acc fold_chunk(const Reducer& red, Acc a, const E (&e)[W], std::uint64_t first) {
  if constexpr (detail::has_chunk_fold<Reducer, E, W>::value) {
    return red.fold(a, e, first);
  } else {
#pragma unroll
    for (int k = 0; k < W; ++k) a = device_combine(red, a, red.lift(e[k], first + k));
    return a;
  }
}

//! fold_chunk where `a` already holds at least one element, all at smaller indices (a lane's
//! chunks after its first): arg reducers skip the identity test.
template <class Reducer, class Acc, class E, int W>
__device__ __forceinline__ Acc fold_chunk_after_first(const Reducer& red, Acc a, const E (&e)[W], std::uint64_t first) {
  if constexpr (detail::has_value_reducer<Reducer>::value && detail::has_chunk_fold<Reducer, E, W>::value) {
    return red.template fold<W, true>(a, e, first);
  } else {
    return fold_chunk(red, a, e, first);
  }
}

//! Folds element x at index i into a, i above every index a holds (a thread's own elements,
//! taken in order): through the reducer's chunk fold where it has one (arg reducers: a later
//! element wins only when strictly better, with no index comparison).
template <class Reducer, class Acc, class E>
__device__ __forceinline__ Acc fold_element(const Reducer& red, Acc a, const E& x, std::uint64_t i) {
  const E one[1] = {x};
  return fold_chunk(red, a, one, i);
}

//! Folds element x at index i into a, which already holds at least one element, all at smaller
//! indices (a thread's own elements after its first, taken in order): as fold_element, but arg
//! reducers skip the identity test, so a later element is one `better` test and a select.
template <class Reducer, class Acc, class E>
__device__ __forceinline__ Acc fold_after_first(const Reducer& red, Acc a, const E& x, std::uint64_t i) {
  const E one[1] = {x};
  return fold_chunk_after_first(red, a, one, i);
}

//! Folds into `a` the share of src[0..n) owned by thread g of `threads`, in this order: head
//! element g (if g < head); body vectors v = g, g + threads, ... (Unroll 16-byte loads issued
//! before any is folded, the last partial round too: Unroll / loads_per_vector element vectors,
//! so Unroll * 16 bytes are in flight per thread); tail element head + vectors*width + g (if
//! below n). Requires: head == vector_head(src, n) and, when the loader is vectorized,
//! loader::usable(src). The order is fixed for (n, head, threads), which makes results
//! run_to_run deterministic.
template <int Unroll, class Reducer, class Source>
__device__ __forceinline__ typename Reducer::acc_type fold_share(const Reducer& red, const Source& src, std::uint64_t n,
                                                                 std::uint64_t head, std::uint64_t g, std::uint64_t threads,
                                                                 typename Reducer::acc_type a) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) {
    // Unroll counts 16-byte loads; a source of two arrays issues two per element vector.
    constexpr int U = Unroll / L::loads_per_vector > 0 ? Unroll / L::loads_per_vector : 1;
    constexpr int W = L::width;
    if (g < head) a = device_combine(red, a, red.lift(src[g], g));
    const std::uint64_t vectors = (n - head) / W;
    std::uint64_t v = g;
    for (; v + (U - 1) * threads < vectors; v += U * threads) {
      typename L::element e[U][W];
#pragma unroll
      for (int u = 0; u < U; ++u) L::load(src, head + (v + u * threads) * W, e[u]);
#pragma unroll
      for (int u = 0; u < U; ++u) a = fold_chunk(red, a, e[u], head + (v + u * threads) * W);
    }
    {  // the last, partial round (fewer than U vectors): its loads in flight together too
      typename L::element e[U][W];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + u * threads < vectors) L::load(src, head + (v + u * threads) * W, e[u]);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + u * threads < vectors) a = fold_chunk(red, a, e[u], head + (v + u * threads) * W);
    }
    const std::uint64_t t = head + vectors * W + g;
    if (t < n) a = device_combine(red, a, red.lift(src[t], t));
  } else {
    std::uint64_t i = g;
    for (; i + (Unroll - 1) * threads < n; i += Unroll * threads) {
      typename Source::value_type e[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) e[u] = src[i + u * threads];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) a = device_combine(red, a, red.lift(e[u], i + u * threads));
    }
    {  // the last, partial round
      typename Source::value_type e[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (i + u * threads < n) e[u] = src[i + u * threads];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (i + u * threads < n) a = device_combine(red, a, red.lift(e[u], i + u * threads));
    }
  }
  return a;
}

}  // namespace backend
}  // namespace preduce
