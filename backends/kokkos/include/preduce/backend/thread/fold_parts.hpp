// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the fold of split results' parts in a fixed order (fold_parts), a thread a
// result: the second pass of rows cut into parts and of columns whose rows are cut into parts.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace preduce {
namespace backend {

//! Combines parts in a fixed order. Requires: one iteration per result; partial[i *
//! item_stride + p * part_stride] is part p of result i. Iteration i writes out[i * stride] =
//! finalize(part 0 combined with part 1, then part 2, ...).
template <class Reducer>
struct fold_parts {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  const acc_type* partial;
  std::uint64_t parts, item_stride, part_stride;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    const acc_type* p = partial + std::uint64_t(item) * item_stride;
    acc_type acc = p[0];
    for (std::uint64_t k = 1; k < parts; ++k) acc = red.combine(acc, p[k * part_stride]);
    out[std::uint64_t(item) * stride] = red.finalize(acc);
  }
};

}  // namespace backend
}  // namespace preduce
