// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the host side of the whole-array reduction (one result from n elements): one
// Kokkos::parallel_reduce whose iterations each fold a chunk of elements (whole/reduce_whole.hpp),
// then, for narrow results, the finalize kernel (whole/finalize_result.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/whole/finalize_result.hpp>
#include <preduce/backend/whole/reduce_whole.hpp>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! Enqueues the reduction of src[0..n) into *d_out (device memory) on s's instance. Results
//! are run_to_run deterministic: the whole_layout depends only on n, and Kokkos joins the
//! per-thread accumulators in an order fixed by the launch shape it derives from n.
template <class Reducer, class Source>
void enqueue_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n,
                  typename Reducer::result_type* d_out) {
  using acc_type = typename Reducer::acc_type;
  using result_type = typename Reducer::result_type;
  if (n == 0) {
    Kokkos::parallel_for("preduce_empty", range_policy(s.exec, 0, 1), finalize_functor<Reducer>{red, nullptr, d_out});
    return;
  }
  const whole_layout layout(n);
  if constexpr (std::is_same<acc_type, result_type>::value) {
    // finalize runs as Kokkos's final() on the device, straight into the output.
    Kokkos::parallel_reduce("preduce_whole", range_policy(s.exec, 0, layout.iterations()),
                            whole_functor<Reducer, Source, true>(red, src, layout), device_scalar<result_type>(d_out));
  } else {
    // Narrow results (half / bfloat16 from float accumulators): reduce into the workspace,
    // then finalize with a one-iteration kernel.
    acc_type* total = static_cast<acc_type*>(s.workspace(sizeof(acc_type)));
    Kokkos::parallel_reduce("preduce_whole", range_policy(s.exec, 0, layout.iterations()),
                            whole_functor<Reducer, Source, false>(red, src, layout), device_scalar<acc_type>(total));
    Kokkos::parallel_for("preduce_finalize", range_policy(s.exec, 0, 1), finalize_functor<Reducer>{red, total, d_out});
  }
}

}  // namespace backend
}  // namespace preduce
