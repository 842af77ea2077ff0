// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the Kokkos execution policies every kernel runs under, on the queue's
// execution space instance: a range of 64-bit indices, or a league of teams.
#pragma once

#include <cstdint>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! Every range kernel iterates over 64-bit indices on the queue's instance.
using range_policy = Kokkos::RangePolicy<exec_space, Kokkos::IndexType<std::int64_t>>;

using team_policy = Kokkos::TeamPolicy<exec_space>;
using team_member = team_policy::member_type;

}  // namespace backend
}  // namespace preduce
