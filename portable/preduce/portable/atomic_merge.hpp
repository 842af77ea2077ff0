// SPDX-License-Identifier: Apache-2.0
// preduce: the atomic merge of the whole-array kernels' atomic shape (determinism::fast), one
// definition for the cuda and hip backends (atomicAdd, atomicOr and atomicXor are both
// runtimes' names): which (reducer, accumulator) pairs it serves, and the merge. GPU code only.
#pragma once

#include <type_traits>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // the atomics (nvcc declares CUDA's itself)
#endif

#include <preduce/detail/reducer.hpp>

namespace preduce {
namespace portable {

//! Whether the atomic shape serves (reducer, accumulator): an add or or/xor (identity: zero
//! bits, as the slot is left) on a 32/64-bit type with a native atomic.
template <class Reducer, class A>
__host__ __device__ constexpr bool has_atomic_merge() {
  using detail::fused_op;
  constexpr fused_op F = Reducer::fused;
  if constexpr (F == fused_op::add) {
    return std::is_same<A, float>::value || std::is_same<A, double>::value ||
           (std::is_integral<A>::value && (sizeof(A) == 4 || sizeof(A) == 8));
  } else if constexpr (F == fused_op::bit_or || F == fused_op::bit_xor) {
    return std::is_integral<A>::value && !std::is_same<A, bool>::value && (sizeof(A) == 4 || sizeof(A) == 8);
  } else {
    return false;
  }
}

//! *slot = *slot op v, atomically, for the pairs has_atomic_merge accepts.
template <class Reducer, class A>
__device__ __forceinline__ void atomic_merge(A* slot, A v) {
  using detail::fused_op;
  using U = std::conditional_t<sizeof(A) == 4, unsigned, unsigned long long>;  // integer view: wraps like wrapping_add
  if constexpr (Reducer::fused == fused_op::add && std::is_floating_point<A>::value) atomicAdd(slot, v);
  else if constexpr (Reducer::fused == fused_op::add) atomicAdd(reinterpret_cast<U*>(slot), U(v));
  else if constexpr (Reducer::fused == fused_op::bit_or) atomicOr(reinterpret_cast<U*>(slot), U(v));
  else atomicXor(reinterpret_cast<U*>(slot), U(v));
}

}  // namespace portable
}  // namespace preduce
