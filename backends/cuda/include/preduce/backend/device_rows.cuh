// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one result per row of a row-major rows x cols matrix. Seven kernels, chosen
// from the shape (enqueue_rows):
//   short rows   a group of 1..32 lanes per row, each lane 1..4 16-byte vectors or elements of
//                it, several rows in flight per group (reduce_short_rows_kernel); under arg
//                reducers, aligned rows are staged through shared memory instead, so that each
//                lane folds a run of up to 8 consecutive vectors (reduce_staged_rows_kernel); a
//                small input's aligned rows, one row a group, by a kernel of fixed slots and
//                32-bit indices (reduce_small_rows_kernel);
//   long rows    4 warps per aligned row of 8 KiB or more (reduce_rows_by_group_kernel); else a
//                warp per row with 16-byte loads (reduce_rows_by_warp_kernel), or a block per
//                row for rows of 16 KiB or more under a cheap combine (reduce_row_tiles_kernel,
//                one tile per row);
//   few rows     a block per aligned row of exactly one round of the block's loads
//                (reduce_round_rows_kernel); others a block per tile of a row, tiles of one
//                row combined by the row's last block (reduce_row_tiles_kernel).
// Every result lifts element (r, c) with index c, and is run_to_run deterministic: the split of
// each row among lanes, warps and tiles depends only on the shape and the device.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <preduce/backend/block/block_binned_merge.cuh>
#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/whole/dispatch_whole.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/warp/warp_slice.cuh>

namespace preduce {
namespace backend {

//! Folds a thread's row slots in place, `per` consecutive slots a row (per a power of two
//! dividing S): slots s0 .. s0 + per - 1 (s0 a multiple of per) into slot s0 by a pairwise tree,
//! level k combining slot s + 2^k into slot s for s a multiple of 2^(k + 1), while 2^k < per.
template <class Reducer, class Acc, int S>
__device__ __forceinline__ void combine_row_slots(const Reducer& red, Acc (&a)[S], unsigned per) {
#pragma unroll
  for (int step = 1; step < S; step *= 2) {
    if (per > unsigned(step)) {
#pragma unroll
      for (int s = 0; s + step < S; s += 2 * step) a[s] = red.combine(a[s], a[s + step]);
    }
  }
}

//! Short rows: a group of lanes = 2^lanes_log2 <= 32 per row, each lane holding items j, j +
//! lanes, ... (per = 2^per_log2 <= row_items_in_flight of them) of its row, an item being a
//! 16-byte vector when `vectorized`, else an element. A thread loads up to row_items_in_flight
//! items before folding any: those of row_items_in_flight / per rows.
//! Requires: blockDim.x == BlockThreads (a multiple of 32); `vectorized` only when
//! chunk_loader<Source> is vectorized and usable, the source's arrays are 16-byte aligned and
//! cols % width == 0 (every row then starts on a 16-byte boundary); items per row <= lanes * per.
//! Work: warp w takes rounds of (32 / lanes) * (row_items_in_flight / per) consecutive rows
//! (rounds w, w + warps, ...); in a round, group g of the warp takes rows first + k * (32 /
//! lanes) + g, so each load instruction of the warp reads consecutive rows or consecutive items
//! of a row.
//! Combines, in a fixed order: a lane's items of a row in item order (a pairwise tree over slots),
//! then the group's lanes (group_reduce; group_reduce_ordered when each lane holds one item).
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first lane.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_short_rows_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, unsigned lanes_log2,
                             unsigned per_log2, bool vectorized, typename Reducer::result_type* out, std::uint64_t out_stride,
                             warp_algorithm w) {
  begin_after_prior_grid();
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  constexpr int S = row_items_in_flight;  // item slots per thread: slot s holds item s % per of row slot s / per
  const unsigned lanes = 1u << lanes_log2, per = 1u << per_log2;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned groups = warp_threads >> lanes_log2;  // groups per warp
  const unsigned g = lane >> lanes_log2, j = lane & (lanes - 1);
  const std::uint64_t per_round = std::uint64_t(groups) * (S >> per_log2);
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  const auto row_of = [&](std::uint64_t first, int s) { return first + std::uint64_t(s >> per_log2) * groups + g; };
  const auto item_of = [&](int s) { return std::uint64_t(j) + std::uint64_t(s & (per - 1)) * lanes; };

  for (std::uint64_t first = warp * per_round; first < rows; first += warps * per_round) {  // warp-uniform
    Acc a[S];
    bool vector_done = false;
    if constexpr (L::vectorized) {
      if (vectorized) {
        constexpr int W = L::width;
        typename L::element e[S][W];
        bool has[S];
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const std::uint64_t row = row_of(first, s), item = item_of(s);
          has[s] = row < rows && item * W < cols;
          if (has[s]) L::load(src, row * cols + item * W, e[s]);
        }
#pragma unroll
        for (int s = 0; s < S; ++s) a[s] = has[s] ? fold_chunk(red, red.identity(), e[s], item_of(s) * W) : red.identity();
        vector_done = true;
      }
    }
    if (!vector_done) {
      typename Source::value_type e[S];
      bool has[S];
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const std::uint64_t row = row_of(first, s), item = item_of(s);
        has[s] = row < rows && item < cols;
        if (has[s]) e[s] = src[row * cols + item];
      }
#pragma unroll
      for (int s = 0; s < S; ++s) a[s] = has[s] ? red.lift(e[s], item_of(s)) : red.identity();
    }
    combine_row_slots(red, a, per);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      if ((s & (per - 1)) != 0) continue;  // warp-uniform
      // With one item per lane, lane j's elements all precede lane j + 1's.
      a[s] = per == 1 ? group_reduce_ordered(red, a[s], lanes, w) : group_reduce(red, a[s], lanes, w);
      const std::uint64_t row = row_of(first, s);
      if (j == 0 && row < rows) store_result(out + row * out_stride, red.finalize(a[s]));
    }
  }
}

