// SPDX-License-Identifier: Apache-2.0
// preduce cuda: a reducer's combine as the GPU computes it fastest. Float minimum and maximum are
// one instruction (min.NaN/max.NaN propagate NaN; fminf/fmaxf, and fmin/fmax for double, ignore
// it), minmax two of them; every other reducer combines as its portable definition says.
#pragma once

#include <type_traits>

#include <preduce/detail/reducer.hpp>

namespace preduce {
namespace backend {

//! Whether fused op F is a min or a max, under either NaN rule.
__host__ __device__ constexpr bool is_extreme_op(detail::fused_op F) {
  using detail::fused_op;
  return F == fused_op::min || F == fused_op::max || F == fused_op::min_ignore_nan || F == fused_op::max_ignore_nan;
}
//! Whether fused op F is a max, under either NaN rule.
__host__ __device__ constexpr bool is_max_op(detail::fused_op F) {
  return F == detail::fused_op::max || F == detail::fused_op::max_ignore_nan;
}

//! Whether extreme_combine (below) has one instruction for fused op F on V.
template <detail::fused_op F, class V>
__host__ __device__ constexpr bool has_extreme_instruction() {
  using detail::fused_op;
  return (std::is_same<V, float>::value && is_extreme_op(F)) ||
         (std::is_same<V, double>::value && (F == fused_op::min_ignore_nan || F == fused_op::max_ignore_nan));
}

//! Extreme-value combine of the value reducer X (fused op min, max, min_ignore_nan or
//! max_ignore_nan) in one instruction where there is one: float under either NaN rule, double
//! under `ignore` (PTX has no NaN-propagating f64 min/max). The portable combine keeps the first
//! operand on ties and compiles to ~9 branchy instructions with its NaN tests; here equal
//! operands of different signs of zero give either zero, which compares equal to both.
//! Double under `propagate` keeps the portable combine: a branch-free form (min/max.f64, a NaN
//! test, and an add that turns the result into NaN) was slower once the grid has two blocks or
//! more, with the shuffle-tree warp reduction f64 maximum had then (it now takes redux.sync over
//! ranks, warp_reduce.cuh; docs/tuning/building-blocks.md#extreme_combine).
//! Evidence: f64 maximum 2^14, portable 3.14 us, branch-free 3.72-3.85 on an H200.
template <class X, class V>
__device__ __forceinline__ V extreme_combine(V a, V b) {
  using detail::fused_op;
  constexpr fused_op F = X::fused;
  if constexpr (std::is_same<V, float>::value && (F == fused_op::max || F == fused_op::min)) {
    V r;
    if constexpr (F == fused_op::max) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  } else if constexpr (std::is_floating_point<V>::value && F == fused_op::max_ignore_nan) {
    return std::is_same<V, float>::value ? fmaxf(a, b) : fmax(a, b);
  } else if constexpr (std::is_floating_point<V>::value && F == fused_op::min_ignore_nan) {
    return std::is_same<V, float>::value ? fminf(a, b) : fmin(a, b);
  } else {
    return X::combine(a, b);
  }
}

//! The two extreme reducers of a minmax reducer (its `lo` and `hi`), where Reducer is one (also
//! through index_shift_reducer, warp_slice.cuh).
template <class Reducer, class = void>
struct minmax_parts : std::false_type {};
template <class Reducer>
struct minmax_parts<Reducer, std::void_t<typename Reducer::lo, typename Reducer::hi>> : std::true_type {
  using lo = typename Reducer::lo;
  using hi = typename Reducer::hi;
};

//! red.combine(a, b), the same value computed as above for extreme and minmax reducers.
//! Evidence: f32 minmax 2^28 292.0 -> 238.9 us on an H200 (docs/tuning/building-blocks.md#device_combine).
template <class Reducer, class A>
__device__ __forceinline__ A device_combine(const Reducer& red, const A& a, const A& b) {
  if constexpr (has_extreme_instruction<Reducer::fused, A>()) {
    return extreme_combine<Reducer>(a, b);
  } else if constexpr (minmax_parts<Reducer>::value) {
    return {extreme_combine<typename minmax_parts<Reducer>::lo>(a.min, b.min),
            extreme_combine<typename minmax_parts<Reducer>::hi>(a.max, b.max)};
  } else {
    return red.combine(a, b);
  }
}

//! device_combine(red, a, b) where every index a holds is below every index b holds (runs
//! combined in order): arg reducers then combine without comparing indices (combine_ordered,
//! about half the instructions of combine).
template <class Reducer, class A>
__device__ __forceinline__ A combine_in_order(const Reducer& red, const A& a, const A& b) {
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    return red.combine_ordered(a, b);
  } else {
    return device_combine(red, a, b);
  }
}

}  // namespace backend
}  // namespace preduce
