// SPDX-License-Identifier: Apache-2.0
// preduce cuda: warp-level reduction of any trivially copyable accumulator by __shfl_down_sync.
#pragma once

#include <cstring>
#include <type_traits>

namespace preduce {
namespace backend {

constexpr int warp_threads = 32;
constexpr unsigned full_warp_mask = 0xffffffffu;

//! __shfl_down_sync for any trivially copyable T, moved in 32-bit words.
//! Requires: all 32 lanes active. Returns lane (lane + delta)'s value, or the caller's own value
//! where lane + delta >= 32.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta) {
  static_assert(std::is_trivially_copyable<T>::value, "shuffled accumulators must be trivially copyable");
  if constexpr (std::is_arithmetic<T>::value && sizeof(T) >= 4) {
    return __shfl_down_sync(full_warp_mask, v, delta);
  } else {
    constexpr int words = int((sizeof(T) + 3) / 4);
    unsigned in[words] = {};
    std::memcpy(in, &v, sizeof(T));
#pragma unroll
    for (int w = 0; w < words; ++w) in[w] = __shfl_down_sync(full_warp_mask, in[w], delta);
    T out;
    std::memcpy(&out, in, sizeof(T));
    return out;
  }
}

//! Tree reduction across one warp by shuffles, offsets 16, 8, 4, 2, 1.
//! Requires: all 32 lanes active, each holding a valid accumulator (identity where it has no
//! data). Returns: the combination of all 32 lanes in lane 0; other lanes hold partial values.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce(const Reducer& red, Acc v) {
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2) v = red.combine(v, shfl_down(v, offset));
  return v;
}

}  // namespace backend
}  // namespace preduce