//! Whether reduce_staged_rows_kernel applies to Reducer over Source: arg reducers (whose
//! per-element fold and lane combines cost ~25 instructions per element in short rows) over a
//! source of plain 16-byte vectors.
template <class Reducer, class Source>
__host__ __device__ constexpr bool stages_rows() {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized && detail::has_value_reducer<Reducer>::value) {
    return L::loads_per_vector == 1 && sizeof(typename L::element) * L::width == vector_bytes;
  } else {
    return false;
  }
}

//! Short aligned rows of a small input (small_row_items): a group of lanes = 2^lanes_log2 <= 32
//! per row, one row a group, over 16-byte vectors, with 32-bit indices and each lane's slots
//! known at compile time (against reduce_short_rows_kernel's and reduce_staged_rows_kernel's
//! runtime shape, which cost a small launch about 0.3 us: probes beside small_row_items). Lane j
//! of group g holds, of row first + g:
//!  - arg reducers (stages_rows): the run of vectors j * P .. j * P + P - 1, P =
//!    small_staged_row_vectors, loaded straight from global memory (at this size there is nothing
//!    to gain from staging them), folded in index order; the group's lanes then combine in lane
//!    order (group_reduce_ordered): reduce_staged_rows_kernel's order;
//!  - other reducers: vectors j, j + lanes, ..., S = small_row_items of them, folded by a pairwise
//!    tree over slots, then group_reduce: reduce_short_rows_kernel's order for per = S.
//! Requires: blockDim.x == BlockThreads; chunk_loader<Source> vectorized; rows_aligned(src,
//! cols); rows * cols < 2^31; items = cols / width <= lanes * (P or S).
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first lane.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_small_rows_kernel(Reducer red, Source src, unsigned rows, unsigned cols, unsigned lanes_log2,
                             typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  static_assert(L::vectorized, "the small form reads 16-byte vectors");
  constexpr bool runs = stages_rows<Reducer, Source>();
  constexpr int W = L::width, S = int(runs ? small_staged_row_vectors : small_row_items);
  const unsigned lanes = 1u << lanes_log2, groups = warp_threads >> lanes_log2;
  const unsigned lane = threadIdx.x % warp_threads, g = lane >> lanes_log2, j = lane & (lanes - 1);
  const unsigned items = cols / W;
  const unsigned warp = (blockIdx.x * BlockThreads + threadIdx.x) / warp_threads;
  const unsigned warps = gridDim.x * (BlockThreads / warp_threads);
  const auto item_of = [&](int k) { return runs ? j * S + unsigned(k) : j + unsigned(k) * lanes; };
  for (unsigned first = warp * groups; first < rows; first += warps * groups) {  // warp-uniform
    const unsigned row = first + g;
    typename L::element e[S][W];
    bool has[S];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      has[k] = row < rows && item_of(k) < items;
      if (has[k]) L::load(src, row * cols + item_of(k) * W, e[k]);
    }
    Acc a = red.identity();
    if constexpr (runs) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        // After the lane's first chunk, arg folds skip the identity test (fold_chunk_after_first).
        if (has[k]) a = k == 0 ? fold_chunk(red, a, e[k], item_of(k) * W) : fold_chunk_after_first(red, a, e[k], item_of(k) * W);
      }
      a = group_reduce_ordered(red, a, lanes, w);
    } else {
      Acc slot[S];
#pragma unroll
      for (int k = 0; k < S; ++k) slot[k] = has[k] ? fold_chunk(red, red.identity(), e[k], item_of(k) * W) : red.identity();
      combine_row_slots(red, slot, unsigned(S));
      a = group_reduce(red, slot[0], lanes, w);
    }
    if (j == 0 && row < rows) store_result(out + row * out_stride, red.finalize(a));
  }
}

