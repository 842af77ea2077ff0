// SPDX-License-Identifier: Apache-2.0
// preduce cuda: fold_column_rows, one lane's share of a column kernel's rows folded into its
// column accumulators (reduce_columns_kernel and reduce_small_columns_kernel).
#pragma once

#include <preduce/backend/columns/column_loader.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

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
//! instead of 108 for the deep f32 sum kernel). The element-by-element loads keep the predicated
//! first round: peeled too, they spilled more and were slower (docs/tuning/columns.md#fold_column_rows).
//! Evidence: H200 argmax over columns of 32 at 2^28, 316.0-317.6 -> 305.3-305.6 us.
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

}  // namespace backend
}  // namespace preduce
