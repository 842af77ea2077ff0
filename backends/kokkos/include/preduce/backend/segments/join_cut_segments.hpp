// SPDX-License-Identifier: Apache-2.0
// preduce kokkos: the join of the segments the merge-path parts cut (cut_segments_fold): each cut
// segment's pieces combined in order.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <preduce/portable/merge_path.hpp>
#include <preduce/types.hpp>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/check_offsets.hpp>

namespace preduce {
namespace backend {

//! Combines the pieces of cut segments. Requires: one iteration per part, after
//! segments_by_part. Iteration p, when cut[p] names segment s (whose first piece is in part p),
//! writes out[s * stride] = finalize(pieces[2p + 1] combined with pieces[2(p + 1)], ...,
//! pieces[2q]), q the part holding s's end item. Writes nothing when the offset check failed.
template <class Reducer, class Off>
struct cut_segments_fold {
  using acc_type = typename Reducer::acc_type;
  Reducer red;
  portable::merge_path<Off> path;
  const acc_type* pieces;
  const std::uint64_t* cut;
  typename Reducer::result_type* out;
  std::uint64_t stride;
  device_status* status;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t part) const {
    if (!offsets_ok(status)) return;
    const std::uint64_t p = std::uint64_t(part), s = cut[p];
    if (s == npos) return;
    out[s * stride] = red.finalize(path.join_cut(red, pieces, p, s));
  }
};

}  // namespace backend
}  // namespace preduce
