// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: what one thread does: fold a chunk (the reducer's own fold, a pairwise tree or
// in order), fold a range in fixed order, and the adapters that let Kokkos join our accumulators (init = identity, join = combine).
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/config.hpp>
#include <preduce/detail/reducer.hpp>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Folds lifted(0) .. lifted(K - 1) as a pairwise tree: v[j] = combine(v[j], v[j + w]) for
//! w = K/2, K/4, .. 1. Requires: K a power of two, lifted(j) callable for every j < K (it does
//! the load and the lift). Returns the combined accumulator. The K loads are independent, so
//! they are all in flight at once; the first level vectorizes on CPUs.
template <int K, class Reducer, class Lifted>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type tree_fold(const Reducer& red, const Lifted& lifted) {
  static_assert((K & (K - 1)) == 0, "tree_fold: K must be a power of two");
  typename Reducer::acc_type v[K];
  for (int j = 0; j < K; ++j) v[j] = lifted(j);
  for (int w = K / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) v[j] = red.combine(v[j], v[j + w]);
  return v[0];
}

//! True when Reducer's combine is branch-free arithmetic (sums, products, bitwise and logical
//! operators), so a tree of combines costs nothing over an in-order fold. Comparisons are not:
//! on a CPU, folding them in order keeps their branches predictable (the running extreme rarely
//! changes), where a tree's combines go either way at random.
template <class Reducer, class = void>
struct branch_free_combine : std::false_type {};
template <class Reducer>
struct branch_free_combine<Reducer, std::void_t<decltype(Reducer::fused)>>
    : std::bool_constant<Reducer::fused == detail::fused_op::add || Reducer::fused == detail::fused_op::mul ||
                         Reducer::fused == detail::fused_op::bit_and || Reducer::fused == detail::fused_op::bit_or ||
                         Reducer::fused == detail::fused_op::bit_xor> {};

//! The extreme of v[0 .. chunk) by plain comparisons, as a pairwise tree over lanes (compilers
//! make vector min / max instructions of it). Meaningful where no v[j] is NaN; among equal
//! values it keeps one lane or another, so a zero's sign is not the in-order fold's.
template <bool IsMax, class V>
KOKKOS_INLINE_FUNCTION V lane_extreme(V (&v)[chunk]) {
  for (int w = chunk / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) v[j] = (IsMax ? v[j] < v[j + w] : v[j + w] < v[j]) ? v[j + w] : v[j];
  return v[0];
}

//! An arg reducer's value_reducer, else Reducer itself.
template <class Reducer, bool = detail::has_value_reducer<Reducer>::value>
struct value_reducer_of { using type = Reducer; };
template <class Reducer>
struct value_reducer_of<Reducer, true> { using type = typename Reducer::value_reducer; };
template <class Reducer>
using host_value_reducer = typename value_reducer_of<Reducer>::type;
//! Whether an extreme (or arg) reducer keeps the largest value.
template <class Reducer>
inline constexpr bool keeps_max = host_value_reducer<Reducer>::fused == detail::fused_op::max ||
                                  host_value_reducer<Reducer>::fused == detail::fused_op::max_ignore_nan;

//! True for the float-family min, max, minmax, argmin and argmax reducers (either NaN rule),
//! whose chunks fold_chunk meets through lane_extreme on CPUs.
template <class Reducer, class Element, class = void>
struct lane_extreme_fold : std::false_type {};
template <class Reducer, class Element>
struct lane_extreme_fold<Reducer, Element, std::enable_if_t<std::is_floating_point<detail::compare_t<Element>>::value>>
    : std::bool_constant<detail::is_extreme_reducer<host_value_reducer<Reducer>>::value ||
                         std::is_same<typename Reducer::acc_type, minmax_result<detail::compare_t<Element>>>::value> {};

