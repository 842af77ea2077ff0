// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one result per column of a row-major rows x cols matrix. One kernel covers every
// shape: each lane owns up to 4 consecutive columns (one aligned load per row), a warp reads
// 32 / lanes rows side by side so narrow matrices still fill it, the warps of a block split the
// rows of its column tile, and when the columns alone cannot fill the device the rows are split
// among blocks whose partial columns the tile's last block combines. Element (r, c) is lifted
// with index r; every split depends only on the shape and the device (run_to_run).
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/whole/dispatch_whole.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Copies Bytes (4, 8 or 16) from p, which is Bytes-aligned, with one read-only load.
template <int Bytes>
__device__ __forceinline__ void load_bytes(const void* p, void* dst) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "load_bytes: 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    const uint4 v = __ldg(static_cast<const uint4*>(p));
    std::memcpy(dst, &v, sizeof v);
  } else if constexpr (Bytes == 8) {
    const uint2 v = __ldg(static_cast<const uint2*>(p));
    std::memcpy(dst, &v, sizeof v);
  } else {
    const unsigned v = __ldg(static_cast<const unsigned*>(p));
    std::memcpy(dst, &v, sizeof v);
  }
}

//! How a source serves reduce_columns_kernel: `columns` consecutive elements of one row per
//! load. The primary template reads element by element (one column per load).
template <class Source, class Enable = void>
struct column_loader {
  static constexpr int columns = 1;
  static constexpr bool vectorized = false;
};

//! Element types of 1, 2, 4 or 8 bytes: 4 columns per load (16, 8 or 4 bytes), 2 for 8-byte
//! types (16 bytes), so a thread holds at most 4 accumulators.
template <class T>
constexpr bool column_vector_type = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;
template <class T>
constexpr int columns_per_load = sizeof(T) == 8 ? 2 : 4;

template <class T>
struct column_loader<detail::array_source<T>, std::enable_if_t<column_vector_type<T>>> {
  using source = detail::array_source<T>;
  static constexpr int columns = columns_per_load<T>;
  static constexpr int bytes = columns * int(sizeof(T));
  static constexpr bool vectorized = true;
  //! Every row's columns c, c + 1, ... (c % columns == 0) share one aligned load.
  static bool usable(const source& s, std::uint64_t cols) {
    return reinterpret_cast<std::uintptr_t>(s.x) % bytes == 0 && cols % columns == 0;
  }
  __device__ static void load(const source& s, std::uint64_t i, T (&e)[columns]) { load_bytes<bytes>(s.x + i, e); }
};

template <class T>
struct column_loader<detail::pair_source<T>, std::enable_if_t<column_vector_type<T>>> {
  using source = detail::pair_source<T>;
  static constexpr int columns = columns_per_load<T>;
  static constexpr int bytes = columns * int(sizeof(T));
  static constexpr bool vectorized = true;
  static bool usable(const source& s, std::uint64_t cols) {
    return reinterpret_cast<std::uintptr_t>(s.x) % bytes == 0 && reinterpret_cast<std::uintptr_t>(s.y) % bytes == 0 &&
           cols % columns == 0;
  }
  __device__ static void load(const source& s, std::uint64_t i, detail::pair_of<T> (&e)[columns]) {
    T x[columns], y[columns];
    load_bytes<bytes>(s.x + i, x);
    load_bytes<bytes>(s.y + i, y);
#pragma unroll
    for (int k = 0; k < columns; ++k) e[k] = {x[k], y[k]};
  }
};

//! The fold of one column's row splits by the tile's last block in reduce_columns_kernel: the
//! identity combined with p[0], p[stride], ..., p[(count - 1) * stride] (partials that other
//! blocks of this launch stored with store_words and released), in that order, with up to
//! column_splits_in_flight of them loaded (load_coherent) before any is combined, so a share of
//! k splits costs about k / column_splits_in_flight L2 round trips instead of k.
//! Not inlined: the loads in flight live in this function's own registers, and the kernel's main
//! loop is compiled as if the fold were not there (inlined, the same batched loads made the
//! loop slower even for shapes with no splits; column_splits_in_flight has the figures).
template <class Reducer>
__device__ __noinline__ typename Reducer::acc_type fold_splits(const Reducer& red, const typename Reducer::acc_type* p,
                                                               std::uint64_t stride, std::uint64_t count) {
  using Acc = typename Reducer::acc_type;
  constexpr int F = column_splits_in_flight<Acc>();
  Acc b = red.identity();
  std::uint64_t k = 0;
  for (; k + F <= count; k += F) {
    Acc q[F];
#pragma unroll
    for (int f = 0; f < F; ++f) q[f] = load_coherent(p + (k + f) * stride);
#pragma unroll
    for (int f = 0; f < F; ++f) b = red.combine(b, q[f]);
  }
  for (; k < count; ++k) b = red.combine(b, load_coherent(p + k * stride));
  return b;
}

//! The shape of one reduce_columns_kernel launch (chosen by enqueue_columns).
struct column_plan {
  unsigned lanes_log2;     //!< lanes per row: a warp reads 32 >> lanes_log2 rows side by side
  unsigned across_log2;    //!< warp columns per block; the block's 8 >> across_log2 warp groups split the rows
  std::uint64_t tiles;     //!< column tiles: (1 << across_log2) warp columns of 2^lanes_log2 * columns each
  std::uint64_t splits;    //!< row splits (blocks per tile); > 1 only when across_log2 == 0
  std::uint64_t split_rows;  //!< rows per split
};

