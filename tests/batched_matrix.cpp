// SPDX-License-Identifier: Apache-2.0
// preduce tests: reduce_rows and reduce_columns for every operator family on a sample of element
// types, over shapes chosen to reach every strategy a backend picks from the lengths and each
// of their boundaries (empty, single and boundary-length rows and columns; sub-warp, warp and
// block widths +-1; many short rows; few long rows cut into tiles; narrow and wide matrices;
// column splits), into contiguous and strided outputs (nothing but the result slots may be
// written), from aligned and misaligned inputs; and run_to_run determinism of the split shapes.
#include "test_support.hpp"

namespace {

enum class layout { rows, columns };

struct matrix_shape {
  std::size_t rows, cols;
};

// Both layouts: empty, one row, one column; lengths 1..17 (one lane to half a warp of 16-byte
// vectors, or element by element), 31..33, 63..65, 127..129 (a warp of 4-byte vectors),
// 255..257, 4097; 512 (f32: 32 lanes of 4 vectors), 2048, 4096 and 4100 (f64's and f32's block
// round of 256 threads, exactly and past it: a block per row, or a tile each); 300 and 1000
// rows of short rows (several rounds of rows per warp); 5000 rows of 40, 130 and 33 columns
// (more rows than half the resident warps of a large GPU: a warp per row); narrow matrices of
// many rows (rows side by side in a warp, rows split among blocks; 6000 x 64: dozens of row
// splits a column, whose fold loads several at a time, then the rest), 1500 x 700 (a block per
// row; columns split among blocks) and wide ones of few rows.
const std::vector<matrix_shape> shapes = {
    {0, 5},     {5, 0},     {0, 0},     {1, 1},      {1, 1000},   {1000, 1},  {7, 1},     {300, 2},   {300, 3},
    {300, 4},   {300, 5},   {300, 7},   {300, 8},    {300, 9},    {300, 15},  {300, 16},  {300, 17},  {3, 31},
    {5, 32},    {4, 33},    {1000, 31}, {1000, 32},  {1000, 33},  {70, 63},   {70, 64},   {70, 65},   {40, 127},
    {40, 128},  {40, 129},  {3, 255},   {3, 256},    {2, 257},    {5, 512},   {2, 2048},  {3, 4096},  {2, 4100},
    {2, 4097},  {33, 1025}, {1025, 33}, {5000, 40},  {5000, 130}, {5000, 33}, {40000, 3}, {6000, 64}, {1500, 700},
    {3, 20000}};
// Rows only: a few rows of 300007 (prime) columns, cut into tiles on several blocks. (As
// columns these are 300007 one- to three-element columns: the host oracle's cost, no new path.)
const std::vector<matrix_shape> long_rows = {{3, 300007}, {1, 300007}};

std::string shape_name(const matrix_shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

//! A NaN at about one element in 300 (floats only), so some rows and columns hold NaN.
template <class T>
void sprinkle_nans(std::vector<T>& x, std::uint64_t seed) {
  if constexpr (test::ref::is_floating<T>) {
    test::rng r(seed);
    for (std::size_t k = 0; k < x.size() / 300; ++k) x[r.below(x.size())] = test::ref::quiet_nan<T>();
  }
}

//! Calls reduce_rows or reduce_columns of d_in into `out`.
template <class T, class Out, class Op>
void reduce_matrix(layout l, const matrix_shape& s, const T* d_in, Out out, Op op) {
  const auto& q = test::shared_queue();
  if (l == layout::rows) preduce::reduce_rows(q, d_in, s.rows, s.cols, out, op);
  else preduce::reduce_columns(q, d_in, s.rows, s.cols, out, op);
}

//! One reduce_rows / reduce_columns call into a guarded output with the given stride (a plain
//! pointer when 1); checks that only the result slots were written and that they match `want`.
template <class T, class Op, class R>
void run_matrix(layout l, const matrix_shape& s, std::size_t stride, const T* d_in, Op op, const std::vector<R>& want) {
  const auto& q = test::shared_queue();
  const std::size_t results = l == layout::rows ? s.rows : s.cols;
  test::guarded_output<test::result_of<Op, T>> out(q, results ? (results - 1) * stride + 1 : 0);
  if (stride == 1) reduce_matrix(l, s, d_in, out.data(), op);
  else reduce_matrix(l, s, d_in, preduce::strided(out.data(), stride), op);
  q.synchronize();
  CHECK(out.only_results_written(results, stride));
  test::check_results(out.values(results, stride), want);
}

//! The oracle per row or per column of f over the host matrices xs.
template <class F, class... Ts>
auto per_slice(layout l, const matrix_shape& s, F f, const Ts*... xs) {
  return l == layout::rows ? test::ref::per_row(s.rows, s.cols, f, xs...) : test::ref::per_column(s.rows, s.cols, f, xs...);
}

//! Input placements: `aligned` starts at the allocation (256-byte aligned on GPUs); `shifted`
//! starts one element later, so no row starts on a 16-byte boundary when elements are narrower
//! (vector paths must take their scalar head and tail, or fall back to element loads).
enum class placement { aligned, shifted };

template <class T>
void check_matrix(layout l) {
  const auto& q = test::shared_queue();
  std::vector<matrix_shape> all = shapes;
  if (l == layout::rows) all.insert(all.end(), long_rows.begin(), long_rows.end());
  for (const auto& s : all) {
    SUBCASE(shape_name(s).c_str()) {
      const std::size_t n = s.rows * s.cols;
      const std::int64_t m = test::exact_magnitude<float>(std::max(s.rows, s.cols), true);
      for (const placement at : {placement::aligned, placement::shifted}) {
        for (const std::size_t stride : {std::size_t(1), std::size_t(3)}) {
          if (at == placement::shifted && stride != 1) continue;
          const std::size_t shift = at == placement::shifted ? 1 : 0;
          SUBCASE((std::string(shift ? "shifted" : "aligned") + ",stride=" + std::to_string(stride)).c_str()) {
            test::for_each_operator<T>([&](auto op) {
              using Op = decltype(op);
              auto x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>("matrix", n, s.rows), m);
              if (test::shape_for<Op, T>() == test::data::ties) sprinkle_nans(x, test::seed_for<T>("matrix nans", n, s.rows));
              std::vector<T> placed(shift, T{});
              placed.insert(placed.end(), x.begin(), x.end());
              const preduce::device_buffer<T> d(q, placed);
              run_matrix(l, s, stride, d.data() + shift, op,
                         per_slice(l, s, [](const T* xs, std::size_t len) { return test::expected(Op{}, xs, len); }, x.data()));
            });
            SUBCASE("dot") {
              const auto x = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("matrix dot.x", n, s.rows), m);
              const auto y = test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("matrix dot.y", n, s.rows), m);
              // y stays aligned: with a shifted x, x and y sit at different offsets from 16 bytes.
              std::vector<T> placed_x(shift, T{});
              placed_x.insert(placed_x.end(), x.begin(), x.end());
              const preduce::device_buffer<T> dx(q, placed_x), dy(q, y);
              const preduce::dot<T> op{dy.data()};
              run_matrix(l, s, stride, dx.data() + shift, op,
                         per_slice(l, s, [&](const T* xs, const T* ys, std::size_t len) { return test::expected(op, xs, ys, len); },
                                   x.data(), y.data()));
            }
          }
        }
      }
    }
  }
}

