// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: how the whole-array reduction's iterations cover the elements (whole_layout).
#pragma once

#include <cstdint>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! How whole's iterations cover [0, n).
//! - host_shapes: iteration c folds the block [c*host_block, min(n, c*host_block + host_block))
//!   in index order (serial_fold). Iterations: ceil(n / host_block).
//! - device shapes: with `full` = n / chunk and `tail` = n % chunk, iteration c < full folds
//!   c, c + full, c + 2*full, ... (chunk elements, so neighbouring threads read neighbouring
//!   elements on every step) as a tree; iteration c < tail also reads full*chunk + c.
//!   Iterations: max(full, tail).
struct whole_layout {
  std::uint64_t n;
  std::uint64_t full;
  std::uint64_t tail;

  explicit whole_layout(std::uint64_t count) : n(count), full(count / chunk), tail(count % chunk) {}
  std::int64_t iterations() const {
    if constexpr (host_shapes) return std::int64_t((n + host_block - 1) / host_block);
    else return std::int64_t(full > tail ? full : tail);
  }
};

}  // namespace backend
}  // namespace preduce