//! x[k] for each k replaced by its greatest (Max) or least value over the lanes l, l + lanes,
//! l + 2 lanes, ... of the warp (lanes = 2^lanes_log2): redux.sync when lanes == 1 and w allows
//! it (warp_reduce), else an xor tree over those lanes. Requires: all 32 lanes active.
template <bool Max, class Word, int N>
__device__ __forceinline__ void strided_extreme_words(Word (&x)[N], unsigned lanes_log2, warp_algorithm w) {
  if (lanes_log2 == 0 && (w == warp_algorithm::hardware || w == warp_algorithm::automatic)) return warp_extreme_words<Max>(x);
#pragma unroll
  for (unsigned d = warp_threads / 2; d > 0; d /= 2) {
    if (d < (1u << lanes_log2)) break;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const Word y = shfl_xor(x[k], d);
      x[k] = Max ? (y > x[k] ? y : x[k]) : (y < x[k] ? y : x[k]);
    }
  }
}

//! The writer's part of store_column_args for a plan of Groups warp groups: per column, the best
//! rank over the groups and the least first index among the groups that hold it, and that
//! index's value from the group that folded its row: row r of the tile was folded by row group
//! (r >> side_log2) & (Groups - 1) (the kernel's row order: a split's rows are whole steps of
//! all its groups, so splits keep it). A column's
//! Groups ranks and indices are loaded before any is compared (ptxas interleaves the columns).
//! H200 probe of 2026-11-26 (f32 argmax, us, 4096 rows x 4 / 16 / 64 columns, 8 groups): this
//! 3.14 / 3.47 / 5.42; the groups a run-time count, loads under `g < groups` (a branch around
//! each) 3.87 / 4.02 / 6.05; all 8 groups loaded whatever the plan (unused ones re-reading group
//! 0) 3.27 / 3.57 / 5.46, but 2.08 against 1.81 us over 256 rows x 4 (2 groups); a rank and
//! index packed in one key struct 3.67 / 3.97 / 5.97; all C * Groups loaded in one loop first:
//! 56 bytes spilled.
template <unsigned Groups, int C, class Reducer, class Word, class V, unsigned Warps, class Sink>
__device__ __forceinline__ void store_best_column_args(const Reducer& red, const Word (&best)[C][Warps][warp_threads],
                                                       const std::uint32_t (&first)[C][Warps][warp_threads],
                                                       const V (&value)[C][Warps][warp_threads], unsigned across, unsigned cg,
                                                       unsigned vl, unsigned side_log2, std::uint32_t c0, std::uint32_t cols,
                                                       const Sink& sink) {
  constexpr std::uint32_t none = ~std::uint32_t(0);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    Word ranks[Groups];
    std::uint32_t firsts[Groups];
#pragma unroll
    for (unsigned g = 0; g < Groups; ++g) {
      ranks[g] = best[c][g * across + cg][vl];
      firsts[g] = first[c][g * across + cg][vl];
    }
    Word b = ranks[0];
#pragma unroll
    for (unsigned g = 1; g < Groups; ++g) b = ranks[g] > b ? ranks[g] : b;
    std::uint32_t f = none;
#pragma unroll
    for (unsigned g = 0; g < Groups; ++g) f = ranks[g] == b && firsts[g] < f ? firsts[g] : f;
    if (c0 + c >= cols) continue;
    sink(c0 + c, f == none ? red.identity() : arg<V>{value[c][((f >> side_log2) & (Groups - 1)) * across + cg][vl], f});
  }
}

//! The arg results of one column tile of reduce_small_columns_kernel, from each lane's C
//! accumulators a (column c0 + c, indices below 2^32), through ranks instead of a tree of arg
//! accumulators: each warp finds, per column, its best rank (arg_rank: NaN, -0 and +0 as
//! Reducer::ties has them) and the least index among its lanes that hold it
//! (strided_extreme_words); with one warp group that lane hands over its own accumulator (the
//! element's bits); otherwise each warp publishes both and that lane's value, and after one
//! barrier the column's writer combines the groups' (store_best_column_args). A column with no
//! element gets the identity. The same result as combining the accumulators in any order: the
//! best value's first index. Each column's accumulator goes to sink(column, accumulator), once.
//! Requires: every thread of the block calls it; BlockThreads == 256; lanes_log2 and
//! across_log2 the launch's plan; writer as in the kernel.
//! Against the small plans' tree (the lanes' shuffle tree, then the warp groups through shared
//! memory), H200 probe of 2026-11-26 (f32 argmax, graph of 64 calls, us, the same plans):
//! 4096 rows x 4 / 16 / 64 columns 3.82 / 4.10 / 6.09 -> 3.14 / 3.47 / 5.42 (CUB 3.73 / 3.89 /
//! 4.95), 256 rows x 4 / 16 / 64 / 256 1.92 / 2.23 / 2.56 / 2.61 -> 1.81 / 2.07 / 2.38 / 2.43,
//! 32 rows x 32 (one group) 1.56 -> 1.59.
template <int BlockThreads, int C, class Reducer, class V, class Sink>
__device__ __forceinline__ void store_column_args(const Reducer& red, const arg<V> (&a)[C], unsigned lanes_log2, unsigned across_log2,
                                                  bool writer, std::uint32_t c0, std::uint32_t cols, const Sink& sink,
                                                  warp_algorithm w) {
  using Rank = decltype(arg_rank<Reducer>(V{}));
  using Word = std::conditional_t<sizeof(Rank) == 8, unsigned long long, unsigned>;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "store_column_args: plans of 1, 2, 4 or 8 warp groups");
  __shared__ Word best[C][block_warps][warp_threads];
  __shared__ std::uint32_t first[C][block_warps][warp_threads];
  __shared__ V value[C][block_warps][warp_threads];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << lanes_log2, across = 1u << across_log2, groups = block_warps >> across_log2;
  const unsigned vl = lane & (lanes - 1), cg = warp & (across - 1);
  constexpr std::uint32_t none = ~std::uint32_t(0);

  Word own[C], top[C];  // a lane that holds no element has rank 0, below every element's
