// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: columns reduced by tile of column_tile columns and, when the columns alone
// cannot fill the device, by part of the rows (columns_by_tile).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include <preduce/backend/thread/thread_reduce.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Columns by tile of `column_tile` columns and, when the columns alone cannot fill the
//! device, by part of the rows. Requires: tiles * parts iterations; iteration i takes tile
//! i % tiles (so neighbouring threads take neighbouring columns) over the rows of part
//! i / tiles, in order, lifting each element with its row (on CPUs, argmin / argmax and minmax
//! of whole tiles by selects, fold_arg_columns_by_selects and fold_minmax_columns_by_selects,
//! and reducers with a chunk fold `chunk` rows at a time). Writes, for each column c of the tile: when ToOutput (one part) out[c * stride] =
//! finalize(acc); otherwise partial[part * cols + c] = acc.
template <class Reducer, class Source, bool ToOutput>
struct columns_by_tile {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  Source src;
  std::uint64_t rows, cols, tiles, rows_per_part;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  acc_type* partial;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t iteration) const {
    const std::uint64_t tile = std::uint64_t(iteration) % tiles, part = std::uint64_t(iteration) / tiles;
    const std::uint64_t c0 = tile * column_tile;
    const std::uint64_t left = cols - c0;
    const int width = left < std::uint64_t(column_tile) ? int(left) : column_tile;
    const std::uint64_t r0 = part * rows_per_part;
    const std::uint64_t r1 = rows - r0 < rows_per_part ? rows : r0 + rows_per_part;
    acc_type acc[column_tile];
    if constexpr (host_shapes && detail::has_value_reducer<Reducer>::value) {  // argmin / argmax: by selects
      if (width == column_tile && r1 > r0 && r1 - r0 <= std::uint64_t(~std::uint32_t(0))) {
        fold_arg_columns_by_selects(red, acc, src, r0, r1, cols, c0);
        finish(acc, width, c0, part);
        return;
      }
    }
    if constexpr (host_shapes && detail::is_minmax_result<acc_type>::value) {  // minmax: by selects
      if (width == column_tile && r1 > r0) {
        fold_minmax_columns_by_selects(red, acc, src, r0, r1, cols, c0);
        finish(acc, width, c0, part);
        return;
      }
    }
    for (int w = 0; w < column_tile; ++w) acc[w] = red.identity();
    std::uint64_t r = r0;
    using element = std::decay_t<decltype(src[0])>;
    if constexpr (host_shapes && detail::has_chunk_fold<Reducer, element, chunk>::value) {
      // moments and binned sums: `chunk` rows of a column merged at once (one division, or one
      // pass of deposits, a chunk instead of one an element)
      if (width == column_tile)
        for (; r + chunk <= r1; r += chunk)
          for (int w = 0; w < column_tile; ++w) {
            element x[chunk];
            for (int k = 0; k < chunk; ++k) x[k] = src[(r + std::uint64_t(k)) * cols + c0 + std::uint64_t(w)];
            acc[w] = red.template fold<chunk>(acc[w], x, r);
          }
    }
    if (width == column_tile) {  // constant trip count: the compiler unrolls and vectorizes
      for (; r < r1; ++r)
        for (int w = 0; w < column_tile; ++w) acc[w] = red.combine(acc[w], red.lift(src[r * cols + c0 + std::uint64_t(w)], r));
    } else {
      for (; r < r1; ++r)
        for (int w = 0; w < width; ++w) acc[w] = red.combine(acc[w], red.lift(src[r * cols + c0 + std::uint64_t(w)], r));
    }
    finish(acc, width, c0, part);
  }

  //! The tile's accumulators into out (one part) or partial.
  KOKKOS_INLINE_FUNCTION void finish(const acc_type (&acc)[column_tile], int width, std::uint64_t c0, std::uint64_t part) const {
    for (int w = 0; w < width; ++w) {
      const std::uint64_t c = c0 + std::uint64_t(w);
      if constexpr (ToOutput) {
        out[c * stride] = red.finalize(acc[w]);
      } else {
        partial[part * cols + c] = acc[w];
      }
    }
  }
};

}  // namespace backend
}  // namespace preduce
