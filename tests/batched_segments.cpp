// SPDX-License-Identifier: Apache-2.0
// preduce tests: reduce_segments for every operator family on a sample of element types, with
// int32, int64, uint32 and uint64 offsets, empty segments, boundary lengths, offsets that do not
// start at 0 or end at n, one huge segment among thousands of tiny ones (it is cut among many
// warps or parts and recombined), long segments among short ones, runs of equal lengths, and
// outputs written every 1 or 2 slots (nothing else may be written); and run_to_run determinism
// of the cut segments.
#include "test_support.hpp"

namespace {

struct segment_layout {
  const char* name;
  std::size_t n;                    // input length
  std::vector<std::size_t> offsets;  // segments + 1 of them
};

//! Offsets of consecutive segments of the given lengths, starting at `first`.
std::vector<std::size_t> offsets_of(std::size_t first, const std::vector<std::size_t>& lengths) {
  std::vector<std::size_t> o{first};
  for (const std::size_t len : lengths) o.push_back(o.back() + len);
  return o;
}

std::vector<segment_layout> layouts() {
  std::vector<segment_layout> v;
  // Boundary lengths mixed with empty segments.
  const auto mixed = offsets_of(0, {0, 1, 31, 32, 33, 0, 255, 256, 257, 4097, 0, 0, 1, 1023, 7});
  v.push_back({"mixed", mixed.back(), mixed});
  // Segments inside the input: not starting at 0, not ending at n.
  const auto inner = offsets_of(5, {3, 64, 0, 129});
  v.push_back({"inner", inner.back() + 11, inner});
  v.push_back({"all_empty", 10, {4, 4, 4, 4}});
  v.push_back({"no_segments", 10, {0}});
  v.push_back({"one_segment", 65537, {0, 65537}});
  // Many short segments of random lengths.
  test::rng r(0x5e6);
  std::vector<std::size_t> lengths(1000);
  for (auto& len : lengths) len = r.below(41);
  const auto many = offsets_of(0, lengths);
  v.push_back({"many_short", many.back(), many});
  // One huge segment (prime length) among 20000 tiny ones (0..64) on either side.
  lengths.assign(20000, 0);
  for (auto& len : lengths) len = r.below(65);
  lengths[7919] = 300007;
  const auto huge = offsets_of(0, lengths);
  v.push_back({"huge_among_tiny", huge.back(), huge});
  // Short segments (0..64) with one in ten of 65..600 elements: long ones inside a range of
  // work and long ones cut across ranges.
  lengths.assign(3000, 0);
  for (auto& len : lengths) len = r.below(10) == 0 ? 65 + r.below(536) : r.below(65);
  const auto medium = offsets_of(0, lengths);
  v.push_back({"short_and_medium", medium.back(), medium});
  // Runs of equal lengths (16, 32, 64), starting 3 elements in: many segments of a round start
  // at the same offset modulo 32 elements (the CUDA backend skews its shared-memory copy then).
  lengths.assign(1000, 16);
  lengths.insert(lengths.end(), 3000, 32);
  lengths.insert(lengths.end(), 2000, 64);
  const auto equal = offsets_of(3, lengths);
  v.push_back({"equal_lengths", equal.back() + 1, equal});
  // Lengths of 600..1600 among short ones: rounds of one to a few segments (the CUDA backend's
  // groups of 2..32 lanes a segment) and segments just under and over its shared-memory copy
  // (712..1436 elements, by type and operator).
  lengths.clear();
  for (int i = 0; i < 400; ++i) lengths.push_back(r.below(3) == 0 ? r.below(65) : 600 + r.below(1001));
  const auto near_stage = offsets_of(0, lengths);
  v.push_back({"long_among_short", near_stage.back(), near_stage});
  // Segments of 0..3 elements with runs of 40..200 empty ones: more segment ends in a stretch of
  // input than a warp holds lanes. About 4000 of them (the CUDA backend's one-launch kernels for
  // small inputs, just under their 4096 segments), then about 6000 (its merge-path kernel).
  for (const std::size_t count : {std::size_t(4000), std::size_t(6000)}) {
    lengths.clear();
    while (lengths.size() < count) {
      if (r.below(50) == 0) lengths.insert(lengths.end(), 40 + r.below(161), 0);
      else lengths.push_back(r.below(4));
    }
    const auto tiny = offsets_of(3, lengths);
    v.push_back({count == 4000 ? "tiny_and_empty_runs" : "tiny_and_empty_runs_6000", tiny.back() + 2, tiny});
  }
  // Up to 2^16 elements (the CUDA backend's warp-or-block kernel for small inputs: a warp a
  // segment of up to 512 elements, a block one of up to 4096 (blocks of 256 threads, to 2^14
  // elements) or 8192 (512 threads, above), longer ones in pieces of 512 joined across warps):
  // for each block size, lengths at those limits with several block-sized segments among one
  // block's, and long segments that start on and off a piece boundary, reach past several
  // pieces, and end in the piece where the next long one starts.
  const auto narrow_limits = offsets_of(2, {511, 512, 513, 0, 4095, 4096, 4097, 600, 700, 1, 3});
  v.push_back({"warp_and_block_limits", narrow_limits.back() + 5, narrow_limits});
  const auto wide_limits =
      offsets_of(2, {511, 512, 513, 0, 8191, 8192, 8193, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1, 17000, 3});
  v.push_back({"warp_and_wide_block_limits", wide_limits.back() + 5, wide_limits});
  const auto narrow_pieces = offsets_of(0, {1024, 5000, 4500, 0, 512, 4608, 30, 2});
  v.push_back({"pieces_on_boundaries", narrow_pieces.back(), narrow_pieces});
  const auto wide_pieces = offsets_of(0, {1024, 10000, 9000, 0, 512, 9216, 30, 2});
  v.push_back({"wide_pieces_on_boundaries", wide_pieces.back(), wide_pieces});
  // Fewer than 4096 segments of up to a few thousand elements, about 1.2e5 and 2e5 in all: the
  // CUDA backend's one-launch merge path for small inputs past 2^16 elements (1024 and 2048
  // elements and segment ends a block), with segments cut across several of its blocks.
  lengths.clear();
  for (std::size_t total = 0; total < 120000;) total += lengths.emplace_back(r.below(4001));
  const auto cut = offsets_of(1, lengths);
  v.push_back({"cut_across_blocks", cut.back(), cut});
  lengths.clear();
  for (std::size_t total = 0; total < 200000;) total += lengths.emplace_back(1500 + r.below(2001));
  const auto wide = offsets_of(0, lengths);
  v.push_back({"few_long", wide.back() + 7, wide});
  return v;
}

//! The offsets of a layout in device memory, as each offset type.
struct device_offsets {
  template <class Off>
  static preduce::device_buffer<Off> as(const segment_layout& l) {
    std::vector<Off> h;
    for (const std::size_t o : l.offsets) h.push_back(static_cast<Off>(o));
    return preduce::device_buffer<Off>(test::shared_queue(), h);
  }
  explicit device_offsets(const segment_layout& l)
      : i32(as<std::int32_t>(l)), i64(as<std::int64_t>(l)), u32(as<std::uint32_t>(l)), u64(as<std::uint64_t>(l)) {}
  preduce::device_buffer<std::int32_t> i32;
  preduce::device_buffer<std::int64_t> i64;
  preduce::device_buffer<std::uint32_t> u32;
  preduce::device_buffer<std::uint64_t> u64;
};

//! Runs reduce_segments with each offset type (a SUBCASE each) into a guarded output written
//! every `stride` slots, and checks that only the result slots were written, with `want`.
template <class T, class Op, class R>
void run_segments(const segment_layout& l, const device_offsets& offsets, std::size_t stride, const T* d_in, Op op,
                  const std::vector<R>& want) {
  const auto& q = test::shared_queue();
  const std::size_t segments = l.offsets.size() - 1;
  test::guarded_output<test::result_of<Op, T>> out(q, segments ? (segments - 1) * stride + 1 : 0);
  auto run = [&](const auto* d_offsets) {
    preduce::reduce_segments(q, d_in, l.n, d_offsets, segments, preduce::strided(out.data(), stride), op);
    q.synchronize();
  };
  SUBCASE("offsets=int32_t") { run(offsets.i32.data()); }
  SUBCASE("offsets=int64_t") { run(offsets.i64.data()); }
  SUBCASE("offsets=uint32_t") { run(offsets.u32.data()); }
  SUBCASE("offsets=uint64_t") { run(offsets.u64.data()); }
  CHECK(out.only_results_written(segments, stride));
  test::check_results(out.values(segments, stride), want);
}

template <class T>
void check_segments() {
  const auto& q = test::shared_queue();
  for (const auto& l : layouts()) {
    SUBCASE((std::string("segments=") + l.name).c_str()) {
      const std::size_t segments = l.offsets.size() - 1;
      const device_offsets offsets(l);
      for (const std::size_t stride : {std::size_t(1), std::size_t(2)}) {
        SUBCASE(("stride=" + std::to_string(stride)).c_str()) {
          test::for_each_operator<T>([&](auto op) {
            using Op = decltype(op);
            auto x = test::make_data<T>(test::shape_for<Op, T>(), l.n, test::seed_for<T>(l.name, l.n), 64);
            if constexpr (test::ref::is_floating<T>) {
              if (test::shape_for<Op, T>() == test::data::ties && l.n > 300) x[l.n / 3] = test::ref::quiet_nan<T>();
            }
            const preduce::device_buffer<T> d(q, x);
            run_segments(l, offsets, stride, d.data(), op,
                         test::ref::per_segment(l.offsets.data(), segments,
                                                [](const T* xs, std::size_t len) { return test::expected(Op{}, xs, len); }, x.data()));
          });
          SUBCASE("dot") {
            const auto x = test::make_data<T>(test::data::small_integers, l.n, test::seed_for<T>(l.name, l.n, 1), 64);
            const auto y = test::make_data<T>(test::data::small_integers, l.n, test::seed_for<T>(l.name, l.n, 2), 64);
            const preduce::device_buffer<T> dx(q, x), dy(q, y);
            const preduce::dot<T> op{dy.data()};
            run_segments(l, offsets, stride, dx.data(), op,
                         test::ref::per_segment(l.offsets.data(), segments,
                                                [&](const T* xs, const T* ys, std::size_t len) { return test::expected(op, xs, ys, len); },
                                                x.data(), y.data()));
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce_segments", T, reduce_segments) { check_segments<T>(); }
TEST_CASE_TEMPLATE_APPLY(reduce_segments, test::sample_types);

// Inputs off a 16-byte boundary: one element past an allocation's start (the vector loads then
// start after a scalar head), and dot's two arrays at different offsets from a boundary (no
// shared vector loads: the element-by-element path).
TEST_CASE_TEMPLATE("reduce_segments.misaligned", T, float, double, std::int32_t) {
  const auto& q = test::shared_queue();
  for (const auto& l : layouts()) {
    SUBCASE((std::string("segments=") + l.name).c_str()) {
      const std::size_t segments = l.offsets.size() - 1;
      const device_offsets offsets(l);
      const auto x = test::make_data<T>(test::data::small_integers, l.n + 1, test::seed_for<T>("misaligned", l.n), 64);
      const auto y = test::make_data<T>(test::data::small_integers, l.n + 1, test::seed_for<T>("misaligned", l.n, 1), 64);
      const preduce::device_buffer<T> dx(q, x), dy(q, y);
      SUBCASE("plus") {
        run_segments(l, offsets, 1, dx.data() + 1, preduce::plus<>{},
                     test::ref::per_segment(l.offsets.data(), segments,
                                            [](const T* xs, std::size_t len) { return test::expected(preduce::plus<>{}, xs, len); },
                                            x.data() + 1));
      }
      SUBCASE("argmax") {
        run_segments(l, offsets, 1, dx.data() + 1, preduce::argmax{},
                     test::ref::per_segment(l.offsets.data(), segments,
                                            [](const T* xs, std::size_t len) { return test::expected(preduce::argmax{}, xs, len); },
                                            x.data() + 1));
      }
      SUBCASE("dot, x and y at different offsets") {
        const preduce::dot<T> op{dy.data()};
        run_segments(l, offsets, 1, dx.data() + 1, op,
                     test::ref::per_segment(l.offsets.data(), segments,
                                            [&](const T* xs, const T* ys, std::size_t len) { return test::expected(op, xs, ys, len); },
                                            x.data() + 1, y.data()));
      }
    }
  }
}

// Cut segments are combined from partial results: float sums of random data, whose rounding
// depends on the order, must come out bit for bit the same on every call.
TEST_CASE("reduce_segments.run_to_run") {
  const auto& q = test::shared_queue();
  for (const auto& l : layouts()) {
    SUBCASE(l.name) {
      const std::size_t segments = l.offsets.size() - 1;
      if (segments == 0) return;
      const auto x = test::make_data<float>(test::data::spread, l.n, test::seed_for<float>("segments determinism", l.n));
      const preduce::device_buffer<float> d(q, x);
      const auto offsets = device_offsets::as<std::int64_t>(l);
      preduce::device_buffer<float> out(q, segments);
      preduce::reduce_segments(q, d.data(), l.n, offsets.data(), segments, out.data(), preduce::plus<>{});
      const std::vector<float> first = out.to_host();
      for (int call = 0; call < 5; ++call) {
        preduce::reduce_segments(q, d.data(), l.n, offsets.data(), segments, out.data(), preduce::plus<>{});
        const std::vector<float> again = out.to_host();
        CHECK(std::memcmp(first.data(), again.data(), segments * sizeof(float)) == 0);
      }
    }
  }
}
