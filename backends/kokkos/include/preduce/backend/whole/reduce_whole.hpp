// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the whole-array reduction's functor (whole_functor): the iterations of one
// Kokkos::parallel_reduce, each folding a chunk of elements.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/thread_reduce.hpp>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! whole's reduction functor. Requires: src[i] readable for i < n, iterations() iterations.
//! Iteration c folds its elements (see whole_layout), each lifted with its global index, and
//! combines the result into the thread's accumulator. Kokkos then joins the accumulators in a
//! fixed order and, when Final, stores finalize(total).
template <class Reducer, class Source, bool Final>
struct whole_functor : reduction_members<Reducer, Final> {
  using value_type = typename Reducer::acc_type;
  Source src;
  whole_layout layout;

  whole_functor(const Reducer& r, const Source& s, whole_layout l) : reduction_members<Reducer, Final>(r), src(s), layout(l) {}

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t iteration, value_type& acc) const {
    const Reducer& red = this->red;
    const std::uint64_t c = std::uint64_t(iteration);
    if constexpr (host_shapes) {
      const std::uint64_t first = c * host_block;
      const std::uint64_t count = layout.n - first < host_block ? layout.n - first : host_block;
      acc = red.combine(acc, serial_fold(red, red.identity(), src, first, count, first));
    } else {
      if (c < layout.full) {
        acc = red.combine(acc, tree_fold<chunk>(red, [&](int j) {
          const std::uint64_t i = c + std::uint64_t(j) * layout.full;
          return red.lift(src[i], i);
        }));
      }
      if (c < layout.tail) {
        const std::uint64_t i = layout.full * chunk + c;
        acc = red.combine(acc, red.lift(src[i], i));
      }
    }
  }
};

}  // namespace backend
}  // namespace preduce
