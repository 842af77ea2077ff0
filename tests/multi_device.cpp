// SPDX-License-Identifier: Apache-2.0
// preduce tests (capability multi_device): memory of one device used on a queue of another gets
// errc::wrong_device, and nothing is written; so is a queue wrapping another device's stream.
#include "test_support.hpp"

TEST_CASE("bad_input.memory_of_another_device") {
  REQUIRE(preduce::device_count() >= 2);
  const preduce::queue q0(0), q1(1);
  constexpr std::size_t n = 1000;
  const auto host = test::make_data<float>(test::data::spread, n, test::seed_for<float>("another device", n));
  const preduce::device_buffer<float> x0(q0, host), x1(q1, host);
  test::guarded_output<float> out0(q0, 1), out1(q1, 1);
  SUBCASE("input") { PREDUCE_CHECK_ERROR(preduce::errc::wrong_device, preduce::reduce_async(q1, x0.data(), n, out1.data(), preduce::plus<>{})); }
  SUBCASE("output") { PREDUCE_CHECK_ERROR(preduce::errc::wrong_device, preduce::reduce_async(q1, x1.data(), n, out0.data(), preduce::plus<>{})); }
  q0.synchronize();
  q1.synchronize();
  CHECK(out0.untouched());
  CHECK(out1.untouched());
}

// A queue wrapping the stream of another device is refused: its work would run there.
TEST_CASE("bad_input.wrap_a_stream_of_another_device") {
  REQUIRE(preduce::device_count() >= 2);
  const preduce::queue q1(1);
  PREDUCE_CHECK_ERROR(preduce::errc::wrong_device, (void)preduce::queue::wrap(q1.native_handle(), 0));
  CHECK_NOTHROW((void)preduce::queue::wrap(q1.native_handle(), 1));
}
