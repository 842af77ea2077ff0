// SPDX-License-Identifier: Apache-2.0
// preduce cuda: warp-level reduction three ways: a __shfl_down_sync tree, shuffle and operator
// fused in one PTX block under the shuffle's predicate, and sm_80's redux.sync.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/detail/reducer.hpp>
#include <preduce/execution.hpp>

#include <preduce/backend/thread/thread_combine.cuh>

namespace preduce {
namespace backend {

constexpr int warp_threads = 32;
constexpr unsigned full_warp_mask = 0xffffffffu;

// ---------------------------------------------------------------------------------------------
// 1. Shuffle tree, operator in C++
// ---------------------------------------------------------------------------------------------

//! A trivially copyable T as the 32-bit words that move it between lanes (shfl_words) and
//! between blocks (block/partial_publication.cuh, publish_partial): its bytes, or for an arg
//! accumulator its value's words and its index's two, without the padding between them (3 words
//! for arg<float> instead of 4).
template <class T>
struct packed_words {
  static_assert(std::is_trivially_copyable<T>::value, "packed accumulators must be trivially copyable");
  static constexpr int count = int((sizeof(T) + 3) / 4);
  __device__ static void to(const T& v, unsigned (&w)[count]) {
    w[count - 1] = 0;  // the bytes past sizeof(T), if any
    std::memcpy(w, &v, sizeof(T));
  }
  __device__ static T from(const unsigned (&w)[count]) {
    T v;
    std::memcpy(&v, w, sizeof(T));
    return v;
  }
};
template <class V>
struct packed_words<arg<V>> {
  static constexpr int value_words = int((sizeof(V) + 3) / 4), count = value_words + 2;
  __device__ static void to(const arg<V>& a, unsigned (&w)[count]) {
    w[value_words - 1] = 0;
    std::memcpy(w, &a.value, sizeof(V));
    std::memcpy(w + value_words, &a.index, sizeof(a.index));
  }
  __device__ static arg<V> from(const unsigned (&w)[count]) {
    arg<V> a;
    std::memcpy(&a.value, w, sizeof(V));
    std::memcpy(&a.index, w + value_words, sizeof(a.index));
    return a;
  }
};

//! Moves any trivially copyable T across lanes as its packed_words, word w going through
//! shuffle(w) (one of the __shfl_*_sync intrinsics on an unsigned word).
template <class T, class Shuffle>
__device__ __forceinline__ T shfl_words(const T& v, Shuffle shuffle) {
  using P = packed_words<T>;
  unsigned w[P::count];
  P::to(v, w);
#pragma unroll
  for (int k = 0; k < P::count; ++k) w[k] = shuffle(w[k]);
  return P::from(w);
}

//! __shfl_down_sync for any trivially copyable T. Requires: all 32 lanes active. Returns lane
//! (lane + delta)'s value, or the caller's own value where lane + delta >= 32.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta) {
  return shfl_words(v, [delta](unsigned x) { return __shfl_down_sync(full_warp_mask, x, delta); });
}

//! __shfl_xor_sync for any trivially copyable T. Requires: all 32 lanes active. Returns lane
//! (lane ^ mask)'s value.
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, unsigned mask) {
  return shfl_words(v, [mask](unsigned x) { return __shfl_xor_sync(full_warp_mask, x, mask); });
}

//! __shfl_sync for any trivially copyable T. Requires: all 32 lanes active. Returns lane
//! `source`'s value.
template <class T>
__device__ __forceinline__ T shfl_from(const T& v, unsigned source) {
  return shfl_words(v, [source](unsigned x) { return __shfl_sync(full_warp_mask, x, source); });
}

//! Tree reduction by shuffles, offsets 16, 8, 4, 2, 1. Requires: all 32 lanes active, each
//! holding a valid accumulator (identity where it has no data). Returns: the combination of all
//! 32 lanes in lane 0 (lane i combines itself with lane i + offset, so lane 0's value never
//! depends on the out-of-range lanes, which combine with themselves).
template <class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce_shuffle(const Reducer& red, Acc v) {
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2) v = device_combine(red, v, shfl_down(v, offset));
  return v;
}

