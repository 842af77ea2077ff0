// SPDX-License-Identifier: Apache-2.0
// preduce tests: bad input gets a preduce::error with the right errc, and nothing is written:
// null pointers, overlapping output, bad segment offsets (found on the device, reported at the
// next synchronize), sizes that overflow, a device that does not exist, a zero output stride.
#include <limits>

#include "test_support.hpp"

namespace {
constexpr std::size_t n = 1000;

std::vector<float> input() { return test::make_data<float>(test::data::spread, n, test::seed_for<float>("bad input", n)); }
}  // namespace

TEST_CASE("bad_input.null_input") {
  using preduce::errc;
  const preduce::queue q(0);
  const float* null = nullptr;
  test::guarded_output<float> out(q, 4);
  SUBCASE("reduce") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce(q, null, n)); }
  SUBCASE("reduce_async") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_async(q, null, n, out.data(), preduce::plus<>{})); }
  SUBCASE("reduce_rows") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_rows(q, null, 4, 250, out.data(), preduce::plus<>{})); }
  SUBCASE("reduce_columns") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_columns(q, null, 250, 4, out.data(), preduce::plus<>{})); }
  SUBCASE("reduce_segments") {
    const preduce::device_buffer<std::int32_t> offsets(q, std::vector<std::int32_t>{0, 10, 20, 30, 40});
    PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_segments(q, null, n, offsets.data(), 4, out.data(), preduce::plus<>{}));
  }
  SUBCASE("dot's second input") {
    const preduce::device_buffer<float> x(q, input());
    PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_async(q, x.data(), n, out.data(), preduce::dot<float>{nullptr}));
  }
  q.synchronize();
  CHECK(out.untouched());
}

TEST_CASE("bad_input.null_output") {
  using preduce::errc;
  const preduce::queue q(0);
  const preduce::device_buffer<float> x(q, input());
  float* null = nullptr;
  SUBCASE("reduce_async") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_async(q, x.data(), n, null, preduce::plus<>{})); }
  SUBCASE("reduce_rows") { PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_rows(q, x.data(), 4, 250, null, preduce::plus<>{})); }
  SUBCASE("reduce_columns") {
    PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_columns(q, x.data(), 250, 4, null, preduce::plus<>{}));
  }
  SUBCASE("reduce_segments") {
    const preduce::device_buffer<std::int32_t> offsets(q, std::vector<std::int32_t>{0, 10, 20});
    PREDUCE_CHECK_ERROR(errc::null_pointer, preduce::reduce_segments(q, x.data(), n, offsets.data(), 2, null, preduce::plus<>{}));
  }
  SUBCASE("null offsets") {
    test::guarded_output<float> out(q, 2);
    PREDUCE_CHECK_ERROR(errc::null_pointer,
                        preduce::reduce_segments(q, x.data(), n, static_cast<const std::int32_t*>(nullptr), 2, out.data(), preduce::plus<>{}));
    q.synchronize();
    CHECK(out.untouched());
  }
}

// The output lies inside an input: nothing may be written, so the input must be unchanged.
TEST_CASE("bad_input.overlap") {
  using preduce::errc;
  const preduce::queue q(0);
  const auto host = input();
  preduce::device_buffer<float> x(q, host);
  SUBCASE("reduce_async") { PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_async(q, x.data(), n, x.data() + n / 2, preduce::plus<>{})); }
  SUBCASE("reduce_async, output on the last element") {
    PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_async(q, x.data(), n, x.data() + n - 1, preduce::plus<>{}));
  }
  SUBCASE("reduce_rows") { PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_rows(q, x.data(), 10, 100, x.data() + 990, preduce::plus<>{})); }
  SUBCASE("reduce_columns, strided") {
    PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_columns(q, x.data() + 500, 5, 100, preduce::strided(x.data() + 400, 5), preduce::plus<>{}));
  }
  SUBCASE("dot's second input") {
    preduce::device_buffer<float> y(q, host);
    PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_async(q, x.data(), n, y.data() + 7, preduce::dot<float>{y.data()}));
    CHECK(y.to_host() == host);
  }
  SUBCASE("offsets") {
    preduce::device_buffer<std::int32_t> offsets(q, std::vector<std::int32_t>{0, 10, 20, 30});
    PREDUCE_CHECK_ERROR(errc::overlap, preduce::reduce_segments(q, x.data(), n, offsets.data(), 3,
                                                                reinterpret_cast<float*>(offsets.data() + 1), preduce::plus<>{}));
    CHECK(offsets.to_host() == std::vector<std::int32_t>{0, 10, 20, 30});
  }
  q.synchronize();
  CHECK(x.to_host() == host);
}

