// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the whole-array reduction (one result from n elements) as one
// Kokkos::parallel_reduce whose iterations each fold a chunk of elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "queue_state.hpp"
#include "thread_reduce.hpp"
#include "tuning.hpp"

namespace preduce {
namespace backend {

//! Every range kernel iterates over 64-bit indices on the queue's instance.
using range_policy = Kokkos::RangePolicy<exec_space, Kokkos::IndexType<std::int64_t>>;

//! How whole's iterations cover [0, n).
//! - host_shapes: iteration c folds the block [c*host_block, min(n, c*host_block + host_block))
//!   in index order (serial_fold). Iterations: ceil(n / host_block).
//! - device shapes: with `full` = n / chunk and `tail` = n % chunk, iteration c < full folds
//!   c, c + full, c + 2*full, ... (chunk elements, so neighbouring threads read neighbouring
//!   elements on every step) as a tree; iteration c < tail also reads full*chunk + c.
//!   Iterations: max(full, tail).
struct whole_layout {
  std::uint64_t n;
  std::uint64_t full;
  std::uint64_t tail;

  explicit whole_layout(std::uint64_t count) : n(count), full(count / chunk), tail(count % chunk) {}
  std::int64_t iterations() const {
    if constexpr (host_shapes) return std::int64_t((n + host_block - 1) / host_block);
    else return std::int64_t(full > tail ? full : tail);
  }
};

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

//! Writes out[0] = finalize(in[0]), or finalize(identity()) when `in` is null (the empty
//! reduction). Requires: one iteration.
template <class Reducer>
struct finalize_functor {
  Reducer red;
  const typename Reducer::acc_type* in;
  typename Reducer::result_type* out;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const { *out = red.finalize(in ? *in : red.identity()); }
};

//! Enqueues the reduction of src[0..n) into *d_out (device memory) on s's instance. Results
//! are run_to_run deterministic: the whole_layout depends only on n, and Kokkos joins the
//! per-thread accumulators in an order fixed by the launch shape it derives from n.
template <class Reducer, class Source>
void reduce_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n,
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