#pragma unroll
  for (int c = 0; c < C; ++c) own[c] = top[c] = a[c].index != npos ? Word(arg_rank<Reducer>(a[c].value)) : Word(0);
  strided_extreme_words<true>(top, lanes_log2, w);
  std::uint32_t index[C], low[C];
#pragma unroll
  for (int c = 0; c < C; ++c) index[c] = low[c] = a[c].index != npos && own[c] == top[c] ? std::uint32_t(a[c].index) : none;
  strided_extreme_words<false>(low, lanes_log2, w);
  if (groups == 1) {  // block-uniform: each warp holds whole columns
#pragma unroll
    for (int c = 0; c < C; ++c) {
      if (c0 + c >= cols) continue;
      if (low[c] != none && index[c] == low[c]) sink(c0 + c, a[c]);
      else if (low[c] == none && lane < lanes) sink(c0 + c, red.identity());
    }
    return;
  }
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (lane < lanes) {
      best[c][warp][vl] = top[c];
      first[c][warp][vl] = low[c];
    }
    if (low[c] != none && index[c] == low[c]) value[c][warp][vl] = a[c].value;
  }
  __syncthreads();
  if (!writer) return;
  const unsigned side_log2 = 5 - lanes_log2;
  if (groups == 2) store_best_column_args<2>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
  else if (groups == 4) store_best_column_args<4>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
  else store_best_column_args<8>(red, best, first, value, across, cg, vl, side_log2, c0, cols, sink);
}

