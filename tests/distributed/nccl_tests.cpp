// SPDX-License-Identifier: Apache-2.0
// preduce tests: the distributed calls over NCCL (cuda backend), on every GPU the process sees:
//   preduce-nccl-tests            one process, a thread per GPU (ncclCommInitAll)
//   mpirun -np K preduce-nccl-tests --mpi
//                                 one process per GPU (ncclCommInitRank, the id sent by MPI)
// Every rank makes the whole array from one seed and holds its slice, for several splits
// (even, front-heavy, all on the last rank, a rank with nothing): reproducible results must have
// the bits of a single-GPU reduce over the whole array, run_to_run results must repeat and be the
// same on every rank and match the host reference, arg indices are global, and bad input on one
// rank makes every rank throw. Prints "N passed, M failed" and exits non-zero on a failure.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#define DOCTEST_CONFIG_IMPLEMENT  // test_support's helpers; this program has its own harness
#include <preduce/nccl.hpp>

#include "../test_support.hpp"

namespace {

const preduce::options run_to_run{preduce::determinism::run_to_run};
const preduce::options reproducible{preduce::determinism::reproducible};
const preduce::options fast{preduce::determinism::fast};

//! What the ranks share to compare results: a barrier-and-gather over threads or over MPI.
struct world {
  int rank, size;
  std::function<std::vector<std::string>(const std::string&)> gather;  // every rank's string, in rank order
};

struct tally {
  std::atomic<int> passed{0}, failed{0};
  std::mutex m;
  void check(bool ok, int rank, const std::string& what) {
    (ok ? passed : failed)++;
    if (!ok) {
      std::lock_guard<std::mutex> lock(m);
      std::printf("FAILED (rank %d): %s\n", rank, what.c_str());
    }
  }
};

std::string field_text(const test::fields& f) {
  std::string s;
  char b[64];
  for (std::size_t i = 0; i < f.size; ++i) {
    std::snprintf(b, sizeof b, "%La|", f.at[i].value);
    s += b;
  }
  return s;
}

std::vector<std::vector<std::size_t>> splits_of(std::size_t n, int ranks) {
  std::vector<std::vector<std::size_t>> all;
  std::vector<std::size_t> even(std::size_t(ranks), n / std::size_t(ranks));
  even.back() += n % std::size_t(ranks);
  all.push_back(even);
  std::vector<std::size_t> last(std::size_t(ranks), 0);
  last.back() = n;
  all.push_back(last);
  std::vector<std::size_t> front(std::size_t(ranks), 0);
  std::size_t left = n;
  for (int r = 0; r < ranks; ++r) {
    front[std::size_t(r)] = r + 1 == ranks ? left : left / 2;
    left -= front[std::size_t(r)];
  }
  all.push_back(front);
  return all;
}

template <class T, class Op>
void check_allreduce(preduce::communicator& comm, const world& w, tally& t, const preduce::queue& q, const std::vector<T>& x, Op op,
                     const char* name) {
  const preduce::device_buffer<T> whole(q, x);
  for (const auto& split : splits_of(x.size(), w.size)) {
    const std::size_t first = std::accumulate(split.begin(), split.begin() + w.rank, std::size_t(0));
    const std::vector<T> mine(x.begin() + std::ptrdiff_t(first), x.begin() + std::ptrdiff_t(first + split[std::size_t(w.rank)]));
    const preduce::device_buffer<T> local(q, mine);
    const std::string what = std::string(name) + " n=" + std::to_string(x.size()) + " split " + std::to_string(split[0]) + "/" +
                             std::to_string(split.back());
    const auto a = preduce::allreduce(comm, q, local.data(), mine.size(), op, run_to_run);
    const auto b = preduce::allreduce(comm, q, local.data(), mine.size(), op, run_to_run);
    t.check(test::same_fields(test::to_fields(a), test::to_fields(test::expected(op, x.data(), x.size()))), w.rank,
            what + ": run_to_run against the host reference, got " + test::text(test::to_fields(a)));
    t.check(test::same_bits(a, b), w.rank, what + ": run_to_run repeats");
    const auto seen = w.gather(field_text(test::to_fields(a)));
    t.check(std::all_of(seen.begin(), seen.end(), [&](const std::string& s) { return s == seen[0]; }), w.rank, what + ": same on every rank");
    const auto r = preduce::allreduce(comm, q, local.data(), mine.size(), op, reproducible);
    t.check(test::same_bits(r, preduce::reduce(q, whole.data(), x.size(), op, reproducible)), w.rank,
            what + ": reproducible has the single-GPU bits");
    const auto f = preduce::allreduce(comm, q, local.data(), mine.size(), op, fast);
    t.check(test::same_fields(test::to_fields(f), test::to_fields(test::expected(op, x.data(), x.size()))), w.rank,
            what + ": fast against the host reference");
    preduce::device_buffer<std::remove_const_t<decltype(a)>> out(q, 1);
    preduce::allreduce_async(comm, q, local.data(), mine.size(), out.data(), op, run_to_run);
    t.check(test::same_bits(out.to_host()[0], a), w.rank, what + ": allreduce_async writes the same bits");
  }
}

//! allreduce_rows (columns split evenly, then all on the last rank) and allreduce_columns (rows
//! split so) of op over the rows x cols matrix x, into an output of stride 2, in every mode:
//! reproducible has the single-GPU reduce_rows / reduce_columns bits; run_to_run matches the host
//! reference, repeats, and is the same on every rank; fast matches the host reference.
template <class T, class Op>
void check_vectors(preduce::communicator& comm, const world& w, tally& t, const preduce::queue& q, std::size_t rows, std::size_t cols,
                   const std::vector<T>& x, Op op, const char* name) {
  using R = test::result_of<Op, T>;
  if (w.rank == 0) std::printf("# %s, rows and columns of %zu x %zu\n", name, rows, cols), std::fflush(stdout);  // where a crash was
  const preduce::device_buffer<T> whole(q, x);
  const std::size_t me = std::size_t(w.rank), stride = 2;
  for (const bool by_rows : {true, false}) {
    const std::size_t results = by_rows ? rows : cols, along = by_rows ? cols : rows;
    const auto want = test::expected_lines(op, x, rows, cols, by_rows);
    preduce::device_buffer<R> single(q, results);
    if (by_rows) preduce::reduce_rows(q, whole.data(), rows, cols, single.data(), op, reproducible);
    else preduce::reduce_columns(q, whole.data(), rows, cols, single.data(), op, reproducible);
    const auto single_bits = single.to_host();
    for (const auto& split : {splits_of(along, w.size)[0], splits_of(along, w.size)[1]}) {
      const std::size_t first = std::accumulate(split.begin(), split.begin() + w.rank, std::size_t(0)), mine = split[me];
      const preduce::device_buffer<T> d_block(q, test::block_of(x, rows, cols, by_rows, first, mine));
      const std::string what = std::string(name) + (by_rows ? " allreduce_rows " : " allreduce_columns ") + std::to_string(rows) + " x " +
                               std::to_string(cols) + " split " + std::to_string(split[0]) + "/" + std::to_string(split.back());
      auto run = [&](preduce::options o) {
        preduce::device_buffer<R> out(q, std::max<std::size_t>(results * stride, 1));
        if (by_rows) preduce::allreduce_rows(comm, q, d_block.data(), rows, mine, preduce::strided(out.data(), stride), op, o);
        else preduce::allreduce_columns(comm, q, d_block.data(), mine, cols, preduce::strided(out.data(), stride), op, o);
        const auto all = out.to_host();
        std::vector<R> v;
        for (std::size_t i = 0; i < results; ++i) v.push_back(all[i * stride]);
        return v;
      };
      const auto a = run(run_to_run), b = run(run_to_run), r = run(reproducible), f = run(fast);
      bool near = true, near_fast = true, repeats = true, same_as_single = true;
      std::string text;
      for (std::size_t i = 0; i < results; ++i) {
        near = near && test::same_fields(test::to_fields(a[i]), test::to_fields(want[i]));
        near_fast = near_fast && test::same_fields(test::to_fields(f[i]), test::to_fields(want[i]));
        repeats = repeats && test::same_bits(a[i], b[i]);
        same_as_single = same_as_single && test::same_bits(r[i], single_bits[i]);
        text += field_text(test::to_fields(a[i])) + field_text(test::to_fields(r[i]));
      }
      t.check(near, w.rank, what + ": run_to_run against the host reference");
      t.check(near_fast, w.rank, what + ": fast against the host reference");
      t.check(repeats, w.rank, what + ": run_to_run repeats");
      t.check(same_as_single, w.rank, what + ": reproducible has the single-GPU bits");
      std::uint64_t h = 0xcbf29ce484222325ull;  // every result of both modes, hashed
      for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
      const auto seen = w.gather(std::to_string(h));
      t.check(std::all_of(seen.begin(), seen.end(), [&](const std::string& s) { return s == seen[0]; }), w.rank, what + ": same on every rank");
    }
  }
}

//! Reproducible allreduce_rows and allreduce_columns of op over rows x cols elements whose pieces
//! sit at levels far apart (scaled by 2^-120 .. 2^120 by position: the ranks' bins move down or
//! drop at the merge), with lines holding NaN, +inf, -inf, and +inf and -inf on different ranks:
//! the single-GPU bits, into an output of stride 3.
template <class T, class Op>
void check_levels_and_specials(preduce::communicator& comm, const world& w, tally& t, const preduce::queue& q, std::size_t rows,
                               std::size_t cols, Op op, const char* name) {
  using R = test::result_of<Op, T>;
  auto x = test::make_data<T>(test::data::spread, rows * cols, rows * cols + 21);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) x[i * cols + j] = std::ldexp(x[i * cols + j], int((i * 7 + j * 13) % 9) * 30 - 120);
  const T inf = std::numeric_limits<T>::infinity();
  x[3 * cols + 2] = inf, x[(rows - 2) * cols + 2] = -inf;  // line 2 (columns) and rows 3, rows - 2
  x[10 * cols + 1] = inf, x[10 * cols + cols - 2] = -inf;  // row 10 (rows) and columns 1, cols - 2
  x[5 * cols + 4] = inf;
  x[(rows - 1) * cols + 6] = std::numeric_limits<T>::quiet_NaN();
  const preduce::device_buffer<T> whole(q, x);
  const std::size_t me = std::size_t(w.rank), stride = 3;
  for (const bool by_rows : {true, false}) {
    const std::size_t results = by_rows ? rows : cols, along = by_rows ? cols : rows;
    preduce::device_buffer<R> single(q, results);
    if (by_rows) preduce::reduce_rows(q, whole.data(), rows, cols, single.data(), op, reproducible);
    else preduce::reduce_columns(q, whole.data(), rows, cols, single.data(), op, reproducible);
    const auto want = single.to_host();
    for (const auto& split : splits_of(along, w.size)) {
      const std::size_t first = std::accumulate(split.begin(), split.begin() + w.rank, std::size_t(0)), mine = split[me];
      const preduce::device_buffer<T> d_block(q, test::block_of(x, rows, cols, by_rows, first, mine));
      preduce::device_buffer<R> out(q, results * stride);
      if (by_rows) preduce::allreduce_rows(comm, q, d_block.data(), rows, mine, preduce::strided(out.data(), stride), op, reproducible);
      else preduce::allreduce_columns(comm, q, d_block.data(), mine, cols, preduce::strided(out.data(), stride), op, reproducible);
      const auto got = out.to_host();
      bool same = true;
      for (std::size_t i = 0; i < results; ++i) same = same && test::same_bits(got[i * stride], want[i]);
      t.check(same, w.rank, std::string(name) + (by_rows ? " allreduce_rows " : " allreduce_columns ") + std::to_string(rows) + " x " +
                                std::to_string(cols) + " across levels, with NaN and infinities, split " + std::to_string(split[0]) + "/" +
                                std::to_string(split.back()) + ": reproducible has the single-GPU bits");
    }
  }
}