//! Folds a chunk of float-family extremes (lane_extreme_fold) into *acc with the in-order fold's
//! bits, and returns true; or returns false, leaving *acc, where the chunk holds a NaN or (min,
//! max, minmax) its extreme is a zero: those the caller folds in order. The chunk's extreme
//! decides alone: min and max combine it into *acc; an arg result changes only where it is
//! strictly better, and then to its first index (equal values share their bits but for a
//! zero's sign, which arg ties treat as equal: the first tie wins either way). Evidence: Kokkos
//! 3.4 Serial, 2^22, f32 minmax 0.71 -> 1.47x plain Kokkos, argmax 0.70 -> 1.03x
//! (docs/tuning/whole.md#kokkos-host-extremes).
template <class Reducer, class Source>
KOKKOS_INLINE_FUNCTION bool fold_chunk_by_lanes(const Reducer& red, typename Reducer::acc_type* acc, const Source& src, std::uint64_t base,
                                                std::uint64_t index0) {
  using V = detail::compare_t<std::decay_t<decltype(src[base])>>;
  constexpr bool is_max = keeps_max<Reducer>;
  V v[chunk], w[chunk];
  bool nan = false;
  for (int j = 0; j < chunk; ++j) {
    v[j] = detail::convert<V>(src[base + std::uint64_t(j)]);
    w[j] = v[j];
    nan = nan | (v[j] != v[j]);
  }
  if (nan) return false;
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    const V m = lane_extreme<is_max>(w);
    if (acc->index != npos && !Reducer::better(m, acc->value)) return true;
    int j = 0;
    while (!(v[j] == m)) ++j;
    *acc = red.lift(src[base + std::uint64_t(j)], index0 + std::uint64_t(j));
  } else if constexpr (detail::is_extreme_reducer<Reducer>::value) {
    const V m = lane_extreme<is_max>(w);
    if (m == V(0)) return false;
    *acc = red.combine(*acc, m);
  } else {  // minmax
    const V lo = lane_extreme<false>(v), hi = lane_extreme<true>(w);
    if (lo == V(0) || hi == V(0)) return false;
    *acc = red.combine(*acc, {lo, hi});
  }
  return true;
}

//! Folds the `chunk` consecutive elements src[base + j], j < chunk, each lifted with index
//! index0 + j, into `acc`, and returns it. Requires: those elements readable, and every index
//! already in `acc` below index0 (the fold runs in index order). Uses, in order of preference:
//! on CPUs, float-family extremes by lanes (fold_chunk_by_lanes) where the chunk allows; then
//! on CPUs, argmin / argmax in order through combine_ordered (a later element wins only when
//! strictly better: a branch that rarely goes the other way, where the chunk fold's pairwise
//! trees branch at random; f32 argmax on Kokkos Serial, 2^20: 7179 -> 814 us,
//! docs/tuning/whole.md#kokkos-host-argmax); the reducer's own chunk fold (moments: one
//! division per chunk; argmin/argmax on GPUs: no index tie-breaks); a pairwise tree (GPUs,
//! and branch-free combines on CPUs); or an in-order fold.
template <class Reducer, class Source>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type fold_chunk(const Reducer& red, typename Reducer::acc_type acc,
                                                             const Source& src, std::uint64_t base, std::uint64_t index0) {
  using element = std::decay_t<decltype(src[base])>;
  if constexpr (host_shapes && lane_extreme_fold<Reducer, element>::value)
    if (fold_chunk_by_lanes(red, &acc, src, base, index0)) return acc;
  if constexpr (host_shapes && detail::has_value_reducer<Reducer>::value) {
    for (int j = 0; j < chunk; ++j) acc = red.combine_ordered(acc, red.lift(src[base + std::uint64_t(j)], index0 + std::uint64_t(j)));
    return acc;
  } else if constexpr (detail::has_chunk_fold<Reducer, element, chunk>::value) {
    element x[chunk];
    for (int j = 0; j < chunk; ++j) x[j] = src[base + std::uint64_t(j)];
    return red.template fold<chunk>(acc, x, index0);
  } else if constexpr (!host_shapes || branch_free_combine<Reducer>::value) {
    return red.combine(acc, tree_fold<chunk>(red, [&](int j) {
      return red.lift(src[base + std::uint64_t(j)], index0 + std::uint64_t(j));
    }));
  } else {
    for (int j = 0; j < chunk; ++j) acc = red.combine(acc, red.lift(src[base + std::uint64_t(j)], index0 + std::uint64_t(j)));
    return acc;
  }
}

