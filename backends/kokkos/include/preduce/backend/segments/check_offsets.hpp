// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the segment calls' offset check (offsets_check, a Kokkos::Min reduction) and
// its verdict as the segment kernels read it (offsets_ok).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/portable/segment_offsets.hpp>
#include <preduce/types.hpp>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! Finds the first bad offset (portable::offset_breaks). Requires: segments + 1 iterations,
//! offsets[0..segments] readable. Kokkos::Min leaves the smallest bad position (npos when there
//! is none) in the result.
template <class Off>
struct offsets_check {
  const Off* offsets;
  std::uint64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::uint64_t& first_bad) const {
    if (portable::offset_breaks(offsets, std::uint64_t(i), n) && std::uint64_t(i) < first_bad) first_bad = std::uint64_t(i);
  }
};

//! Shared by both segment kernels: true when this call's offset check (its own status slot,
//! which the next synchronizing call of the calling thread reads) found nothing.
KOKKOS_INLINE_FUNCTION bool offsets_ok(const device_status* status) { return status->first_bad_offset == npos; }

}  // namespace backend
}  // namespace preduce
