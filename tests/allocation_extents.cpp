// SPDX-License-Identifier: Apache-2.0
// preduce tests: a range that starts inside an allocation must end inside it. Where the backend
// knows the allocation (CUDA: the driver's range of any device allocation; Kokkos:
// preduce::device_buffer's own), a too-large n, rows x cols, offsets count or output extent is
// refused with errc::out_of_bounds before anything runs, and the queue works on. Every buffer
// here is a multiple of 1 KiB, so no allocator rounds it up.
#include "test_support.hpp"

namespace {
constexpr std::size_t n = 1024, results = 256;
}  // namespace

TEST_CASE("allocation_extents.past_the_end") {
  using preduce::errc;
  const preduce::queue q(0);
  const auto host = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("extents", n));
  const preduce::device_buffer<float> x(q, host);
  const std::vector<float> poisoned(results, -7.0f);
  preduce::device_buffer<float> out(q, poisoned);
  std::vector<std::int32_t> offsets_host(results);
  for (std::size_t i = 0; i < results; ++i) offsets_host[i] = std::int32_t(i * 4);
  const preduce::device_buffer<std::int32_t> offsets(q, offsets_host);
  SUBCASE("reduce, n one past") { PREDUCE_CHECK_ERROR(errc::out_of_bounds, (void)preduce::reduce(q, x.data(), n + 1)); }
  SUBCASE("reduce from the middle") { PREDUCE_CHECK_ERROR(errc::out_of_bounds, (void)preduce::reduce(q, x.data() + 512, 513)); }
  SUBCASE("reduce_async, a huge n") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_async(q, x.data(), std::size_t(1) << 40, out.data(), preduce::plus<>{}));
  }
  SUBCASE("dot's second input") {
    const preduce::device_buffer<float> y(q, std::vector<float>(n / 2, 1.0f));
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_async(q, x.data(), n, out.data(), preduce::dot<float>{y.data()}));
  }
  SUBCASE("reduce_rows: rows x cols") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_rows(q, x.data(), 4, 257, out.data(), preduce::plus<>{}));
  }
  SUBCASE("reduce_columns: the output extent") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_columns(q, x.data(), 2, 512, out.data(), preduce::plus<>{}));
  }
  SUBCASE("reduce_rows: a strided output") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_rows(q, x.data(), 128, 8, preduce::strided(out.data(), 3), preduce::plus<>{}));
  }
  SUBCASE("reduce_segments: more offsets than the buffer holds") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds,
                        preduce::reduce_segments(q, x.data(), n, offsets.data(), results, out.data(), preduce::plus<>{}));
  }
  SUBCASE("reduce_segments: n past the input") {
    PREDUCE_CHECK_ERROR(errc::out_of_bounds, preduce::reduce_segments(q, x.data(), n + 8, offsets.data(), 2, out.data(), preduce::plus<>{}));
  }
  q.synchronize();
  CHECK(out.to_host() == poisoned);
  // Nothing ran, so the queue (and on CUDA, the context) works on; the largest legal ranges pass.
  test::check_result(preduce::reduce(q, x.data(), n), test::expected(preduce::plus<>{}, host.data(), n));
  test::check_result(preduce::reduce(q, x.data() + 512, 512), test::expected(preduce::plus<>{}, host.data() + 512, 512));
  preduce::reduce_segments(q, x.data(), n, offsets.data(), results - 1, out.data(), preduce::plus<>{});
  preduce::reduce_rows(q, x.data(), 128, 8, preduce::strided(out.data(), 2), preduce::plus<>{});
  CHECK_NOTHROW(q.synchronize());
}