//! Short aligned rows under arg reducers, staged through shared memory: a round of a warp is
//! 32 / lanes whole rows, read as the flattened run of items = cols / width 16-byte vectors per
//! row with coalesced loads (vector p of the round by lane p % 32, up to staged_row_vectors per
//! lane, all in flight before any is stored), stored to the warp's part of shared memory; then
//! lane j of group g folds vectors j * per .. min(items, (j + 1) * per) - 1 of row g from there,
//! in index order, and the group's lanes combine in lane order (group_reduce_ordered). Each
//! lane thus folds up to 8 vectors of one row with the reducer's chunk fold, instead of 1..4
//! vectors and a shuffle tree per row (reduce_short_rows_kernel).
//! Shared memory: vector p of a round sits at slot p + p / 8, so the 8 lanes of a quarter warp
//! reading runs of per = 8 vectors hit 8 different 16-byte bank groups.
//! Requires: stages_rows<Reducer, Source>(); blockDim.x == BlockThreads; rows_aligned(src, cols);
//! lanes = 2^lanes_log2 <= 32, per <= staged_row_vectors, items <= lanes * per and
//! (32 / lanes) * items <= 32 * staged_row_vectors.
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first lane.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, staged_row_blocks_per_sm)
    reduce_staged_rows_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, unsigned lanes_log2, unsigned per,
                              typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using L = chunk_loader<Source>;
  using E = typename L::element;
  constexpr int W = L::width, V = staged_row_vectors;
  constexpr unsigned slots = warp_threads * V;
  __shared__ uint4 stage[BlockThreads / warp_threads][slots + slots / 8];
  uint4* const mine = stage[threadIdx.x / warp_threads];
  const unsigned lanes = 1u << lanes_log2, groups = warp_threads >> lanes_log2;
  const unsigned lane = threadIdx.x % warp_threads, g = lane >> lanes_log2, j = lane & (lanes - 1);
  const unsigned items = unsigned(cols / W);
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
#pragma unroll 1  // one round's 8 vectors per lane in registers at a time
  for (std::uint64_t first = warp * groups; first < rows; first += warps * groups) {  // warp-uniform
    const unsigned round_rows = unsigned(rows - first < groups ? rows - first : groups);
    const unsigned vectors = round_rows * items;
    E e[V][W];
#pragma unroll
    for (int q = 0; q < V; ++q) {
      const unsigned p = lane + q * warp_threads;
      if (p < vectors) L::load(src, first * cols + std::uint64_t(p) * W, e[q]);
    }
#pragma unroll
    for (int q = 0; q < V; ++q) {
      const unsigned p = lane + q * warp_threads;
      if (p < vectors) {
        uint4 raw;  // a whole-vector store (a memcpy straight to shared memory stores word by word)
        std::memcpy(&raw, e[q], sizeof raw);
        mine[p + p / 8] = raw;
      }
    }
    __syncwarp();
    typename Reducer::acc_type a = red.identity();
    if (g < round_rows) {
      const unsigned start = j * per, row_start = g * items;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (unsigned(k) < per && start + k < items) {
          const unsigned p = row_start + start + k;
          const uint4 raw = mine[p + p / 8];
          E x[W];
          std::memcpy(x, &raw, sizeof raw);
          // After the lane's first chunk, arg folds skip the identity test (fold_chunk_after_first).
          a = k == 0 ? fold_chunk(red, a, x, std::uint64_t(start + k) * W)
                     : fold_chunk_after_first(red, a, x, std::uint64_t(start + k) * W);
        }
      }
    }
    a = group_reduce_ordered(red, a, lanes, w);
    if (j == 0 && g < round_rows) store_result(out + (first + g) * out_stride, red.finalize(a));
    __syncwarp();  // every lane has read the round before the next one is stored
  }
}

//! Folds into `a` one whole round of a row's 16-byte vectors: vectors v, v + Threads, ..., v +
//! (U - 1) Threads of the row that starts at element `first` (vector k: elements k * W ..), all
//! U loaded before any is folded, none predicated. FirstOfThread: the round holds the thread's
//! first elements, `a` is the identity, and after the first vector arg folds skip the identity
//! test (fold_chunk_after_first). I: the index arithmetic's type.
template <unsigned Threads, int U, bool FirstOfThread, class Reducer, class Source, class I>
__device__ __forceinline__ typename Reducer::acc_type fold_row_round(const Reducer& red, const Source& src, I first, I v,
                                                                     typename Reducer::acc_type a) {
  using L = chunk_loader<Source>;
  constexpr int W = L::width;
  typename L::element e[U][W];
#pragma unroll
  for (int u = 0; u < U; ++u) L::load(src, first + (v + unsigned(u) * Threads) * W, e[u]);
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::uint64_t at = (v + unsigned(u) * Threads) * W;
    if constexpr (FirstOfThread) a = u == 0 ? fold_chunk(red, a, e[u], at) : fold_chunk_after_first(red, a, e[u], at);
    else a = fold_chunk(red, a, e[u], at);
  }
  return a;
}

