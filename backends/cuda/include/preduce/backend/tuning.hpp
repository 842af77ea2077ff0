// SPDX-License-Identifier: Apache-2.0
// preduce cuda: launch shapes, one table per architecture. Each entry says what chose it.
// Evidence so far (bench/results/h200-cuda-*.json, 2026-11-21): with these values, f32 sum at
// 2^28 runs at 4435 GB/s on an H200, 100.8% of the read ceiling measured in the same run (CUB:
// 100.7%), and f32/f64/i32 plus, min, max, argmax and dot at 2^28 at 98-103%. Alternatives have
// not been measured yet, and sm_80 has not run at all: these are first choices, not a sweep.
#pragma once

#include <cstdint>

namespace preduce {
namespace backend {

//! The launch shape of the whole-array kernels on one architecture.
struct reduce_policy {
  int blocks_per_sm;  //!< grid = min(blocks the input needs, SMs x this)
};

//! Threads per block of every kernel: 8 warps keep the block reduction to one barrier and let
//! 8 blocks (2048 threads, the sm_80/sm_90 maximum) share an SM.
constexpr int block_threads = 256;
//! 16-byte vectors each thread loads before folding any (64 bytes in flight per thread, 128 KiB
//! per SM at full occupancy).
constexpr int vectors_in_flight = 4;
//! sm_90 (H100/H200): a full SM of resident blocks (H200: 4435 GB/s, 100.8% of the measured
//! ceiling @ 2^28 f32 sum). sm_80 (A100): the same, unmeasured.
constexpr reduce_policy policy_sm80{8};
constexpr reduce_policy policy_sm90{8};

inline reduce_policy policy_for(int cc_major) { return cc_major >= 9 ? policy_sm90 : policy_sm80; }

//! Blocks for `work_items` items at `per_block` items a block, capped at one full wave of
//! resident blocks (the kernels grid-stride over the rest); at least 1.
inline unsigned grid_for(int sm_count, int cc_major, std::uint64_t work_items, std::uint64_t per_block) {
  const std::uint64_t needed = (work_items + per_block - 1) / per_block;
  const std::uint64_t resident = std::uint64_t(sm_count) * policy_for(cc_major).blocks_per_sm;
  return unsigned(needed < 1 ? 1 : (needed < resident ? needed : resident));
}

}  // namespace backend
}  // namespace preduce