//! Every check on one rank (a thread or a process) with its communicator.
void run_rank(preduce::communicator& comm, const world& w, tally& t, int device) {
  const preduce::queue q(device);
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(1) << 20, (std::size_t(1) << 22) + 3}) {
    check_allreduce(comm, w, t, q, test::make_data<float>(test::data::small_integers, n, n + 1, 64), preduce::plus<>{}, "f32 plus exact");
    check_allreduce(comm, w, t, q, test::make_data<float>(test::data::spread, n, n + 2), preduce::plus<>{}, "f32 plus");
    check_allreduce(comm, w, t, q, test::make_data<double>(test::data::spread, n, n + 3), preduce::plus<>{}, "f64 plus");
    check_allreduce(comm, w, t, q, test::make_data<preduce::bfloat16>(test::data::spread, n, n + 4), preduce::plus<>{}, "bf16 plus");
    check_allreduce(comm, w, t, q, test::make_data<float>(test::data::ties, n, n + 5), preduce::argmax{}, "f32 argmax");
    check_allreduce(comm, w, t, q, test::make_data<double>(test::data::ties, n, n + 6), preduce::argmin{}, "f64 argmin");
    check_allreduce(comm, w, t, q, test::make_data<std::int32_t>(test::data::spread, n, n + 7), preduce::minmax{}, "i32 minmax");
    check_allreduce(comm, w, t, q, test::make_data<double>(test::data::spread, n, n + 8), preduce::moments<>{}, "f64 moments");
  }
  // Rows and columns: each rank a block of columns (rows) of one matrix, results that do not
  // divide among the ranks, fewer results than ranks, and 2^20 results.
  for (const auto& shape : {std::pair<std::size_t, std::size_t>{301, 997}, {3, 2}, {8, std::size_t(1) << 20}, {std::size_t(1) << 20, 8}}) {
    const std::size_t rows = shape.first, cols = shape.second, n = rows * cols;
    check_vectors(comm, w, t, q, rows, cols, test::make_data<float>(test::data::spread, n, n + 11), preduce::plus<>{}, "f32 plus");
    check_vectors(comm, w, t, q, rows, cols, test::make_data<preduce::bfloat16>(test::data::spread, n, n + 12), preduce::plus<>{}, "bf16 plus");
    check_vectors(comm, w, t, q, rows, cols, test::make_data<double>(test::data::spread, n, n + 13), preduce::moments<>{}, "f64 moments");
    check_vectors(comm, w, t, q, rows, cols, test::make_data<float>(test::data::ties, n, n + 14), preduce::argmax{}, "f32 argmax");
    check_vectors(comm, w, t, q, rows, cols, test::make_data<std::int32_t>(test::data::spread, n, n + 15), preduce::minmax{}, "i32 minmax");
  }
  // Reproducible lines across levels and with specials: a few lines, and enough for many tiles
  // and CTAs of the symmetric path's kernel.
  for (const auto& shape : {std::pair<std::size_t, std::size_t>{29, 17}, {64, (std::size_t(1) << 17) + 3}}) {
    check_levels_and_specials<float>(comm, w, t, q, shape.first, shape.second, preduce::plus<>{}, "f32 plus");
    check_levels_and_specials<double>(comm, w, t, q, shape.first, shape.second, preduce::plus<>{}, "f64 plus");
    check_levels_and_specials<float>(comm, w, t, q, shape.first, shape.second, preduce::sum_of_squares<>{}, "f32 sum_of_squares");
  }
  // Bad input on the last rank: every rank throws, none hangs, and the communicator works on.
  const preduce::device_buffer<float> d(q, std::vector<float>(1000, 1.0f));
  const float* input = w.rank == w.size - 1 ? nullptr : d.data();
  std::string what;
  const std::string code = test::error_of([&] { (void)preduce::allreduce(comm, q, input, 1000); }, what);
  t.check(code == "null_pointer" && what.find("rank " + std::to_string(w.size - 1)) != std::string::npos, w.rank,
          "a null input on the last rank: every rank throws, naming it (got " + code + ": " + what + ")");
  t.check(preduce::allreduce(comm, q, d.data(), 1000) == 1000.0f * float(w.size), w.rank, "the communicator works on after an error");
}

