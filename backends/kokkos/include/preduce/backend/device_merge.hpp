// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the merge of pieces' results in piece order (the distributed calls' last step:
// detail/merge.hpp says what a merge is; this file only spreads it over iterations).
#pragma once

#include <cstdint>

#include <preduce/detail/merge.hpp>

#include "device_reduce.hpp"  // range_policy
#include "queue_state.hpp"

namespace preduce {
namespace backend {

//! Iteration t writes out[t * out_stride] = detail::merge_one<Reducer>(pieces, count, stride, t,
//! shift), for t < results.
template <class Reducer, class Out>
struct merge_functor {
  const typename Reducer::result_type* pieces;
  std::uint64_t count, stride, shift;
  Out* out;
  std::uint64_t out_stride;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    detail::merge_one<Reducer>(pieces, count, stride, std::uint64_t(t), shift, out + std::uint64_t(t) * out_stride);
  }
};

template <class Reducer, class Out>
void enqueue_merge(detail::queue_state& s, const typename Reducer::result_type* pieces, std::uint64_t count, std::uint64_t stride,
                   std::uint64_t results, std::uint64_t shift, Out* out, std::uint64_t out_stride) {
  Kokkos::parallel_for("preduce_merge", range_policy(s.exec, 0, std::int64_t(results)),
                       merge_functor<Reducer, Out>{pieces, count, stride, shift, out, out_stride});
}

}  // namespace backend
}  // namespace preduce
