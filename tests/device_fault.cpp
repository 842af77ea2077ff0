// SPDX-License-Identifier: Apache-2.0
// preduce tests (capability device_fault): a fault inside a kernel surfaces as
// preduce::error(errc::device_fault) at the next synchronizing call, never as an abort. Compiled
// through preduce_device_sources: the fault comes from a custom operator that reads through a
// bad device pointer when an element says so.
//
// A device fault ends the process's device context on CUDA and HIP, so every test after it in
// the same process would fail: these cases are skipped in a plain run of preduce-tests, and
// tests/CMakeLists.txt registers each with ctest as its own process, with --no-skip.
#include <cstdint>

#include <preduce/extend.hpp>

#include "test_support.hpp"

namespace {

//! A sum that reads *bad (an unmapped address) for every negative element.
struct faulting_sum {
  using value_type = float;
  const float* bad;
  PREDUCE_HD float identity() const { return 0.0f; }
  PREDUCE_HD float operator()(float a, float b) const { return a + b; }
  PREDUCE_HD float lift(float x) const { return x < 0 ? *bad : x; }
};

const float* unmapped() { return reinterpret_cast<const float*>(std::uintptr_t(0x10)); }

std::vector<float> data_with_trigger(std::size_t n) {
  auto x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("device fault", n), 50);
  for (auto& v : x) v = v < 0 ? -v : v;
  x[n / 2] = -1.0f;  // the element that makes lift dereference the bad pointer
  return x;
}

}  // namespace

TEST_SUITE("device_fault" * doctest::skip()) {
  TEST_CASE("device_fault.reduce_async_then_synchronize") {
    const preduce::queue q(0);
    constexpr std::size_t n = 1 << 20;
    const preduce::device_buffer<float> d(q, data_with_trigger(n));
    preduce::device_buffer<float> out(q, 1);
    PREDUCE_CHECK_ERROR(preduce::errc::device_fault, {
      preduce::reduce_async(q, d.data(), n, out.data(), faulting_sum{unmapped()});
      q.synchronize();
    });
  }

  TEST_CASE("device_fault.reduce") {
    const preduce::queue q(0);
    constexpr std::size_t n = 1 << 20;
    const preduce::device_buffer<float> d(q, data_with_trigger(n));
    PREDUCE_CHECK_ERROR(preduce::errc::device_fault, preduce::reduce(q, d.data(), n, faulting_sum{unmapped()}));
  }
}
