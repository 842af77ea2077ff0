// SPDX-License-Identifier: Apache-2.0
// preduce cuda: whole-array reduction. Three device-level shapes share one thread fold
// (thread_load.cuh) and one block reduction:
//   single_pass  one launch; the block that takes the last start ticket collects every other
//                block's published partial and reduces them in a fixed order: deterministic.
//   two_pass     partials, then a second one-block launch (CUB's shape; kept for comparison).
//   atomic       one launch; blocks merge partials into one accumulator with atomics, the last
//                block finalizes (determinism::fast; float results vary in the last bits).
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/whole_plan.hpp>
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

template <class Reducer, class A>
__device__ __forceinline__ void atomic_merge(A* slot, A v) {
  using detail::fused_op;
  using U = std::conditional_t<sizeof(A) == 4, unsigned, unsigned long long>;  // integer view: wraps like wrapping_add
  if constexpr (Reducer::fused == fused_op::add && std::is_floating_point<A>::value) atomicAdd(slot, v);
  else if constexpr (Reducer::fused == fused_op::add) atomicAdd(reinterpret_cast<U*>(slot), U(v));
  else if constexpr (Reducer::fused == fused_op::bit_or) atomicOr(reinterpret_cast<U*>(slot), U(v));
  else atomicXor(reinterpret_cast<U*>(slot), U(v));
}

//! Whether a partial travels as flagged words: at most partial_slot_elements of them.
template <class Acc>
__host__ __device__ constexpr bool publishes_words() { return packed_words<Acc>::count <= int(partial_slot_elements); }

//! Single-pass publication of block b's partial, with no fence where it fits the slot: its
//! 32-bit word k goes in a relaxed 8-byte store of {word, 1} to element k of block b's slot
//! (slots + b * partial_slot_elements; an 8-byte access is single-copy atomic, so the collector
//! sees each word with its own flag or not at all). A partial that does not fit is stored to
//! partials[b] and flagged with a release store of 1 to the slot's first element.
//! Evidence (H200, probe of 2026-11-22, graph of 64 calls over rotating copies, us per call, single
//! flag after a release store of the partial -> flagged words): f64 sum 2^14 3.50 -> 2.98,
//! 2^20 6.36 -> 5.23; f32 argmax 2^14 4.83 -> 4.29, 2^20 6.69 -> 5.68; f32 minmax 2^14 5.18 ->
//! 4.60. One 16-byte vector store of the words with a single flag word is as fast but not
//! atomic: 171 of 16384 launches of an f32 sum at 2^20 read a flagged slot with a stale word
//! (flagged words: 0 of 16384 for f32 and f64 sum, argmax and minmax at 2^16..2^20).
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
//! it and clears the slot for the next launch. (Through collect_published since git beb97f7:
//! the sm_90 machine code of the whole-array, segment and small segment kernels that call it
//! is byte for byte what it was.)
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

enum class device_shape { single_pass, two_pass_partials, atomic };

static_assert(whole_warp_collector_blocks == warp_threads, "the warp collector takes one partial a lane");

