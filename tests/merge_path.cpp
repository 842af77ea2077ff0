// SPDX-License-Identifier: Apache-2.0
// preduce tests: the merge-path partition (portable/merge_path.hpp) that the kokkos and hip
// backends cut segments with, run on the host with parts far smaller than the backends use, so
// every kind of cut appears: each element is folded by exactly one part, each segment is
// finished exactly once (complete in one part, or cut out of one and joined), and the join of a
// cut segment's pieces is its whole reduction.
#include <cstdint>
#include <vector>

#include <preduce/portable/merge_path.hpp>

#include "test_support.hpp"

namespace {

//! Sums of 64-bit integers: exact, so any misplaced or repeated element shows.
struct integer_sum {
  using acc_type = std::uint64_t;
  std::uint64_t combine(std::uint64_t a, std::uint64_t b) const { return a + b; }
};

//! Segment lengths with empty segments, single elements and a few long ones.
std::vector<std::uint64_t> random_offsets(test::rng& rng, std::uint64_t segments, std::uint64_t base) {
  std::vector<std::uint64_t> offsets{base};
  for (std::uint64_t s = 0; s < segments; ++s) {
    const std::uint64_t pick = rng.next() % 16;
    const std::uint64_t length = pick < 4 ? 0 : pick < 8 ? 1 : pick < 15 ? rng.next() % 9 : 40 + rng.next() % 200;
    offsets.push_back(offsets.back() + length);
  }
  return offsets;
}

}  // namespace

TEST_CASE("merge_path.every_element_and_segment_once") {
  test::rng rng(20261128);
  for (int trial = 0; trial < 60; ++trial) {
    const std::uint64_t segments = 1 + rng.next() % 97, base = trial % 3 == 0 ? rng.next() % 50 : 0;
    const std::vector<std::uint64_t> offsets = random_offsets(rng, segments, base);
    const std::uint64_t end = offsets.back();
    std::vector<std::uint64_t> x(end + 1);
    for (auto& v : x) v = rng.next() >> 20;
    for (const std::uint64_t per_part : {std::uint64_t(1), std::uint64_t(2), std::uint64_t(3), std::uint64_t(7), std::uint64_t(64)}) {
      CAPTURE(trial);
      CAPTURE(per_part);
      const preduce::portable::merge_path<std::uint64_t> path{offsets.data(), segments, per_part};
      const std::uint64_t items = end - base + segments, parts = (items + per_part - 1) / per_part;
      std::vector<int> folded(end + 1, 0), finished(segments, 0);
      std::vector<std::uint64_t> result(segments, 0), pieces(2 * parts, 0), cut(parts, preduce::npos);
      auto fold = [&](std::uint64_t first, std::uint64_t last) {
        std::uint64_t a = 0;
        for (std::uint64_t i = first; i < last; ++i) {
          a += x[i];
          ++folded[i];
        }
        return a;
      };
      for (std::uint64_t p = 0; p < parts; ++p) {
        const auto r = path.of(p);
        REQUIRE_FALSE(r.empty);  // parts are cut from the items there are
        if (r.cut_in) pieces[2 * p] = fold(r.e0, r.cut_in_end);
        for (std::uint64_t s = r.complete_begin; s < r.complete_end; ++s) {
          result[s] = fold(offsets[s], offsets[s + 1]);
          ++finished[s];
        }
        if (r.cut_out) {
          pieces[2 * p + 1] = fold(offsets[r.s1], r.e1);
          cut[p] = r.s1;
        }
      }
      CHECK(path.of(parts).empty);
      for (std::uint64_t p = 0; p < parts; ++p) {
        if (cut[p] == preduce::npos) continue;
        result[cut[p]] = path.join_cut(integer_sum{}, pieces.data(), p, cut[p]);
        ++finished[cut[p]];
      }
      for (std::uint64_t i = base; i < end; ++i) REQUIRE(folded[i] == 1);
      for (std::uint64_t s = 0; s < segments; ++s) {
        CAPTURE(s);
        REQUIRE(finished[s] == 1);
        std::uint64_t expected = 0;
        for (std::uint64_t i = offsets[s]; i < offsets[s + 1]; ++i) expected += x[i];
        REQUIRE(result[s] == expected);
      }
    }
  }
}