//! argmin / argmax: folds src[base + i], i < count (count >= 1), each lifted with index
//! index0 + i, into `acc` with the in-order fold's result: a running best kept by selects (a
//! later element wins only when strictly better: a conditional move, no branch on the data) and
//! a NaN flag beside it; where the flag is set (a NaN among the elements or in `acc`) the
//! in-order fold's NaN rules decide, over the line again. Requires what serial_fold does.
template <class Reducer, class Source>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type fold_arg_by_selects(const Reducer& red, typename Reducer::acc_type acc,
                                                                      const Source& src, std::uint64_t base, std::uint64_t count,
                                                                      std::uint64_t index0) {
  using acc_type = typename Reducer::acc_type;
  using V = decltype(acc_type{}.value);
  constexpr bool is_max = keeps_max<Reducer>;
  V best = acc.value;
  std::uint64_t at = acc.index, i = 0;
  if (at == npos) {  // the identity loses to everything: the first element starts
    best = detail::convert<V>(src[base]);
    at = index0;
    i = 1;
  }
  bool nan = detail::is_nan(best);
  for (; i < count; ++i) {
    const V v = detail::convert<V>(src[base + i]);
    nan = nan | detail::is_nan(v);
    const bool take = is_max ? best < v : v < best;
    best = take ? v : best;
    at = take ? index0 + i : at;
  }
  if (!nan) return acc_type{best, at};
  for (i = 0; i < count; ++i) acc = red.combine_ordered(acc, red.lift(src[base + i], index0 + i));
  return acc;
}

//! argmin / argmax of f32 elements: folds src[base + i], i < count (count >=
//! host_arg_extreme_lanes), each lifted with index index0 + i, into `acc` with the in-order
//! fold's result: first the line's extreme by plain comparisons in host_arg_extreme_lanes lanes,
//! and a NaN seen in each lane kept by the same selects (both vectorize at x86-64's baseline:
//! maxps, cmpneqps), then, where that extreme beats `acc` (strictly: acc's indices come first), the
//! first element equal to it (equal values are the same bits but for a zero's sign, which arg
//! ties treat as equal). Where a lane or `acc` holds a NaN, the in-order fold's NaN rules decide,
//! over the line again. Requires what serial_fold does. Out of line: inlined at every call site
//! it grew the args units past gcc's growth budget, and f64 segments in the same unit, which do
//! not call it, ran 1.7x slower (docs/performance-log.md).
template <class Reducer, class Source>
KOKKOS_FUNCTION PREDUCE_NOINLINE typename Reducer::acc_type fold_arg_by_extreme(const Reducer& red, typename Reducer::acc_type acc,
                                                                      const Source& src, std::uint64_t base, std::uint64_t count,
                                                                      std::uint64_t index0) {
  using acc_type = typename Reducer::acc_type;
  using V = decltype(acc_type{}.value);
  constexpr int K = host_arg_extreme_lanes;
  constexpr bool is_max = keeps_max<Reducer>;
  V lane[K], nan[K];  // nan[j]: a NaN lane j has seen, else one of its values
  for (int j = 0; j < K; ++j) lane[j] = nan[j] = src[base + std::uint64_t(j)];
  std::uint64_t i = K;
  for (; i + K <= count; i += K)
    for (int j = 0; j < K; ++j) {
      const V v = src[base + i + std::uint64_t(j)];
      nan[j] = v != v ? v : nan[j];
      lane[j] = (is_max ? lane[j] < v : v < lane[j]) ? v : lane[j];
    }
  bool any_nan = acc.index != npos && detail::is_nan(acc.value);
  for (int j = 0; j < K; ++j) any_nan = any_nan | detail::is_nan(nan[j]);
  V m = lane[0];
  for (int j = 1; j < K; ++j) m = (is_max ? m < lane[j] : lane[j] < m) ? lane[j] : m;
  for (; i < count; ++i) {
    const V v = src[base + i];
    any_nan = any_nan | detail::is_nan(v);
    m = (is_max ? m < v : v < m) ? v : m;
  }
  if (any_nan) {
    for (i = 0; i < count; ++i) acc = red.combine_ordered(acc, red.lift(src[base + i], index0 + i));
    return acc;
  }
  if (acc.index != npos && !(is_max ? acc.value < m : m < acc.value)) return acc;
  i = 0;
  while (!(src[base + i] == m)) ++i;
  return acc_type{src[base + i], index0 + i};
}

//! acc[w] = the in-order fold of src[r * cols + c0 + w] over rows r0 <= r < r1, each lifted with
//! its row r: the column folds' way back where a tile holds a NaN (the NaN rules decide in order).
template <int W, class Reducer, class Source>
KOKKOS_INLINE_FUNCTION void fold_columns_in_order(const Reducer& red, typename Reducer::acc_type (&acc)[W], const Source& src,
                                                  std::uint64_t r0, std::uint64_t r1, std::uint64_t cols, std::uint64_t c0) {
  for (int w = 0; w < W; ++w) acc[w] = red.identity();
  for (std::uint64_t r = r0; r < r1; ++r)
    for (int w = 0; w < W; ++w) acc[w] = red.combine(acc[w], red.lift(src[r * cols + c0 + std::uint64_t(w)], r));
}