void nccl_check(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(rc));
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool under_mpi = argc > 1 && std::strcmp(argv[1], "--mpi") == 0;
  tally t;
  if (under_mpi) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, devices = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cudaGetDeviceCount(&devices);
    const int device = rank % devices;
    cudaSetDevice(device);
    ncclUniqueId id;
    if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t nc;
    nccl_check(ncclCommInitRank(&nc, size, id, rank), "ncclCommInitRank");
    {
      preduce::nccl::communicator comm(nc);
      world w{rank, size, [&](const std::string& s) {
                char mine[256] = {};
                std::snprintf(mine, sizeof mine, "%s", s.c_str());
                std::vector<char> all(sizeof mine * std::size_t(size));
                MPI_Allgather(mine, int(sizeof mine), MPI_CHAR, all.data(), int(sizeof mine), MPI_CHAR, MPI_COMM_WORLD);
                std::vector<std::string> out;
                for (int r = 0; r < size; ++r) out.emplace_back(all.data() + std::size_t(r) * sizeof mine);
                return out;
              }};
      run_rank(comm, w, t, device);
    }
    ncclCommDestroy(nc);
    int counts[2] = {t.passed.load(), t.failed.load()}, sums[2] = {0, 0};
    MPI_Reduce(counts, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("preduce-nccl-tests, %d processes: %d passed, %d failed\n", size, sums[0], sums[1]);
    MPI_Finalize();
    return counts[1] ? 1 : 0;
  }
  // One process, a thread per GPU.
  int devices = 0;
  cudaGetDeviceCount(&devices);
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(devices));
  nccl_check(ncclCommInitAll(comms.data(), devices, nullptr), "ncclCommInitAll");
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::string> boards[2] = {std::vector<std::string>(std::size_t(devices)), std::vector<std::string>(std::size_t(devices))};
  int arrived = 0;
  long generation = 0;
  // A barrier that hands every thread the board of its generation (two boards: a thread may
  // post to the next one while others still read this one, never two ahead).
  auto gather = [&](int rank, const std::string& s) {
    std::unique_lock<std::mutex> lock(m);
    const long g = generation;
    boards[g % 2][std::size_t(rank)] = s;
    if (++arrived == devices) {
      arrived = 0;
      ++generation;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return generation != g; });
    }
    return boards[g % 2];
  };
  std::vector<std::thread> threads;
  for (int d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      cudaSetDevice(d);
      preduce::nccl::communicator comm(comms[std::size_t(d)]);
      world w{d, devices, [&, d](const std::string& s) { return gather(d, s); }};
      run_rank(comm, w, t, d);
    });
  }
  for (auto& th : threads) th.join();
  for (auto c : comms) ncclCommDestroy(c);
  std::printf("preduce-nccl-tests, one process, %d GPUs: %d passed, %d failed\n", devices, t.passed.load(), t.failed.load());
  return t.failed ? 1 : 0;
}