//! Thread t's share (of `Threads` folding the row) of one 16-byte aligned row of `vectors`
//! vectors starting at element `first` (no scalar head or tail): vectors t, t + Threads, ...,
//! vectors_in_flight of them loaded before any is folded, the last round predicated rather than finished one vector at a
//! time, so that a row's last vectors are in flight together. Whole rounds run unpredicated: with
//! every round predicated, ptxas gave the f32 argmax kernel 74 registers (3 blocks per SM), now
//! 59 (4 blocks). H200, f32 argmax rows of 4096 at 2^28 (preduce-bench --batched, 2026-11-22):
//! 251.1 -> 243.3 us, CUB 235.8 in both runs. Forcing 4 or 5 blocks on the predicated loop through
//! launch bounds spilled (48 / 160 bytes) and was slower: 271.2 / 281.0 us. Also slower: loading
//! the warp's next row's first round before this row's warp reduction, so no warp waits between
//! rows with nothing in flight (64 registers; kernel timed alone, probe of 2026-11-22, argmax rows
//! of 2048 / 4096 / 16384: 252.9 / 247.0 / 244.4 -> 296.5 / 289.5 / 286.8 us).
//! Requires: chunk_loader<Source> vectorized and usable. Lifts element first + i with index i.
template <unsigned Threads, class Reducer, class Source>
__device__ __forceinline__ typename Reducer::acc_type fold_aligned_row(const Reducer& red, const Source& src, std::uint64_t first,
                                                                       std::uint64_t vectors, unsigned t) {
  using L = chunk_loader<Source>;
  constexpr int W = L::width, U = vectors_in_flight;
  typename Reducer::acc_type a = red.identity();
  // Whole rounds, then the predicated last one. (The two written out: one lambda for both, given
  // the predicate as a compile-time tag, took 69 registers.)
  std::uint64_t v = t;
  for (; v + (U - 1) * Threads < vectors; v += std::uint64_t(Threads) * U) a = fold_row_round<Threads, U, false>(red, src, first, v, a);
  if (v < vectors) {
    typename L::element e[U][W];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v + u * Threads < vectors) L::load(src, first + (v + u * Threads) * W, e[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (v + u * Threads < vectors) a = fold_chunk(red, a, e[u], (v + u * Threads) * W);
  }
  return a;
}

//! Long rows, many of them: a warp per row (warp w takes rows w, w + warps, ...). Aligned rows
//! (`aligned`: rows_aligned) are folded by fold_aligned_row; others by warp_fold, which reads
//! each row's scalar head and tail around its aligned body.
//! Requires: blockDim.x == BlockThreads; a vectorized Source usable (else a scalar_view, with
//! `aligned` false).
//! Writes: out[row * out_stride] = finalize(row's reduction) from lane 0.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_rows_by_warp_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, bool aligned,
                               typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using L = chunk_loader<Source>;
  const unsigned lane = threadIdx.x % warp_threads;
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  for (std::uint64_t row = warp; row < rows; row += warps) {  // warp-uniform
    typename Reducer::acc_type a;
    bool folded = false;
    if constexpr (L::vectorized) {
      if (aligned) {
        a = warp_reduce(red, fold_aligned_row<warp_threads>(red, src, row * cols, cols / L::width, lane), w);
        folded = true;
      }
    }
    if (!folded) a = warp_fold(red, src, row * cols, row * cols + cols, 0, w);
    if (lane == 0) store_result(out + row * out_stride, red.finalize(a));
  }
}

