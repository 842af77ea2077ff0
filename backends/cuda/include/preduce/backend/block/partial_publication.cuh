// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how the blocks of one launch hand their partials to the block that combines
// them (the collector) through the queue's partial slots: flagged words where a partial fits a
// slot, else a stored partial and a release flag; and the coherent stores and loads both use.
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <cstring>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Writes every byte of v to *p, an accumulator's padding too (arg<int8>'s value shares a word
//! with 3 padding bytes): load_coherent below reads whole words, and a word read with bytes a
//! plain assignment left unwritten is a read of uninitialized memory to compute-sanitizer's
//! initcheck. Accumulators that are not whole words are stored as they are (load_coherent reads
//! them byte by byte).
template <class T>
__device__ __forceinline__ void store_words(T* p, const T& v) {
  if constexpr (sizeof(T) % 4 != 0) {
    *p = v;
  } else {
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (unsigned k = 0; k < sizeof(T) / 4; ++k) reinterpret_cast<unsigned*>(p)[k] = w[k];
  }
}

//! Reads T written by another block of this launch, bypassing L1: ld.global.cg word by word, or
//! volatile bytes for accumulators that are not whole words (e.g. minmax of int8). Writers use
//! store_words.
template <class T>
__device__ __forceinline__ T load_coherent(const T* p) {
  T v;
  if constexpr (sizeof(T) % 4 != 0) {
    unsigned char b[sizeof(T)];
#pragma unroll
    for (unsigned k = 0; k < sizeof(T); ++k) b[k] = reinterpret_cast<const volatile unsigned char*>(p)[k];
    memcpy(&v, b, sizeof(T));
  } else {
    unsigned w[sizeof(T) / 4];
#pragma unroll
    for (unsigned k = 0; k < sizeof(T) / 4; ++k) w[k] = __ldcg(reinterpret_cast<const unsigned*>(p) + k);
    memcpy(&v, w, sizeof(T));
  }
  return v;
}

//! Whether a partial travels as flagged words: at most partial_slot_elements of them.
template <class Acc>
__host__ __device__ constexpr bool publishes_words() { return packed_words<Acc>::count <= int(partial_slot_elements); }

//! Single-pass publication of block b's partial, with no fence where it fits the slot: its
//! 32-bit word k goes in a relaxed 8-byte store of {word, 1} to element k of block b's slot
//! (slots + b * partial_slot_elements; an 8-byte access is single-copy atomic, so the collector
//! sees each word with its own flag or not at all). A partial that does not fit is stored to
//! partials[b] and flagged with a release store of 1 to the slot's first element.
//! Faster than a single flag after a release store of the partial; one 16-byte vector store of the
//! words with a single flag word is as fast but not atomic (a collector read stale words).
//! Evidence: f64 sum 2^20, single flag 6.36 us, flagged words 5.23 (docs/tuning/whole.md#publish_partial).
template <class Acc>
__device__ __forceinline__ void publish_partial(const Acc& a, unsigned b, Acc* partials, unsigned long long* slots) {
  unsigned long long* slot = slots + std::uint64_t(b) * partial_slot_elements;
  if constexpr (publishes_words<Acc>()) {
    using P = packed_words<Acc>;
    unsigned w[P::count];
    P::to(a, w);
#pragma unroll
    for (int k = 0; k < P::count; ++k)
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slot[k]).store((1ull << 32) | w[k], cuda::memory_order_relaxed);
  } else {
    store_words(partials + b, a);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slot[0]).store(1ull, cuda::memory_order_release);
  }
}

//! The collector's side of publish_partial for the K partials published in slots b[0 .. K)
//! (where each fits its slot's words, publishes_words): waits until all are published (every
//! word of all K loaded in each round, so one round trip sees them all), takes them into a[k]
//! and clears the slots for the next launch.
template <int K, class Acc>
__device__ __forceinline__ void collect_published(const unsigned (&b)[K], unsigned long long* slots, Acc (&a)[K]) {
  static_assert(publishes_words<Acc>(), "collect_published: partials published as flagged words");
  using ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
  using P = packed_words<Acc>;
  unsigned long long e[K][P::count];
  bool ready;
  do {
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int k = 0; k < P::count; ++k) e[j][k] = ref(slots[std::uint64_t(b[j]) * partial_slot_elements + k]).load(cuda::memory_order_relaxed);
    ready = true;
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int k = 0; k < P::count; ++k) ready = ready && (e[j][k] >> 32) != 0;
  } while (!ready);
#pragma unroll
  for (int j = 0; j < K; ++j) {
    unsigned w[P::count];
#pragma unroll
    for (int k = 0; k < P::count; ++k) {
      w[k] = unsigned(e[j][k]);
      ref(slots[std::uint64_t(b[j]) * partial_slot_elements + k]).store(0ull, cuda::memory_order_relaxed);
    }
    a[j] = P::from(w);
  }
}

//! The collector's side of publish_partial: waits until block b's partial is published, takes
//! it and clears the slot for the next launch. Through collect_published, which left the sm_90
//! machine code of its callers byte for byte as it was (docs/tuning/whole.md#collect_partial).
template <class Acc>
__device__ __forceinline__ Acc collect_partial(unsigned b, const Acc* partials, unsigned long long* slots) {
  if constexpr (publishes_words<Acc>()) {
    const unsigned one[1] = {b};
    Acc a[1];
    collect_published(one, slots, a);
    return a[0];
  } else {
    using ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
    unsigned long long* slot = slots + std::uint64_t(b) * partial_slot_elements;
    while (ref(slot[0]).load(cuda::memory_order_acquire) == 0) {
    }
    const Acc a = load_coherent(partials + b);
    ref(slot[0]).store(0ull, cuda::memory_order_relaxed);
    return a;
  }
}

}  // namespace backend
}  // namespace preduce
