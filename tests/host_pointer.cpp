// SPDX-License-Identifier: Apache-2.0
// preduce tests (capability host_pointer_detection): a host pointer where device memory is
// required gets errc::not_device_memory, and a host output is left untouched.
#include "test_support.hpp"

TEST_CASE("bad_input.host_pointer") {
  using preduce::errc;
  const preduce::queue q(0);
  constexpr std::size_t n = 1000;
  const auto host = test::make_data<float>(test::data::spread, n, test::seed_for<float>("host pointer", n));
  const preduce::device_buffer<float> x(q, host);
  SUBCASE("input") { PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce(q, host.data(), n)); }
  SUBCASE("dot's second input") {
    test::guarded_output<float> out(q, 1);
    PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce_async(q, x.data(), n, out.data(), preduce::dot<float>{host.data()}));
    q.synchronize();
    CHECK(out.untouched());
  }
  SUBCASE("outputs") {
    std::vector<float> out(8, -7.0f);
    const auto before = out;
    SUBCASE("reduce_async") { PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce_async(q, x.data(), n, out.data(), preduce::plus<>{})); }
    SUBCASE("reduce_rows") { PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce_rows(q, x.data(), 8, 125, out.data(), preduce::plus<>{})); }
    SUBCASE("reduce_columns") {
      PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce_columns(q, x.data(), 125, 8, out.data(), preduce::plus<>{}));
    }
    q.synchronize();
    CHECK(out == before);
  }
  SUBCASE("offsets") {
    const std::vector<std::int64_t> offsets{0, 10, 20};
    test::guarded_output<float> out(q, 2);
    PREDUCE_CHECK_ERROR(errc::not_device_memory, preduce::reduce_segments(q, x.data(), n, offsets.data(), 2, out.data(), preduce::plus<>{}));
    q.synchronize();
    CHECK(out.untouched());
  }
}

// A pointer into device memory that has been freed is named so (not called host memory), and
// nothing runs: the context survives.
TEST_CASE("bad_input.freed_device_memory") {
  const preduce::queue q(0);
  constexpr std::size_t n = 4096;
  const auto host = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("freed", n));
  preduce::device_buffer<float> x(q, host);
  test::check_result(preduce::reduce(q, x.data(), n), test::expected(preduce::plus<>{}, host.data(), n));
  const float* stale = x.data();
  x = preduce::device_buffer<float>{};  // frees it
  std::string what;
  CHECK(test::error_of([&] { (void)preduce::reduce(q, stale + 16, n - 16); }, what) == "not_device_memory");
  INFO("message: " << what);
  CHECK(what.find("freed") != std::string::npos);
  const preduce::device_buffer<float> y(q, host);
  test::check_result(preduce::reduce(q, y.data(), n), test::expected(preduce::plus<>{}, host.data(), n));
}
