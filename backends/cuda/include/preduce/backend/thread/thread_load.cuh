// SPDX-License-Identifier: Apache-2.0
// preduce cuda: thread-level input folding with 16-byte vector loads. An array is split into a
// scalar head (up to the first 16-byte boundary), a body of 16-byte vectors, and a scalar tail,
// so any alignment works and the body is read with the widest load the memory system serves.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/detail/source.hpp>

#include <preduce/backend/thread/thread_combine.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

constexpr int vector_bytes = 16;

//! 16-byte read through the read-only (non-coherent) path; the input is never written during
//! a reduction.
__device__ __forceinline__ uint4 load_vector(const void* p) { return __ldg(static_cast<const uint4*>(p)); }

//! The L2 evict_first policy for loads (createpolicy, sm_80+; 0 before, which no load reads):
//! for an input larger than the L2, which no later read can find there, so that its lines give
//! way before those that will be read again (the results: store_result_kept). Only for such
//! inputs: an input the L2 can hold keeps the plain load_vector, and the evict_normal policy is
//! no substitute for it (docs/tuning/building-blocks.md#l2_evict_first_policy).
//! Evidence: H200 argmax over rows of 4096 f32 at 2^28, evict_normal 252.3 us, evict_first 231.0.
__device__ __forceinline__ std::uint64_t l2_evict_first_policy() {
  std::uint64_t policy = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}

//! load_vector under an L2 eviction policy (l2_evict_first_policy; before sm_80, load_vector).
//! Volatile, as the loads behind __ldg are to the compiler: none moves above the wait for the
//! grid before (launch.cuh).
__device__ __forceinline__ uint4 load_vector(const void* p, std::uint64_t policy) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
#else
  (void)policy;
  return load_vector(p);
#endif
}

//! A plain array of T whose vector loads carry an L2 eviction policy (l2_evict_first_policy);
//! made on the device from an array_source by the kernels that take the policy, and read only
//! through its chunk_loader (vectors, no scalar head or tail).
template <class T>
struct policy_array_source {
  using value_type = T;
  const T* x;
  std::uint64_t policy;
};

//! Whether Source is a plain array (the kernels that take an L2 policy read those under it).
template <class Source>
struct is_array_source : std::false_type {};
template <class T>
struct is_array_source<detail::array_source<T>> : std::true_type {};

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

