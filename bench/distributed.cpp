// SPDX-License-Identifier: Apache-2.0
// preduce-dist-bench: the distributed calls over NCCL (cuda backend), one process per GPU under
// mpirun, against what a user writes by hand today: the local preduce call and an NCCL
// collective of its result (ncclAllReduce for sums; ncclAllGather of the (value, index) pairs and
// a pick on the host for arg forms), timed in the same run on the same buffers.
//   mpirun -np K preduce-dist-bench [--log2 28] [--columns 20:26] [--json FILE]
// Host wall time of a call that returns the value (or, for columns, of the call and a stream
// wait), all ranks starting together (MPI_Barrier), each rank's median of --reps calls, and the
// slowest rank's median reported. Every result is checked against the host reference first.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <preduce/nccl.hpp>
#include <preduce/testing/reference.hpp>

#include "report.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
int rank = 0, ranks = 1;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "preduce-dist-bench (rank %d): %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}
void cuda(cudaError_t e, const char* what) { check(e == cudaSuccess, what); }
void nccl(ncclResult_t e, const char* what) { check(e == ncclSuccess, what); }

//! The slowest rank's median host time, in us, of `reps` calls of f after 3 warm-up calls, every
//! call started by all ranks together.
double time_us(int reps, const std::function<void()>& f) {
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto a = clock_type::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  double median = t[t.size() / 2], worst = 0;
  MPI_Allreduce(&median, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

struct row {
  std::string name;
  double baseline_us, preduce_us, reference_us;  // reference: the target's denominator where it is not the baseline
};
std::vector<row> rows;

void report(const std::string& name, double baseline, double ours, double reference = 0) {
  rows.push_back({name, baseline, ours, reference});
  if (rank == 0)
    std::printf("%-58s baseline %10.1f us  preduce %10.1f us  ratio %6.3f%s\n", name.c_str(), baseline, ours, ours / baseline,
                reference > 0 ? ("  (vs single-GPU + comm " + std::to_string(ours / reference) + ")").c_str() : "");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int log2 = 28, col_lo = 20, col_hi = 26, reps = 20;
  long long total = 0;  // --total N: strong scaling, N f32 elements split over the ranks
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2" && i + 1 < argc) log2 = std::atoi(argv[++i]);
    else if (a == "--columns" && i + 1 < argc) std::sscanf(argv[++i], "%d:%d", &col_lo, &col_hi);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--total" && i + 1 < argc) total = std::atoll(argv[++i]);
    else if (a == "--json" && i + 1 < argc) json = argv[++i];
  }
  int devices = 0;
  cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  const int device = rank % devices;
  cuda(cudaSetDevice(device), "cudaSetDevice");
  ncclUniqueId id;
  if (rank == 0) nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t nc;
  nccl(ncclCommInitRank(&nc, ranks, id, rank), "ncclCommInitRank");
  {
    preduce::nccl::communicator comm(nc);
    const preduce::queue q(device);
    auto stream = static_cast<cudaStream_t>(q.native_handle());
    if (rank == 0)
      std::printf("# preduce-dist-bench: %d ranks, %s; git %s\n", ranks, preduce::device_description(device).c_str(), PREDUCE_BENCH_GIT_REVISION);

    // Whole arrays: 2^log2 elements a rank (or --total over all), sum and argmax, f32 and f64.
    const std::size_t n = total > 0 ? std::size_t(total) / std::size_t(ranks) : std::size_t(1) << log2;
    auto whole = [&](auto zero, const char* type) {
      using T = decltype(zero);
      std::vector<T> h(n);
      for (std::size_t i = 0; i < n; ++i) h[i] = T(int((i * 2654435761u + std::size_t(rank) * 97) % 17u) - 8);
      const preduce::device_buffer<T> x(q, h);
      preduce::device_buffer<T> sum(q, 1);
      preduce::device_buffer<preduce::arg<T>> best(q, 1), gathered(q, std::size_t(ranks));
      T* pinned = nullptr;
      preduce::arg<T>* pinned_args = nullptr;
      cuda(cudaMallocHost(&pinned, sizeof(T)), "cudaMallocHost");
      cuda(cudaMallocHost(&pinned_args, sizeof(preduce::arg<T>) * std::size_t(ranks)), "cudaMallocHost");
      const ncclDataType_t nt = sizeof(T) == 4 ? ncclFloat : ncclDouble;
      // The hand-written sum: local preduce, ncclAllReduce of the result, copy, wait.
      auto by_hand_sum = [&] {
        preduce::reduce_async(q, x.data(), n, sum.data(), preduce::plus<>{});
        nccl(ncclAllReduce(sum.data(), sum.data(), 1, nt, ncclSum, nc, stream), "ncclAllReduce");
        cuda(cudaMemcpyAsync(pinned, sum.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        return *pinned;
      };
      // The hand-written argmax: local preduce, ncclAllGather of the pairs, a pick on the host.
      std::vector<std::size_t> firsts(static_cast<std::size_t>(ranks));
      for (int r = 0; r < ranks; ++r) firsts[std::size_t(r)] = std::size_t(r) * n;
      auto by_hand_argmax = [&] {
        preduce::reduce_async(q, x.data(), n, best.data(), preduce::argmax{});
        nccl(ncclAllGather(best.data(), gathered.data(), sizeof(preduce::arg<T>), ncclChar, nc, stream), "ncclAllGather");
        cuda(cudaMemcpyAsync(pinned_args, gathered.data(), sizeof(preduce::arg<T>) * std::size_t(ranks), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync");
        cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        preduce::arg<T> b = pinned_args[0];
        for (int r = 1; r < ranks; ++r)
          if (pinned_args[r].value > b.value) b = preduce::arg<T>{pinned_args[r].value, pinned_args[r].index + firsts[std::size_t(r)]};
        return b;
      };
      // Checks: the sum of small integers is exact in any order; argmax's value is 8.
      double exact = 0;
      for (const T v : h) exact += double(v);
      double all = 0;
      MPI_Allreduce(&exact, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      check(double(by_hand_sum()) == all, "by-hand sum");
      for (const auto det : {preduce::determinism::run_to_run, preduce::determinism::fast, preduce::determinism::reproducible})
        check(double(preduce::allreduce(comm, q, x.data(), n, preduce::plus<>{}, preduce::options{det})) == all, "allreduce sum");
      const auto a = preduce::allreduce(comm, q, x.data(), n, preduce::argmax{});
      check(a.value == T(8) && a.index < n, "allreduce argmax (rank 0 holds the first 8)");
      const std::string size = total > 0 ? std::to_string(total) + " total" : "2^" + std::to_string(log2) + " a rank";
      const double base_sum = time_us(reps, [&] { (void)by_hand_sum(); });
      report(std::string(type) + " sum, run_to_run, " + size, base_sum,
             time_us(reps, [&] { (void)preduce::allreduce(comm, q, x.data(), n, preduce::plus<>{}); }));
      report(std::string(type) + " sum, fast, " + size, base_sum,
             time_us(reps, [&] { (void)preduce::allreduce(comm, q, x.data(), n, preduce::plus<>{}, preduce::options{preduce::determinism::fast}); }));
      // reproducible: against its own single-GPU time plus the baseline's communication.
      const double single = time_us(reps, [&] {
        (void)preduce::reduce(q, x.data(), n, preduce::plus<>{}, preduce::options{preduce::determinism::reproducible});
      });
      const double communication = time_us(reps, [&] {
        nccl(ncclAllReduce(sum.data(), sum.data(), 1, nt, ncclSum, nc, stream), "ncclAllReduce");
        cuda(cudaMemcpyAsync(pinned, sum.data(), sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
        cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      });
      report(std::string(type) + " sum, reproducible, " + size, base_sum,
             time_us(reps, [&] {
               (void)preduce::allreduce(comm, q, x.data(), n, preduce::plus<>{}, preduce::options{preduce::determinism::reproducible});
             }),
             single + communication);
      if (total == 0) {
        const double base_arg = time_us(reps, [&] { (void)by_hand_argmax(); });
        report(std::string(type) + " argmax, run_to_run, " + size, base_arg,
               time_us(reps, [&] { (void)preduce::allreduce(comm, q, x.data(), n, preduce::argmax{}); }));
      }
      cudaFreeHost(pinned);
      cudaFreeHost(pinned_args);
    };
    whole(float{}, "f32");
    if (total == 0) whole(double{}, "f64");

    // allreduce_columns: 2^k results, 4 local rows each; the baseline reduces its columns and
    // sums them with ncclAllReduce.
    for (int k = col_lo; total == 0 && k <= col_hi; k += 2) {
      const std::size_t cols = std::size_t(1) << k, local_rows = 4;
      std::vector<float> h(local_rows * cols);
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = float(int((i * 2654435761u + std::size_t(rank)) % 9u) - 4);
      const preduce::device_buffer<float> x(q, h);
      preduce::device_buffer<float> out(q, cols), mine(q, cols);
      auto by_hand = [&] {
        preduce::reduce_columns(q, x.data(), local_rows, cols, mine.data(), preduce::plus<>{});
        nccl(ncclAllReduce(mine.data(), out.data(), cols, ncclFloat, ncclSum, nc, stream), "ncclAllReduce");
        cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      };
      auto ours = [&](preduce::determinism det) {
        preduce::allreduce_columns(comm, q, x.data(), local_rows, cols, out.data(), preduce::plus<>{}, preduce::options{det});
        cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      };
      std::vector<double> col(cols, 0.0), all(cols, 0.0);
      for (std::size_t i = 0; i < h.size(); ++i) col[i % cols] += h[i];
      MPI_Allreduce(col.data(), all.data(), int(cols), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      for (const auto det : {preduce::determinism::run_to_run, preduce::determinism::fast, preduce::determinism::reproducible}) {
        ours(det);
        const auto got = out.to_host();
        for (std::size_t j = 0; j < cols; ++j) check(double(got[j]) == all[j], "allreduce_columns sum");
      }
      const double base = time_us(reps, by_hand);
      const std::string name = "f32 allreduce_columns, 2^" + std::to_string(k) + " results, ";
      report(name + "run_to_run", base, time_us(reps, [&] { ours(preduce::determinism::run_to_run); }));
      report(name + "fast", base, time_us(reps, [&] { ours(preduce::determinism::fast); }));
      // What crosses the wire a result: a one-byte level code (max) and three int64 bin totals
      // (sums), exact while a column holds fewer than 2^22 rows (detail/merge.hpp's exchange::);
      // on the NCCL symmetric path each bin as 6 bytes (4 local rows: 48 bits hold it), 19 B.
      report(name + "reproducible", base,
             time_us(reps, [&] { ours(preduce::determinism::reproducible); }));
      // Its local share: the single-GPU reproducible reduce_columns of this rank's rows.
      report(name + "reproducible, the local reduce_columns alone", base, time_us(reps, [&] {
               preduce::reduce_columns(q, x.data(), local_rows, cols, mine.data(), preduce::plus<>{}, preduce::options{preduce::determinism::reproducible});
               cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
             }));
    }
  }
  ncclCommDestroy(nc);
  if (rank == 0 && !json.empty()) {
    std::ofstream out(json);
    preduce::bench::json_writer j(out);
    j.open('{').field("schema", "preduce-dist-bench/1").field("ranks", ranks).field("device", preduce::device_description(device));
    j.field("git_revision", PREDUCE_BENCH_GIT_REVISION).field("date", preduce::bench::utc_now());
    j.field("method", "host wall time of a call that returns the value (columns: the call and a stream wait); all ranks start "
                      "each call together (MPI_Barrier); the slowest rank's median; baseline = the local preduce call + NCCL "
                      "collective of its result by hand");
    j.key("rows").open('[');
    for (const auto& r : rows)
      j.open('{').field("case", r.name).field("baseline_us", r.baseline_us).field("preduce_us", r.preduce_us).field("reference_us", r.reference_us).close('}');
    j.close(']').close('}');
    out << '\n';
  }
  MPI_Finalize();
  return 0;
}
