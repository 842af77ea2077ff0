// SPDX-License-Identifier: Apache-2.0
// preduce-bench kokkos: the device side of the benchmark on Kokkos's default execution space:
// description, a fence + steady_clock timer, a streaming-read ceiling kernel, and the vendor
// column: plain Kokkos::parallel_reduce over the input with Kokkos's stock reducers (Sum, Min,
// Max, MinMax, MinLoc, MaxLoc, LAnd, LOr), a nested TeamThreadRange reduction per row, column or
// segment, and preduce's init/join adapters only where Kokkos has no reducer (moments, bit_xor).
#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/thread/thread_reduce.hpp>

#include "../baseline.hpp"

namespace preduce {
namespace bench {
namespace kokkos_side {

using backend::exec_space;
using backend::memory_space;
using range = Kokkos::RangePolicy<exec_space, Kokkos::IndexType<std::int64_t>>;
using team_policy = Kokkos::TeamPolicy<exec_space>;
using team_member = team_policy::member_type;

exec_space& instance(const queue& q) { return q.state().exec; }

std::string kokkos_version() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

//! The host CPU's model name from /proc/cpuinfo, or "" where there is none.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// What a Kokkos user would write for each operator: the reducer and the per-element fold of the
// parallel_reduce body. Each `fold` adds element i (a global index) into the thread's value;
// `rebase` turns a global index in the value into the position along its row, column or
// segment (first element `begin`, consecutive elements `step` apart);
// `nested` is the reducer of a team's reduction into a local value; `result` turns the value
// into preduce's result type on the host.
// ---------------------------------------------------------------------------------------------

template <class T>
using compared = detail::compare_t<T>;  // float for half / bfloat16, T otherwise

//! plus, sum_of_squares and dot: Kokkos::Sum in preduce's accumulator type.
template <op_id Id, class T, class A>
struct sum_fold {
  using value_type = A;
  template <class Space> using reducer = Kokkos::Sum<A, Space>;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(A& acc, std::int64_t i) const {
    if constexpr (Id == op_id::plus) {
      acc += detail::convert<A>(x[i]);
    } else if constexpr (Id == op_id::sum_of_squares) {
      const A v = detail::convert<A>(x[i]);
      acc += v * v;
    } else {
      acc += detail::convert<A>(x[i]) * detail::convert<A>(y[i]);
    }
  }
  KOKKOS_INLINE_FUNCTION static void rebase(A&, std::int64_t, std::int64_t) {}
  KOKKOS_INLINE_FUNCTION static auto nested(A& v) { return reducer<Kokkos::HostSpace>(v); }
  static A result(const A& a) { return a; }
};

//! minimum and maximum: Kokkos::Min / Kokkos::Max, compared in float for the 16-bit types.
template <bool IsMax, class T>
struct extreme_fold {
  using V = compared<T>;
  using value_type = V;
  template <class Space> using reducer = std::conditional_t<IsMax, Kokkos::Max<V, Space>, Kokkos::Min<V, Space>>;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(V& acc, std::int64_t i) const {
    const V v = detail::convert<V>(x[i]);
    if (IsMax ? acc < v : v < acc) acc = v;
  }
  KOKKOS_INLINE_FUNCTION static void rebase(V&, std::int64_t, std::int64_t) {}
  KOKKOS_INLINE_FUNCTION static auto nested(V& v) { return reducer<Kokkos::HostSpace>(v); }
  static T result(const V& v) { return T(v); }
};

//! minmax: Kokkos::MinMax.
template <class T>
struct minmax_fold {
  using V = compared<T>;
  using value_type = Kokkos::MinMaxScalar<V>;
  template <class Space> using reducer = Kokkos::MinMax<V, Space>;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(value_type& acc, std::int64_t i) const {
    const V v = detail::convert<V>(x[i]);
    if (v < acc.min_val) acc.min_val = v;
    if (acc.max_val < v) acc.max_val = v;
  }
  KOKKOS_INLINE_FUNCTION static void rebase(value_type&, std::int64_t, std::int64_t) {}
  KOKKOS_INLINE_FUNCTION static auto nested(value_type& v) { return reducer<Kokkos::HostSpace>(v); }
  static minmax_result<T> result(const value_type& s) { return {T(s.min_val), T(s.max_val)}; }
};

//! argmin and argmax: Kokkos::MinLoc / Kokkos::MaxLoc with 64-bit locations. Kokkos does not
//! promise the first location among equal values, so the driver accepts any tied index.
template <bool IsMax, class T>
struct arg_fold {
  using V = compared<T>;
  using value_type = Kokkos::ValLocScalar<V, std::int64_t>;
  template <class Space>
  using reducer = std::conditional_t<IsMax, Kokkos::MaxLoc<V, std::int64_t, Space>, Kokkos::MinLoc<V, std::int64_t, Space>>;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(value_type& acc, std::int64_t i) const {
    const V v = detail::convert<V>(x[i]);
    if (IsMax ? acc.val < v : v < acc.val) {
      acc.val = v;
      acc.loc = i;
    }
  }
  KOKKOS_INLINE_FUNCTION static void rebase(value_type& acc, std::int64_t begin, std::int64_t step) { acc.loc = (acc.loc - begin) / step; }
  KOKKOS_INLINE_FUNCTION static auto nested(value_type& v) { return reducer<Kokkos::HostSpace>(v); }
  static arg<T> result(const value_type& s) { return {T(s.val), static_cast<std::uint64_t>(s.loc)}; }
};

//! logical_and and logical_or: Kokkos::LAnd / Kokkos::LOr over int.
template <bool IsAnd, class T>
struct logical_fold {
  using V = compared<T>;
  using value_type = int;
  template <class Space> using reducer = std::conditional_t<IsAnd, Kokkos::LAnd<int, Space>, Kokkos::LOr<int, Space>>;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(int& acc, std::int64_t i) const {
    const int nonzero = detail::convert<V>(x[i]) != V(0);
    acc = IsAnd ? (acc && nonzero) : (acc || nonzero);
  }
  KOKKOS_INLINE_FUNCTION static void rebase(int&, std::int64_t, std::int64_t) {}
  KOKKOS_INLINE_FUNCTION static auto nested(int& v) { return reducer<Kokkos::HostSpace>(v); }
  static bool result(int v) { return v != 0; }
};

//! moments and bit_xor, which have no Kokkos reducer: preduce's reducer arithmetic, joined by
//! the backend's init/join adapters (backend/thread/thread_reduce.hpp).
template <class Red, class T>
struct custom_fold {
  using value_type = typename Red::acc_type;
  const T* x;
  const T* y;
  KOKKOS_INLINE_FUNCTION void fold(value_type& acc, std::int64_t i) const { acc = Red::combine(acc, Red::lift(x[i], 0)); }
  KOKKOS_INLINE_FUNCTION static void rebase(value_type&, std::int64_t, std::int64_t) {}
  KOKKOS_INLINE_FUNCTION static auto nested(value_type& v) { return backend::kokkos_reducer<Red>(Red{}, v); }
  static typename Red::result_type result(const value_type& a) { return Red::finalize(a); }
};

template <class Op, class T>
auto fold_of() {
  constexpr op_id id = Op::id;
  if constexpr (id == op_id::plus || id == op_id::sum_of_squares || id == op_id::dot)
    return sum_fold<id, T, result_of<Op, T>>{};
  else if constexpr (id == op_id::minimum || id == op_id::maximum) return extreme_fold<id == op_id::maximum, T>{};
  else if constexpr (id == op_id::minmax) return minmax_fold<T>{};
  else if constexpr (id == op_id::argmin || id == op_id::argmax) return arg_fold<id == op_id::argmax, T>{};
  else if constexpr (id == op_id::logical_and || id == op_id::logical_or) return logical_fold<id == op_id::logical_and, T>{};
  else return custom_fold<detail::reducer_for<Op, T>, T>{};
}

template <class F, class = void> struct has_reducer : std::false_type {};
template <class F> struct has_reducer<F, std::void_t<typename F::template reducer<memory_space>>> : std::true_type {};

//! The parallel_reduce body over a whole array. Requires: F's x (and y) readable for every index
//! of the range. Each index folds its element into the thread's value.
template <class F>
struct whole_body {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, typename F::value_type& acc) const { f.fold(acc, i); }
};

//! whole_body with Kokkos's functor init/join members, for the folds without a Kokkos reducer.
template <class Red, class F>
struct whole_custom_body : backend::reduction_members<Red, false> {
  F f;
  explicit whole_custom_body(const F& fold) : backend::reduction_members<Red, false>(Red{}), f(fold) {}
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, typename F::value_type& acc) const { f.fold(acc, i); }
};

//! Team r reduces row r ([r * cols, r * cols + cols)), column r (r, r + cols, ..., rows of
//! them) or segment r ([offsets[r], offsets[r + 1])): the nested TeamThreadRange reduction a
//! Kokkos user writes for a reduction per line. Requires: a league of one team per result; F's
//! x (and y) readable over every line. Writes: out[r], the line's value, with arg locations
//! counted along the line.
template <class F>
struct team_body {
  using value_type = typename F::value_type;
  F f;
  const std::int64_t* offsets;  // segments; else null
  bool columns;
  std::int64_t rows, cols;
  value_type* out;
  KOKKOS_INLINE_FUNCTION void operator()(const team_member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t begin = offsets ? offsets[r] : columns ? r : r * cols;
    const std::int64_t length = offsets ? offsets[r + 1] - begin : columns ? rows : cols;
    const std::int64_t step = columns ? cols : 1;
    value_type v;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, std::int64_t(0), length),
                            [&](std::int64_t k, value_type& acc) { f.fold(acc, begin + k * step); }, F::nested(v));
    F::rebase(v, begin, step);
    Kokkos::single(Kokkos::PerTeam(team), [&] { out[r] = v; });
  }
};

