// SPDX-License-Identifier: Apache-2.0
// preduce tests: the distributed calls over MPI (run under mpirun with 1 to 4 ranks; ctest
// registers each). Every rank makes the whole array from one seed and holds its own slice of it,
// for splits of every kind (even, uneven, ranks with nothing): reproducible results must have
// the single-device reduce's bits over the whole array; run_to_run results must repeat to the bit,
// be the same on every rank and match the host reference; arg indices are global; bad input or a
// call that differs on one rank makes every rank throw, and none hangs (ctest's timeout).
// Assertions are CHECKs, never REQUIREs: a rank that stopped early would leave the others waiting
// in a collective.
#define DOCTEST_CONFIG_IMPLEMENT
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>

#include <preduce/mpi.hpp>

#include "../test_support.hpp"

namespace {

const preduce::options run_to_run{preduce::determinism::run_to_run};
const preduce::options reproducible{preduce::determinism::reproducible};
const preduce::options fast{preduce::determinism::fast};

preduce::mpi::communicator& world() {
  static preduce::mpi::communicator comm(MPI_COMM_WORLD);
  return comm;
}

//! Both ways buffers reach MPI: the adapter's choice for this backend (direct for host memory)
//! and staged through host memory.
std::vector<preduce::mpi::communicator*> both_paths() {
  static preduce::mpi::communicator staged(MPI_COMM_WORLD, preduce::mpi::communicator::buffers::staged);
  return {&world(), &staged};
}

//! The splits of n elements over `ranks` ranks the tests use: even, front-heavy, one rank holding
//! everything (the last), and the middle rank empty.
std::vector<std::vector<std::size_t>> splits_of(std::size_t n, int ranks) {
  std::vector<std::vector<std::size_t>> all;
  std::vector<std::size_t> even(std::size_t(ranks), n / std::size_t(ranks));
  even.back() += n % std::size_t(ranks);
  all.push_back(even);
  std::vector<std::size_t> front(std::size_t(ranks), 0);
  std::size_t left = n;
  for (int r = 0; r < ranks; ++r) {
    front[std::size_t(r)] = r + 1 == ranks ? left : left * 2 / 3;
    left -= front[std::size_t(r)];
  }
  all.push_back(front);
  std::vector<std::size_t> last(std::size_t(ranks), 0);
  last.back() = n;
  all.push_back(last);
  if (ranks > 2) {
    std::vector<std::size_t> hole = even;
    hole[std::size_t(ranks / 2) + 1 < std::size_t(ranks) ? std::size_t(ranks / 2) + 1 : 0] += hole[std::size_t(ranks / 2)];
    hole[std::size_t(ranks / 2)] = 0;
    all.push_back(hole);
  }
  return all;
}

//! Whether every rank holds the same result v (field by field, as test::to_fields reads it).
template <class R>
bool same_on_every_rank(const R& v) {
  const test::fields f = test::to_fields(v);
  char mine[256] = {};
  for (std::size_t i = 0, at = 0; i < f.size; ++i)
    at += std::size_t(std::snprintf(mine + at, sizeof mine - at, "%La|", f.at[i].value));
  std::vector<char> all(sizeof mine * std::size_t(world().size()));
  MPI_Allgather(mine, int(sizeof mine), MPI_CHAR, all.data(), int(sizeof mine), MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 1; r < world().size(); ++r)
    if (std::memcmp(all.data(), all.data() + std::size_t(r) * sizeof mine, sizeof mine) != 0) return false;
  return true;
}

//! Whether every rank holds the same results vs (field by field), one collective for them all.
template <class R>
bool same_on_every_rank(const std::vector<R>& vs) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& v : vs) {
    const test::fields f = test::to_fields(static_cast<R>(v));
    for (std::size_t i = 0; i < f.size; ++i) {
      char text[64];
      const int len = std::snprintf(text, sizeof text, "%La|", f.at[i].value);
      for (int k = 0; k < len; ++k) h = (h ^ static_cast<unsigned char>(text[k])) * 0x100000001b3ull;
    }
  }
  std::vector<std::uint64_t> all(std::size_t(world().size()));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (const std::uint64_t other : all)
    if (other != h) return false;
  return true;
}

