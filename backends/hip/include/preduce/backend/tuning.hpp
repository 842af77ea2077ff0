// SPDX-License-Identifier: Apache-2.0
// preduce hip: launch shapes. No AMD GPU has run this backend yet, so every value here is a
// first choice by reasoning, not a measurement; each says what it rests on and what would
// replace it (a preduce-bench sweep on MI200 / MI300 / RDNA2).
#pragma once

#include <cstdint>

namespace preduce {
namespace backend {

//! Threads per block of every kernel: 4 wave64 or 8 wave32 wavefronts, a multiple of both
//! wavefront sizes, so no block has a partial wavefront. Unmeasured.
constexpr int block_threads = 256;
//! 16-byte vectors each thread loads before folding any (64 bytes in flight per thread).
//! Unmeasured; the value the cuda backend measured on an H200.
constexpr int vectors_in_flight = 4;
//! Resident blocks per compute unit the grid is sized for: 8 x 256 threads = 32 wave64
//! wavefronts, a CDNA CU's maximum (4 SIMDs x 8 waves on gfx90a/gfx940). Unmeasured.
constexpr int blocks_per_cu = 8;

//! Fewest merge-path items (elements and segment ends) a segments part holds, so a block folds
//! at least 16 a thread beside the part's join. Unmeasured; the kokkos backend's GPU value.
constexpr std::uint64_t segment_part_items = 4096;

//! Blocks for `work_items` items at `per_block` items a block, capped at one full wave of
//! resident blocks (the kernels grid-stride over the rest); at least 1.
inline unsigned grid_for(int cu_count, std::uint64_t work_items, std::uint64_t per_block) {
  const std::uint64_t needed = (work_items + per_block - 1) / per_block;
  const std::uint64_t resident = std::uint64_t(cu_count) * blocks_per_cu;
  return unsigned(needed < 1 ? 1 : (needed < resident ? needed : resident));
}

}  // namespace backend
}  // namespace preduce
