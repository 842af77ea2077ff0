// SPDX-License-Identifier: Apache-2.0
// preduce hip: how a launch picks its kernels' instantiation: the queue's wavefront size.
#pragma once

#include <type_traits>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! Calls f(std::integral_constant<int, wave>{}) for the queue's wavefront size (64 or 32,
//! checked when the queue was made), so each launch picks the matching instantiation.
template <class F>
void with_wave(const detail::queue_state& s, F&& f) {
  if (s.wave == 64) f(std::integral_constant<int, 64>{});
  else f(std::integral_constant<int, 32>{});
}

}  // namespace backend
}  // namespace preduce
