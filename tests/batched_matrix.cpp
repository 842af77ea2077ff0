// SPDX-License-Identifier: Apache-2.0
// preduce tests: reduce_rows and reduce_columns for every operator family on a sample of element
// types, over shapes with empty, single and boundary-length rows and columns, into contiguous
// and strided outputs (nothing but the result slots may be written).
#include "test_support.hpp"

namespace {

enum class layout { rows, columns };

struct matrix_shape {
  std::size_t rows, cols;
};

// 0 rows, 0 cols, a single row or column, rows of length 1, and lengths around 32, 256, 4096.
const std::vector<matrix_shape> shapes = {{0, 5},  {5, 0},   {0, 0},   {1, 1},   {1, 1000}, {1000, 1}, {7, 1},
                                          {3, 31}, {5, 32},  {4, 33},  {3, 255}, {3, 256},  {2, 257},  {2, 4097},
                                          {300, 17}, {33, 1025}, {1025, 33}};

std::string shape_name(const matrix_shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

//! A NaN at about one element in 300 (floats only), so some rows and columns hold NaN.
template <class T>
void sprinkle_nans(std::vector<T>& x, std::uint64_t seed) {
  if constexpr (test::ref::is_floating<T>) {
    test::rng r(seed);
    for (std::size_t k = 0; k < x.size() / 300; ++k) x[r.below(x.size())] = test::ref::quiet_nan<T>();
  }
}

//! One reduce_rows / reduce_columns call into a guarded output with the given stride (a plain
//! pointer when 1); checks that only the result slots were written and that they match `want`.
template <class T, class Op, class R>
void run_matrix(layout l, const matrix_shape& s, std::size_t stride, const T* d_in, Op op, const std::vector<R>& want) {
  const auto& q = test::shared_queue();
  const std::size_t results = l == layout::rows ? s.rows : s.cols;
  test::guarded_output<test::result_of<Op, T>> out(q, results ? (results - 1) * stride + 1 : 0);
  if (l == layout::rows) {
    if (stride == 1) preduce::reduce_rows(q, d_in, s.rows, s.cols, out.data(), op);
    else preduce::reduce_rows(q, d_in, s.rows, s.cols, preduce::strided(out.data(), stride), op);
  } else {
    if (stride == 1) preduce::reduce_columns(q, d_in, s.rows, s.cols, out.data(), op);
    else preduce::reduce_columns(q, d_in, s.rows, s.cols, preduce::strided(out.data(), stride), op);
  }
  q.synchronize();
  CHECK(out.only_results_written(results, stride));
  test::check_results(out.values(results, stride), want);
}

//! The oracle per row or per column of f over the host matrices xs.
template <class F, class... Ts>
auto per_slice(layout l, const matrix_shape& s, F f, const Ts*... xs) {
  return l == layout::rows ? test::ref::per_row(s.rows, s.cols, f, xs...) : test::ref::per_column(s.rows, s.cols, f, xs...);
}

template <class T>
void check_matrix(layout l) {
  const auto& q = test::shared_queue();
  for (const auto& s : shapes) {
    SUBCASE(shape_name(s).c_str()) {
      const std::size_t n = s.rows * s.cols;
      const std::int64_t m = test::exact_magnitude<float>(std::max(s.rows, s.cols), true);
      for (const std::size_t stride : {std::size_t(1), std::size_t(3)}) {
        SUBCASE(("stride=" + std::to_string(stride)).c_str()) {
          test::for_each_operator<T>([&](auto op) {
            using Op = decltype(op);
            auto x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>("matrix", n, s.rows), m);
            if (test::shape_for<Op, T>() == test::data::ties) sprinkle_nans(x, test::seed_for<T>("matrix nans", n, s.rows));
            const preduce::device_buffer<T> d(q, x);
            run_matrix(l, s, stride, d.data(), op, per_slice(l, s, [](const T* xs, std::size_t len) { return test::expected(Op{}, xs, len); }, x.data()));
          });
          SUBCASE("dot") {
            const auto x = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("matrix dot.x", n, s.rows), m);
            const auto y = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("matrix dot.y", n, s.rows), m);
            const preduce::device_buffer<T> dx(q, x), dy(q, y);
            const preduce::dot<T> op{dy.data()};
            run_matrix(l, s, stride, dx.data(), op,
                       per_slice(l, s, [&](const T* xs, const T* ys, std::size_t len) { return test::expected(op, xs, ys, len); },
                                 x.data(), y.data()));
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce_rows", T, reduce_rows) { check_matrix<T>(layout::rows); }
TEST_CASE_TEMPLATE_APPLY(reduce_rows, test::sample_types);

TEST_CASE_TEMPLATE_DEFINE("reduce_columns", T, reduce_columns) { check_matrix<T>(layout::columns); }
TEST_CASE_TEMPLATE_APPLY(reduce_columns, test::sample_types);