// The byte right after the input is not part of it: an output there is fine.
TEST_CASE("bad_input.adjacent_output_is_not_overlap") {
  const preduce::queue q(0);
  auto host = input();
  host.push_back(-1.0f);
  preduce::device_buffer<float> x(q, host);
  preduce::reduce_async(q, x.data(), n, x.data() + n, preduce::plus<>{});
  q.synchronize();
  const auto after = x.to_host();
  CHECK(std::equal(host.begin(), host.begin() + n, after.begin()));
  test::check_result(after[n], test::expected(preduce::plus<>{}, host.data(), n));
}

//! Enqueues reduce_segments over x[0 .. length) with offsets that first break the contract at
//! first_bad, and checks that the next synchronize throws bad_offsets naming that offset and
//! that the output is untouched.
template <class Off>
void expect_bad_offsets(const preduce::queue& q, const float* x, std::size_t length, const std::vector<Off>& offsets,
                        std::size_t first_bad) {
  const preduce::device_buffer<Off> d_offsets(q, offsets);
  const std::size_t segments = offsets.size() - 1;
  test::guarded_output<float> out(q, segments);
  REQUIRE_NOTHROW(preduce::reduce_segments(q, x, length, d_offsets.data(), segments, out.data(), preduce::plus<>{}));
  std::string what;
  CHECK(test::error_of([&] { q.synchronize(); }, what) == std::string(preduce::to_string(preduce::errc::bad_offsets)));
  INFO("message: " << what);
  CHECK(what.find("offsets[" + std::to_string(first_bad) + "] breaks") != std::string::npos);
  CHECK(out.untouched());
}

// Offsets live in device memory, so they are checked there: the call returns, and the next
// synchronize throws bad_offsets naming the first offset at which 0 <= offsets[0] <= ... <=
// offsets[segments] <= n fails (the same position on every backend). The output stays untouched
// and the queue stays usable.
TEST_CASE("bad_input.segment_offsets") {
  const preduce::queue q(0);
  const auto host = input();
  const preduce::device_buffer<float> x(q, host);
  auto check_bad = [&](const auto& offsets, std::size_t first_bad) {
    expect_bad_offsets(q, x.data(), n, offsets, first_bad);
    // The error was reported once; the queue works again.
    CHECK_NOTHROW(q.synchronize());
    test::check_result(preduce::reduce(q, x.data(), n), test::expected(preduce::plus<>{}, host.data(), n));
  };
  const auto past = std::int32_t(n) + 1;
  SUBCASE("decreasing") { check_bad(std::vector<std::int32_t>{0, 10, 5, 20}, 2); }
  SUBCASE("decreasing twice") { check_bad(std::vector<std::int32_t>{0, 10, 20, 15, 30, 25}, 3); }
  SUBCASE("negative") { check_bad(std::vector<std::int32_t>{-3, 5, 10}, 0); }
  SUBCASE("past the end") { check_bad(std::vector<std::int32_t>{0, 5, past}, 2); }
  SUBCASE("past the end in the middle") { check_bad(std::vector<std::int32_t>{0, past, past + 1, past + 2}, 1); }
  SUBCASE("past the end, int64_t") { check_bad(std::vector<std::int64_t>{0, std::int64_t(n) + 100}, 1); }
  SUBCASE("past the end, uint64_t") { check_bad(std::vector<std::uint64_t>{0, 7, std::numeric_limits<std::uint64_t>::max()}, 2); }
  SUBCASE("decreasing, uint32_t") { check_bad(std::vector<std::uint32_t>{100, 99}, 1); }
}