//! One lane's share of a column kernel's rows: `left` rows, the first at element `at` of the
//! matrix and index r, the next ones stride elements and step indices further, each row's C
//! columns loaded as one vector (Vector) or element by element (the first `valid` of them),
//! U rows loaded before any is folded into a (a[c] for column c): the first round with
//! fold_element, after which every accumulator holds an element, the later ones, whole rounds
//! unpredicated and then one predicated round, with fold_after_first. I: the index
//! arithmetic's type.
//! Over vectors, a lane with at least U rows takes its first round whole and unpredicated too.
//! With the first round predicated for every lane, ptxas (sm_90) spilled 52 bytes in
//! reduce_columns_kernel<argmax, f32, 16-byte loads> at its 64 registers, and the spill sat in
//! that round: the first row's vector went to local memory as soon as it was loaded, so the lane
//! waited out that load before issuing the round's last loads. Peeled: no spill (and 98 registers
//! instead of 108 for the deep f32 sum kernel). H200, f32, 2^28 elements, a graph of 8 calls, us
//! a call, three runs of each interleaved (probe of 2026-11-27), argmax over columns of 32 / 256 /
//! 4096 316.0-317.6 / 252.2-253.1 / 244.0-246.8 -> 305.3-305.6 / 245.6-246.6 / 240.7-241.0; sums
//! within 0.5%. (A bisection found the spill grew with fold_splits' call and warp_reduce_each's
//! interleaved steps; git ce34713's kernel, before both, ran argmax over columns of 32 at
//! 304.3-305.1 us in such a run.) The element-by-element loads keep the predicated first round:
//! peeled too, they spilled more (bf16 argmax 28 -> 48 bytes) and argmax over unaligned columns of
//! 32 / 4096 took 311.5-312.7 / 249.4-250.5 -> 316.1-316.8 / 251.5-251.8 us; as they are, the same
//! as before.
template <bool Vector, int U = column_rows_in_flight, class Reducer, class Source, class I, int C>
__device__ __forceinline__ void fold_column_rows(const Reducer& red, const Source& src, typename Reducer::acc_type (&a)[C], I at, I r,
                                                 I left, I stride, I step, unsigned valid) {
  using CL = column_loader<Source>;
  using Acc = typename Reducer::acc_type;
  using E = typename Source::value_type;
  const auto load_row = [&](I i, E(&e)[C]) {
    if constexpr (Vector) {
      CL::load(src, i, e);
    } else {
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (unsigned(c) < valid) e[c] = src[i + c];
    }
  };
  // One round: rows_here (<= U) rows loaded, then folded in order with fold.
  const auto round = [&](I rows_here, auto fold) {
    E e[U][C];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (unsigned(u) < rows_here) load_row(at + u * stride, e[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (unsigned(u) >= rows_here) break;
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (Vector || unsigned(c) < valid) a[c] = fold(a[c], e[u][c], r + u * step);
    }
    at += U * stride;
    r += U * step;
  };
  if (left == 0) return;
  const auto first = [&](const Acc& x, const E& v, I i) { return fold_element(red, x, v, i); };
  if (Vector && left >= U) {
    round(I(U), first);
    left -= U;
  } else {
    const I here = left < U ? left : U;
    round(here, first);
    left -= here;
  }
  const auto later = [&](const Acc& x, const E& v, I i) { return fold_after_first(red, x, v, i); };
  for (; left >= U; left -= U) round(U, later);
  if (left > 0) round(left, later);
}

//! Columns of a small input (plan_small_columns' plan over 16-byte loads), one column tile a
//! block, with 32-bit indices and only the parameters it reads: reduce_columns_kernel's rows,
//! order and results for one split, without its item loop and split code. Against
//! reduce_columns_kernel's Small form (until git cc83403 a template flag of that kernel, with its
//! partials, counters and item loop), H200 probe of 2026-11-26 (f32, graph of 64 calls, us, the
//! same plans): sums over 256 rows x 4 / 16 / 64 / 256 columns 1.41 / 1.63 / 1.72 / 1.80 -> 1.36
//! / 1.58 / 1.66 / 1.75, over 32 x 32 / 128 1.38 / 1.52 -> 1.33 / 1.46, over 4096 x 4 / 16 / 64
//! 2.30 / 2.81 / 4.89 -> 2.25 / 2.75 / 4.88; argmax over 256 rows 1.84 / 1.93 / 2.06 / 2.13 ->
//! 1.77 / 1.86 / 1.95 / 2.03, over 32 x 32 / 128 1.60 / 1.67 -> 1.52 / 1.58, over 4096 rows 3.14
//! / 3.46 / 5.48 -> 3.08 / 3.27 / 5.27. The plan comes as the struct: given lanes_log2 and
//! across_log2 as two scalar parameters, NVVM recomputed each load's address from the
//! parameters, and the sums ran no faster than the Small form (1.40 / 1.62 / 1.71 / 1.80).
//! Requires: blockDim.x == BlockThreads == 256; gridDim.x == p.tiles * splits, splits = 1, or
//! 2^column_arg_splits_log2 with Split (only p.lanes_log2 and p.across_log2 are read); Split
//! only for arg reducers, with tile width (across * lanes * C) <= BlockThreads,
//! counters[0 .. p.tiles) zero on entry (zero again on exit) and slots the queue's partial
//! slots (zero), p.tiles * splits * tile width of them; column_loader<Source>::usable;
//! (rows + 256) * cols and cols * out_stride below 2^31.
//! Work and order: reduce_columns_kernel's, RowsInFlight of a lane's rows loaded before any is
//! folded (column_rows_in_flight, or column_deep_rows_in_flight where a warp takes more row
//! steps than that); with splits, block b takes split b % splits of tile b / splits, whose rows
//! are the tile's row steps k, k + splits, ... (as if a tile had splits times the warp groups).
//! Combines: arg reducers through ranks (store_column_args), and with splits each block
//! publishes its columns' accumulators in their slots (publish_partial: flagged words, no fence),
//! counts itself in counters[tile], and the tile's last block collects the splits' in split
//! order (the arg combine keeps the least index among ties, so the order does not change the
//! result); others the side rows of a warp (strided_reduce_each), then a tree over the warp
//! groups through shared memory, group g taking g + half for half = groups / 2, ..., 1.
//! Split is a template flag: with the splits a run-time count (p.splits), the unsplit arg plans
//! ran 3-7% slower (H100 probe of 2026-11-26, f32 argmax, graph of 64 calls, us: 256 rows x 4 /
//! 16 / 64 columns 1.85 / 1.90 / 1.95 -> 2.00 / 2.03 / 2.09, 2048 x 64 3.62 -> 3.79).
//! Writes: out[c * out_stride] = finalize(column c) for each column c < cols of the block's tile.
template <int BlockThreads, int RowsInFlight, bool Split, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, RowsInFlight > column_rows_in_flight ? column_deep_min_blocks
                                                                                    : column_min_blocks<typename Reducer::acc_type>())
    reduce_small_columns_kernel(Reducer red, Source src, std::uint32_t rows, std::uint32_t cols, column_plan p,
                                typename Reducer::result_type* out, std::uint32_t out_stride, unsigned long long* slots,
                                unsigned* counters, warp_algorithm w) {
  begin_after_prior_grid();
  using I = std::uint32_t;
  static_assert(!Split || detail::has_value_reducer<Reducer>::value, "row splits: arg reducers only");
  const unsigned lanes_log2 = p.lanes_log2, across_log2 = p.across_log2;
  constexpr unsigned splits_log2 = Split ? column_arg_splits_log2 : 0u;
  using Acc = typename Reducer::acc_type;
  constexpr int C = column_loader<Source>::columns;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "reduce_small_columns_kernel: plans of 8 warps a block");
  static_assert(sizeof(Acc) * C * BlockThreads <= 32768, "small plans: accumulators of at most 16 bytes");
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << lanes_log2, side = warp_threads >> lanes_log2;
  const unsigned across = 1u << across_log2, groups = block_warps >> across_log2;
  const unsigned cg = warp & (across - 1), rg = warp >> across_log2;
  const unsigned vl = lane & (lanes - 1), ro = lane >> lanes_log2;
  const unsigned step_log2 = (5 - lanes_log2) + (3 - across_log2) + splits_log2;
  const I step = I(1) << step_log2;
  const bool writer = rg == 0 && lane < lanes;
  const unsigned tile = blockIdx.x >> splits_log2, split = blockIdx.x & ((1u << splits_log2) - 1u);
  const I tile_width = across * lanes * C;
  const I c0 = I(tile) * tile_width + (cg * lanes + vl) * C;

  Acc a[C];
