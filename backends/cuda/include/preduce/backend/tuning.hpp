// SPDX-License-Identifier: Apache-2.0
// preduce cuda: launch-shape constants. These are the first, correctness-oriented choices; the
// hand-tuned per-architecture table (with bench evidence beside each entry) replaces them.
#pragma once

namespace preduce {
namespace backend {

//! Threads per block for every kernel: 8 warps keeps the block reduction to one barrier and
//! lets 8 blocks share an SM (2048 threads on sm_80/sm_90).
constexpr int block_threads = 256;

//! Resident blocks per SM the grid-stride kernels are sized for (2048 / 256 threads).
constexpr int blocks_per_sm = 8;

}  // namespace backend
}  // namespace preduce