//! The whole-array kernel (all three shapes; the second pass of two_pass is
//! reduce_partials_kernel below). Each thread has Vectors 16-byte loads in flight (fold_share);
//! MinBlocks is __launch_bounds__' resident blocks per SM (1: no register cap beyond the block
//! size's; the deep arg kernel asks for 2 with 8 vectors, see whole_deep_arg).
//! Requires: blockDim.x == BlockThreads; head == vector_head(src, n); gridDim.x <= the slots'
//! length; on entry *tickets == 0, every slot is 0 and, for atomic, *blocks_done == 0 and
//! *atomic_slot == identity (zero bits); all of these hold again on exit.
//! Writes: with one block, finalize(result) to *out. Otherwise:
//!  - single_pass: each block takes a start ticket; the block with the last ticket is the
//!    collector (every other block has started by then, so waiting for them cannot deadlock).
//!    The others publish their partial (publish_partial) and exit; the collector folds its own
//!    share, then combines all partials in an order fixed by the grid alone, so the result does
//!    not depend on which block collects: with at most 32 blocks lane b of warp 0 takes block
//!    b's partial and one warp_reduce combines them; with more, thread t takes blocks t,
//!    t + BlockThreads, ... and block_reduce combines them. It writes finalize(result) to *out.
//!    The lanes poll their slots independently (collect_partial's loop ends at a different
//!    round in each lane), and an explicit __syncwarp() reconverges them before the shuffles of
//!    the warp or block reduction: without it the collection took 300-600 ns longer. H200, graph
//!    timer, probe of 2026-11-22, us per call without -> with: f64 plus 2^14 2.69 -> 2.11, 2^16
//!    3.03 -> 2.40, 2^18 3.69 -> 3.15, 2^20 5.07 -> 4.56, 2^22 11.58 -> 11.05; f32 plus 2^14
//!    2.30 -> 1.99, 2^18 3.03 -> 2.66, 2^22 6.53 -> 6.35; f64 maximum 2^16 2.57 -> 2.35.
//!  - two_pass_partials: partials[b] = block b's partial.
//!  - atomic: merges each partial into *atomic_slot; the last block to finish (acq_rel counter)
//!    writes finalize(*atomic_slot) to *out.
template <device_shape Shape, int BlockThreads, int Vectors, int MinBlocks, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    reduce_whole_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::acc_type* partials,
                        unsigned long long* slots, control_block* control, typename Reducer::result_type* out,
                        warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  __shared__ unsigned ticket;
  __shared__ bool is_last;
  __shared__ Acc own;
  // The ticket's round trip overlaps the loads below; it is read after block_reduce's barrier.
  if (Shape == device_shape::single_pass && gridDim.x > 1 && threadIdx.x == 0) ticket = atomicAdd(&control->tickets, 1u);
  Acc a = fold_share<Vectors>(red, src, n, head, blockIdx.x, gridDim.x, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) store_result(out, red.finalize(a));
    return;
  }
  if constexpr (Shape == device_shape::two_pass_partials) {
    if (threadIdx.x == 0) store_words(partials + blockIdx.x, a);
  } else if constexpr (Shape == device_shape::single_pass) {
    __syncthreads();  // publishes `ticket`; warp 0 is done with smem
    if (ticket != gridDim.x - 1) {
      if (threadIdx.x == 0) publish_partial(a, blockIdx.x, partials, slots);
      return;
    }
    if (gridDim.x <= whole_warp_collector_blocks) {  // warp 0 alone: no barrier and one warp reduction
      if (threadIdx.x >= warp_threads) return;
      const Acc mine = shfl_from(a, 0);
      const unsigned b = threadIdx.x;
      a = b >= gridDim.x ? red.identity() : b == blockIdx.x ? mine : collect_partial(b, partials, slots);
      __syncwarp();  // the polling lanes reconverge before any shuffle (see above)
      a = warp_reduce(red, a, w);
      if (threadIdx.x == 0) {
        store_result(out, red.finalize(a));
        control->tickets = 0;  // every ticket has been taken
      }
      return;
    }
    if (threadIdx.x == 0) own = a;
    __syncthreads();
    a = red.identity();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BlockThreads)
      a = red.combine(a, b == blockIdx.x ? own : collect_partial(b, partials, slots));
    __syncwarp();  // the polling lanes reconverge before any shuffle (see above)
    a = block_reduce<BlockThreads>(red, a, smem, w);
    if (threadIdx.x == 0) {
      store_result(out, red.finalize(a));
      control->tickets = 0;  // every ticket has been taken
    }
  } else {
    if (threadIdx.x == 0) {
      atomic_merge<Reducer>(reinterpret_cast<Acc*>(control->atomic_slot), a);
      // acq_rel: releases this block's merge with the count and, for the last block, acquires
      // every other block's.
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(control->blocks_done);
      is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
      Acc* slot = reinterpret_cast<Acc*>(control->atomic_slot);
      store_result(out, red.finalize(load_coherent(slot)));
      *slot = Acc(0);
      control->blocks_done = 0;
    }
  }
}