#pragma unroll
  for (int c = 0; c < C; ++c) a[c] = red.identity();
  const I r_first = ((split << (3 - across_log2)) + rg) * side + ro;
  const I left = c0 < cols && r_first < rows ? (rows - r_first + step - 1) >> step_log2 : 0;
  fold_column_rows<true, RowsInFlight>(red, src, a, r_first * cols + c0, r_first, left, step * cols, step, unsigned(C));

  if constexpr (!Split && detail::has_value_reducer<Reducer>::value) {
    store_column_args<BlockThreads>(red, a, lanes_log2, across_log2, writer, c0, cols,
                                    [&](I col, const Acc& r) { store_result(out + col * out_stride, red.finalize(r)); }, w);
  } else if constexpr (Split) {
    constexpr unsigned K = 1u << splits_log2;
    const auto slot = [&](unsigned k, I col) { return ((tile << splits_log2) + k) * tile_width + (col - tile * tile_width); };
    store_column_args<BlockThreads>(red, a, lanes_log2, across_log2, writer, c0, cols,
                                    [&](I col, const Acc& r) { publish_partial(r, slot(split, col), static_cast<Acc*>(nullptr), slots); },
                                    w);
    __shared__ bool last;
    __syncthreads();  // every column of the block published
    if (threadIdx.x == 0) last = atomicAdd(&counters[tile], 1u) == K - 1u;
    __syncthreads();
    if (!last) return;  // block-uniform
    // The splits' words may land after their counts: collect_published waits for them.
    const I col = tile * tile_width + threadIdx.x;
    if (threadIdx.x < tile_width && col < cols) {
      unsigned b[K];
      Acc parts[K];
#pragma unroll
      for (unsigned k = 0; k < K; ++k) b[k] = slot(k, col);
      collect_published(b, slots, parts);
      Acc r = parts[0];
#pragma unroll
      for (unsigned k = 1; k < K; ++k) r = red.combine(r, parts[k]);
      store_result(out + col * out_stride, red.finalize(r));
    }
    if (threadIdx.x == 0) counters[tile] = 0;
  } else {
    __shared__ Acc exchange[block_warps][warp_threads][C];
    if (side > 1) strided_reduce_each(red, a, lanes, w);
    // A tree over the groups: at each level the upper half of the groups still holding partials
    // passes them to the lower half (group g takes g + half). A level writes only slots that no
    // earlier level read. Against group 0 folding the others in turn, H100 probes of 2026-11-25
    // (two machines, graph of 64 calls, us, f32, 8 groups): argmax over columns of 4096 at 2^14 /
    // 2^16 / 2^18 / 2^20 4.71 / 5.40 / 6.91 / 7.21 -> 3.92 / 4.36 / 5.99 / 6.36, sums 2.39 / 3.33 /
    // 4.96 / 5.18 -> 2.36 / 3.05 / 4.81 / 5.07; sums over columns of 256 at 2^12 1.75 -> 1.68.
#pragma unroll
    for (unsigned half = block_warps / 2; half > 0; half /= 2) {
      if (half >= groups) continue;  // block-uniform
      if (rg >= half && rg < 2 * half && lane < lanes) {
#pragma unroll
        for (int c = 0; c < C; ++c) exchange[warp][lane][c] = a[c];
      }
      __syncthreads();
      if (rg < half && lane < lanes) {
#pragma unroll
        for (int c = 0; c < C; ++c) a[c] = device_combine(red, a[c], exchange[(rg + half) * across + cg][lane][c]);
      }
    }
    if (writer) {
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (c0 + c < cols) store_result(out + (c0 + c) * out_stride, red.finalize(a[c]));
    }
  }
}