//! Long aligned rows, many of them: a group of GroupWarps warps per row, block b taking rows b *
//! groups .. b * groups + groups - 1 (groups = BlockThreads / (32 GroupWarps)); thread t of a
//! group folds its share with fold_aligned_row, and the group's warps combine in warp order
//! through shared memory. The results are stored with store_result_kept, and a plain array is
//! read under l2_evict_first_policy where evict_input (the input is larger than the L2): it then
//! streams past the results instead of pushing them out to memory in the middle of it. Found
//! with a one-row-a-block copy of this kernel (H200, rows of 4096 f32 at 2^28, graph of 8 calls,
//! median of 6 replays, us; CUB's argmax 236.0-236.2 in the same runs, probes of 2026-11-27): the
//! argmax without its result store 234.4 against 237.3 (the fold and the block reduction
//! unchanged; 8 bytes stored instead of 16, one 16-byte store, or streaming stores: 237.2-237.5);
//! evict_first loads 235.8, evict_last stores 236.8, both 234.7 (sums 235.3-235.7 -> 234.4-234.7).
//! This kernel, plain loads and stores -> these, argmax / sum (another H200; CUB in brackets):
//! rows of 2048 239.4-239.6 / 235.7-235.8 -> 234.4-234.8 / 234.4-234.6 (238.2-238.5 / 397-401),
//! 4096 237.2-237.4 / 234.9 -> 234.9 / 233.9-234.0 (236.1-236.5 / 235.4-235.6), 8192 236.6-236.7
//! / 235.0-235.1 -> 235.4-235.5 / 234.7-234.8 (236.2 / 234.8-235.1), 16384 237.8-238.4 / 236.2-
//! 237.0 -> 236.9-237.6 / 236.8-237.0 (238.6-238.8 / 236.3); at 2^26 and 2^27 (rows of 4096) the
//! same either way, 61.3-61.7 and 119.2-119.4 (CUB 61.0-61.5 and 118.9).
//! Requires: blockDim.x == BlockThreads; GroupWarps divides BlockThreads / 32; rows_aligned(src,
//! cols); gridDim.x * groups >= rows.
//! Writes: out[row * out_stride] = finalize(row's reduction) from the group's first thread.
template <int BlockThreads, int GroupWarps, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, group_row_blocks_per_sm)
    reduce_rows_by_group_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, bool evict_input,
                                typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  constexpr unsigned threads = GroupWarps * warp_threads, groups = BlockThreads / threads;
  static_assert(BlockThreads % threads == 0, "a block holds whole groups");
  __shared__ Acc warp_partials[BlockThreads / warp_threads];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads, t = threadIdx.x % threads;
  const std::uint64_t row = std::uint64_t(blockIdx.x) * groups + threadIdx.x / threads;
  const std::uint64_t vectors = cols / chunk_loader<Source>::width;
  Acc a = red.identity();
  if (row < rows) {
    bool folded = false;
    if constexpr (is_array_source<Source>::value) {
      if (evict_input) {  // grid-uniform
        const policy_array_source<typename Source::value_type> hinted{src.x, l2_evict_first_policy()};
        a = fold_aligned_row<threads>(red, hinted, row * cols, vectors, t);
        folded = true;
      }
    }
    if (!folded) a = fold_aligned_row<threads>(red, src, row * cols, vectors, t);
  }
  a = warp_reduce(red, a, w);
  if constexpr (GroupWarps > 1) {
    if (lane == 0) warp_partials[warp] = a;
    __syncthreads();
    if (t < warp_threads) a = warp_reduce(red, lane < GroupWarps ? warp_partials[warp + lane] : red.identity(), w);
  }
  if (t == 0 && row < rows) store_result_kept(out + row * out_stride, red.finalize(a));
}

//! Element vectors in one round of a block of BlockThreads threads over Source: every thread's
//! vectors_in_flight 16-byte loads (two a vector for a dot's pair of arrays).
template <int BlockThreads, class Source>
__host__ __device__ constexpr std::uint64_t round_row_vectors() {
  return std::uint64_t(BlockThreads) * vectors_per_round(vectors_in_flight, chunk_loader<Source>::loads_per_vector);
}