// ---------------------------------------------------------------------------------------------
// 2. Shuffle fused with the operator in PTX
// ---------------------------------------------------------------------------------------------
// Each step is one asm block:
//   shfl.sync.down.b32 r|p, x, delta, 0x1f, 0xffffffff;   // r = lane (lane + delta)'s x;
//                                                         // 0x1f = clamp 31 (one 32-lane segment);
//                                                         // 0xffffffff = all lanes take part;
//                                                         // p = source lane was in range
//   @p <op> x, x, r;                                      // combine only with a valid peer
// 64-bit values move as two b32 halves under the same predicate. The predicate makes the step
// correct whatever the peer holds, so no identity padding is needed for out-of-range lanes.

#define PREDUCE_DETAIL_FUSED_SHFL32(fn, ctype, constraint, reg, op)                      \
  __device__ __forceinline__ ctype fn(ctype x, unsigned delta) {                         \
    asm volatile(                                                                        \
        "{\n\t.reg ." reg " r;\n\t.reg .pred p;\n\t"                                     \
        "shfl.sync.down.b32 r|p, %0, %1, 0x1f, 0xffffffff;\n\t"                          \
        "@p " op " %0, %0, r;\n\t}"                                                      \
        : "+" constraint(x) : "r"(delta));                                               \
    return x;                                                                            \
  }
#define PREDUCE_DETAIL_FUSED_SHFL64(fn, ctype, constraint, reg, op)                      \
  __device__ __forceinline__ ctype fn(ctype x, unsigned delta) {                         \
    asm volatile(                                                                        \
        "{\n\t.reg .b32 lo, hi;\n\t.reg ." reg " r;\n\t.reg .pred p;\n\t"                \
        "mov.b64 {lo, hi}, %0;\n\t"                                                      \
        "shfl.sync.down.b32 lo|p, lo, %1, 0x1f, 0xffffffff;\n\t"                         \
        "shfl.sync.down.b32 hi|p, hi, %1, 0x1f, 0xffffffff;\n\t"                         \
        "mov.b64 r, {lo, hi};\n\t"                                                       \
        "@p " op " %0, %0, r;\n\t}"                                                      \
        : "+" constraint(x) : "r"(delta));                                               \
    return x;                                                                            \
  }