// The same check on longer inputs, which the CUDA backend reduces with other kernels (past
// 2^14 elements its warp-or-block kernel in blocks of 512 threads, past 2^16 its one-launch
// merge path, from 4096 segments its two launches): each checks the offsets before it writes.
TEST_CASE("bad_input.segment_offsets_long_inputs") {
  const preduce::queue q(0);
  constexpr std::size_t long_n = 100000, mid_n = 30000;
  const preduce::device_buffer<float> x(q, test::make_data<float>(test::data::small_integers, long_n, 0xbad5e9, 64));
  auto check_bad = [&](const std::vector<std::int64_t>& offsets, std::size_t first_bad, std::size_t length) {
    expect_bad_offsets(q, x.data(), length, offsets, first_bad);
  };
  SUBCASE("2^14 to 2^16 elements, decreasing after a long segment") { check_bad({0, 10000, 25000, 24000, 30000}, 3, mid_n); }
  SUBCASE("2^14 to 2^16 elements, past the end") { check_bad({0, 5, 700, 9000, 30001}, 4, mid_n); }
  SUBCASE("few segments, decreasing") { check_bad({0, 60000, 50000, 100000}, 2, long_n); }
  SUBCASE("few segments, past the end") { check_bad({0, 40000, 100001}, 2, long_n); }
  SUBCASE("5000 segments, one decreasing") {
    std::vector<std::int64_t> offsets(5001);
    for (std::size_t i = 0; i <= 5000; ++i) offsets[i] = std::int64_t(i * 20);
    offsets[3217] = offsets[3216] - 1;
    check_bad(offsets, 3217, long_n);
  }
  // More offsets than the CUDA check has threads (at most 64 blocks of 256 an SM: 2,162,688 on
  // 132 SMs), so a thread tests several: the first bad one is reported, whichever thread meets it.
  SUBCASE("3,000,000 segments, two decreasing") {
    constexpr std::size_t many = 3000000;
    const preduce::device_buffer<float> xs(q, test::make_data<float>(test::data::small_integers, many, 0xbad5ea, 64));
    std::vector<std::int64_t> offsets(many + 1);
    for (std::size_t i = 0; i <= many; ++i) offsets[i] = std::int64_t(i);
    offsets[2900000] = offsets[2899999] - 1;
    offsets[2500001] = offsets[2500000] - 1;
    expect_bad_offsets(q, xs.data(), many, offsets, 2500001);
  }
}

TEST_CASE("bad_input.size_overflow") {
  using preduce::errc;
  const preduce::queue q(0);
  const preduce::device_buffer<float> x(q, input());
  test::guarded_output<float> out(q, 4);
  constexpr std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  SUBCASE("reduce_rows") { PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_rows(q, x.data(), huge, 3, out.data(), preduce::plus<>{})); }
  SUBCASE("reduce_columns") {
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_columns(q, x.data(), 3, huge, out.data(), preduce::plus<>{}));
  }
  SUBCASE("bytes of n") { PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_async(q, x.data(), huge, out.data(), preduce::plus<>{})); }
  q.synchronize();
  CHECK(out.untouched());
}

TEST_CASE("bad_input.wrong_device") {
  PREDUCE_CHECK_ERROR(preduce::errc::wrong_device, preduce::queue{preduce::device_count()});
}

TEST_CASE("bad_input.zero_stride") {
  const preduce::queue q(0);
  const preduce::device_buffer<float> x(q, input());
  test::guarded_output<float> out(q, 4);
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, preduce::reduce_rows(q, x.data(), 4, 250, preduce::strided(out.data(), 0), preduce::plus<>{}));
  q.synchronize();
  CHECK(out.untouched());
}

// Every size the front door forms is overflow-checked: extents, strides, segments + 1, and the
// byte count of n, which must also leave the range inside the address space.
TEST_CASE("bad_input.extents_that_wrap") {
  using preduce::errc;
  const preduce::queue q(0);
  const auto host = input();
  const preduce::device_buffer<float> x(q, host);
  test::guarded_output<float> out(q, 4);
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  SUBCASE("rows of length 0, 2^62 of them") {
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_rows(q, x.data(), std::size_t(1) << 62, 0, out.data(), preduce::plus<>{}));
  }
  SUBCASE("an output stride that wraps below the output") {
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_rows(q, x.data(), 2, 4, preduce::strided(out.data(), max), preduce::plus<>{}));
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_rows(q, x.data(), 3, 4, preduce::strided(out.data(), max), preduce::plus<>{}));
  }
  SUBCASE("an output stride that wraps onto the input") {
    PREDUCE_CHECK_ERROR(errc::size_overflow,
                        preduce::reduce_rows(q, x.data(), 2, 4, preduce::strided(const_cast<float*>(x.data()) + 3, max), preduce::plus<>{}));
  }
  SUBCASE("a column stride of 2^62") {
    PREDUCE_CHECK_ERROR(errc::size_overflow,
                        preduce::reduce_columns(q, x.data(), 2, 4, preduce::strided(out.data(), std::size_t(1) << 62), preduce::plus<>{}));
  }
  SUBCASE("SIZE_MAX one-byte elements") {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(x.data());
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce(q, bytes, max));
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce(q, bytes, max / 2 + 2));
  }
  SUBCASE("SIZE_MAX segments") {
    const preduce::device_buffer<std::int32_t> offsets(q, std::vector<std::int32_t>{0, 10, 20});
    PREDUCE_CHECK_ERROR(errc::size_overflow, preduce::reduce_segments(q, x.data(), n, offsets.data(), max, out.data(), preduce::plus<>{}));
  }
  q.synchronize();
  CHECK(out.untouched());
  CHECK(x.to_host() == host);
}

