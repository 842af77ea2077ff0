// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how a kernel writes a result to the caller's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/types.hpp>

namespace preduce {
namespace backend {

//! Writes r to *p, every byte of it: an arg<T> with a value narrower than its 64-bit index has
//! padding between them, which a plain assignment leaves as it was (uninitialized memory to
//! compute-sanitizer's initcheck when the caller copies the results, and bytes that differ
//! between equal results); it is written here as two 8-byte stores, {value, zero padding} and
//! the index. (Through memcpy to p, nvcc stored the first word byte by byte in the column
//! kernel: argmax over 2^23 columns of 32 went from 358 to 975 us.)
template <class R>
__device__ __forceinline__ void store_result(R* p, const R& r) {
  *p = r;
}
//! An arg<T>'s first 8 bytes: its value and zero padding.
template <class T>
__device__ __forceinline__ std::uint64_t arg_head_word(const arg<T>& r) {
  static_assert(offsetof(arg<T>, index) == sizeof(std::uint64_t) && sizeof(arg<T>) == 2 * sizeof(std::uint64_t),
                "value and padding fill the first 8 bytes, the index the second");
  std::uint64_t head = 0;
  std::memcpy(&head, &r.value, sizeof(T));
  return head;
}
template <class T>
__device__ __forceinline__ void store_result(arg<T>* p, const arg<T>& r) {
  if constexpr (sizeof(T) < sizeof(std::uint64_t)) {
    std::uint64_t* const words = reinterpret_cast<std::uint64_t*>(p);  // 8-byte aligned: alignof(arg<T>)
    words[0] = arg_head_word(r);
    words[1] = r.index;
  } else {
    *p = r;
  }
}

//! A 4- or 8-byte word stored under an L2 evict_last policy (sm_80+; a plain store before).
template <class W>
__device__ __forceinline__ void store_word_kept(W* p, W w) {
  static_assert(std::is_same<W, std::uint32_t>::value || std::is_same<W, std::uint64_t>::value, "a 4- or 8-byte word");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  if constexpr (sizeof(W) == 4) asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p), "r"(w), "l"(policy) : "memory");
  else asm volatile("st.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(p), "l"(w), "l"(policy) : "memory");
#else
  *p = w;
#endif
}

//! store_result whose lines the L2 keeps ahead of an input read under an evict_first policy
//! (l2_evict_first_policy), so they are not written back to memory in the middle of that input's
//! stream (the next kernel often reads them): evict_last for results of 4 or 8 bytes aligned
//! to their size and for arg<T> (its two words, as store_result writes them); others as
//! store_result. Evidence: docs/tuning/rows.md#reduce_rows_by_group_kernel.
template <class R>
__device__ __forceinline__ void store_result_kept(R* p, const R& r) {
  using W = std::conditional_t<sizeof(R) == 4, std::uint32_t, std::uint64_t>;
  if constexpr ((sizeof(R) == 4 || sizeof(R) == 8) && alignof(R) == sizeof(R)) {
    W w;
    std::memcpy(&w, &r, sizeof w);
    store_word_kept(reinterpret_cast<W*>(p), w);
  } else {
    store_result(p, r);
  }
}
template <class T>
__device__ __forceinline__ void store_result_kept(arg<T>* p, const arg<T>& r) {
  std::uint64_t* const words = reinterpret_cast<std::uint64_t*>(p);  // 8-byte aligned: alignof(arg<T>)
  store_word_kept(words, arg_head_word(r));
  store_word_kept(words + 1, r.index);
}

}  // namespace backend
}  // namespace preduce