// add: integers wrap modulo 2^bits like wrapping_add.
PREDUCE_DETAIL_FUSED_SHFL32(fused_add, float, "f", "f32", "add.f32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_add, std::int32_t, "r", "s32", "add.s32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_add, std::uint32_t, "r", "u32", "add.u32")
PREDUCE_DETAIL_FUSED_SHFL64(fused_add, double, "d", "f64", "add.f64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_add, std::int64_t, "l", "s64", "add.s64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_add, std::uint64_t, "l", "u64", "add.u64")
// mul: mul.lo keeps the low bits, i.e. the product modulo 2^bits.
PREDUCE_DETAIL_FUSED_SHFL32(fused_mul, float, "f", "f32", "mul.f32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_mul, std::int32_t, "r", "s32", "mul.lo.s32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_mul, std::uint32_t, "r", "u32", "mul.lo.u32")
PREDUCE_DETAIL_FUSED_SHFL64(fused_mul, double, "d", "f64", "mul.f64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_mul, std::int64_t, "l", "s64", "mul.lo.s64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_mul, std::uint64_t, "l", "u64", "mul.lo.u64")
// min/max, NaN-propagating for float: min.NaN.f32 returns NaN if either input is NaN (sm_80+,
// PTX 7.0). Plain min.f32/min.f64 return the non-NaN input, i.e. fmin: the nan_ignoring rule.
PREDUCE_DETAIL_FUSED_SHFL32(fused_min, float, "f", "f32", "min.NaN.f32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_max, float, "f", "f32", "max.NaN.f32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_min_ignore_nan, float, "f", "f32", "min.f32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_max_ignore_nan, float, "f", "f32", "max.f32")
PREDUCE_DETAIL_FUSED_SHFL64(fused_min_ignore_nan, double, "d", "f64", "min.f64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_max_ignore_nan, double, "d", "f64", "max.f64")
PREDUCE_DETAIL_FUSED_SHFL32(fused_min, std::int32_t, "r", "s32", "min.s32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_min, std::uint32_t, "r", "u32", "min.u32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_max, std::int32_t, "r", "s32", "max.s32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_max, std::uint32_t, "r", "u32", "max.u32")
PREDUCE_DETAIL_FUSED_SHFL64(fused_min, std::int64_t, "l", "s64", "min.s64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_min, std::uint64_t, "l", "u64", "min.u64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_max, std::int64_t, "l", "s64", "max.s64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_max, std::uint64_t, "l", "u64", "max.u64")
// bitwise (also logical and/or on 0/1 values)
PREDUCE_DETAIL_FUSED_SHFL32(fused_and, std::uint32_t, "r", "b32", "and.b32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_or, std::uint32_t, "r", "b32", "or.b32")
PREDUCE_DETAIL_FUSED_SHFL32(fused_xor, std::uint32_t, "r", "b32", "xor.b32")
PREDUCE_DETAIL_FUSED_SHFL64(fused_and, std::uint64_t, "l", "b64", "and.b64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_or, std::uint64_t, "l", "b64", "or.b64")
PREDUCE_DETAIL_FUSED_SHFL64(fused_xor, std::uint64_t, "l", "b64", "xor.b64")

#undef PREDUCE_DETAIL_FUSED_SHFL32
#undef PREDUCE_DETAIL_FUSED_SHFL64

//! The 32/64-bit register type an accumulator travels in for the fused and hardware paths:
//! narrow integers and bool widen (sign-preserving; bitwise results keep their low bits).
template <class A>
using lane_word_t = std::conditional_t<
    std::is_same<A, bool>::value, std::uint32_t,
    std::conditional_t<std::is_integral<A>::value && sizeof(A) < 4,
                       std::conditional_t<std::is_signed<A>::value, std::int32_t, std::uint32_t>, A>>;

//! One fused step for reducer fused-op F on accumulator word type W.
template <detail::fused_op F, class W>
__device__ __forceinline__ W fused_step(W x, unsigned delta) {
  using detail::fused_op;
  using B = std::conditional_t<sizeof(W) == 4, std::uint32_t, std::uint64_t>;  // bitwise view
  if constexpr (F == fused_op::add) return fused_add(x, delta);
  else if constexpr (F == fused_op::mul) return fused_mul(x, delta);
  else if constexpr (F == fused_op::min) return fused_min(x, delta);
  else if constexpr (F == fused_op::max) return fused_max(x, delta);
  else if constexpr (F == fused_op::min_ignore_nan) return fused_min_ignore_nan(x, delta);
  else if constexpr (F == fused_op::max_ignore_nan) return fused_max_ignore_nan(x, delta);
  else if constexpr (F == fused_op::bit_and) return W(fused_and(B(x), delta));
  else if constexpr (F == fused_op::bit_or) return W(fused_or(B(x), delta));
  else return W(fused_xor(B(x), delta));
}

//! Whether the fused PTX path exists for (reducer, accumulator): a scalar accumulator and an
//! operator with a PTX instruction (f64 min/max propagating NaN has none).
template <class Reducer, class A>
__host__ __device__ constexpr bool has_fused_shuffle() {
  using detail::fused_op;
  constexpr fused_op F = Reducer::fused;
  if constexpr (F == fused_op::none || !std::is_arithmetic<A>::value) return false;
  else if constexpr (std::is_same<A, double>::value) return F != fused_op::min && F != fused_op::max && F != fused_op::bit_and && F != fused_op::bit_or && F != fused_op::bit_xor;
  else if constexpr (std::is_same<A, float>::value) return F != fused_op::bit_and && F != fused_op::bit_or && F != fused_op::bit_xor;
  else return F != fused_op::min_ignore_nan && F != fused_op::max_ignore_nan;
}

//! Whether a tree reduction under `w` fuses its steps (where has_fused_shuffle holds): only when
//! asked for. `automatic` takes the plain shuffle tree, which measured as fast as the fused one
//! or faster (equal within 0.7% from 2^24 up, and over rows, columns and segments).
//! Evidence: f64 plus 2^20 fused 5.35 us, plain 5.26 (docs/tuning/building-blocks.md#fuses_steps).
__device__ __forceinline__ bool fuses_steps(warp_algorithm w) { return w == warp_algorithm::fused_shuffle; }

//! Tree reduction with each shuffle fused to the operator (see above). Requires: all 32 lanes
//! active and has_fused_shuffle<Reducer, Acc>(). Returns the warp's result in lane 0.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce_fused(const Reducer&, Acc v) {
  using W = lane_word_t<Acc>;
  W x = W(v);
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2) x = fused_step<Reducer::fused>(x, unsigned(offset));
  return Acc(x);
}

// ---------------------------------------------------------------------------------------------
// 3. redux.sync (sm_80+): one instruction reduces a 32-bit integer across the warp
// ---------------------------------------------------------------------------------------------

//! Whether redux.sync serves (reducer, accumulator): 32-bit-or-narrower integer (or bool)
//! accumulators with add, min, max, and, or, xor.
template <class Reducer, class A>
__host__ __device__ constexpr bool has_hardware_reduce() {
  using detail::fused_op;
  constexpr fused_op F = Reducer::fused;
  return (std::is_integral<A>::value && sizeof(A) <= 4) &&
         (F == fused_op::add || F == fused_op::min || F == fused_op::max || F == fused_op::bit_and ||
          F == fused_op::bit_or || F == fused_op::bit_xor);
}

//! Requires: all 32 lanes active, sm_80+, has_hardware_reduce<Reducer, Acc>(). Returns the
//! warp's result in every lane.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce_hardware(const Reducer&, Acc v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using detail::fused_op;
  using W = lane_word_t<Acc>;
  const W x = W(v);
  constexpr fused_op F = Reducer::fused;
  if constexpr (F == fused_op::add) return Acc(W(__reduce_add_sync(full_warp_mask, x)));
  else if constexpr (F == fused_op::min) return Acc(W(__reduce_min_sync(full_warp_mask, x)));
  else if constexpr (F == fused_op::max) return Acc(W(__reduce_max_sync(full_warp_mask, x)));
  else if constexpr (F == fused_op::bit_and) return Acc(W(__reduce_and_sync(full_warp_mask, unsigned(x))));
  else if constexpr (F == fused_op::bit_or) return Acc(W(__reduce_or_sync(full_warp_mask, unsigned(x))));
  else return Acc(W(__reduce_xor_sync(full_warp_mask, unsigned(x))));
#else
  return warp_reduce_fused(Reducer{}, v);
#endif
}

// ---------------------------------------------------------------------------------------------
// 4. arg accumulators ({value, 64-bit index}): a value tree, then an index tree
// ---------------------------------------------------------------------------------------------
// The plain tree moves an arg<float> as 3 words per step (value and index, packed_words) into
// arg_reducer::combine (identity, NaN, order and tie tests, ~15 instructions). Split instead:
// the extreme value alone (one word per step for 32-bit values, value_reducer's combine), then
// the least index among the lanes whose value ties it (two words, an unsigned min), then the
// winner lane's own value (ties compare -0 equal to +0; the result keeps the element's bits).
// The same result as the plain tree whatever the combination order: the extreme value's first
// index, NaN under the reducer's rule, the identity when no lane holds an element.
// Groups of fewer lanes (subwarp_reduce.cuh) keep the plain tree: with eight lanes the two
// dependent trees were slower.
// Evidence: f32 argmax rows of 256, 459.0 -> 444.6 us (docs/tuning/building-blocks.md#warp_reduce_arg).

//! The arg results of a warp's N accumulators once first[k] (every lane) is the least index
//! among the lanes whose a[k] value ties the warp's best, npos when no lane holds an element:
//! the winner lane's own value (ties compare -0 equal to +0; the result keeps the element's
//! bits) with that index. The N ballots, then the N shuffles (interleaved: warp_reduce_each).
template <class Reducer, class V, int N>
__device__ __forceinline__ void args_of_first(arg<V> (&a)[N], const std::uint64_t (&first)[N]) {
  unsigned winners[N];
#pragma unroll
  for (int k = 0; k < N; ++k) winners[k] = __ballot_sync(full_warp_mask, a[k].index != npos && a[k].index == first[k]);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const V value = shfl_from(a[k].value, winners[k] != 0 ? unsigned(__ffs(int(winners[k]))) - 1 : 0u);
    a[k] = first[k] == npos ? Reducer::identity() : arg<V>{value, first[k]};
  }
}

//! Requires: all 32 lanes active, each holding a valid accumulator;
//! detail::has_value_reducer<Reducer>. Returns the warp's result in every lane.
template <class Reducer, class V>
__device__ __forceinline__ arg<V> warp_reduce_arg(const Reducer&, arg<V> a) {
  using X = typename Reducer::value_reducer;
  const bool held = a.index != npos;
  V best = held ? a.value : X::identity();
#pragma unroll
  for (int d = warp_threads / 2; d > 0; d /= 2) best = extreme_combine<X>(best, shfl_xor(best, unsigned(d)));
  std::uint64_t first = held && Reducer::ties(a.value, best) ? a.index : npos;
#pragma unroll
  for (int d = warp_threads / 2; d > 0; d /= 2) {
    const std::uint64_t other = shfl_xor(first, unsigned(d));
    first = other < first ? other : first;
  }
  arg<V> r[1] = {a};
  args_of_first<Reducer>(r, {first});
  return r[0];
}

// ---------------------------------------------------------------------------------------------
// 5. extreme values and arg accumulators through redux.sync (sm_80+) over integer ranks
// ---------------------------------------------------------------------------------------------
// Mapped to an unsigned rank that orders values as the reducer does, the best value of a warp is
// one redux.sync.max (two for 64-bit values: the high words, then the low words among the lanes
// that hold the greatest high word).
// - min/max/minmax of floats and 64-bit integers (the values redux.sync does not take directly):
//   the best rank mapped back to its value, instead of a five-step shuffle tree: faster from 2^14
//   to 2^20, and over rows and columns at 2^24 equal within 1% or faster.
//   Evidence: f64 maximum 2^14 4.55 -> 2.89 us (docs/tuning/building-blocks.md#warp_reduce_redux).
// - arg accumulators: the trees of section 4 take 15 dependent shuffles for an arg<float> (5 for
//   the value, 10 for the 64-bit index) and a ballot and a shuffle. Here the best value's rank
//   is one redux.sync.max, the least index among the lanes whose rank equals it two
//   redux.sync.min, and the winner's value one ballot and one shuffle. Same result as
//   warp_reduce_arg.

//! The rank encoding of the extreme reducer X (is_extreme_op(X::fused)) on values V, shared by
//! value_rank and value_of_rank: unsigned ranks of 32 bits for values of up to 4 bytes, else 64,
//! larger for a better value. NaN takes the greatest rank under `propagate` and 1 under `ignore`
//! (above only rank 0, which no value takes).
template <class X, class V>
struct rank_encoding {
  using U = std::conditional_t<sizeof(V) <= 4, unsigned, unsigned long long>;
  using S = std::conditional_t<sizeof(V) <= 4, int, long long>;  //!< signed integer values, widened
  static constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  static constexpr bool is_max = is_max_op(X::fused);
  static constexpr U nan = X::fused == detail::fused_op::max || X::fused == detail::fused_op::min ? ~U(0) : U(1);
};

//! Value v of the extreme reducer X as its rank (rank_encoding). Floats map to their
//! order-preserving integer image (-0 just below +0), complemented for min. value_of_rank
//! inverts it (NaN comes back as the quiet NaN).
template <class X, class V>
__device__ __forceinline__ auto value_rank(V v) {
  using E = rank_encoding<X, V>;
  using U = typename E::U;
  U ord;
  if constexpr (std::is_floating_point<V>::value) {
    if (detail::is_nan(v)) return E::nan;
    U bits;
    static_assert(sizeof(V) == sizeof(U), "float and double ranks are their bits");
    memcpy(&bits, &v, sizeof bits);
    ord = bits ^ ((bits & E::sign) != 0 ? ~U(0) : E::sign);
  } else if constexpr (std::is_signed<V>::value) {
    ord = U(typename E::S(v)) ^ E::sign;
  } else {
    ord = U(v);
  }
  return E::is_max ? ord : U(~ord);
}

//! The value of type V whose value_rank<X> is r. Requires: r is the rank of some V.
template <class X, class V, class U>
__device__ __forceinline__ V value_of_rank(U r) {
  using E = rank_encoding<X, V>;
  static_assert(std::is_same<U, typename E::U>::value, "a rank of V's encoding");
  const U ord = E::is_max ? r : U(~r);
  if constexpr (std::is_floating_point<V>::value) {
    if (r == E::nan) return detail::quiet_nan<V>();
    const U bits = (ord & E::sign) != 0 ? ord ^ E::sign : U(~ord);
    V v;
    memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (std::is_signed<V>::value) {
    return V(typename E::S(ord ^ E::sign));
  } else {
    return V(ord);
  }
}

//! An arg reducer's value as a rank: value_rank of its value reducer, with -0 taken as +0, so
//! that ranks are equal exactly when Reducer::ties holds (NaN ties NaN, -0 ties +0). Lanes that
//! hold no element take rank 0, below every value's.
template <class Reducer, class V>
__device__ __forceinline__ auto arg_rank(V v) {
  return value_rank<typename Reducer::value_reducer>(v == V(0) ? V(0) : v);
}

//! The greatest (Max) or least of x over the warp through redux.sync, one instruction for 32-bit
//! words and two for 64-bit ones. Requires: all 32 lanes active, sm_80+.
template <bool Max>
__device__ __forceinline__ unsigned warp_extreme_word(unsigned x) {
  return Max ? __reduce_max_sync(full_warp_mask, x) : __reduce_min_sync(full_warp_mask, x);
}
//! warp_extreme_word of each of N words, the N reductions' redux.sync steps interleaved
//! (warp_reduce_each): the high words, then the low words among the lanes that hold the
//! extreme high word.
template <bool Max, int N>
__device__ __forceinline__ void warp_extreme_words(unsigned (&x)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) x[k] = warp_extreme_word<Max>(x[k]);
}
template <bool Max, int N>
__device__ __forceinline__ void warp_extreme_words(unsigned long long (&x)[N]) {
  unsigned hi[N];
#pragma unroll
  for (int k = 0; k < N; ++k) hi[k] = warp_extreme_word<Max>(unsigned(x[k] >> 32));
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const unsigned lo = warp_extreme_word<Max>(unsigned(x[k] >> 32) == hi[k] ? unsigned(x[k]) : (Max ? 0u : ~0u));
    x[k] = (static_cast<unsigned long long>(hi[k]) << 32) | lo;
  }
}
template <bool Max>
__device__ __forceinline__ unsigned long long warp_extreme_word(unsigned long long x) {
  unsigned long long v[1] = {x};
  warp_extreme_words<Max>(v);
  return v[0];
}

//! Whether redux.sync over ranks serves the extreme reducer X on values V: floats and 64-bit
//! integers (narrower integers take redux.sync directly, has_hardware_reduce).
template <class X, class V>
__host__ __device__ constexpr bool has_rank_reduce() {
  return is_extreme_op(X::fused) && (std::is_floating_point<V>::value || (std::is_integral<V>::value && sizeof(V) == 8));
}

//! Whether redux.sync serves reducer X on values V, directly or over ranks.
template <class X, class V>
__host__ __device__ constexpr bool has_redux() {
  return has_hardware_reduce<X, V>() || has_rank_reduce<X, V>();
}

//! X's result over the warp through redux.sync: directly (has_hardware_reduce) or over ranks
//! (has_rank_reduce). Requires: all 32 lanes active, sm_80+, has_redux<X, V>(). Returns the
//! warp's result in every lane.
template <class X, class V>
__device__ __forceinline__ V warp_reduce_redux(const X& x, V v) {
  if constexpr (has_hardware_reduce<X, V>()) return warp_reduce_hardware(x, v);
  else return value_of_rank<X, V>(warp_extreme_word<true>(value_rank<X>(v)));
}

//! warp_reduce_arg through redux.sync for each of N accumulators, step by step (the N best
//! ranks, the N first indices, the N winners: warp_reduce_each). Requires: all 32 lanes active,
//! each holding N valid accumulators; detail::has_value_reducer<Reducer>; sm_80+. Returns the
//! warp's results in every lane.
template <class Reducer, class V, int N>
__device__ __forceinline__ void warp_reduce_arg_hardware_each(arg<V> (&a)[N]) {
  using U = decltype(arg_rank<Reducer>(a[0].value));
  using Word = std::conditional_t<sizeof(U) == 8, unsigned long long, unsigned>;
  Word rank[N], best[N];
#pragma unroll
  for (int k = 0; k < N; ++k) best[k] = rank[k] = a[k].index != npos ? Word(arg_rank<Reducer>(a[k].value)) : Word(0);
  warp_extreme_words<true>(best);
  unsigned long long first[N];
#pragma unroll
  for (int k = 0; k < N; ++k) first[k] = a[k].index != npos && rank[k] == best[k] ? a[k].index : npos;
  warp_extreme_words<false>(first);
  std::uint64_t index[N];
#pragma unroll
  for (int k = 0; k < N; ++k) index[k] = first[k];
  args_of_first<Reducer>(a, index);
}

//! warp_reduce_arg through redux.sync. Requires: all 32 lanes active, each holding a valid
//! accumulator; detail::has_value_reducer<Reducer>; sm_80+. Returns the warp's result in every
//! lane.
template <class Reducer, class V>
__device__ __forceinline__ arg<V> warp_reduce_arg_hardware(const Reducer&, arg<V> a) {
  arg<V> v[1] = {a};
  warp_reduce_arg_hardware_each<Reducer>(v);
  return v[0];
}

//! The warp reduction chosen by `w`, falling back (hardware -> fused -> shuffle) where the
//! requested one does not apply. `automatic` takes hardware where it applies, else the plain
//! shuffle tree (fuses_steps).
//! `hardware` is redux.sync, directly or over ranks (warp_reduce_redux; minmax as its two
//! extremes). Arg accumulators take redux.sync over ranks under `hardware` and `automatic`
//! (warp_reduce_arg_hardware), else the value and index trees (warp_reduce_arg).
//! Requires: all 32 lanes active. Returns the warp's result in lane 0.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce(const Reducer& red, Acc v, warp_algorithm w) {
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    if (w == warp_algorithm::hardware || w == warp_algorithm::automatic) return warp_reduce_arg_hardware(red, v);
    return warp_reduce_arg(red, v);
  } else {
    if constexpr (has_redux<Reducer, Acc>()) {
      if (w == warp_algorithm::hardware || w == warp_algorithm::automatic) return warp_reduce_redux(red, v);
    }
    if constexpr (minmax_parts<Reducer>::value) {
      using lo = typename minmax_parts<Reducer>::lo;
      using hi = typename minmax_parts<Reducer>::hi;
      if constexpr (has_redux<lo, decltype(v.min)>() && has_redux<hi, decltype(v.max)>()) {
        if (w == warp_algorithm::hardware || w == warp_algorithm::automatic)
          return {warp_reduce_redux(lo{}, v.min), warp_reduce_redux(hi{}, v.max)};
      }
    }
    if constexpr (has_fused_shuffle<Reducer, Acc>()) {
      if (fuses_steps(w)) return warp_reduce_fused(red, v);
    }
    return warp_reduce_shuffle(red, v);
  }
}

