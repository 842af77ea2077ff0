// SPDX-License-Identifier: Apache-2.0
// preduce cuda: column_plan, the shape of a column kernel's launch (lanes per row, warps across
// a tile, tiles, row splits), chosen by enqueue_columns.
#pragma once

#include <cstdint>

namespace preduce {
namespace backend {

//! The shape of one reduce_columns_kernel launch (chosen by enqueue_columns).
struct column_plan {
  unsigned lanes_log2;     //!< lanes per row: a warp reads 32 >> lanes_log2 rows side by side
  unsigned across_log2;    //!< warp columns per block; the block's 8 >> across_log2 warp groups split the rows
  std::uint64_t tiles;     //!< column tiles: (1 << across_log2) warp columns of 2^lanes_log2 * columns each
  std::uint64_t splits;    //!< row splits (blocks per tile); > 1 only when across_log2 == 0
  std::uint64_t split_rows;  //!< rows per split
};

}  // namespace backend
}  // namespace preduce