//! Few aligned rows of exactly one round of a block each (items = round_row_vectors vectors): block
//! b folds row b, thread t its vectors t, t + BlockThreads, ..., all loaded before any is folded
//! and none predicated, then the block reduces (block_reduce, `automatic`). Evidence (H200, graph
//! timer, probe of 2026-11-26, rows of 4096 f32 at 2^12 / 2^14 / 2^16 / 2^18 / 2^20 / 2^22, us; CUB
//! in the same run 1.39 / 1.43 / 1.56 / 2.00 / 2.78 / 5.53 for sums, 1.88 / 1.93 / 2.08 / 2.85 /
//! 3.44 / 6.31 for argmax): this kernel's shape 1.18 / 1.21 / 1.34 / 1.77 / 2.56 / 5.33 and 1.47 /
//! 1.51 / 1.61 / 2.01 / 2.85 / 5.84; the tile kernel (the path before) 1.75 / 1.78 / 1.88 / 2.47 /
//! 3.31 / 6.06 (sums, another H200 run: CUB 1.60 / 1.61 / 1.76 / 2.35 / 3.16 / 5.94). The same fold
//! with predicated loads (what fold_share does below one round, as in the one-block whole-array
//! kernel) ran from as fast to 0.4 us slower, depending on how ptxas reused the first load's
//! registers: for some reducers and kernel signatures it put the first fold between the first and
//! second loads (SASS of f32 sums), so the block waited a memory round trip with three loads
//! unissued (sums at 2^18: 2.25 us). A block of 4 or 8 warps a row through
//! reduce_rows_by_group_kernel: 1.55 / 1.41 us at 2^12.
//! Requires: blockDim.x == BlockThreads; gridDim.x == rows; chunk_loader<Source> vectorized and
//! rows_aligned(src, cols); cols / width == round_row_vectors<BlockThreads, Source>().
//! Writes: out[b * out_stride] = finalize(row b's reduction) from thread 0. Lifts element (b, c)
//! with index c.
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_round_rows_kernel(Reducer red, Source src, std::uint64_t cols, typename Reducer::result_type* out, std::uint64_t out_stride) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  constexpr int U = int(round_row_vectors<BlockThreads, Source>() / BlockThreads);
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  const Source row = slice(src, std::uint64_t(blockIdx.x) * cols);
  Acc a = fold_row_round<BlockThreads, U, true>(red, row, 0u, unsigned(threadIdx.x), red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, warp_algorithm::automatic);
  if (threadIdx.x == 0) store_result(out + blockIdx.x * out_stride, red.finalize(a));
}

//! Long rows, few of them: block b reduces tile b % tiles of row b / tiles, the columns
//! [t * tile_len, min(cols, (t + 1) * tile_len)). Requires: blockDim.x == BlockThreads; grid ==
//! rows * tiles; tiles >= 1; when tiles > 1, counters[0 .. rows) zero on entry (they are zero
//! again on exit) and partials holds rows * tiles accumulators; a vectorized Source usable
//! (else a scalar_view).
//! Writes: with one tile, out[row * out_stride] = finalize(tile). Otherwise the block stores its
//! tile's accumulator to partials[b]; the row's last block to finish (an acq_rel counter per
//! row, as in reduce_whole_kernel) folds the row's partials in tile order through a fixed tree
//! and writes out[row * out_stride].
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_row_tiles_kernel(Reducer red, Source src, std::uint64_t cols, std::uint64_t tiles, std::uint64_t tile_len,
                            typename Reducer::acc_type* partials, unsigned* counters, typename Reducer::result_type* out,
                            std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  __shared__ block_reduce_storage<Acc, BlockThreads> smem;
  __shared__ bool is_last;
  const std::uint64_t row = blockIdx.x / tiles, t = blockIdx.x % tiles;
  const std::uint64_t first = t * tile_len, len = cols - first < tile_len ? cols - first : tile_len;
  const Source s = slice(src, row * cols + first);
  const index_shift_reducer<Reducer> shifted{red, first};
  Acc a = fold_share<vectors_in_flight>(shifted, s, len, head_of(s, len), 0, 1, threadIdx.x, BlockThreads, red.identity());
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (tiles == 1) {
    if (threadIdx.x == 0) store_result(out + row * out_stride, red.finalize(a));
    return;
  }
  if (threadIdx.x == 0) {
    store_words(partials + blockIdx.x, a);
    // acq_rel: releases this tile's partial with the count; the last block acquires the others.
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(counters[row]);
    is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == tiles - 1;
  }
  __syncthreads();  // extends thread 0's acquire to the block; smem is free again
  if (!is_last) return;
  a = red.identity();
  for (std::uint64_t i = threadIdx.x; i < tiles; i += BlockThreads) a = red.combine(a, load_coherent(partials + row * tiles + i));
  a = block_reduce<BlockThreads>(red, a, smem, w);
  if (threadIdx.x == 0) {
    store_result(out + row * out_stride, red.finalize(a));
    counters[row] = 0;
  }
}

//! Whether every row of a row-major matrix with `cols` columns starts on a 16-byte boundary and
//! the source's arrays can share vector loads.
template <class Source>
bool rows_aligned(const Source& src, std::uint64_t cols) {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized) {
    return L::usable(src) && reinterpret_cast<std::uintptr_t>(L::base(src)) % vector_bytes == 0 && cols % L::width == 0;
  } else {
    return false;
  }
}

//! Enqueues reduce_small_rows_kernel for `rows` rows of `cols` at 2^lanes_log2 lanes a row
//! (its requirements hold), a grid of one row a group.
template <class Reducer, class Source>
void enqueue_small_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                        unsigned lanes_log2, typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads >> lanes_log2);
  launch(s, reduce_small_rows_kernel<block_threads, Reducer, Source>, grid, block_threads, "reduce_rows: launching the small-row kernel",
         red, src, unsigned(rows), unsigned(cols), lanes_log2, out, out_stride, w);
}