//! A Kokkos vendor reduction: the folds' values, one per result, in a View it owns, read back
//! as R through F::result. Launch(exec, x, y, out) enqueues one reduction.
template <class R, class F, class Launch>
class kokkos_reduction final : public vendor_reduction {
 public:
  kokkos_reduction(const exec_space& exec, std::size_t results, Launch launch)
      : exec_(exec), out_("preduce-bench vendor result", results), launch_(std::move(launch)) {}
  void enqueue(const void* x, const void* y) override { launch_(exec_, x, y, out_.data()); }
  void copy_results(void* host) override {
    exec_.fence();
    const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out_);
    R* results = static_cast<R*>(host);
    for (std::size_t i = 0; i < values.extent(0); ++i) results[i] = F::result(values(i));
  }
  void reduce_to_host(const void* x, const void* y, void* host) override {
    enqueue(x, y);
    copy_results(host);
  }

 private:
  exec_space exec_;
  Kokkos::View<typename F::value_type*, memory_space> out_;
  Launch launch_;
};

template <class R, class F, class Launch>
vendor_plan make_kokkos(const queue& q, std::size_t results, Launch launch) {
  return {std::make_unique<kokkos_reduction<R, F, Launch>>(instance(q), results, std::move(launch)), {}};
}

template <class Op, class T>
vendor_plan vendor(const queue& q, const case_spec& c) {
  using R = result_of<Op, T>;
  using F = decltype(fold_of<Op, T>());
  using value_type = typename F::value_type;
  const auto n = static_cast<std::int64_t>(c.n);
  if (c.layout == shape::whole) {
    return make_kokkos<R, F>(q, 1, [n](const exec_space& exec, const void* x, const void* y, value_type* out) {
      const F f{static_cast<const T*>(x), static_cast<const T*>(y)};
      const backend::device_scalar<value_type> result(out);
      if constexpr (has_reducer<F>::value) {
        Kokkos::parallel_reduce("preduce-bench kokkos whole", range(exec, 0, n), whole_body<F>{f},
                                typename F::template reducer<memory_space>(result));
      } else {
        using Red = detail::reducer_for<Op, T>;
        Kokkos::parallel_reduce("preduce-bench kokkos whole", range(exec, 0, n), whole_custom_body<Red, F>(f), result);
      }
    });
  }
  const std::int64_t* offsets = c.layout == shape::segments ? c.offsets : nullptr;
  const bool columns = c.layout == shape::columns;
  const auto rows = static_cast<std::int64_t>(c.rows), cols = static_cast<std::int64_t>(c.cols);
  const auto league = static_cast<int>(c.results());
  return make_kokkos<R, F>(q, c.results(), [=](const exec_space& exec, const void* x, const void* y, value_type* out) {
    const F f{static_cast<const T*>(x), static_cast<const T*>(y)};
    Kokkos::parallel_for("preduce-bench kokkos batched", team_policy(exec, league, Kokkos::AUTO),
                         team_body<F>{f, offsets, columns, rows, cols, out});
  });
}