//! argmin / argmax of W neighbouring columns: acc[w] = the in-order fold of src[r * cols + c0 +
//! w] over rows r0 <= r < r1 (0 < r1 - r0 < 2^32), each lifted with its row r. A running best a
//! column kept by selects, the columns side by side, and a NaN flag a column; where one is set,
//! fold_columns_in_order. The rows are offsets as wide as the values (32 bits under 8-byte
//! values) and the index select a mask, so the lanes are of one width and gcc 12 vectorizes
//! 4-byte columns at x86-64's baseline (with 64-bit rows and a conditional it did not: 2.7-4.4x
//! slower in a probe, f32 columns of 32); 8-byte ones only with AVX2 (docs/performance-log.md).
//! Requires: those elements readable.
template <int W, class Reducer, class Source>
KOKKOS_INLINE_FUNCTION void fold_arg_columns_by_selects(const Reducer& red, typename Reducer::acc_type (&acc)[W], const Source& src,
                                                        std::uint64_t r0, std::uint64_t r1, std::uint64_t cols, std::uint64_t c0) {
  using acc_type = typename Reducer::acc_type;
  using V = decltype(acc_type{}.value);
  constexpr bool is_max = keeps_max<Reducer>;
  using I = std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>;
  V best[W];
  I at[W], nan[W];  // the best's row offset from r0; NaN seen
  for (int w = 0; w < W; ++w) {
    best[w] = detail::convert<V>(src[r0 * cols + c0 + std::uint64_t(w)]);
    at[w] = 0;
    nan[w] = detail::is_nan(best[w]);
  }
  const auto rows = I(r1 - r0);
  for (I k = 1; k < rows; ++k)
    for (int w = 0; w < W; ++w) {
      const V v = detail::convert<V>(src[(r0 + k) * cols + c0 + std::uint64_t(w)]);
      nan[w] |= I(detail::is_nan(v));
      const I take = I(0) - I(is_max ? best[w] < v : v < best[w]);  // all ones where v wins
      at[w] = (k & take) | (at[w] & ~take);
      best[w] = (is_max ? best[w] < v : v < best[w]) ? v : best[w];
    }
  I any_nan = 0;
  for (int w = 0; w < W; ++w) any_nan |= nan[w];
  if (any_nan) return fold_columns_in_order(red, acc, src, r0, r1, cols, c0);
  for (int w = 0; w < W; ++w) acc[w] = acc_type{best[w], r0 + at[w]};
}

//! minmax of W neighbouring columns, rows r0 <= r < r1 (r1 > r0), as fold_columns_in_order
//! would give it: the minima and maxima as two arrays of plain selects and a NaN flag a column,
//! so the columns vectorize (without a NaN, min_of / max_of are these selects: equal values keep
//! the first); where a NaN was seen, fold_columns_in_order. Through `combine` (NaN tests,
//! branches) f32 columns of 32 ran at 0.75-1.33x plain Kokkos, by selects 4.7-7.5x
//! (docs/performance-log.md). Requires: those elements readable.
template <int W, class Reducer, class Source>
KOKKOS_INLINE_FUNCTION void fold_minmax_columns_by_selects(const Reducer& red, typename Reducer::acc_type (&acc)[W], const Source& src,
                                                           std::uint64_t r0, std::uint64_t r1, std::uint64_t cols, std::uint64_t c0) {
  using acc_type = typename Reducer::acc_type;
  using V = decltype(acc_type{}.min);
  using I = std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>;
  V low[W], high[W];
  I nan[W];
  for (int w = 0; w < W; ++w) {
    low[w] = high[w] = detail::convert<V>(src[r0 * cols + c0 + std::uint64_t(w)]);
    nan[w] = I(detail::is_nan(low[w]));
  }
  for (std::uint64_t r = r0 + 1; r < r1; ++r)
    for (int w = 0; w < W; ++w) {
      const V v = detail::convert<V>(src[r * cols + c0 + std::uint64_t(w)]);
      nan[w] |= I(detail::is_nan(v));
      low[w] = v < low[w] ? v : low[w];
      high[w] = high[w] < v ? v : high[w];
    }
  I any_nan = 0;
  for (int w = 0; w < W; ++w) any_nan |= nan[w];
  if (any_nan) return fold_columns_in_order(red, acc, src, r0, r1, cols, c0);
  for (int w = 0; w < W; ++w) acc[w] = acc_type{low[w], high[w]};
}

