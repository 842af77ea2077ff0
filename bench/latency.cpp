// SPDX-License-Identifier: Apache-2.0
// preduce-bench --latency (latency.hpp): host wall time of preduce's calls against the vendor's
// hand-written equivalent.
#include "latency.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include "report.hpp"

namespace preduce {
namespace bench {
namespace {

using clock_type = std::chrono::steady_clock;

struct spread {
  double p10 = 0, median = 0, p90 = 0;
};

spread spread_of(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  return {us[n / 10], n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]), us[n * 9 / 10]};
}

double elapsed_us(clock_type::time_point a, clock_type::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

//! One size's figures, microseconds.
struct latency_row {
  std::size_t n = 0;
  spread sync_preduce, sync_vendor;
  double async_preduce = 0, async_vendor = 0;  //!< host time per call of back-to-back calls and one wait
  double threads_calls_per_s = 0;              //!< 8 threads, synchronous calls on queues of their own
  bool ok = true;
};

constexpr int thread_count = 8;

}  // namespace

int run_latency(const queue& q, const device_report& device, int calls, const std::string& json_path, const std::string& command) {
  constexpr int warm_up = 200, rounds = 5;
  const int per_round = std::max(1, calls / rounds);
  int failures = 0;
  std::vector<latency_row> rows;
  std::printf("# preduce-bench --latency  backend %s  device %s\n", backend_name(), device.device.c_str());
  std::printf("# f32 sum; host wall time (steady_clock), us a call; sync: median (p10-p90) of %d calls each, preduce and %s "
              "interleaved in %d rounds;\n# async: %d back-to-back calls and one wait, per call; threads: %d threads, synchronous "
              "calls on a queue each\n",
              per_round * rounds, device.vendor.c_str(), rounds, per_round * rounds, thread_count);
  std::printf("%10s %28s %28s %7s %12s %12s %7s %14s\n", "n", "sync preduce", "sync vendor", "ratio", "async preduce", "async vendor", "ratio",
              "8 threads /s");
  for (const std::size_t n : {std::size_t(1), std::size_t(1) << 10, std::size_t(1) << 16, std::size_t(1) << 20}) {
    latency_row row;
    row.n = n;
    // Small integers: the float sum is exact in any order, so both must match it to the bit.
    std::vector<float> h(n);
    double exact = 0;
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = float(int((i * 2654435761u) % 17u) - 8);  // |partial sums| <= 2^23 at 2^20
      exact += h[i];
    }
    const device_buffer<float> x(q, h);
    device_buffer<float> out(q, 1);
    const case_spec c{op_id::plus, dtype::f32, shape::whole, n, 0, 0, 0, nullptr};
    vendor_plan vendor = make_vendor(q, c);
    if (!vendor.run) throw error(errc::unsupported, "preduce-bench --latency: the vendor has no f32 sum: " + vendor.unavailable);
    auto preduce_sync = [&] { return reduce(q, x.data(), n); };
    auto vendor_sync = [&] {
      float v = 0;
      vendor.run->reduce_to_host(x.data(), nullptr, &v);
      return v;
    };
    const float got_preduce = preduce_sync(), got_vendor = vendor_sync();
    if (double(got_preduce) != exact || double(got_vendor) != exact) {
      row.ok = false;
      ++failures;
      std::fprintf(stderr, "preduce-bench --latency: n=%zu: preduce %.9g, %s %.9g, exact %.9g\n", n, double(got_preduce),
                   device.vendor.c_str(), double(got_vendor), exact);
    }

    // Synchronous calls, interleaved in rounds so drifts of the clocks hit both alike.
    for (int i = 0; i < warm_up; ++i) (void)preduce_sync(), (void)vendor_sync();
    std::vector<double> t_preduce, t_vendor;
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < per_round; ++i) {
        const auto a = clock_type::now();
        (void)preduce_sync();
        t_preduce.push_back(elapsed_us(a, clock_type::now()));
      }
      for (int i = 0; i < per_round; ++i) {
        const auto a = clock_type::now();
        (void)vendor_sync();
        t_vendor.push_back(elapsed_us(a, clock_type::now()));
      }
    }
    row.sync_preduce = spread_of(t_preduce);
    row.sync_vendor = spread_of(t_vendor);

    // Back-to-back asynchronous calls: the median over rounds of the host time per call.
    std::vector<double> a_preduce, a_vendor;
    for (int r = 0; r < rounds; ++r) {
      auto a = clock_type::now();
      for (int i = 0; i < per_round * rounds; ++i) reduce_async(q, x.data(), n, out.data(), plus<>{});
      q.synchronize();
      a_preduce.push_back(elapsed_us(a, clock_type::now()) / (per_round * rounds));
      a = clock_type::now();
      for (int i = 0; i < per_round * rounds; ++i) vendor.run->enqueue(x.data(), nullptr);
      float v = 0;
      vendor.run->copy_results(&v);
      a_vendor.push_back(elapsed_us(a, clock_type::now()) / (per_round * rounds));
    }
    row.async_preduce = spread_of(a_preduce).median;
    row.async_vendor = spread_of(a_vendor).median;

    // Threads, each with a queue and buffer of its own: synchronous calls per second in all,
    // from when the last thread is ready to when the last one is done.
    {
      std::atomic<int> ready{0};
      std::atomic<bool> wrong{false};
      std::atomic<clock_type::rep> start{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < thread_count; ++t) {
        pool.emplace_back([&] {
          const queue mine(q.device());
          const device_buffer<float> xt(mine, h);
          if (++ready == thread_count) start = clock_type::now().time_since_epoch().count();
          while (ready.load() < thread_count) std::this_thread::yield();
          for (int i = 0; i < per_round; ++i)
            if (double(reduce(mine, xt.data(), n)) != exact) wrong = true;
        });
      }
      for (auto& th : pool) th.join();
      const clock_type::time_point began{clock_type::duration(start.load())};
      row.threads_calls_per_s = double(per_round) * thread_count / (elapsed_us(began, clock_type::now()) * 1e-6);
      if (wrong) {
        row.ok = false;
        ++failures;
        std::fprintf(stderr, "preduce-bench --latency: n=%zu: a thread's synchronous call returned a wrong sum\n", n);
      }
    }

    std::printf("%10zu %8.2f (%6.2f-%6.2f) %8.2f (%6.2f-%6.2f) %7.3f %12.2f %12.2f %7.3f %14.0f%s\n", n, row.sync_preduce.median,
                row.sync_preduce.p10, row.sync_preduce.p90, row.sync_vendor.median, row.sync_vendor.p10, row.sync_vendor.p90,
                row.sync_vendor.median / row.sync_preduce.median, row.async_preduce, row.async_vendor, row.async_vendor / row.async_preduce,
                row.threads_calls_per_s, row.ok ? "" : "  FAILED");
    std::fflush(stdout);
    rows.push_back(row);
  }
  std::printf("# ratio = vendor time / preduce time (> 1: preduce faster)\n");

  if (!json_path.empty()) {
    std::ofstream out(json_path);
    json_writer j(out);
    j.open('{').field("schema", "preduce-bench-latency/1").field("backend", backend_name());
    j.field("device", device.device).field("driver", device.driver).field("runtime", device.runtime);
    j.field("vendor", device.vendor).field("vendor_version", device.vendor_version);
    j.field("git_revision", PREDUCE_BENCH_GIT_REVISION).field("git_dirty", bool(PREDUCE_BENCH_GIT_DIRTY));
    j.field("date", utc_now()).field("command", command);
    j.field("method", "f32 sum of small integers (exact), checked first; host wall time by std::chrono::steady_clock; sync: each "
                      "call timed, preduce::reduce against the vendor's enqueue + copy to pinned memory + stream wait, interleaved "
                      "in rounds; async: back-to-back calls into device memory and one wait, per call; threads: queues of their "
                      "own, synchronous calls per second in all");
    j.field("calls", per_round * rounds).field("threads", thread_count);
    j.key("rows").open('[');
    for (const latency_row& r : rows) {
      j.open('{').field("n", r.n).field("ok", r.ok);
      for (const auto& [name, s] : {std::pair<const char*, spread>{"sync_preduce_us", r.sync_preduce}, {"sync_vendor_us", r.sync_vendor}})
        j.key(name).open('{').field("p10", s.p10).field("median", s.median).field("p90", s.p90).close('}');
      j.field("async_preduce_us", r.async_preduce).field("async_vendor_us", r.async_vendor);
      j.field("threads_calls_per_s", r.threads_calls_per_s).close('}');
    }
    j.close(']').close('}');
    out << '\n';
    if (!out) throw error(errc::invalid_argument, "preduce-bench: could not write " + json_path);
  }
  return failures;
}

}  // namespace bench
}  // namespace preduce