//! Requires: blockDim.x == BlockThreads == 256 (8 warps); Vector (one load per lane and row,
//! else element by element) only when column_loader<Source>::usable; grid-strides over tiles *
//! splits work items, item i being tile i / splits and split i % splits; when splits > 1,
//! across_log2 == 0, counters[0 .. tiles) zero on entry (zero again on exit) and partials holds
//! splits * cols accumulators.
//! Work: lane l of warp k owns columns c0 .. c0 + C - 1 of its tile (C = column_loader::columns;
//! c0 = tile * tile width + ((k % across) * lanes + l % lanes) * C) and, within the split's rows
//! [r0, r1), rows r0 + (i * groups + k / across) * side + l / lanes for i = 0, 1, ... (side =
//! 32 / lanes rows per warp step, groups = 8 / across warps per column), folded in that order
//! as fold_column_rows has them.
//! Combines, in a fixed order: the side rows of a warp (strided_reduce_each), then the warp groups
//! of the block through shared memory (group 0 folds groups 1, 2, ... in turn), then, with several
//! splits, the tile's last block (acq_rel counter per tile) folds the splits: thread t takes column
//! t % tile width and a contiguous share of the splits, and the shares are folded in order.
//! Writes: out[c * out_stride] = finalize(column c) for each column c < cols of the item's
//! tile (with splits, partials[split * cols + c] first, and out from the tile's last block).
template <int BlockThreads, class Reducer, class Source, bool Vector>
__global__ void __launch_bounds__(BlockThreads, column_min_blocks<typename Reducer::acc_type>())
    reduce_columns_kernel(Reducer red, Source src, std::uint64_t rows, std::uint64_t cols, column_plan p,
                          typename Reducer::acc_type* partials, unsigned* counters, typename Reducer::result_type* out,
                          std::uint64_t out_stride, warp_algorithm w) {
  wait_for_prior_grid();  // the next grid launches as this one's blocks exit (launch.cuh's evidence)
  using I = std::uint64_t;
  using Acc = typename Reducer::acc_type;
  constexpr int C = column_loader<Source>::columns;
  constexpr unsigned block_warps = BlockThreads / warp_threads;
  static_assert(block_warps == 8, "reduce_columns_kernel: column_plan assumes 8 warps per block");
  // Columns exchanged per barrier: all C while that fits in 32 KiB of shared memory, else one at
  // a time (binned accumulators are 64-150 bytes: C of them per thread would not fit at all).
  constexpr int XC = sizeof(Acc) * C * BlockThreads <= 32768 ? C : 1;
  __shared__ Acc exchange[block_warps][warp_threads][XC];
  __shared__ bool is_last;

  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const unsigned lanes = 1u << p.lanes_log2, side = warp_threads >> p.lanes_log2;
  const unsigned across = 1u << p.across_log2, groups = block_warps >> p.across_log2;
  const unsigned cg = warp & (across - 1), rg = warp >> p.across_log2;
  const unsigned vl = lane & (lanes - 1), ro = lane >> p.lanes_log2;
  const I tile_width = I(across) * lanes * C;
  // Rows from a lane's row to its next: side * groups = 2^(log2(32 / lanes) + log2(8 / across)).
  const unsigned step_log2 = (5 - p.lanes_log2) + (3 - p.across_log2);
  const I step = I(1) << step_log2;
  const bool writer = rg == 0 && lane < lanes;

  const I splits = p.splits, split_rows = p.split_rows;
  for (I item = blockIdx.x; item < I(p.tiles) * splits; item += gridDim.x) {  // block-uniform
    const I tile = splits == 1 ? item : item / splits, split = item - tile * splits;
    const I c0 = tile * tile_width + (I(cg) * lanes + vl) * C;
    const I r_begin = split * split_rows;
    const I r_end = r_begin + split_rows < rows ? r_begin + split_rows : rows;  // <= r_begin: no rows
    Acc a[C];
#pragma unroll
    for (int c = 0; c < C; ++c) a[c] = red.identity();

    // This lane's rows: r_first, r_first + step, ... below r_end; none when its columns lie past cols.
    const I r_first = r_begin + I(rg) * side + ro;
    const I left = c0 < cols && r_first < r_end ? (r_end - r_first + step - 1) >> step_log2 : 0;
    const unsigned valid = cols - c0 < I(C) ? unsigned(cols - c0) : unsigned(C);  // when left > 0
    fold_column_rows<Vector>(red, src, a, r_first * cols + c0, r_first, left, step * cols, step, valid);

    if (side > 1) strided_reduce_each(red, a, lanes, w);
    if (groups > 1) {
#pragma unroll
      for (int first = 0; first < C; first += XC) {
        if (first > 0) __syncthreads();  // the previous columns' exchange has been read
        // Group 0 folds groups 1, 2, ... in turn (a tree's extra barriers and live values made
        // this 64-register kernel spill: ptxas, f32 argmax, 32 -> 104 bytes of stack;
        // reduce_small_columns_kernel takes the tree).
        if (rg > 0 && lane < lanes) {
#pragma unroll
          for (int c = 0; c < XC; ++c) exchange[warp][lane][c] = a[first + c];
        }
        __syncthreads();
        if (writer) {
          for (unsigned g = 1; g < groups; ++g) {
#pragma unroll
            for (int c = 0; c < XC; ++c) a[first + c] = red.combine(a[first + c], exchange[g * across + cg][lane][c]);
          }
        }
      }
    }

    if (splits == 1) {
      if (writer) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (c0 + c < cols) store_result(out + (c0 + c) * out_stride, red.finalize(a[c]));
      }
    } else {
      if (writer) {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (c0 + c < cols) store_words(partials + split * cols + c0 + c, a[c]);
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
      }
      __syncthreads();  // every writer's partials are released before thread 0 counts the block
      if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(counters[tile]);
        is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == splits - 1;
      }
      __syncthreads();  // extends thread 0's acquire to the block
      if (is_last) {
        // tile_width (<= 32 * 4) divides BlockThreads: `shares` threads per column.
        const unsigned width = unsigned(tile_width), shares = BlockThreads / width;
        const unsigned k = threadIdx.x % width, h = threadIdx.x / width;
        const I col = tile * tile_width + k;
        Acc b = red.identity();
        if (col < cols) {
          const I lo = h * splits / shares, hi = (h + 1) * splits / shares;
          b = fold_splits(red, partials + lo * cols + col, cols, hi - lo);
        }
        Acc* stage = &exchange[0][0][0];  // block_warps * 32 * XC >= BlockThreads slots
        stage[threadIdx.x] = b;
        __syncthreads();
        if (h == 0 && col < cols) {
          for (unsigned g = 1; g < shares; ++g) b = red.combine(b, stage[g * width + k]);
          store_result(out + col * out_stride, red.finalize(b));
        }
        if (threadIdx.x == 0) counters[tile] = 0;
      }
    }
    __syncthreads();  // exchange and is_last are reused by the block's next item
  }
}

//! Largest k with 2^k <= x (x >= 1).
inline unsigned floor_log2(std::uint64_t x) {
  unsigned k = 0;
  while ((x >> (k + 1)) != 0) ++k;
  return k;
}

//! log2 of the most lanes a warp puts on one row of `vectors` column vectors: 2^ceil(log2 vectors),
//! at most 32.
inline unsigned widest_lanes_log2(std::uint64_t vectors) {
  return ceil_log2(vectors < warp_threads ? vectors : warp_threads);
}

//! The row steps of a column tile whose warps put 2^lanes_log2 lanes on a row (so a step covers
//! 32 >> lanes_log2 rows): at least 1.
inline std::uint64_t column_row_steps(std::uint64_t rows, unsigned lanes_log2) {
  const std::uint64_t side = warp_threads >> lanes_log2;
  return rows > side ? (rows + side - 1) / side : 1;
}