//! The whole-array reduction of an array of at most one round (whole_one_block) by one block
//! under warp_algorithm::automatic: the fold of that one round and the block reduction, nothing
//! else, so the kernel's code stays small. Requires: blockDim.x == BlockThreads, one block,
//! n <= whole_block_elements(elements_per_vector<Source>()), head == vector_head(src, n), and
//! fold_share's conditions for Rounds and WholeVectors: reduce_whole takes Rounds = 1 when n is
//! one stripe round of the block (always, except for dot, whose element vectors take two loads
//! and so two rounds to fill the block's four loads a thread) and WholeVectors when, besides, the
//! array is 16-byte aligned and a whole number of vectors.
//! Writes finalize(result) to *out; the same bits as reduce_whole_kernel with one block.
//! Evidence: H200, graph timer, probe of 2026-11-22, us per call at 2^12 (CUB in the same run
//! 1.28, 1.21, 1.34, 1.22): reduce_whole_kernel's one-block path, f32 plus / i32 plus / f32
//! maximum / i32 maximum 1.54 / 1.44 / 1.48 / 1.39; the same fold and block reduction with the
//! warp algorithm fixed at compile time 1.41 / 1.28 / 1.30 / 1.22. (A kernel with no head, tail
//! or predicates, for exactly 2 vectors a thread, took 1.20 / 1.07 / 1.12 / 1.07.)
//! preduce-bench --shapes whole (H200, 2026-11-22, us, before -> with this kernel, CUB in the
//! second run): 2^12 f32 plus 1.55 -> 1.42 (1.27), f32 maximum 1.48 -> 1.37 (1.34), i32 maximum
//! 1.39 -> 1.26 (1.22), i32 minmax 1.55 -> 1.27 (2.30), f64 argmax 2.18 -> 2.06 (2.75); 2^10
//! f32 dot 1.53 -> 1.35 (1.72). Only bf16 dot lost (2^12 1.59 -> 1.69, CUB 1.51). That form
//! folded its round in a loop; the fold is now unrolled (fold_items' Rounds), see there.
//! Leaving out code pays here too (H200, graph timer, probes of 2026-11-23, us per call, main
//! -> without the scalar head and tail for aligned whole vectors): f32 dot 2^12 1.46 -> 1.34,
//! bf16 dot 2^12 1.76 -> 1.73, bf16 plus 2^12 1.37 -> 1.33, f64 argmax 2^10 1.84 -> 1.76 (CUB
//! 1.74), f32 plus 2^12 1.27 -> 1.27 (CUB 1.24); with a dot of one round folded in one round,
//! not two: bf16 dot 2^12 1.78 -> 1.55, f32 dot 1.47 -> 1.33 (preduce-bench's CUB: 1.51, 1.40).
//! Two rounds without the head and tail were slower (bf16 dot 2^14 2.09 -> 2.24), so only
//! one-round kernels leave them out.
template <int BlockThreads, int Rounds, bool WholeVectors, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_one_block_kernel(Reducer red, Source src, std::uint64_t n, std::uint64_t head, typename Reducer::result_type* out) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = fold_share<vectors_in_flight, Rounds, WholeVectors>(red, src, n, head, 0, 1, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::automatic);
  if (threadIdx.x == 0) store_result(out, red.finalize(a));
}

//! Second pass of two_pass. Requires: blockDim.x == BlockThreads, one block. Folds
//! partials[0..count) (thread t takes t, t + BlockThreads, ...) and writes finalize(result) to *out.
template <int BlockThreads, class Reducer>
__global__ void __launch_bounds__(BlockThreads)
    reduce_partials_kernel(Reducer red, const typename Reducer::acc_type* partials, unsigned count,
                           typename Reducer::result_type* out, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  Acc a = red.identity();
  for (unsigned i = threadIdx.x; i < count; i += BlockThreads) a = red.combine(a, partials[i]);
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (threadIdx.x == 0) store_result(out, red.finalize(a));
}