//! 16 bytes, read as one load where the target has 16-byte loads.
struct alignas(16) word {
  std::uint64_t lo, hi;
};

//! The read-bandwidth ceiling: reads every word of `words` once, nothing else.
//! Requires: `count` = 4 * iterations words. Iteration i reads 4 words (contiguous on CPUs, a
//! cache line; strided by `iterations` on GPUs, so neighbouring threads read neighbouring
//! words) and adds their xor into the thread's value, which the caller reads back.
struct stream_read_body {
  const word* words;
  std::int64_t iterations;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::uint64_t& acc) const {
    const std::int64_t first = backend::host_shapes ? 4 * i : i;
    const std::int64_t step = backend::host_shapes ? 1 : iterations;
    const word a = words[first], b = words[first + step], c = words[first + 2 * step], d = words[first + 3 * step];
    acc += (a.lo ^ a.hi) + (b.lo ^ b.hi) + (c.lo ^ c.hi) + (d.lo ^ d.hi);
  }
};

//! Fills the ceiling buffer with a non-zero pattern. Requires: one index per word.
struct fill_words {
  word* words;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { words[i] = {std::uint64_t(i) * 0x9e3779b97f4a7c15ull, ~std::uint64_t(i)}; }
};

}  // namespace kokkos_side

device_report describe_device(const queue& q) {
  device_report d;
  d.device = device_description(q.device());
  d.runtime = "Kokkos " + kokkos_side::kokkos_version() + " (" + kokkos_side::exec_space::name() + ")";
  d.vendor = "Kokkos parallel_reduce";
  d.vendor_version = kokkos_side::kokkos_version();
  d.host = Kokkos::SpaceAccessibility<kokkos_side::exec_space, Kokkos::HostSpace>::accessible;
  if (d.host) {
    const std::string cpu = kokkos_side::cpu_model();
    if (!cpu.empty()) d.device += " on " + cpu;
    d.driver = "n/a";
    d.memory_bytes = std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGESIZE));
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    d.cache_bytes = std::size_t(l3 > 0 ? l3 : l2 > 0 ? l2 : 0);
  } else {
    // Kokkos 3.4 has no portable query of a GPU's memory or cache: assume a small GPU's, which
    // only makes the driver cap sizes and rotate buffers more than it needs to.
    d.driver = "unknown (Kokkos does not report it)";
    d.memory_bytes = std::size_t(16) << 30;
    d.cache_bytes = std::size_t(64) << 20;
  }
  return d;
}

