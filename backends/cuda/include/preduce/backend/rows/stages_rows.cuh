// SPDX-License-Identifier: Apache-2.0
// preduce cuda: stages_rows, whether short aligned rows under a reducer go through shared
// memory (reduce_staged_rows_kernel); read by the small-row kernel and by enqueue_rows.
#pragma once

#include <preduce/detail/reducer.hpp>

#include <preduce/backend/thread/thread_load.cuh>

namespace preduce {
namespace backend {

//! Whether reduce_staged_rows_kernel applies to Reducer over Source: arg reducers (whose
//! per-element fold and lane combines cost ~25 instructions per element in short rows) over a
//! source of plain 16-byte vectors.
template <class Reducer, class Source>
__host__ __device__ constexpr bool stages_rows() {
  using L = chunk_loader<Source>;
  if constexpr (L::vectorized && detail::has_value_reducer<Reducer>::value) {
    return L::loads_per_vector == 1 && sizeof(typename L::element) * L::width == vector_bytes;
  } else {
    return false;
  }
}

}  // namespace backend
}  // namespace preduce
