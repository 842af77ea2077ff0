// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the functor that runs a step once for every index below a count: the
// distributed calls' merges and exchange steps (detail/merge.hpp says what each step does).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace preduce {
namespace backend {

//! Iteration t runs step(t).
template <class Step>
struct for_each_functor {
  Step step;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const { step(std::uint64_t(t)); }
};

}  // namespace backend
}  // namespace preduce