// ---------------------------------------------------------------------------------------------
// 6. several accumulators a thread at once
// ---------------------------------------------------------------------------------------------
// A thread that holds N accumulators (a column kernel's lane holds one per column it reads)
// reduces them step by step: the N shuffles (or redux.sync) of one level, then the next level.
// Written one reduction after another, the N reductions ran one after another.
// Evidence: 4 f32 sums in turn 810 cycles, 4 argmax 1400 (docs/tuning/building-blocks.md#warp_reduce_each).

//! The shuffle tree of down_tree(red, v[k], warp_threads / 2, stop, w) for each k, level by
//! level (fused where has_fused_shuffle and fuses_steps(w)). Requires: stop a power of two, 1..16;
//! all 32 lanes active, each holding N valid accumulators. Returns in lane i < stop, in v[k],
//! the combination of lanes i, i + stop, i + 2 stop, ... of v[k].
template <int N, class Reducer, class Acc>
__device__ __forceinline__ void tree_reduce_each(const Reducer& red, Acc (&v)[N], unsigned stop, warp_algorithm w) {
  if constexpr (has_fused_shuffle<Reducer, Acc>()) {
    if (fuses_steps(w)) {
      using W = lane_word_t<Acc>;
      W x[N];
#pragma unroll
      for (int k = 0; k < N; ++k) x[k] = W(v[k]);
#pragma unroll
      for (unsigned d = warp_threads / 2; d > 0; d /= 2) {
        if (d < stop) break;
#pragma unroll
        for (int k = 0; k < N; ++k) x[k] = fused_step<Reducer::fused>(x[k], d);
      }
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = Acc(x[k]);
      return;
    }
  }
#pragma unroll
  for (unsigned d = warp_threads / 2; d > 0; d /= 2) {
    if (d < stop) break;
    Acc other[N];
#pragma unroll
    for (int k = 0; k < N; ++k) other[k] = shfl_down(v[k], d);
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = device_combine(red, v[k], other[k]);
  }
}

