// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: a step run once for every index below a count: the distributed calls' merges
// and exchange steps (detail/merge.hpp says what each step does).
#pragma once

#include <cstdint>

#include "device_reduce.hpp"  // range_policy
#include "queue_state.hpp"

namespace preduce {
namespace backend {

//! Iteration t runs step(t).
template <class Step>
struct for_each_functor {
  Step step;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const { step(std::uint64_t(t)); }
};

template <class Step>
void enqueue_for_each(detail::queue_state& s, const Step& step, std::uint64_t count) {
  Kokkos::parallel_for("preduce_for_each", range_policy(s.exec, 0, std::int64_t(count)), for_each_functor<Step>{step});
}

}  // namespace backend
}  // namespace preduce