//! Every split of n over the ranks, on both paths.
std::vector<std::pair<preduce::mpi::communicator*, std::vector<std::size_t>>> paths_and_splits(std::size_t n) {
  std::vector<std::pair<preduce::mpi::communicator*, std::vector<std::size_t>>> all;
  for (preduce::mpi::communicator* comm : both_paths())
    for (const auto& split : splits_of(n, world().size())) all.emplace_back(comm, split);
  return all;
}

//! This rank's slice [first, first + count) of x under `split`.
template <class T>
std::vector<T> slice_of(const std::vector<T>& x, const std::vector<std::size_t>& split, std::size_t* first) {
  const std::size_t me = std::size_t(world().rank());
  *first = std::accumulate(split.begin(), split.begin() + std::ptrdiff_t(me), std::size_t(0));
  return std::vector<T>(x.begin() + std::ptrdiff_t(*first), x.begin() + std::ptrdiff_t(*first + split[me]));
}

//! allreduce of op over x split every way: under run_to_run the host oracle's value (exact data:
//! exactly), the same bits on every rank and on a repeat; under reproducible (binned operators),
//! the single-device reduce's bits.
template <class T, class Op>
void check_allreduce(const std::vector<T>& x, Op op) {
  const preduce::queue q(0);
  const preduce::device_buffer<T> whole(q, x);
  for (const auto& path_split : paths_and_splits(x.size())) {
    preduce::mpi::communicator* comm = path_split.first;
    const auto& split = path_split.second;
    CAPTURE(comm->device_collectives());
    std::size_t first = 0;
    const auto mine = slice_of(x, split, &first);
    const preduce::device_buffer<T> local(q, mine);
    CAPTURE(split[0]);
    CAPTURE(split.back());
    const auto a = preduce::allreduce(*comm, q, local.data(), mine.size(), op, run_to_run);
    const auto b = preduce::allreduce(*comm, q, local.data(), mine.size(), op, run_to_run);
    test::check_result(a, test::expected(op, x.data(), x.size()));
    CHECK(test::same_bits(a, b));
    CHECK(same_on_every_rank(a));
    const auto r = preduce::allreduce(*comm, q, local.data(), mine.size(), op, reproducible);
    CHECK(test::same_bits(r, preduce::reduce(q, whole.data(), x.size(), op, reproducible)));
    CHECK(same_on_every_rank(r));
    const auto f = preduce::allreduce(*comm, q, local.data(), mine.size(), op, fast);
    test::check_result(f, test::expected(op, x.data(), x.size()));
    // The asynchronous form writes the same bits to device memory.
    using R = std::remove_const_t<decltype(a)>;
    if constexpr (!std::is_same<R, bool>::value) {  // (a vector<bool> has no data() to copy into)
      preduce::device_buffer<R> out(q, 1);
      preduce::allreduce_async(*comm, q, local.data(), mine.size(), out.data(), op, run_to_run);
      CHECK(test::same_bits(out.to_host()[0], a));
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("mpi.allreduce.sums", T, float, double, preduce::half, std::int32_t, std::uint8_t) {
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(100003)}) {
    CAPTURE(n);
    SUBCASE("plus, exact data") { check_allreduce(test::make_data<T>(test::data::small_integers, n, test::seed_for<T>("mpi plus", n), 64), preduce::plus<>{}); }
    SUBCASE("plus, spread data") { check_allreduce(test::make_data<T>(test::data::spread, n, test::seed_for<T>("mpi plus spread", n)), preduce::plus<>{}); }
    SUBCASE("sum_of_squares") { check_allreduce(test::make_data<T>(test::data::spread, n, test::seed_for<T>("mpi squares", n)), preduce::sum_of_squares<>{}); }
  }
}

TEST_CASE_TEMPLATE("mpi.allreduce.comparisons_and_moments", T, float, double, std::int64_t, std::int8_t) {
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(65537)}) {
    CAPTURE(n);
    const auto ties = test::make_data<T>(test::data::ties, n, test::seed_for<T>("mpi ties", n));
    SUBCASE("argmax") { check_allreduce(ties, preduce::argmax{}); }
    SUBCASE("argmin") { check_allreduce(ties, preduce::argmin{}); }
    SUBCASE("minmax") { check_allreduce(ties, preduce::minmax{}); }
    SUBCASE("maximum") { check_allreduce(ties, preduce::maximum{}); }
    SUBCASE("logical_or") { check_allreduce(ties, preduce::logical_or{}); }
    if constexpr (std::is_floating_point<T>::value) {
      SUBCASE("moments") { check_allreduce(test::make_data<T>(test::data::spread, n, test::seed_for<T>("mpi moments", n)), preduce::moments<>{}); }
    }
  }
}

