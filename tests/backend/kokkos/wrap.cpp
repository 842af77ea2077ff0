// SPDX-License-Identifier: Apache-2.0
// preduce tests (kokkos backend): queue::wrap takes what it takes on every backend, the native
// stream of the execution space (null: the default instance), and native_handle gives it back.
// Host execution spaces have no native stream: null is all they accept.
#include "../../test_support.hpp"

TEST_CASE("kokkos.wrap_takes_the_native_stream") {
  const preduce::queue q(0);
  const std::size_t n = 10000;
  const auto x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("kokkos.wrap", n));
  void* native = q.native_handle();
  const preduce::queue same = preduce::queue::wrap(native, 0);
  const preduce::device_buffer<float> d(same, x);
  test::check_result(preduce::reduce(same, d.data(), n), test::expected(preduce::plus<>{}, x.data(), n));
  const preduce::queue default_instance = preduce::queue::wrap(nullptr, 0);
  test::check_result(preduce::reduce(default_instance, d.data(), n), test::expected(preduce::plus<>{}, x.data(), n));
  if (native == nullptr) {  // a host execution space
    int not_a_stream = 0;
    PREDUCE_CHECK_ERROR(preduce::errc::unsupported, (void)preduce::queue::wrap(&not_a_stream, 0));
  }
}