//! Blocks of `Kernel` launched with BlockThreads threads that one SM holds at once (registers and
//! shared memory permitting), asked of the runtime once per kernel. Assumes one GPU model per
//! process; on another it only shapes the grid less well.
template <auto Kernel, int BlockThreads>
int resident_blocks_per_sm() {
  static const int blocks = [] {
    int b = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, Kernel, BlockThreads, 0), "reduce: querying occupancy");
    return b;
  }();
  return blocks;
}

//! Blocks of `Kernel` (BlockThreads threads) that one wave holds: every SM's resident blocks,
//! counting one where the occupancy query says none fit.
template <auto Kernel, int BlockThreads>
std::uint64_t one_wave_blocks(int sm_count) {
  const int per_sm = resident_blocks_per_sm<Kernel, BlockThreads>();
  return std::uint64_t(sm_count) * std::uint64_t(per_sm > 0 ? per_sm : 1);
}

//! Enqueues the reduction of src[0..n) on s's stream with the shape `o` asks for (see the
//! fallbacks in execution.hpp; an array of one round or less is one block whatever the shape:
//! reduce_one_block_kernel under warp_algorithm::automatic, else two_pass_partials's kernel);
//! writes finalize(result) to d_out. determinism::fast with
//! algorithm::automatic takes single_pass too: it is deterministic and, with the collector, at
//! least as fast as the atomic merge (whose last-block counter costs a second round trip).
template <class Reducer, class Source>
void reduce_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                  typename Reducer::result_type* d_out, options o) {
  using Acc = typename Reducer::acc_type;
  constexpr int B = whole_block_threads;
  device_shape shape = o.algo == algorithm::two_pass ? device_shape::two_pass_partials : device_shape::single_pass;
  if constexpr (has_atomic_merge<Reducer, Acc>()) {
    if (o.det == determinism::fast && o.algo == algorithm::atomic) shape = device_shape::atomic;
  }

  // Vectors, MinBlocks: reduce_whole_kernel's (vectors_in_flight and 1, or the deep arg kernel's).
  auto launch_shape = [&](auto shape_tag, auto vectors_tag, auto min_blocks_tag, const auto& source) {
    constexpr device_shape S = decltype(shape_tag)::value;
    constexpr int V = decltype(vectors_tag)::value, M = decltype(min_blocks_tag)::value;
    using View = std::decay_t<decltype(source)>;
    constexpr auto kernel = reduce_whole_kernel<S, B, V, M, Reducer, View>;
    const std::uint64_t head = vector_head(source, n), round = whole_block_elements(elements_per_vector<View>(), V);
    const unsigned split = whole_split<Reducer>(n, round, s.sm_count);
    const unsigned grid = whole_grid(s.sm_count, resident_blocks_per_sm<kernel, B>(), n, round, split);
    Acc* partials = nullptr;
    if (grid > 1 && (S == device_shape::two_pass_partials || !publishes_words<Acc>())) partials = static_cast<Acc*>(s.scratch(grid * sizeof(Acc)));
    launch(s, kernel, grid, B, "reduce: launching the reduction kernel", red, source, n, head, partials, s.partial_slots, s.control,
           d_out, o.warp);
    if (S == device_shape::two_pass_partials && grid > 1)
      launch(s, reduce_partials_kernel<B, Reducer>, 1, B, "reduce: launching the second pass", red, partials, grid, d_out, o.warp);
  };
  auto run = [&](const auto& source) {
    // An array of at most one round is one block (whole_one_block), which every shape reduces
    // alike: fold, block reduction, result written. Under `automatic` reduce_one_block_kernel
    // does it; other warp algorithms take two_pass_partials's kernel, which has the least code
    // of the three shapes (no collector, no atomic merge) and is faster. Evidence (H200, graph
    // timer, probe of 2026-11-22, us per call at 2^12, single_pass's kernel ->
    // two_pass_partials's): f32 plus 1.65 -> 1.57, f32 maximum 1.68 -> 1.52, i32 plus 1.63 ->
    // 1.48, i32 maximum 1.51 -> 1.33, i32 minmax 1.57 -> 1.48, f64 argmax 2.31 -> 2.21, f64 plus
    // 1.95 -> 1.98.
    using View = std::decay_t<decltype(source)>;
    const bool one_block = whole_one_block(n, whole_block_elements(elements_per_vector<View>()));
    if (one_block && o.warp == warp_algorithm::automatic) {
      constexpr bool vectorized = chunk_loader<View>::vectorized;
      constexpr std::uint64_t per_round = whole_stripe_elements(elements_per_vector<View>(), loads_per_vector<View>());
      constexpr int most_rounds = int((whole_block_elements(elements_per_vector<View>()) + per_round - 1) / per_round);
      const std::uint64_t head = vector_head(source, n);
      const bool whole_vectors = vectorized && head == 0 && n % elements_per_vector<View>() == 0;
      using Src = std::decay_t<decltype(source)>;
      const auto kernel = n > per_round ? reduce_one_block_kernel<B, most_rounds, false, Reducer, Src>
                          : whole_vectors ? reduce_one_block_kernel<B, 1, vectorized, Reducer, Src>
                                          : reduce_one_block_kernel<B, 1, false, Reducer, Src>;
      launch(s, kernel, 1, B, "reduce: launching the reduction kernel", red, source, n, head, d_out);
      return;
    }
    using shape_t = std::integral_constant<device_shape, device_shape::single_pass>;
    using plain_vectors = std::integral_constant<int, vectors_in_flight>;
    using plain_blocks = std::integral_constant<int, 1>;
    if constexpr (detail::has_value_reducer<Reducer>::value && sizeof(typename View::value_type) <= 4) {
      // Arg reducers between one wave's round and a few deep waves' rounds: the deep arg kernel
      // (whole_deep_arg), under algorithm::automatic. 8-byte values keep the 4-vector kernel:
      // the deep one was within 1% of it for f64 and spills 20 bytes.
      using deep_vectors = std::integral_constant<int, deep_arg_vectors>;
      using deep_blocks = std::integral_constant<int, deep_arg_blocks_per_sm>;
      constexpr auto plain = reduce_whole_kernel<device_shape::single_pass, B, vectors_in_flight, 1, Reducer, View>;
      constexpr auto deep = reduce_whole_kernel<device_shape::single_pass, B, deep_arg_vectors, deep_arg_blocks_per_sm, Reducer, View>;
      if (!one_block && o.algo == algorithm::automatic && shape == device_shape::single_pass &&
          whole_deep_arg(n, elements_per_vector<View>(), s.sm_count, resident_blocks_per_sm<plain, B>(), resident_blocks_per_sm<deep, B>()))
        return launch_shape(shape_t{}, deep_vectors{}, deep_blocks{}, source);
    }
    switch (one_block ? device_shape::two_pass_partials : shape) {
      case device_shape::single_pass: launch_shape(shape_t{}, plain_vectors{}, plain_blocks{}, source); break;
      case device_shape::two_pass_partials:
        launch_shape(std::integral_constant<device_shape, device_shape::two_pass_partials>{}, plain_vectors{}, plain_blocks{}, source);
        break;
      case device_shape::atomic:
        if constexpr (has_atomic_merge<Reducer, Acc>())
          launch_shape(std::integral_constant<device_shape, device_shape::atomic>{}, plain_vectors{}, plain_blocks{}, source);
        break;
    }
  };
  with_loadable(src, run);
}

}  // namespace backend
}  // namespace preduce
