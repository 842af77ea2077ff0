// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the host side of the distributed calls' device steps: the launches of the
// partial-lines functor (distributed/partial_lines.hpp) and of the for-each functor
// (distributed/for_each.hpp), an iteration a line or an index.
#pragma once

#include <cstdint>

#include <preduce/backend/distributed/for_each.hpp>
#include <preduce/backend/distributed/partial_lines.hpp>
#include <preduce/backend/execution_policies.hpp>
#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

template <class Reducer, class Source, class Sink>
void enqueue_partial_lines(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t lines, std::uint64_t length,
                           std::uint64_t line_step, std::uint64_t element_step, const Sink& sink) {
  Kokkos::parallel_for("preduce_partial_lines", range_policy(s.exec, 0, std::int64_t(lines)),
                       partial_lines_functor<Reducer, Source, Sink>{red, src, length, line_step, element_step, sink});
}

template <class Step>
void enqueue_for_each(detail::queue_state& s, const Step& step, std::uint64_t count) {
  Kokkos::parallel_for("preduce_for_each", range_policy(s.exec, 0, std::int64_t(count)), for_each_functor<Step>{step});
}

}  // namespace backend
}  // namespace preduce