// The first NaN is found wherever it lies; its index is global.
TEST_CASE("mpi.allreduce.nan_index") {
  const std::size_t n = 10000;
  auto x = test::make_data<float>(test::data::spread, n, 0x3a3);
  x[7777] = std::numeric_limits<float>::quiet_NaN();
  x[9000] = std::numeric_limits<float>::quiet_NaN();
  check_allreduce(x, preduce::argmax{});
}

//! allreduce_rows (columns split over the ranks) and allreduce_columns (rows split) of op over
//! the rows x cols matrix x, every split, into a strided output: under reproducible the
//! single-device reduce_rows / reduce_columns bits (or its error); under run_to_run the host
//! oracle's values, the same bits on every rank and on a repeat (into a contiguous output);
//! under fast the oracle's values; nothing written between results.
template <class T, class Op>
void check_vectors(std::size_t rows, std::size_t cols, Op op, std::uint64_t seed) {
  using R = test::result_of<Op, T>;
  const preduce::queue q(0);
  const std::size_t me = std::size_t(world().rank()), stride = 2;
  // Floating-point sums on spread data, whose sum depends on the order: only an exact merge of
  // the ranks' partials gives the single-device reproducible bits.
  const bool spread = test::is_sum<Op>::value && preduce::detail::is_floating<T>;
  const auto x = test::make_data<T>(spread ? test::data::spread : test::shape_for<Op, T>(), rows * cols, seed);
  const preduce::device_buffer<T> whole(q, x);
  // Floating-point products and integer moments have no reproducible form: the distributed
  // calls refuse them as the single-device ones do.
  const bool exact_reproducible = !(test::is_product<Op>::value && preduce::detail::is_floating<T>) &&
                                  !(test::is_moments<Op>::value && std::is_integral<T>::value);
  for (const bool by_rows : {true, false}) {
    CAPTURE(by_rows);
    const std::size_t results = by_rows ? rows : cols, along = by_rows ? cols : rows;
    // The oracle of every result, and the single-device reproducible results.
    const auto want = test::expected_lines(op, x, rows, cols, by_rows);
    test::guarded_output<R> single(q, results);
    if (exact_reproducible) {
      if (by_rows) preduce::reduce_rows(q, whole.data(), rows, cols, single.data(), op, reproducible);
      else preduce::reduce_columns(q, whole.data(), rows, cols, single.data(), op, reproducible);
    }
    const auto single_bits = single.values(results);
    for (const auto& path_split : paths_and_splits(along)) {
      preduce::mpi::communicator* comm = path_split.first;  // (a structured binding: no lambda may capture it in C++17)
      const auto& split = path_split.second;
      CAPTURE(comm->device_collectives());
      CAPTURE(split[0]);
      CAPTURE(split.back());
      const std::size_t first = std::accumulate(split.begin(), split.begin() + std::ptrdiff_t(me), std::size_t(0)), mine = split[me];
      const preduce::device_buffer<T> d_block(q, test::block_of(x, rows, cols, by_rows, first, mine));
      // Into an output of stride `step` (1: the merged blocks may land there directly).
      auto run = [&](preduce::options o, std::size_t step) {
        test::guarded_output<R> out(q, results * step);
        if (by_rows) preduce::allreduce_rows(*comm, q, d_block.data(), rows, mine, preduce::strided(out.data(), step), op, o);
        else preduce::allreduce_columns(*comm, q, d_block.data(), mine, cols, preduce::strided(out.data(), step), op, o);
        CHECK(out.only_results_written(results, step));
        return out.values(results, step);
      };
      const auto a = run(run_to_run, stride), b = run(run_to_run, 1), f = run(fast, stride);
      test::check_results(a, want);
      test::check_results(f, want);
      std::vector<R> r;
      std::string what;
      if (exact_reproducible) r = run(reproducible, stride);
      else CHECK(test::error_of([&] { (void)run(reproducible, stride); }, what) == "unsupported");  // on every rank
      bool repeats = true, same_as_single = true;
      for (std::size_t t = 0; t < results; ++t) {
        repeats = repeats && test::same_bits(static_cast<R>(a[t]), static_cast<R>(b[t]));
        same_as_single = same_as_single && (!exact_reproducible || test::same_bits(static_cast<R>(r[t]), static_cast<R>(single_bits[t])));
      }
      CHECK(repeats);
      CHECK(same_as_single);
      CHECK(same_on_every_rank(a));
      CHECK(same_on_every_rank(r));
    }
  }
}

