// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the tuning table, as data. One policy struct per kernel family, one entry per
// architecture; beside each value, the docs/tuning/<family>.md section holding the measurements
// that chose it. How launches are planned from these values: whole/whole_plan.hpp, batched_plan.hpp.
#pragma once

#include <cstdint>

namespace preduce {
namespace backend {

//! The whole-array kernel (whole/reduce_whole.cuh).
struct whole_policy {
  int block_threads;  //!< threads per block of the whole-array kernel
  int blocks_per_sm;  //!< most blocks per SM of a whole-array grid (one wave)
  int vectors_in_flight;  //!< 16-byte vectors a thread loads before folding any
  int deep_arg_vectors;  //!< vectors in flight of the deep arg kernel
  int deep_arg_blocks_per_sm;  //!< blocks per SM the deep arg kernel is compiled for
  std::uint64_t deep_arg_max_rounds;  //!< most of its waves' rounds the deep arg kernel serves
  unsigned arg_split;  //!< how many ways an arg grid splits each block's round
  unsigned warp_collector_blocks;  //!< most blocks whose partials one warp collects
};

//! What the batched kernels (rows, columns, segments) share.
struct batched_policy {
  int block_threads;  //!< threads per block of the batched kernels
  int blocks_per_sm;  //!< resident blocks per SM the batched grids are sized against (one wave)
  int grid_blocks_per_sm;  //!< blocks per SM a batched grid is capped at (grid_for; they grid-stride over the rest)
};

//! The rows kernels (rows/).
struct rows_policy {
  int items_in_flight;  //!< short rows: items a thread loads before folding any
  int staged_vectors;  //!< short arg rows (staged): vectors a lane loads a round
  int staged_blocks_per_sm;  //!< blocks per SM the staged-row kernel is compiled for
  std::uint64_t small_items;  //!< short rows of a small input: items a lane takes
  std::uint64_t small_staged_vectors;  //!< short arg rows of a small input: vectors a lane takes
  std::uint64_t warp_rows_divisor;  //!< long rows get a warp each from resident warps / this many rows
  std::uint64_t tile_min_bytes;  //!< fewest bytes in a tile of a long row
  std::uint64_t tile_waves;  //!< waves of blocks the tiles of few long rows fill
  int group_blocks_per_sm;  //!< blocks per SM the 4-warp row kernel is compiled for
};

//! The columns kernels (columns/reduce_columns.cuh, columns/reduce_small_columns.cuh).
struct columns_policy {
  int rows_in_flight;  //!< rows a lane loads before folding any
  std::uint64_t min_steps;  //!< fewest rows a column split takes
  std::uint64_t small_steps;  //!< rows a small plan's lane takes
  int deep_rows_in_flight;  //!< rows in flight of the deep (one-round) kernel
  int deep_min_blocks;  //!< blocks per SM the deep columns kernel is compiled for
  std::uint64_t arg_warp_steps;  //!< arg columns: rows a warp step takes
  std::uint64_t arg_split_steps;  //!< arg columns: rows past which a tile splits among blocks
  unsigned arg_splits_log2;  //!< arg columns: log2 of the blocks a tile splits among
  std::uint64_t arg_split_blocks;  //!< arg columns: most tiles that still split
  int blocks_per_sm;  //!< blocks per SM the columns kernel is compiled for
};

//! The segments kernels (segments/).
struct segments_policy {
  int stage_bytes;  //!< shared-memory stage of a warp of the merge-path kernel
  std::uint64_t lane_elements;  //!< elements a lane takes a round
  int stage_skew;  //!< stage skew against bank conflicts
  unsigned skew_starts;  //!< starts read ahead of the skewed stage
  int blocks_per_sm;  //!< blocks per SM the merge-path kernel is compiled for
  std::uint64_t end_weight;  //!< work units a segment's end weighs in the merge path
  std::uint64_t min_items_per_warp;  //!< fewest merge-path units a warp takes
  int check_offsets_in_flight;  //!< offsets a thread of the offset check loads before testing any
  std::uint64_t small_offsets;  //!< fewer segments than this take the one-launch small path
  std::uint64_t short_max_elements;  //!< most elements of the one-launch short path
  int short_lane_items;  //!< short path: units a lane takes
  int short_block_threads;  //!< short path: threads per block up to short_narrow_elements
  std::uint64_t short_narrow_elements;  //!< short path: elements up to which blocks stay narrow
  int short_wide_block_threads;  //!< short path: threads per block past short_narrow_elements
  int small_items;  //!< small path: items a thread takes
  std::uint64_t small_blocks;  //!< small path: most blocks
};

//! The table: tuning<Arch>, Arch = 10 * major + minor of the compute capability.
template <int Arch>
struct tuning;

//! sm_90 (H100, H200): every value measured there (docs/tuning/).
template <>
struct tuning<90> {
  static constexpr whole_policy whole{
      512,  // block_threads: docs/tuning/whole.md#block_threads
      4,  // blocks_per_sm: docs/tuning/whole.md#blocks_per_sm
      4,  // vectors_in_flight: docs/tuning/whole.md#vectors_in_flight
      8,  // deep_arg_vectors: docs/tuning/whole.md#deep_arg_vectors
      2,  // deep_arg_blocks_per_sm: docs/tuning/whole.md#deep_arg_blocks_per_sm
      4,  // deep_arg_max_rounds: docs/tuning/whole.md#deep_arg_max_rounds
      2,  // arg_split: docs/tuning/whole.md#arg_split
      32  // warp_collector_blocks: docs/tuning/whole.md#warp_collector_blocks
  };
  static constexpr batched_policy batched{
      256,  // block_threads: docs/tuning/batched.md#block_threads
      8,  // blocks_per_sm: docs/tuning/batched.md#blocks_per_sm
      64  // grid_blocks_per_sm: docs/tuning/batched.md#grid_blocks_per_sm
  };
  static constexpr rows_policy rows{
      4,  // items_in_flight: docs/tuning/rows.md#items_in_flight
      8,  // staged_vectors: docs/tuning/rows.md#staged_vectors
      4,  // staged_blocks_per_sm: docs/tuning/rows.md#staged_blocks_per_sm
      4,  // small_items: docs/tuning/rows.md#small_items
      2,  // small_staged_vectors: docs/tuning/rows.md#small_staged_vectors
      2,  // warp_rows_divisor: docs/tuning/rows.md#warp_rows_divisor
      std::uint64_t(64) << 10,  // tile_min_bytes: docs/tuning/rows.md#tile_min_bytes
      4,  // tile_waves: docs/tuning/rows.md#tile_waves
      6  // group_blocks_per_sm: docs/tuning/rows.md#group_blocks_per_sm
  };
  static constexpr columns_policy columns{
      4,  // rows_in_flight: docs/tuning/columns.md#rows_in_flight
      8,  // min_steps: docs/tuning/columns.md#min_steps
      16,  // small_steps: docs/tuning/columns.md#small_steps
      16,  // deep_rows_in_flight: docs/tuning/columns.md#deep_rows_in_flight
      2,  // deep_min_blocks: docs/tuning/columns.md#deep_min_blocks
      1,  // arg_warp_steps: docs/tuning/columns.md#arg_warp_steps
      8,  // arg_split_steps: docs/tuning/columns.md#arg_split_steps
      2,  // arg_splits_log2: docs/tuning/columns.md#arg_splits_log2
      64,  // arg_split_blocks: docs/tuning/columns.md#arg_split_blocks
      4  // blocks_per_sm: docs/tuning/columns.md#blocks_per_sm
  };
  static constexpr segments_policy segments{
      6144,  // stage_bytes: docs/tuning/segments.md#stage_bytes
      64,  // lane_elements: docs/tuning/segments.md#lane_elements
      16,  // stage_skew: docs/tuning/segments.md#stage_skew
      6,  // skew_starts: docs/tuning/segments.md#skew_starts
      3,  // blocks_per_sm: docs/tuning/segments.md#blocks_per_sm
      20,  // end_weight: docs/tuning/segments.md#end_weight
      256,  // min_items_per_warp: docs/tuning/segments.md#min_items_per_warp
      4,  // check_offsets_in_flight: docs/tuning/segments.md#check_offsets_in_flight
      4096,  // small_offsets: docs/tuning/segments.md#small_offsets
      std::uint64_t(1) << 16,  // short_max_elements: docs/tuning/segments.md#short_max_elements
      16,  // short_lane_items: docs/tuning/segments.md#short_lane_items
      256,  // short_block_threads: docs/tuning/segments.md#short_block_threads
      std::uint64_t(1) << 14,  // short_narrow_elements: docs/tuning/segments.md#short_narrow_elements
      512,  // short_wide_block_threads: docs/tuning/segments.md#short_wide_block_threads
      8,  // small_items: docs/tuning/segments.md#small_items
      64  // small_blocks: docs/tuning/segments.md#small_blocks
  };
};

//! sm_80 (A100): never measured; the sm_90 values.
template <>
struct tuning<80> : tuning<90> {};

//! The entry the kernels are compiled against: one for every architecture built while sm_80
//! repeats sm_90. An sm_80 entry of its own would need the kernels instantiated per entry.
using tuned = tuning<90>;

//! The values as the kernels read them: scalars, because device code may use a constexpr
//! variable directly only when it is of scalar type (CUDA C++ Programming Guide, "constexpr
//! variables").
constexpr int block_threads = tuned::batched.block_threads;
constexpr int batched_blocks_per_sm = tuned::batched.blocks_per_sm;
constexpr int batched_grid_blocks_per_sm = tuned::batched.grid_blocks_per_sm;
constexpr int whole_block_threads = tuned::whole.block_threads;
constexpr int whole_blocks_per_sm = tuned::whole.blocks_per_sm;
constexpr int vectors_in_flight = tuned::whole.vectors_in_flight;
constexpr int deep_arg_vectors = tuned::whole.deep_arg_vectors;
constexpr int deep_arg_blocks_per_sm = tuned::whole.deep_arg_blocks_per_sm;
constexpr std::uint64_t deep_arg_max_rounds = tuned::whole.deep_arg_max_rounds;
constexpr unsigned whole_arg_split = tuned::whole.arg_split;
constexpr unsigned whole_warp_collector_blocks = tuned::whole.warp_collector_blocks;
constexpr int row_items_in_flight = tuned::rows.items_in_flight;
constexpr int staged_row_vectors = tuned::rows.staged_vectors;
constexpr int staged_row_blocks_per_sm = tuned::rows.staged_blocks_per_sm;
constexpr std::uint64_t small_row_items = tuned::rows.small_items;
constexpr std::uint64_t small_staged_row_vectors = tuned::rows.small_staged_vectors;
constexpr std::uint64_t warp_rows_divisor = tuned::rows.warp_rows_divisor;
constexpr std::uint64_t row_tile_min_bytes = tuned::rows.tile_min_bytes;
constexpr std::uint64_t row_tile_waves = tuned::rows.tile_waves;
constexpr int group_row_blocks_per_sm = tuned::rows.group_blocks_per_sm;
constexpr int column_rows_in_flight = tuned::columns.rows_in_flight;
constexpr std::uint64_t column_min_steps = tuned::columns.min_steps;
constexpr std::uint64_t column_small_steps = tuned::columns.small_steps;
constexpr int column_deep_rows_in_flight = tuned::columns.deep_rows_in_flight;
constexpr int column_deep_min_blocks = tuned::columns.deep_min_blocks;
constexpr std::uint64_t column_arg_warp_steps = tuned::columns.arg_warp_steps;
constexpr std::uint64_t column_arg_split_steps = tuned::columns.arg_split_steps;
constexpr unsigned column_arg_splits_log2 = tuned::columns.arg_splits_log2;
constexpr std::uint64_t column_arg_split_blocks = tuned::columns.arg_split_blocks;
constexpr int column_blocks_per_sm = tuned::columns.blocks_per_sm;
constexpr int segment_stage_bytes = tuned::segments.stage_bytes;
constexpr std::uint64_t segment_lane_elements = tuned::segments.lane_elements;
constexpr int segment_stage_skew = tuned::segments.stage_skew;
constexpr unsigned segment_skew_starts = tuned::segments.skew_starts;
constexpr int segment_blocks_per_sm = tuned::segments.blocks_per_sm;
constexpr std::uint64_t segment_end_weight = tuned::segments.end_weight;
constexpr std::uint64_t segment_min_items_per_warp = tuned::segments.min_items_per_warp;
constexpr int segment_check_offsets_in_flight = tuned::segments.check_offsets_in_flight;
constexpr std::uint64_t small_segment_offsets = tuned::segments.small_offsets;
constexpr std::uint64_t short_segment_max_elements = tuned::segments.short_max_elements;
constexpr int short_segment_lane_items = tuned::segments.short_lane_items;
constexpr int short_segment_block_threads = tuned::segments.short_block_threads;
constexpr std::uint64_t short_segment_narrow_elements = tuned::segments.short_narrow_elements;
constexpr int short_segment_wide_block_threads = tuned::segments.short_wide_block_threads;
constexpr int small_segment_items = tuned::segments.small_items;
constexpr std::uint64_t small_segment_blocks = tuned::segments.small_blocks;

}  // namespace backend
}  // namespace preduce
