// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the nested fold of a contiguous range by a team's threads or a thread's vector
// lanes (a TeamThreadRange or ThreadVectorRange reduction through kokkos_reducer).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/thread/thread_reduce.hpp>

namespace preduce {
namespace backend {

//! Folds src[first + j] for j < count, lifted with index index0 + j, as a nested reduction over
//! `range` (a TeamThreadRange or ThreadVectorRange of count iterations). Every thread (lane)
//! taking part gets the result.
template <class Range, class Reducer, class Source>
KOKKOS_INLINE_FUNCTION typename Reducer::acc_type nested_fold(const Range& range, const Reducer& red, const Source& src,
                                                              std::uint64_t first, std::uint64_t index0) {
  using acc_type = typename Reducer::acc_type;
  acc_type acc;
  Kokkos::parallel_reduce(
      range, [&](std::int64_t j, acc_type& a) { a = red.combine(a, red.lift(src[first + std::uint64_t(j)], index0 + std::uint64_t(j))); },
      kokkos_reducer<Reducer>(red, acc));
  return acc;
}

}  // namespace backend
}  // namespace preduce