//! One block per column tile and no row splits, for inputs whose one-round tiles exceed a wave
//! (plan_small_columns): of the plans with at most most_tiles tiles (lanes per row 1..32, 1..8
//! warps across a tile) whose warps take at most column_small_steps row steps, the one with the
//! fewest steps; ties go to the widest lanes with `widest` (a one-instruction combine), else to
//! the narrowest (a lane's rows fold serially, which costs arg reducers more than shuffles).
//! Returns false, leaving p alone, when there is none.
inline bool plan_half_wave_columns(std::uint64_t rows, std::uint64_t cols, std::uint64_t C, bool widest, std::uint64_t most_tiles,
                                   column_plan& p) {
  constexpr unsigned most_across_log2 = 3;  // 8 warps a block
  const std::uint64_t vectors = (cols + C - 1) / C;
  const unsigned top_log2 = widest_lanes_log2(vectors);
  std::uint64_t fewest = column_small_steps + 1;
  for (unsigned k = 0; k <= top_log2; ++k) {
    const unsigned lanes_log2 = widest ? top_log2 - k : k;
    const std::uint64_t steps = column_row_steps(rows, lanes_log2);
    const std::uint64_t warp_columns = ceil_shift(vectors, lanes_log2);
    for (unsigned across_log2 = 0; across_log2 <= most_across_log2; ++across_log2) {
      const std::uint64_t per_warp = ceil_shift(steps, most_across_log2 - across_log2);
      const std::uint64_t tiles = ceil_shift(warp_columns, across_log2);
      if (per_warp < fewest && tiles <= most_tiles) {
        fewest = per_warp;
        p = column_plan{lanes_log2, across_log2, tiles, 1, rows};
      }
    }
  }
  return fewest <= column_small_steps;
}

//! The plan for a small input (column_small_steps): one block per column tile, no row splits,
//! and a lane's rows loaded in one round where the shape allows. Lanes per row: with `widest`
//! (a one-instruction combine) the most, up to 32 and 2^ceil(log2(vectors)), for which a warp
//! takes at most column_rows_in_flight row steps with at most 8 warps on a column, else 1; without
//! it 1 (a warp reads 32 rows of C columns, and its lanes' tree of shuffles replaces a serial
//! fold). Warps on a column: the fewest powers of 2 that give each at most warp_steps row steps
//! (a round, column_rows_in_flight; column_arg_warp_steps for the small kernel's arg combine), at
//! most 8 (a tile wider than the columns leaves its other warps idle: the combine across warps
//! costs small inputs more than the idle warps do). Where those tiles exceed wave_blocks:
//! plan_half_wave_columns' plan. Returns false, leaving p alone, when a warp would take more
//! than column_small_steps row steps, or neither plan fits.
inline bool plan_small_columns(std::uint64_t rows, std::uint64_t cols, std::uint64_t C, bool widest, std::uint64_t warp_steps,
                               std::uint64_t wave_blocks, column_plan& p) {
  constexpr unsigned most_groups_log2 = 3;  // 8 warps a block
  const std::uint64_t vectors = (cols + C - 1) / C;
  const unsigned widest_log2 = widest ? widest_lanes_log2(vectors) : 0;
  for (unsigned lanes_log2 = widest_log2 + 1; lanes_log2-- > 0;) {
    const std::uint64_t steps = column_row_steps(rows, lanes_log2);
    unsigned groups_log2 = 0;
    while (groups_log2 < most_groups_log2 && ceil_shift(steps, groups_log2) > warp_steps) ++groups_log2;
    const std::uint64_t per_warp = ceil_shift(steps, groups_log2);
    if (per_warp > column_rows_in_flight && lanes_log2 > 0) continue;  // narrower warps cover more rows
    if (per_warp > column_small_steps) return false;
    const std::uint64_t warp_columns = ceil_shift(vectors, lanes_log2);
    const unsigned across_log2 = most_groups_log2 - groups_log2;  // warps past the columns idle
    const std::uint64_t tiles = ceil_shift(warp_columns, across_log2);
    // Narrower warps only make more tiles.
    if (tiles > wave_blocks) return plan_half_wave_columns(rows, cols, C, widest, wave_blocks / 2, p);
    p = column_plan{lanes_log2, across_log2, tiles, 1, rows};
    return true;
  }
  return false;
}

