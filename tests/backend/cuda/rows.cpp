// SPDX-License-Identifier: Apache-2.0
// preduce tests (cuda backend): the strategies reduce_rows picks only on shapes too large for the
// shared suite: many rows of 8 KiB or more (more than half the resident warps of a large GPU),
// which go 4 warps per row when aligned to 16 bytes (an odd row count leaves the last block half
// empty; the rows of 16 KiB, 98 MB in all, are more than an H100's or H200's L2 and are read under
// an evict_first policy, the 8 KiB ones, 49 MB, are not) and otherwise a block per row under a sum,
// min or max and a warp per row under the others (4099 columns); and many short rows under arg
// reducers, staged through shared memory when aligned (every grid-stride round, the last one
// partial).
#include "../../test_support.hpp"

TEST_CASE_TEMPLATE("cuda.rows.many_long_rows", T, float, double, std::int32_t) {
  const preduce::queue& q = test::shared_queue();
  constexpr std::size_t rows = 6001;
  for (const std::size_t cols : {std::size_t(8192 / sizeof(T) + 4), std::size_t(16384 / sizeof(T) + 4), std::size_t(4099)}) {
    SUBCASE(("cols=" + std::to_string(cols)).c_str()) {
      const std::size_t n = rows * cols;
      const std::int64_t m = test::exact_magnitude<T>(cols, false);
      auto check = [&](auto op) {
        using Op = decltype(op);
        const auto x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>("many long rows", cols, 7), m);
        const preduce::device_buffer<T> d(q, x);
        preduce::device_buffer<test::result_of<Op, T>> out(q, rows);
        preduce::reduce_rows(q, d.data(), rows, cols, out.data(), op);
        test::check_results(out.to_host(),
                            test::ref::per_row(rows, cols, [](const T* xs, std::size_t len) { return test::expected(Op{}, xs, len); }, x.data()));
      };
      SUBCASE("plus") { check(preduce::plus<>{}); }
      SUBCASE("maximum") { check(preduce::maximum{}); }
      SUBCASE("argmax") { check(preduce::argmax{}); }
    }
  }
}

TEST_CASE_TEMPLATE("cuda.rows.many_short_arg_rows", T, float, double, std::int32_t, std::uint8_t) {
  const preduce::queue& q = test::shared_queue();
  constexpr std::size_t rows = 70001;
  // Aligned (a multiple of 16 bytes: 1..128 vectors, runs of 1..8 vectors on 1..16 lanes) and
  // not (the short-row kernel's element path).
  for (const std::size_t bytes : {16, 48, 80, 128, 144, 400, 512, 1024, 2048, 2052}) {
    const std::size_t cols = bytes / sizeof(T);
    SUBCASE(("cols=" + std::to_string(cols)).c_str()) {
      const std::size_t n = rows * cols;
      auto check = [&](auto op) {
        using Op = decltype(op);
        auto x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>("many short arg rows", cols, 3));
        if constexpr (test::ref::is_floating<T>) {  // a NaN at about one element in 300
          test::rng r(test::seed_for<T>("many short arg rows nans", cols, 3));
          for (std::size_t k = 0; k < n / 300; ++k) x[r.below(n)] = test::ref::quiet_nan<T>();
        }
        const preduce::device_buffer<T> d(q, x);
        preduce::device_buffer<test::result_of<Op, T>> out(q, rows);
        preduce::reduce_rows(q, d.data(), rows, cols, out.data(), op);
        test::check_results(out.to_host(),
                            test::ref::per_row(rows, cols, [](const T* xs, std::size_t len) { return test::expected(Op{}, xs, len); }, x.data()));
      };
      SUBCASE("argmax") { check(preduce::argmax{}); }
      SUBCASE("argmin") { check(preduce::argmin{}); }
      SUBCASE("nan_ignoring<argmax>") { check(preduce::nan_ignoring<preduce::argmax>{}); }
    }
  }
}
