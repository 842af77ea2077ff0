// SPDX-License-Identifier: Apache-2.0
// preduce cuda: a thread's share of a 16-byte aligned row, a round of vectors at a time
// (fold_row_round, fold_aligned_row), for the warp-per-row, row-group and round-row kernels.
#pragma once

#include <cstdint>

#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

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
//! 59 (4 blocks). Forcing 4 or 5 blocks on the predicated loop spilled and was slower, and so was
//! loading the warp's next row's first round before this row's warp reduction.
//! Evidence: f32 argmax rows of 4096 at 2^28 251.1 -> 243.3 us (docs/tuning/rows.md#fold_aligned_row).
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

}  // namespace backend
}  // namespace preduce