// Every operator on each element family, over shapes whose results do not divide among the ranks
// (37 x 211), fewer results than ranks (3 x 2), and empty lines (0 x 9, 5 x 0).
TEST_CASE_TEMPLATE("mpi.allreduce_rows_and_columns", T, float, double, preduce::bfloat16, std::int32_t, std::uint8_t) {
  test::for_each_operator<T>([](auto op) {
    for (const auto& shape : {std::pair<std::size_t, std::size_t>{37, 211}, {3, 2}, {0, 9}, {5, 0}}) {
      CAPTURE(shape.first);
      CAPTURE(shape.second);
      check_vectors<T>(shape.first, shape.second, op, test::seed_for<T>("mpi vectors", shape.first * 1000 + shape.second));
    }
  });
}

//! Under reproducible, allreduce_rows and allreduce_columns of x (rows x cols) over every path
//! and split (every_split; else the even split on the adapter's path) give the single-device
//! bits on every rank; rows_too: allreduce_rows as well as allreduce_columns.
template <class T, class Op>
void check_reproducible_lines(const std::vector<T>& x, std::size_t rows, std::size_t cols, Op op, bool every_split, bool rows_too = true) {
  using R = test::result_of<Op, T>;
  const preduce::queue q(0);
  const std::size_t me = std::size_t(world().rank());
  const preduce::device_buffer<T> whole(q, x);
  for (const bool by_rows : {true, false}) {
    if (by_rows && !rows_too) continue;
    CAPTURE(by_rows);
    const std::size_t results = by_rows ? rows : cols, along = by_rows ? cols : rows;
    test::guarded_output<R> single(q, results);
    if (by_rows) preduce::reduce_rows(q, whole.data(), rows, cols, single.data(), op, reproducible);
    else preduce::reduce_columns(q, whole.data(), rows, cols, single.data(), op, reproducible);
    const auto want = single.values(results);
    auto ways = paths_and_splits(along);
    if (!every_split) ways.resize(1);  // the adapter's own path, the even split
    for (const auto& path_split : ways) {
      preduce::mpi::communicator* comm = path_split.first;
      const auto& split = path_split.second;
      CAPTURE(comm->device_collectives());
      CAPTURE(split[0]);
      const std::size_t first = std::accumulate(split.begin(), split.begin() + std::ptrdiff_t(me), std::size_t(0)), mine = split[me];
      const preduce::device_buffer<T> d_block(q, test::block_of(x, rows, cols, by_rows, first, mine));
      test::guarded_output<R> out(q, results);
      if (by_rows) preduce::allreduce_rows(*comm, q, d_block.data(), rows, mine, out.data(), op, reproducible);
      else preduce::allreduce_columns(*comm, q, d_block.data(), mine, cols, out.data(), op, reproducible);
      const auto got = out.values(results);
      bool same = true;
      for (std::size_t t = 0; t < results; ++t) same = same && test::same_bits(static_cast<R>(got[t]), static_cast<R>(want[t]));
      CHECK(same);
      CHECK(same_on_every_rank(got));
    }
  }
}

