// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: rows reduced a thread a row (rows_by_thread): the CPU shape.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/thread/thread_reduce.hpp>

namespace preduce {
namespace backend {

//! Rows by thread. Requires: one iteration per row. Iteration r writes out[r * stride] =
//! finalize(fold of row r), each element lifted with its column.
template <class Reducer, class Source>
struct rows_by_thread {
  Reducer red;
  Source src;
  std::uint64_t cols;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t row) const {
    const std::uint64_t base = std::uint64_t(row) * cols;
    out[std::uint64_t(row) * stride] = red.finalize(serial_fold(red, red.identity(), src, base, cols, 0));
  }
};

}  // namespace backend
}  // namespace preduce