//! Enqueues out[r * out_stride] = reduction of row r for r < rows (rows >= 1) on s's stream.
//! Selection (items = vectors per row when rows_aligned, else elements):
//!   items <= 32 * row_items_in_flight    aligned rows under stages_rows: reduce_staged_rows_kernel,
//!                                        lanes = 2^ceil(log2(items / staged_row_vectors)), each
//!                                        lane ceil(items / lanes) vectors; otherwise
//!                                        reduce_short_rows_kernel, lanes = 2^ceil(log2 items) up
//!                                        to 32, each lane 2^ceil(log2(items / lanes)) items.
//!                                        Small inputs (all rows in one wave of blocks): lanes
//!                                        for small_staged_row_vectors (staged) or
//!                                        small_row_items (short rows) items a lane instead, and
//!                                        where that shape fits reduce_small_rows_kernel (aligned,
//!                                        31-bit indices, a lane's items within its slots), that
//!                                        kernel
//!   rows >= resident warps / 2           aligned rows of group_row_min_bytes or more:
//!                                        reduce_rows_by_group_kernel, 4 warps a row; else
//!                                        reduce_row_tiles_kernel with one tile per row (a block
//!                                        per row) for rows of block_row_min_bytes or more and a
//!                                        reducer with a fused shuffle step; else
//!                                        reduce_rows_by_warp_kernel
//!   otherwise                            aligned rows of exactly one round of a block
//!                                        (round_row_vectors), under `automatic`:
//!                                        reduce_round_rows_kernel; else
//!                                        reduce_row_tiles_kernel, tiles = row_tile_waves
//!                                        waves of blocks / rows, up to a power of two, each at
//!                                        least row_tile_min_bytes, of whole 128-byte lines
template <class Reducer, class Source>
void enqueue_rows(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                  typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using L = chunk_loader<Source>;
  using Acc = typename Reducer::acc_type;
  const device_slots slots = slots_for(s.sm_count);
  const bool aligned = rows_aligned(src, cols);
  std::uint64_t items = cols;
  if constexpr (L::vectorized) {
    if (aligned) items = cols / L::width;
  }

  if (items <= std::uint64_t(warp_threads) * row_items_in_flight) {
    // Lanes per row for `per` items a lane (at most 32 lanes).
    const auto lanes_for = [&](std::uint64_t per) {
      const std::uint64_t lanes = (items + per - 1) / per;
      return ceil_log2(lanes < warp_threads ? lanes : warp_threads);
    };
    // Whether the rows, per_block a block, fit the wave_blocks of one wave.
    const auto one_wave = [&](std::uint64_t wave_blocks, std::uint64_t per_block) {
      return (rows + per_block - 1) / per_block <= wave_blocks;
    };
    // The small kernel's indices are 32-bit.
    const bool small_indices = rows * cols < (std::uint64_t(1) << 31);
    if constexpr (stages_rows<Reducer, Source>()) {
      if (aligned) {
        constexpr auto kernel = reduce_staged_rows_kernel<block_threads, Reducer, Source>;
        unsigned lanes_log2 = lanes_for(staged_row_vectors);
        const unsigned small_log2 = lanes_for(small_staged_row_vectors);
        if (one_wave(one_wave_blocks<kernel, block_threads>(s.sm_count), block_threads >> small_log2)) {
          if (small_indices && items <= (std::uint64_t(1) << small_log2) * small_staged_row_vectors)
            return enqueue_small_rows(s, red, src, rows, cols, small_log2, out, out_stride, o.warp);
          lanes_log2 = small_log2;
        }
        const unsigned per = unsigned(ceil_shift(items, lanes_log2));
        const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads >> lanes_log2);
        launch(s, kernel, grid, block_threads, "reduce_rows: launching the staged-row kernel", red, src, rows, cols, lanes_log2, per,
               out, out_stride, o.warp);
        return;
      }
    }
    // The short-row kernel's shape for about `per` items a lane: lanes a row, 2^per_log2 items a
    // lane, rows a block.
    struct short_shape {
      unsigned lanes_log2, per_log2;
      std::uint64_t per_block;
    };
    const auto short_shape_for = [&](std::uint64_t per) {
      const unsigned lanes_log2 = lanes_for(per);
      const unsigned per_log2 = ceil_log2(ceil_shift(items, lanes_log2));
      return short_shape{lanes_log2, per_log2, std::uint64_t(block_threads >> lanes_log2) * (row_items_in_flight >> per_log2)};
    };
    constexpr auto kernel = reduce_short_rows_kernel<block_threads, Reducer, Source>;
    short_shape shape = short_shape_for(1);
    const short_shape small = short_shape_for(small_row_items);
    const bool small_plan = one_wave(one_wave_blocks<kernel, block_threads>(s.sm_count), small.per_block);
    if (small_plan) shape = small;
    if constexpr (L::vectorized) {
      // A small plan of a row a group over vectors: the small kernel.
      if (small_plan && aligned && (std::uint64_t(1) << shape.per_log2) == small_row_items && small_indices)
        return enqueue_small_rows(s, red, src, rows, cols, shape.lanes_log2, out, out_stride, o.warp);
    }
    const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, shape.per_block);
    launch(s, kernel, grid, block_threads, "reduce_rows: launching the short-row kernel", red, src, rows, cols, shape.lanes_log2,
           shape.per_log2, aligned, out, out_stride, o.warp);
    return;
  }

  if constexpr (L::vectorized) {
    constexpr int group_warps = 4;
    constexpr std::uint64_t groups = block_threads / (warp_threads * group_warps);
    const std::uint64_t blocks = (rows + groups - 1) / groups;
    if (aligned && rows >= slots.warps / warp_rows_divisor && cols * sizeof(typename Source::value_type) >= group_row_min_bytes &&
        blocks <= 0x7fffffffu) {
      const unsigned grid = unsigned(blocks);
      const bool evict_input = rows * cols * sizeof(typename Source::value_type) > s.l2_bytes;
      launch(s, reduce_rows_by_group_kernel<block_threads, group_warps, Reducer, Source>, grid, block_threads,
             "reduce_rows: launching the row-group kernel", red, src, rows, cols, evict_input, out, out_stride, o.warp);
      return;
    }
  }
  // Tiles per row for the row-tile kernel: 1 for many rows of block_row_min_bytes or more whose
  // lanes combine in one instruction (has_fused_shuffle: a block per row); a warp per row for
  // other many rows.
  constexpr std::uint64_t elem_bytes = sizeof(typename Source::value_type);
  std::uint64_t tiles = 1;
  if (rows >= slots.warps / warp_rows_divisor) {
    bool block_per_row = false;
    if constexpr (has_fused_shuffle<Reducer, Acc>()) block_per_row = cols * elem_bytes >= block_row_min_bytes;
    if (!block_per_row) {
      const unsigned grid = grid_for(s.sm_count, s.cc_major, rows, block_threads / warp_threads);
      with_loadable(src, [&](const auto& source) {
        launch(s, reduce_rows_by_warp_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>, grid, block_threads,
               "reduce_rows: launching the warp-per-row kernel", red, source, rows, cols, aligned, out, out_stride, o.warp);
      });
      return;
    }
  } else {
    if constexpr (L::vectorized) {
      if (aligned && o.warp == warp_algorithm::automatic && items == round_row_vectors<block_threads, Source>()) {
        launch(s, reduce_round_rows_kernel<block_threads, Reducer, Source>, unsigned(rows), block_threads,
               "reduce_rows: launching the round-row kernel", red, src, cols, out, out_stride);
        return;
      }
    }
    // Few long rows: row_tile_waves waves of tiles (row_tile_waves' evidence).
    const std::uint64_t min_tile = (row_tile_min_bytes + elem_bytes - 1) / elem_bytes;
    tiles = std::uint64_t(1) << ceil_log2((row_tile_waves * slots.blocks + rows - 1) / rows);
    const std::uint64_t most = cols / min_tile;
    if (tiles > most) tiles = most;
    if (tiles < 1) tiles = 1;
  }
  // Tiles of whole vectors and 128-byte lines (of elements whose size divides 128): every tile of
  // a row starts as the row does, on a vector where the row is aligned and with its first sector
  // whole where the row's is.
  constexpr std::uint64_t vector = elements_per_vector<Source>();
  constexpr std::uint64_t by_bytes = 128 % elem_bytes == 0 ? 128 / elem_bytes : 1;
  constexpr std::uint64_t line = by_bytes % vector == 0 ? by_bytes : by_bytes * vector;
  std::uint64_t tile_len = (cols + tiles - 1) / tiles;
  tile_len = (tile_len + line - 1) / line * line;
  tiles = (cols + tile_len - 1) / tile_len;
  Acc* partials = nullptr;
  unsigned* counters = nullptr;
  if (tiles > 1) {
    partials = static_cast<Acc*>(s.scratch(rows * tiles * sizeof(Acc)));
    counters = s.zeroed_counters(rows);
  }
  with_loadable(src, [&](const auto& source) {
    launch(s, reduce_row_tiles_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>, unsigned(rows * tiles), block_threads,
           "reduce_rows: launching the row-tile kernel", red, source, cols, tiles, tile_len, partials, counters, out, out_stride, o.warp);
  });
}

}  // namespace backend
}  // namespace preduce
