// SPDX-License-Identifier: Apache-2.0
// preduce: how one GPU thread folds its share of an input with 16-byte vector loads: a scalar
// head up to the first 16-byte boundary, a body of 16-byte vectors (Unroll of them in flight
// before any is folded), and a scalar tail, so any alignment works and the body is read with the
// widest load the memory system serves. Vendor-neutral: the one device-specific operation, the
// 16-byte load, comes from the backend as a `VectorLoad` type with
//   template <class T> static void load(const T* p, T (&e)[16 / sizeof(T)]);   // p 16-byte aligned
// (hip: backends/hip/.../thread/thread_load.hpp). Host code never calls these functions.
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/config.hpp>
#include <preduce/detail/source.hpp>

namespace preduce {
namespace portable {

constexpr int vector_bytes = 16;

//! How a source maps onto raw arrays for vector loads. The primary template is the scalar
//! fallback (any source, element by element).
template <class VectorLoad, class Source, class Enable = void>
struct chunk_loader {
  static constexpr bool vectorized = false;
};

//! A plain array of T.
template <class VectorLoad, class T>
struct chunk_loader<VectorLoad, detail::array_source<T>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::array_source<T>;
  using element = T;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));  //!< elements per vector
  static constexpr bool always_usable = true;
  static const void* base(const source& s) { return s.x; }
  static bool usable(const source&) { return true; }
  PREDUCE_HD static void load(const source& s, std::uint64_t i, element (&e)[width]) { VectorLoad::load(s.x + i, e); }
};

//! dot's two arrays: vectorized only when x and y sit at the same offset from a 16-byte boundary.
template <class VectorLoad, class T>
struct chunk_loader<VectorLoad, detail::pair_source<T>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::pair_source<T>;
  using element = detail::pair_of<T>;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));
  static constexpr bool always_usable = false;
  static const void* base(const source& s) { return s.x; }
  static bool usable(const source& s) {
    return (reinterpret_cast<std::uintptr_t>(s.x) - reinterpret_cast<std::uintptr_t>(s.y)) % vector_bytes == 0;
  }
  PREDUCE_HD static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    T x[width], y[width];
    VectorLoad::load(s.x + i, x);
    VectorLoad::load(s.y + i, y);
    for (int k = 0; k < width; ++k) e[k] = {x[k], y[k]};
  }
};

//! A user transform over a plain array: raw vectors, transformed per element.
template <class VectorLoad, class T, class F>
struct chunk_loader<VectorLoad, detail::transform_source<detail::array_source<T>, F>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = detail::transform_source<detail::array_source<T>, F>;
  using element = typename source::value_type;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));
  static constexpr bool always_usable = true;
  static const void* base(const source& s) { return s.s.x; }
  static bool usable(const source&) { return true; }
  PREDUCE_HD static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    T x[width];
    VectorLoad::load(s.s.x + i, x);
    for (int k = 0; k < width; ++k) e[k] = s.f(x[k]);
  }
};

//! The same elements as Source, read one at a time: the fallback for a call whose arrays cannot
//! share vector loads (dot with x and y at different offsets from a 16-byte boundary).
template <class Source>
struct scalar_view {
  using value_type = typename Source::value_type;
  Source s;
  PREDUCE_HD value_type operator[](std::uint64_t i) const { return s[i]; }
};

//! Elements before the first 16-byte boundary (the scalar head), at most n; 0 when the source
//! cannot be vectorized (the kernels then take the scalar path).
template <class VectorLoad, class Source>
std::uint64_t vector_head(const Source& src, std::uint64_t n) {
  using L = chunk_loader<VectorLoad, Source>;
  if constexpr (L::vectorized) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(src.base())>>;
    const auto a = reinterpret_cast<std::uintptr_t>(L::base(src));
    const std::uint64_t h = ((vector_bytes - a % vector_bytes) % vector_bytes) / sizeof(T);
    return h < n ? h : n;
  } else {
    return 0;
  }
}

//! Folds W elements starting at index `first` into a. Reducers with a `fold` member (e.g.
//! moments, which merges a whole chunk at once) use it; others combine element by element.
template <class Reducer, class Acc, class E, int W>
PREDUCE_HD PREDUCE_INLINE Acc fold_chunk(const Reducer& red, Acc a, const E (&e)[W], std::uint64_t first) {
  if constexpr (detail::has_chunk_fold<Reducer, E, W>::value) {
    return red.fold(a, e, first);
  } else {
    for (int k = 0; k < W; ++k) a = red.combine(a, red.lift(e[k], first + k));
    return a;
  }
}

//! Folds into `a` the share of src[0..n) of global thread g out of `threads`: head element g (if
//! below head); vectors g, g + threads, ... of the body (Unroll loaded before any is folded);
//! tail element head + vectors * width + g (if below n). Requires: head == vector_head(src, n)
//! and, when the loader is vectorized, its usable(src). The order is fixed by (n, head,
//! threads), which makes results run_to_run deterministic.
template <int Unroll, class VectorLoad, class Reducer, class Source>
PREDUCE_HD PREDUCE_INLINE typename Reducer::acc_type fold_share(const Reducer& red, const Source& src, std::uint64_t n, std::uint64_t head,
                                                                std::uint64_t g, std::uint64_t threads, typename Reducer::acc_type a) {
  using L = chunk_loader<VectorLoad, Source>;
  if constexpr (L::vectorized) {
    constexpr int W = L::width;
    if (g < head) a = red.combine(a, red.lift(src[g], g));
    const std::uint64_t vectors = (n - head) / W;
    std::uint64_t v = g;
    for (; v + (Unroll - 1) * threads < vectors; v += Unroll * threads) {
      typename L::element e[Unroll][W];
      for (int u = 0; u < Unroll; ++u) L::load(src, head + (v + u * threads) * W, e[u]);
      for (int u = 0; u < Unroll; ++u) a = fold_chunk(red, a, e[u], head + (v + u * threads) * W);
    }
    for (; v < vectors; v += threads) {
      typename L::element e[W];
      L::load(src, head + v * W, e);
      a = fold_chunk(red, a, e, head + v * W);
    }
    const std::uint64_t t = head + vectors * W + g;
    if (t < n) a = red.combine(a, red.lift(src[t], t));
  } else {
    std::uint64_t i = g;
    for (; i + (Unroll - 1) * threads < n; i += Unroll * threads) {
      typename Source::value_type e[Unroll];
      for (int u = 0; u < Unroll; ++u) e[u] = src[i + u * threads];
      for (int u = 0; u < Unroll; ++u) a = red.combine(a, red.lift(e[u], i + u * threads));
    }
    for (; i < n; i += threads) a = red.combine(a, red.lift(src[i], i));
  }
  return a;
}

}  // namespace portable
}  // namespace preduce