// Option values outside their enumerations are refused before anything runs.
TEST_CASE("bad_input.options_out_of_range") {
  using preduce::errc;
  const preduce::queue q(0);
  const preduce::device_buffer<float> x(q, input());
  test::guarded_output<float> out(q, 4);
  preduce::options o;
  SUBCASE("determinism") { o.det = static_cast<preduce::determinism>(7); }
  SUBCASE("algorithm") { o.algo = static_cast<preduce::algorithm>(200); }
  SUBCASE("warp_algorithm") { o.warp = static_cast<preduce::warp_algorithm>(4); }
  PREDUCE_CHECK_ERROR(errc::invalid_argument, preduce::reduce(q, x.data(), n, preduce::plus<>{}, o));
  PREDUCE_CHECK_ERROR(errc::invalid_argument, preduce::reduce_async(q, x.data(), n, out.data(), preduce::plus<>{}, o));
  PREDUCE_CHECK_ERROR(errc::invalid_argument, preduce::reduce_rows(q, x.data(), 4, 250, out.data(), preduce::plus<>{}, o));
  q.synchronize();
  CHECK(out.untouched());
}

TEST_CASE("bad_input.device_buffer_without_queue") {
  const preduce::device_buffer<float> none;
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, (void)none.get_queue());
  CHECK(none.size() == 0);
  CHECK(none.to_host().empty());
}

// A call with bad offsets changes nothing a later good call computes: the calls after it on the
// queue produce their results, and the next synchronize reports the first bad call (its first
// bad offset, not a smaller one of a later call), once.
TEST_CASE("bad_input.bad_call_then_good_calls") {
  const preduce::queue q(0);
  const auto host = input();
  const preduce::device_buffer<float> x(q, host);
  const preduce::device_buffer<std::int32_t> bad(q, std::vector<std::int32_t>{0, 10, 20, 15, 30});   // offsets[3]
  const preduce::device_buffer<std::int32_t> worse(q, std::vector<std::int32_t>{0, 5, 1, 40});       // offsets[2]
  const std::vector<std::int32_t> good_host{0, 100, 100, 350, 1000};
  const preduce::device_buffer<std::int32_t> good(q, good_host);
  test::guarded_output<float> out_bad(q, 4), out_worse(q, 3), out_good(q, 4), out_whole(q, 1), out_rows(q, 4);
  preduce::reduce_segments(q, x.data(), n, bad.data(), 4, out_bad.data(), preduce::plus<>{});
  preduce::reduce_segments(q, x.data(), n, good.data(), 4, out_good.data(), preduce::plus<>{});
  preduce::reduce_segments(q, x.data(), n, worse.data(), 3, out_worse.data(), preduce::plus<>{});
  preduce::reduce_async(q, x.data(), n, out_whole.data(), preduce::plus<>{});
  preduce::reduce_rows(q, x.data(), 4, 250, out_rows.data(), preduce::plus<>{});
  std::string what;
  CHECK(test::error_of([&] { q.synchronize(); }, what) == "bad_offsets");
  INFO("message: " << what);
  CHECK(what.find("offsets[3] breaks") != std::string::npos);
  CHECK_NOTHROW(q.synchronize());
  CHECK(out_bad.untouched());
  CHECK(out_worse.untouched());
  CHECK(out_good.only_results_written(4));
  CHECK(out_whole.only_results_written(1));
  CHECK(out_rows.only_results_written(4));
  const auto got_segments = out_good.values(4), got_rows = out_rows.values(4);
  for (std::size_t s = 0; s < 4; ++s) {
    test::check_result(got_segments[s], test::expected(preduce::plus<>{}, host.data() + good_host[s], std::size_t(good_host[s + 1] - good_host[s])));
    test::check_result(got_rows[s], test::expected(preduce::plus<>{}, host.data() + s * 250, 250));
  }
  test::check_result(out_whole.values(1)[0], test::expected(preduce::plus<>{}, host.data(), n));
  // A synchronous call reports a pending bad call of its thread too, and is then clean.
  preduce::reduce_segments(q, x.data(), n, worse.data(), 3, out_worse.data(), preduce::plus<>{});
  CHECK(test::error_of([&] { (void)preduce::reduce(q, x.data(), n); }, what) == "bad_offsets");
  CHECK(what.find("offsets[2] breaks") != std::string::npos);
  test::check_result(preduce::reduce(q, x.data(), n), test::expected(preduce::plus<>{}, host.data(), n));
}