// Lines whose pieces sit at levels far apart (elements scaled by 2^-120 .. 2^120 by position, so
// the ranks' partials have different top bins and the merge moves bins down or drops them), and
// lines holding NaN, +inf, -inf or +inf and -inf on different ranks.
TEST_CASE_TEMPLATE("mpi.reproducible_lines_across_levels_and_specials", T, float, double) {
  const std::size_t rows = 29, cols = 17;
  auto x = test::make_data<T>(test::data::spread, rows * cols, test::seed_for<T>("mpi levels", 0));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) x[i * cols + j] = std::ldexp(x[i * cols + j], int((i * 7 + j * 13) % 9) * 30 - 120);
  const T inf = std::numeric_limits<T>::infinity();
  x[3 * cols + 2] = inf, x[20 * cols + 2] = -inf;                       // column 2, row 10: NaN
  x[10 * cols + 1] = inf, x[10 * cols + 15] = -inf;
  x[5 * cols + 4] = inf;                                                // column 4, row 5: +inf
  x[25 * cols + 6] = std::numeric_limits<T>::quiet_NaN();               // column 6, row 25: NaN
  x[1 * cols + 8] = -inf, x[27 * cols + 8] = -inf;                      // column 8: -inf
  check_reproducible_lines(x, rows, cols, preduce::plus<>{}, true);
  check_reproducible_lines(x, rows, cols, preduce::sum_of_squares<>{}, true);
}

// Columns of 2^22 + 3 rows: too long for the compact exchange of int64 bin totals (a bin total
// of that many terms may not fit), so the ranks exchange whole partials.
TEST_CASE("mpi.reproducible_lines_too_long_for_int64_bins") {
  const std::size_t rows = (std::size_t(1) << 22) + 3, cols = 2;
  const auto x = test::make_data<float>(test::data::spread, rows * cols, test::seed_for<float>("mpi long lines", 0));
  check_reproducible_lines(x, rows, cols, preduce::plus<>{}, false, false);
}

// A rank with bad input, or whose call differs from the others', makes every rank throw, naming
// it; nothing is written anywhere, and the communicator works on.
TEST_CASE("mpi.bad_input_on_one_rank") {
  const preduce::queue q(0);
  const int ranks = world().size(), me = world().rank(), culprit = ranks - 1;
  const std::size_t n = 1000;
  const auto x = test::make_data<float>(test::data::small_integers, n, 0xbad, 20);
  const preduce::device_buffer<float> d(q, x);
  test::guarded_output<float> out(q, 1);
  std::string what;
  SUBCASE("a null input") {
    const float* input = me == culprit ? nullptr : d.data();
    CHECK(test::error_of([&] { (void)preduce::allreduce(world(), q, input, n); }, what) == "null_pointer");
    CHECK(what.find("rank " + std::to_string(culprit)) != std::string::npos);
  }
  SUBCASE("an output overlapping the input") {
    float* target = me == culprit ? const_cast<float*>(d.data()) + 5 : out.data();
    CHECK(test::error_of([&] { preduce::allreduce_async(world(), q, d.data(), n, target, preduce::plus<>{}); }, what) == "overlap");
  }
  SUBCASE("another operator") {
    if (me == culprit && ranks > 1) {
      CHECK(test::error_of([&] { (void)preduce::allreduce(world(), q, d.data(), n, preduce::maximum{}); }, what) == "invalid_argument");
    } else {
      CHECK(test::error_of([&] { (void)preduce::allreduce(world(), q, d.data(), n, preduce::minimum{}); }, what) ==
            (ranks > 1 ? "invalid_argument" : "nothing thrown"));
    }
  }
  SUBCASE("another determinism") {
    const preduce::options o{me == culprit && ranks > 1 ? preduce::determinism::reproducible : preduce::determinism::run_to_run};
    CHECK(test::error_of([&] { (void)preduce::allreduce(world(), q, d.data(), n, preduce::plus<>{}, o); }, what) ==
          (ranks > 1 ? "invalid_argument" : "nothing thrown"));
  }
  INFO("message: " << what);
  q.synchronize();
  CHECK(out.untouched());
  // The communicator and the queue work on.
  test::check_result(preduce::allreduce(world(), q, d.data(), n), test::expected(preduce::plus<>{}, x.data(), n).value * float(ranks));
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rc = 0;
  {
    doctest::Context context(argc, argv);
    // Only rank 0 reports passing runs; every rank reports its failures.
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) context.setOption("minimal", true);
    rc = context.run();
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