//! Enqueues reduce_columns_kernel<..., Vector> for rows x cols (cols >= 2), C columns per lane,
//! with plan_small_columns' plan where it has one (accumulators of at most 16 bytes), else:
//! lanes = 2^ceil(log2(ceil(cols / C))) up to 32; warp columns = ceil(cols / (lanes * C));
//! k = warps per warp column = the kernel's resident warps (its occupancy, one wave) / warp
//! columns, at least 1 and at most the row steps / column_min_steps; k >= 8: a block of 8 warps
//! per column tile and k / 8 row splits; k < 8: 8 / 2^floor(log2 k) warp columns per block,
//! one split. A plan_small_columns plan over 16-byte loads (Vector) whose indices fit 31 bits
//! runs reduce_small_columns_kernel (until git cc83403 a Small template flag of this kernel;
//! figures of the move beside that kernel). H100 probe of 2026-11-25 (f32, the small plans, graph
//! of 64 calls, us, this kernel -> a copy of it with one tile a block and no split code -> that with
//! 32-bit indices): sums over columns of 32 at 2^10 / 2^16 2.11 / 2.15 -> 1.81 / 1.88 -> 1.73 /
//! 1.80, over columns of 256 at 2^10 / 2^16 2.20 / 2.61 -> 1.90 / 2.37 -> 1.76 / 2.28, over
//! columns of 4096 at 2^14 / 2^20 3.03 / 5.94 -> 2.85 / 5.70 -> 2.67 / 5.62; argmax over
//! columns of 32 at 2^10 / 2^16 2.04 / 2.25 -> 1.69 / 1.90 -> 1.60 / 1.80, over columns of 256
//! at 2^10 / 2^16 2.53 / 3.16 -> 2.19 / 2.82 -> 1.99 / 2.61, over columns of 4096 at 2^14 /
//! 2^20 5.34 / 7.79 -> 5.18 / 8.48 -> 4.70 / 7.34 (an empty kernel: 0.82). Only 16-byte loads
//! have the small kernel (compile time: the element-by-element instantiation is for odd shapes).
template <bool Vector, class Reducer, class Source>
void launch_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                    typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using Acc = typename Reducer::acc_type;
  constexpr std::uint64_t C = column_loader<Source>::columns;
  constexpr std::uint64_t block_warps = block_threads / warp_threads;
  constexpr auto kernel = reduce_columns_kernel<block_threads, Reducer, Source, Vector>;
  const std::uint64_t wave_blocks = one_wave_blocks<kernel, block_threads>(s.sm_count);
  const std::uint64_t resident_warps = wave_blocks * block_warps;

  bool small_form = false;  // a small plan would run reduce_small_columns_kernel
  if constexpr (Vector && sizeof(Acc) <= 16) {
    const std::uint64_t most = (std::uint64_t(1) << 31) / cols;  // (rows + 256) * cols, cols * out_stride below 2^31
    small_form = rows + 256 < most && out_stride < most;
  }
  const std::uint64_t warp_steps = small_form && detail::has_value_reducer<Reducer>::value ? column_arg_warp_steps : column_rows_in_flight;
  column_plan p{};
  const bool small =
      sizeof(Acc) <= 16 && plan_small_columns(rows, cols, C, has_fused_shuffle<Reducer, Acc>(), warp_steps, wave_blocks, p);
  if constexpr (Vector && sizeof(Acc) <= 16) {
    if (small && small_form) {
      // The row steps a warp takes under the plan.
      const std::uint64_t per_warp = ceil_shift(column_row_steps(rows, p.lanes_log2), floor_log2(block_warps) - p.across_log2);
      auto small_kernel = reduce_small_columns_kernel<block_threads, column_rows_in_flight, false, Reducer, Source>;
      unsigned long long* slots = nullptr;
      unsigned* counters = nullptr;
      if constexpr (detail::has_value_reducer<Reducer>::value) {
        // Past column_arg_split_steps a tile's rows are split among 2^column_arg_splits_log2 blocks.
        constexpr std::uint64_t splits = std::uint64_t(1) << column_arg_splits_log2;
        const std::uint64_t width = (C << p.lanes_log2) << p.across_log2, blocks = p.tiles * splits;
        if (per_warp > column_arg_split_steps && width <= block_threads && blocks <= column_arg_split_blocks &&
            blocks * width <= s.whole_grid_cap) {
          p.splits = splits;
          slots = s.partial_slots;
          counters = s.zeroed_counters(p.tiles);
          small_kernel = reduce_small_columns_kernel<block_threads, column_rows_in_flight, true, Reducer, Source>;
        }
      } else if (per_warp > column_rows_in_flight) {
        // Past one round (more than 1024 rows at one lane a row, 8 warps on a column) the lanes
        // load all their rows at once (at most column_small_steps).
        small_kernel = reduce_small_columns_kernel<block_threads, column_deep_rows_in_flight, false, Reducer, Source>;
      }
      launch(s, small_kernel, unsigned(p.tiles * p.splits), block_threads, "reduce_columns: launch", red, src, std::uint32_t(rows),
             std::uint32_t(cols), p, out, std::uint32_t(out_stride), slots, counters, o.warp);
      return;
    }
  }
  if (!small) {
    const std::uint64_t vectors = (cols + C - 1) / C;
    p.lanes_log2 = widest_lanes_log2(vectors);
    const std::uint64_t lanes = std::uint64_t(1) << p.lanes_log2;
    const std::uint64_t warp_columns = (cols + lanes * C - 1) / (lanes * C);
    const std::uint64_t row_steps = column_row_steps(rows, p.lanes_log2);
    std::uint64_t k = resident_warps / warp_columns;
    const std::uint64_t most = row_steps / column_min_steps;
    if (k > most) k = most;
    if (k < 1) k = 1;
    if (k >= block_warps) {
      p.across_log2 = 0;
      p.splits = k / block_warps;
    } else {
      p.across_log2 = floor_log2(block_warps) - floor_log2(k);
      p.splits = 1;
    }
    p.tiles = ceil_shift(warp_columns, p.across_log2);
    p.split_rows = (rows + p.splits - 1) / p.splits;
  }

  Acc* partials = nullptr;
  unsigned* counters = nullptr;
  if (p.splits > 1) {
    partials = static_cast<Acc*>(s.scratch(p.splits * cols * sizeof(Acc)));
    counters = s.zeroed_counters(p.tiles);
  }
  const std::uint64_t items = p.tiles * p.splits;
  const unsigned grid = unsigned(items < 0x7fffffffu ? items : 0x7fffffffu);
  launch(s, kernel, grid, block_threads, "reduce_columns: launch", red, src, rows, cols, p, partials, counters, out, out_stride, o.warp);
}

//! Enqueues out[c * out_stride] = reduction of column c for c < cols (cols >= 1) on s's stream.
//! One column is the whole-array reduction of rows elements (arg index = element = row);
//! otherwise one launch_columns, with one load per lane and row where column_loader allows it.
template <class Reducer, class Source>
void enqueue_columns(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t rows, std::uint64_t cols,
                     typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  if (cols == 1) return reduce_whole(s, red, src, rows, out, o);
  if constexpr (column_loader<Source>::vectorized) {
    if (column_loader<Source>::usable(src, cols)) return launch_columns<true>(s, red, src, rows, cols, out, out_stride, o);
  }
  launch_columns<false>(s, red, src, rows, cols, out, out_stride, o);
}

}  // namespace backend
}  // namespace preduce