bool select_timer(const std::string& name) { return name == "host"; }
const char* timer_names() { return "host"; }

const char* timer_method() {
  return "steady_clock between fences of the queue's execution space instance after each call "
         "(host-side launch overhead included)";
}

std::vector<double> time_calls(const queue& q, int count, const std::function<void(int)>& call) {
  using clock = std::chrono::steady_clock;
  kokkos_side::exec_space& exec = kokkos_side::instance(q);
  std::vector<double> ms;
  ms.reserve(count);
  exec.fence();
  auto last = clock::now();
  for (int i = 0; i < count; ++i) {
    call(i);
    exec.fence();
    const auto now = clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  }
  return ms;
}

ceiling_run run_read_ceiling(const queue& q, std::size_t bytes, int reps) {
  using namespace kokkos_side;
  const auto iterations = static_cast<std::int64_t>(bytes / (4 * sizeof(word)));
  Kokkos::View<word*, memory_space> words(Kokkos::view_alloc(Kokkos::WithoutInitializing, "preduce-bench ceiling"), 4 * iterations);
  Kokkos::View<std::uint64_t, memory_space> sum("preduce-bench ceiling sum");
  exec_space& exec = instance(q);
  Kokkos::parallel_for("preduce-bench fill", range(exec, 0, 4 * iterations), fill_words{words.data()});
  auto pass = [&](int) {
    Kokkos::parallel_reduce("preduce-bench read ceiling", range(exec, 0, iterations), stream_read_body{words.data(), iterations}, sum);
  };
  time_calls(q, 2, pass);  // warm-up
  ceiling_run c;
  c.bytes = std::size_t(4 * iterations) * sizeof(word);
  c.ms = time_calls(q, reps, pass);
  c.method = "read-only streaming Kokkos::parallel_reduce: 4 x 16-byte words per iteration, " +
             std::string(backend::host_shapes ? "contiguous (one cache line)" : "strided across threads") +
             ", sum of their xors written to device memory";
  return c;
}

vendor_plan make_vendor(const queue& q, const case_spec& c) {
  vendor_plan plan;
  visit_case(c.op, c.type, [&](auto op, auto t) { plan = kokkos_side::vendor<decltype(op), typename decltype(t)::type>(q, c); });
  return plan;
}

}  // namespace bench
}  // namespace preduce