//! Shapes whose results are combined from partial results (tiles of a row, column splits,
//! rows cut into parts): float sums of random data, whose rounding depends on the order, must
//! come out bit for bit the same on every call.
void check_matrix_determinism(layout l) {
  const auto& q = test::shared_queue();
  for (const matrix_shape s : {matrix_shape{3, 300007}, matrix_shape{1, 300007}, matrix_shape{40000, 3}, matrix_shape{6000, 64},
                               matrix_shape{1500, 700}}) {
    if (l == layout::columns && s.cols > 100000) continue;  // see long_rows
    SUBCASE(shape_name(s).c_str()) {
      const std::size_t results = l == layout::rows ? s.rows : s.cols;
      const auto x = test::make_data<float>(test::data::spread, s.rows * s.cols, test::seed_for<float>("matrix determinism", s.rows));
      const preduce::device_buffer<float> d(q, x);
      preduce::device_buffer<float> out(q, results);
      reduce_matrix(l, s, d.data(), out.data(), preduce::plus<>{});
      const std::vector<float> first = out.to_host();
      for (int call = 0; call < 5; ++call) {
        reduce_matrix(l, s, d.data(), out.data(), preduce::plus<>{});
        const std::vector<float> again = out.to_host();
        CHECK(std::memcmp(first.data(), again.data(), results * sizeof(float)) == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce_rows", T, reduce_rows) { check_matrix<T>(layout::rows); }
TEST_CASE_TEMPLATE_APPLY(reduce_rows, test::sample_types);

TEST_CASE_TEMPLATE_DEFINE("reduce_columns", T, reduce_columns) { check_matrix<T>(layout::columns); }
TEST_CASE_TEMPLATE_APPLY(reduce_columns, test::sample_types);

TEST_CASE("reduce_rows.run_to_run") { check_matrix_determinism(layout::rows); }
TEST_CASE("reduce_columns.run_to_run") { check_matrix_determinism(layout::columns); }