//! Folds src[base + i] for i < count, each lifted with index index0 + i, into `acc` in index
//! order: whole chunks by fold_chunk, then the rest one by one (on CPUs, argmin / argmax of f32
//! over host_arg_extreme_elements or more by fold_arg_by_extreme, and over fewer than
//! host_arg_select_elements by fold_arg_by_selects). Requires: those elements
//! readable, every index already in `acc` below index0. Returns the updated accumulator.
template <class Reducer, class Source>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type serial_fold(const Reducer& red, typename Reducer::acc_type acc,
                                                              const Source& src, std::uint64_t base, std::uint64_t count,
                                                              std::uint64_t index0) {
  if constexpr (host_shapes && detail::has_value_reducer<Reducer>::value) {
    if constexpr (std::is_same<std::decay_t<decltype(src[base])>, float>::value)
      if (count >= host_arg_extreme_elements) return fold_arg_by_extreme(red, acc, src, base, count, index0);
    if (count > 0 && count < host_arg_select_elements) return fold_arg_by_selects(red, acc, src, base, count, index0);
  }
  std::uint64_t i = 0;
  for (; i + chunk <= count; i += chunk) acc = fold_chunk(red, acc, src, base + i, index0 + i);
  for (; i < count; ++i) acc = red.combine(acc, red.lift(src[base + i], index0 + i));
  return acc;
}

#if KOKKOS_VERSION < 40000
//! Kokkos 3 calls join on volatile shared-memory values. Copying byte by byte through volatile
//! keeps every access volatile (a const_cast would let the compiler cache warp-shared values
//! in registers), and works for any trivially copyable accumulator.
template <class T>
KOKKOS_INLINE_FUNCTION T load_volatile(const volatile T& v) {
  static_assert(std::is_trivially_copyable<T>::value, "preduce: accumulators must be trivially copyable");
  T out;
  const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(&v);
  unsigned char* dst = reinterpret_cast<unsigned char*>(&out);
  for (unsigned i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  return out;
}
template <class T>
KOKKOS_INLINE_FUNCTION void store_volatile(volatile T& v, const T& value) {
  const unsigned char* src = reinterpret_cast<const unsigned char*>(&value);
  volatile unsigned char* dst = reinterpret_cast<volatile unsigned char*>(&v);
  for (unsigned i = 0; i < sizeof(T); ++i) dst[i] = src[i];
}
#endif

//! Kokkos's reducer concept over a preduce Reducer, for nested (team) parallel_reduce.
//! Requires: `value` outlives the reduction. The reduction leaves its result in `value` on
//! every thread of the team.
template <class Reducer>
struct kokkos_reducer {
  using reducer = kokkos_reducer;
  using value_type = typename Reducer::acc_type;
  using result_view_type = Kokkos::View<value_type, Kokkos::AnonymousSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Reducer red;
  value_type* value;

  KOKKOS_INLINE_FUNCTION kokkos_reducer(const Reducer& r, value_type& v) : red(r), value(&v) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const { dst = red.combine(dst, src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    store_volatile(dst, red.combine(load_volatile(dst), load_volatile(src)));
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = red.identity(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value; }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result_view_type(value); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

//! The init / join / final members Kokkos looks for on a reduction functor, over a preduce
//! Reducer: init = identity, join = combine and, when Final, final = finalize (only possible
//! when the result type is the accumulator type, since Kokkos stores final's value in place).
//! Derived functors add operator()(index, value_type&).
template <class Reducer, bool Final>
struct reduction_members {
  using value_type = typename Reducer::acc_type;
  Reducer red;

  explicit reduction_members(const Reducer& r) : red(r) {}
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = red.identity(); }
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const { dst = red.combine(dst, src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    store_volatile(dst, red.combine(load_volatile(dst), load_volatile(src)));
  }
#endif
};
template <class Reducer>
struct reduction_members<Reducer, true> : reduction_members<Reducer, false> {
  using value_type = typename Reducer::acc_type;
  using reduction_members<Reducer, false>::reduction_members;
  KOKKOS_INLINE_FUNCTION void final(value_type& v) const { v = this->red.finalize(v); }
};

}  // namespace backend
}  // namespace preduce