//! warp_reduce(red, v[k], w) for each k, the N reductions step by step where warp_reduce would
//! take redux.sync over arg ranks or a shuffle tree, for accumulators of at most 16 bytes; the
//! other redux.sync paths (one or two instructions each) one after another. Requires: all 32 lanes active, each holding N valid
//! accumulators. Returns the warp's results in lane 0.
template <int N, class Reducer, class Acc>
__device__ __forceinline__ void warp_reduce_each(const Reducer& red, Acc (&v)[N], warp_algorithm w) {
  if constexpr (sizeof(Acc) <= 16 && !detail::has_value_reducer<Reducer>::value && !has_redux<Reducer, Acc>() &&
                !minmax_parts<Reducer>::value) {
    tree_reduce_each(red, v, 1, w);  // no hardware form to choose
  } else {
    const bool hardware = w == warp_algorithm::hardware || w == warp_algorithm::automatic;
    if constexpr (sizeof(Acc) > 16) {
      // Binned accumulators: N of them and N shuffled copies would not stay in registers.
    } else if constexpr (detail::has_value_reducer<Reducer>::value) {
      if (hardware) return warp_reduce_arg_hardware_each<Reducer>(v);
    } else if constexpr (has_redux<Reducer, Acc>()) {
      if (!hardware) return tree_reduce_each(red, v, 1, w);
    }
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = warp_reduce(red, v[k], w);
  }
}

}  // namespace backend
}  // namespace preduce
