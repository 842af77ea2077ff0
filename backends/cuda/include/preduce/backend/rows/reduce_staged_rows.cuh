// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the staged-row kernel: short aligned rows under arg reducers, staged through
// shared memory so that each lane folds a run of up to 8 consecutive vectors.
#pragma once

#include <cstdint>
#include <cstring>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/subwarp_reduce.cuh>

namespace preduce {
namespace backend {

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
  w = portable::compiled_warp(w);
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

}  // namespace backend
}  // namespace preduce
