// SPDX-License-Identifier: Apache-2.0
// preduce: the merge path over segment offsets, the partition the kokkos and hip backends cut
// segments with (the cuda backend's tuned kernels keep their own, weighted form:
// segments/reduce_segments.cuh). The input is read as one sequence of items, each segment's elements
// followed by one item for its end, and cut into parts of equal items, so one huge segment
// among many tiny ones is shared by many parts and no part holds more than its share.
// Vendor-neutral, host and device.
#pragma once

#include <cstdint>

#include <preduce/config.hpp>

namespace preduce {
namespace portable {

//! The merge path over checked offsets (0 <= offsets[0] <= ... <= offsets[segments]): segment
//! s's end item is item off(s + 1) - base + s (base = offsets[0]); part p holds items
//! [p * per_part, (p + 1) * per_part).
template <class Off>
struct merge_path {
  const Off* offsets;
  std::uint64_t segments, per_part;

  //! What part p holds: the complete segments [complete_begin, complete_end) (start and end item
  //! in the part); when cut_in, the last piece [e0, cut_in_end) of segment s0, which started in an
  //! earlier part; when cut_out, the first piece [off(s1), e1) of segment s1, which ends in a
  //! later part (when s1 == s0 and cut_in, the part is a middle piece of s0: cut_in only).
  struct range {
    bool empty;
    std::uint64_t s0, s1, e0, e1, cut_in_end, complete_begin, complete_end;
    bool cut_in, cut_out;
  };

  PREDUCE_HD std::uint64_t off(std::uint64_t i) const { return std::uint64_t(offsets[i]); }
  //! The smallest s in [lo, hi) whose end item is at or after item d, or hi (binary search).
  PREDUCE_HD std::uint64_t first_end(std::uint64_t base, std::uint64_t d, std::uint64_t lo, std::uint64_t hi) const {
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (off(mid + 1) - base + mid >= d) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  //! The part holding item `item` (segment s's first item is off(s) - base + s, its end item
  //! off(s + 1) - base + s).
  PREDUCE_HD std::uint64_t part_of(std::uint64_t item) const { return item / per_part; }

  PREDUCE_HD range of(std::uint64_t p) const {
    range r{};
    const std::uint64_t base = off(0), items = off(segments) - base + segments;
    const std::uint64_t d0 = p * per_part;
    r.empty = d0 >= items;
    if (r.empty) return r;
    const std::uint64_t d1 = items - d0 < per_part ? items : d0 + per_part;
    r.s0 = first_end(base, d0, 0, segments);
    r.s1 = d1 == items ? segments : first_end(base, d1, r.s0, segments);
    r.e0 = base + d0 - r.s0;
    r.e1 = base + d1 - r.s1;
    r.cut_in = r.e0 > off(r.s0);
    const std::uint64_t end0 = off(r.s0 + 1);
    r.cut_in_end = end0 < r.e1 ? end0 : r.e1;
    r.complete_begin = r.s0 + (r.cut_in ? 1 : 0);
    r.complete_end = r.s1;
    r.cut_out = r.s1 < segments && off(r.s1) < r.e1 && !(r.s1 == r.s0 && r.cut_in);
    return r;
  }

  //! The state of cut segment s, whose first piece part p folded into pieces[2p + 1]: that piece
  //! combined, in order, with the cut-in pieces pieces[2q] of the parts q after p up to the one
  //! holding s's end item. pieces: two accumulators a part (cut-in, cut-out).
  template <class Reducer>
  PREDUCE_HD typename Reducer::acc_type join_cut(const Reducer& red, const typename Reducer::acc_type* pieces, std::uint64_t p,
                                                 std::uint64_t s) const {
    const std::uint64_t last = part_of(off(s + 1) - off(0) + s);
    auto acc = pieces[2 * p + 1];
    for (std::uint64_t q = p + 1; q <= last; ++q) acc = red.combine(acc, pieces[2 * q]);
    return acc;
  }
};

}  // namespace portable
}  // namespace preduce