//! A plain array of T read under its policy.
template <class T>
struct chunk_loader<policy_array_source<T>, std::enable_if_t<vector_bytes % sizeof(T) == 0>> {
  using source = policy_array_source<T>;
  using element = T;
  static constexpr bool vectorized = true;
  static constexpr int width = vector_bytes / int(sizeof(T));
  static constexpr int loads_per_vector = 1;
  static constexpr bool always_usable = true;
  __device__ static void load(const source& s, std::uint64_t i, element (&e)[width]) {
    const uint4 v = load_vector(s.x + i, s.policy);
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
//! Measured and not taken for arg reducers: folding values only (one min/max instruction an
//! element), keeping the first index of the vector where the best last became strictly better,
//! and reading that vector again at the end for its first tie (same results): slower except for
//! bf16.
//! Evidence: f32 argmax 2^26 61.48 -> 64.06 us on an H200 (docs/tuning/building-blocks.md#fold_chunk).
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

//! The items of [0, items) that lane `lane` of group `group` owns, `groups` groups of `lanes`
//! lanes, folded Unroll at a time (the loads of a round issued before any is folded): into
//! `a` as a = fold(a, item, i), item i read by load(i, item). From one whole round for all
//! lanes up (items >= groups * lanes * Unroll), the items form tiles of Unroll * lanes; group
//! g takes tiles g, g + groups, ..., and lane l item u * lanes + l of each, so a warp's load
//! reads consecutive items and a group's round reads one contiguous tile (the last tile may be
//! partial). Below one round, lane l of group g takes items t, t + threads, ... (t = g * lanes +
//! l, threads = groups * lanes), at most Unroll of them: every lane gets a share. With one group
//! the two rules agree: lane l takes l, l + lanes, l + 2 lanes, ... The order is fixed by
//! (items, groups, lanes), which makes results run_to_run deterministic.
//! Tiles, not grid-wide stripes: a block's round reads one contiguous 32 KiB tile instead of
//! four 8 KiB pieces a grid's stripe apart. Exactly one round for all lanes takes the tiles too
//! (one unpredicated tile a group): the whole-array grid gives every power-of-two size below its
//! cap that shape, and the predicated stripe round was slower. A whole number of tiles leaves no
//! partial tile, and the group whose next index is `tiles` skips it: it once ran a round with
//! every load predicated off, on the collector's critical path at mid sizes.
//! Rounds > 0: the caller guarantees items <= Rounds * groups * lanes * Unroll, and the fold is
//! exactly Rounds predicated stripe rounds, unrolled: no loop and no tile path, so a one-block
//! kernel's code stays small (its instructions are fetched once per launch).
//! Evidence: f64 plus 2^20, stripes 5.17 us, tiles 4.40 (the rest: docs/tuning/building-blocks.md#fold_items).
template <int Unroll, class Item, int Rounds = 0, class Acc, class Load, class Fold>
__device__ __forceinline__ Acc fold_items(Acc a, std::uint64_t items, unsigned group, unsigned groups, unsigned lane, unsigned lanes,
                                          Load load, Fold fold) {
  // One round: item first + u * stride in load u; `whole`: every one of them exists.
  auto round = [&](std::uint64_t first, std::uint64_t stride, bool whole) {
    Item e[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      if (whole || first + u * stride < items) load(first + u * stride, e[u]);
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      if (whole || first + u * stride < items) a = fold(a, e[u], first + u * stride);
  };
  const std::uint64_t threads = std::uint64_t(groups) * lanes;
  if constexpr (Rounds > 0) {
    const std::uint64_t first = std::uint64_t(group) * lanes + lane;
#pragma unroll
    for (int r = 0; r < Rounds; ++r) round(first + std::uint64_t(r) * Unroll * threads, threads, false);
    return a;
  }
  if (items >= threads * Unroll) {
    const std::uint64_t tile = std::uint64_t(Unroll) * lanes, tiles = items / tile;
    std::uint64_t k = group;
    for (; k < tiles; k += groups) round(k * tile + lane, lanes, true);
    if (k == tiles && k * tile < items) round(k * tile + lane, lanes, false);  // the partial tile
  } else {
    round(std::uint64_t(group) * lanes + lane, threads, false);
  }
  return a;
}

//! 16-byte loads per element vector of a fold over Source: the loader's (two for a dot), or 1 on
//! the scalar path (whose "vector" is one element, elements_per_vector() == 1).
template <class Source>
constexpr int loads_per_vector() {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) return L::loads_per_vector;
  else return 1;
}

//! Folds into `a` the share of src[0..n) owned by lane `lane` of group `group` (`groups` groups
//! of `lanes` lanes; thread g = group * lanes + lane of threads = groups * lanes), in this order:
//! head element g (if g < head); its body vectors (fold_items over the 16-byte vectors, Unroll
//! loads in flight: Unroll / loads_per_vector element vectors, so Unroll * 16 bytes per thread);
//! tail element head + vectors*width + g (if below n). Sources without vector loads go through
//! fold_items element by element. Requires: head == vector_head(src, n) and, when the loader is
//! vectorized, loader::usable(src). Rounds > 0: n <= Rounds * groups * lanes * (elements of
//! vectors_per_round(Unroll, loads_per_vector) element vectors), folded in exactly Rounds stripe
//! rounds with no loop (fold_items' Rounds). WholeVectors: the loader is vectorized, head == 0 and n is a whole
//! number of vectors, so the code for a scalar head and tail is left out. The order is fixed for
//! (n, head, groups, lanes), which makes results run_to_run deterministic.
template <int Unroll, int Rounds = 0, bool WholeVectors = false, class Reducer, class Source>
__device__ __forceinline__ typename Reducer::acc_type fold_share(const Reducer& red, const Source& src, std::uint64_t n,
                                                                 std::uint64_t head, unsigned group, unsigned groups, unsigned lane,
                                                                 unsigned lanes, typename Reducer::acc_type a) {
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  const std::uint64_t g = std::uint64_t(group) * lanes + lane;
  if constexpr (L::vectorized) {
    // Unroll counts 16-byte loads; a source of two arrays issues two per element vector.
    constexpr int W = L::width;
    constexpr int U = vectors_per_round(Unroll, L::loads_per_vector);
    using Item = typename L::element[W];
    if constexpr (WholeVectors) head = 0;
    if (g < head) a = device_combine(red, a, red.lift(src[g], g));
    const std::uint64_t vectors = (n - head) / W;
    a = fold_items<U, Item, Rounds>(
        a, vectors, group, groups, lane, lanes, [&](std::uint64_t v, Item& e) { L::load(src, head + v * W, e); },
        [&](Acc acc, const Item& e, std::uint64_t v) { return fold_chunk(red, acc, e, head + v * W); });
    if (!WholeVectors) {
      const std::uint64_t t = head + vectors * W + g;
      if (t < n) a = device_combine(red, a, red.lift(src[t], t));
    }
  } else {
    using Item = typename Source::value_type;
    a = fold_items<Unroll, Item, Rounds>(
        a, n, group, groups, lane, lanes, [&](std::uint64_t i, Item& e) { e = src[i]; },
        [&](Acc acc, const Item& e, std::uint64_t i) { return device_combine(red, acc, red.lift(e, i)); });
  }
  return a;
}

}  // namespace backend
}  // namespace preduce
