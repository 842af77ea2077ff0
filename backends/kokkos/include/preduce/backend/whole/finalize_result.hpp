// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the one-iteration kernel that finalizes the whole-array result
// (finalize_functor): narrow results and the empty reduction.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace preduce {
namespace backend {

//! Writes out[0] = finalize(in[0]), or finalize(identity()) when `in` is null (the empty
//! reduction). Requires: one iteration.
template <class Reducer>
struct finalize_functor {
  Reducer red;
  const typename Reducer::acc_type* in;
  typename Reducer::result_type* out;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const { *out = red.finalize(in ? *in : red.identity()); }
};

}  // namespace backend
}  // namespace preduce
