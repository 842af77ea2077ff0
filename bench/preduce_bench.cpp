// SPDX-License-Identifier: Apache-2.0
// preduce-bench: the project's main program. For each case (operator, type, shape, size) it
// makes random data, runs preduce and the backend's vendor library (CUB, rocPRIM or plain
// Kokkos::parallel_reduce) on the same device buffers, checks both against the host reference,
// times both (warm-up, then the median of many device-timed calls over rotated input copies),
// and reports time, bandwidth (minimum traffic) and the share of the read ceiling measured in
// the same run. Portable: everything backend-specific is behind baseline.hpp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <preduce/preduce.hpp>

#include "baseline.hpp"
#include "cases.hpp"
#include "check.hpp"
#include "data.hpp"
#include "latency.hpp"
#include "report.hpp"

namespace preduce {
namespace bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

//! Row lengths (rows) and column lengths (columns) of the batched shapes.
constexpr std::size_t batched_lengths[] = {32, 256, 4096, 262144};

struct settings {
  bool quick = false;
  bool batched = false;  //!< the batched preset (see --batched)
  bool latency = false;  //!< the host-latency mode (see --latency)
  int log2_min = 10, log2_max = 30, log2_step = 1;
  bool sizes_given = false;
  std::vector<op_id> ops;
  std::vector<dtype> types;
  std::vector<shape> shapes;
  std::vector<std::size_t> lengths;  //!< row / column lengths (empty: batched_lengths)
  options opt;
  int reps = 0;  //!< 0: 50, or 20 with --quick
  std::string json;
  std::string command;
};

const char* usage =
    "usage: preduce-bench [options]\n"
    "  Times preduce against the backend's vendor library (CUB / rocPRIM / Kokkos parallel_reduce)\n"
    "  on the same buffers, checks both against the host reference, prints a table and exits\n"
    "  non-zero if any check fails.\n"
    "  --quick            a short matrix (well under a minute): f32/i32/bf16 plus, f32 argmax,\n"
    "                     moments and dot at 2^10, 2^16, 2^20, 2^24 (host CPUs: 2^22), and f32 plus\n"
    "                     over rows, columns and segments at 2^20\n"
    "  --batched          the batched matrix of the rows/columns/segments issue: f32 plus and\n"
    "                     argmax over rows and columns of length 32, 256, 4096 and 262144 and\n"
    "                     heavy-tailed segments, 2^28 elements (--types/--ops/--shapes/--sizes\n"
    "                     given as well replace the preset's)\n"
    "  --latency          host time of a call instead: f32 sums of 1, 2^10, 2^16, 2^20 elements,\n"
    "                     synchronous (median of 5000; 1000 with --quick), back-to-back\n"
    "                     asynchronous, and 8 threads on queues of their own (latency.hpp)\n"
    "  (default)          the full matrix: every type x operator x shape at every size\n"
    "  --sizes A:B[:S]    log2 sizes from A to B in steps of S (default 10:30:1; capped by memory)\n"
    "  --ops LIST         comma-separated: plus,sum_of_squares,dot,moments,minimum,maximum,minmax,\n"
    "                     argmin,argmax,logical_and,logical_or,bit_xor\n"
    "  --types LIST       comma-separated: f32,f64,i32,bf16,f16,i8\n"
    "  --shapes LIST      comma-separated: whole,rows,columns,segments (rows/columns of length\n"
    "                     32, 256, 4096, 262144: at 2^28, rows 8388608 x 32, 1048576 x 256, 65536 x\n"
    "                     4096, 2048 x 262144 and columns the same transposed; segments heavy-\n"
    "                     tailed: at 2^28 one of 2^26, eight of 10^5..10^7, the rest 0..64)\n"
    "  --lengths LIST     comma-separated row / column lengths for rows and columns (default\n"
    "                     32,256,4096,262144), e.g. --lengths 768,50257 for your own shapes\n"
    "  --algo A           preduce::options::algo: automatic (default), single_pass, two_pass, atomic\n"
    "  --warp W           preduce::options::warp: automatic (default), shuffle, fused_shuffle, hardware\n"
    "  --det D            preduce::options::det: run_to_run (default), fast, reproducible (floating\n"
    "                     sums, dots and moments binned; sums and dots checked against its error bound)\n"
    "  --timer T          how calls are timed: the backend's timers, default first (cuda: graph,\n"
    "                     events; hip: events; kokkos: host); see bench/README.md\n"
    "  --reps N           timed calls per column (default 50, 20 with --quick; fewer for calls\n"
    "                     over 20 ms, at least 10)\n"
    "  --json FILE        also write every figure, the device and the ceiling to FILE\n"
    "  --help             this text\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "preduce-bench: %s\n%s", what.c_str(), usage);
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    if (comma > start) parts.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 0; i < argc; ++i) s.command += (i ? " " : "") + std::string(argv[i]);
  auto next = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (a == "--quick") {
      s.quick = true;
    } else if (a == "--batched") {
      s.batched = true;
    } else if (a == "--latency") {
      s.latency = true;
    } else if (a == "--sizes") {
      const std::string v = next(i);
      int step = 1;
      const int fields = std::sscanf(v.c_str(), "%d:%d:%d", &s.log2_min, &s.log2_max, &step);
      if (fields < 2 || s.log2_min < 0 || s.log2_max > 40 || s.log2_min > s.log2_max || step < 1)
        usage_error("--sizes wants A:B or A:B:S with 0 <= A <= B <= 40, S >= 1");
      s.log2_step = step;
      s.sizes_given = true;
    } else if (a == "--ops") {
      for (const std::string& name : split(next(i))) {
        const auto k = std::find_if(std::begin(known_ops), std::end(known_ops), [&](const named_op& o) { return name == o.name; });
        if (k == std::end(known_ops)) usage_error("unknown operator '" + name + "'");
        s.ops.push_back(k->id);
      }
    } else if (a == "--types") {
      for (const std::string& name : split(next(i))) {
        const auto k = std::find_if(std::begin(known_types), std::end(known_types), [&](dtype t) { return name == detail::dtype_name(t); });
        if (k == std::end(known_types)) usage_error("unknown type '" + name + "'");
        s.types.push_back(*k);
      }
    } else if (a == "--shapes") {
      for (const std::string& name : split(next(i))) {
        bool found = false;
        for (shape sh : {shape::whole, shape::rows, shape::columns, shape::segments}) {
          if (name == shape_name(sh)) {
            s.shapes.push_back(sh);
            found = true;
          }
        }
        if (!found) usage_error("unknown shape '" + name + "'");
      }
    } else if (a == "--lengths") {
      for (const std::string& v : split(next(i))) {
        char* end = nullptr;
        const unsigned long long len = std::strtoull(v.c_str(), &end, 10);
        if (end == v.c_str() || *end != '\0' || len == 0) usage_error("--lengths wants positive whole numbers, got '" + v + "'");
        s.lengths.push_back(std::size_t(len));
      }
    } else if (a == "--algo") {
      const std::string v = next(i);
      if (v == "automatic") s.opt.algo = algorithm::automatic;
      else if (v == "two_pass") s.opt.algo = algorithm::two_pass;
      else if (v == "single_pass") s.opt.algo = algorithm::single_pass;
      else if (v == "atomic") s.opt.algo = algorithm::atomic;
      else usage_error("--algo wants automatic, single_pass, two_pass or atomic");
    } else if (a == "--warp") {
      const std::string v = next(i);
      if (v == "automatic") s.opt.warp = preduce::warp_algorithm::automatic;
      else if (v == "shuffle") s.opt.warp = preduce::warp_algorithm::shuffle;
      else if (v == "fused_shuffle") s.opt.warp = preduce::warp_algorithm::fused_shuffle;
      else if (v == "hardware") s.opt.warp = preduce::warp_algorithm::hardware;
      else usage_error("--warp wants automatic, shuffle, fused_shuffle or hardware");
    } else if (a == "--det") {
      const std::string v = next(i);
      if (v == "run_to_run") s.opt.det = determinism::run_to_run;
      else if (v == "fast") s.opt.det = determinism::fast;
      else if (v == "reproducible") s.opt.det = determinism::reproducible;
      else usage_error("--det wants run_to_run, fast or reproducible");
    } else if (a == "--timer") {
      const std::string v = next(i);
      if (!select_timer(v)) usage_error("--timer wants one of " + std::string(timer_names()));
    } else if (a == "--reps") {
      s.reps = std::atoi(next(i).c_str());
      if (s.reps < 1) usage_error("--reps wants a positive count");
    } else if (a == "--json") {
      s.json = next(i);
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (s.batched) {
    if (s.quick) usage_error("--batched and --quick are two different presets");
    if (s.types.empty()) s.types = {dtype::f32};
    if (s.ops.empty()) s.ops = {op_id::plus, op_id::argmax};
    if (s.shapes.empty()) s.shapes = {shape::rows, shape::columns, shape::segments};
    if (!s.sizes_given) s.log2_min = s.log2_max = 28, s.sizes_given = true;
  }
  if (s.reps == 0) s.reps = s.quick ? 20 : 50;
  return s;
}

const char* algo_name(algorithm a) {
  switch (a) {
    case algorithm::automatic: return "automatic";
    case algorithm::two_pass: return "two_pass";
    case algorithm::single_pass: return "single_pass";
    case algorithm::atomic: return "atomic";
  }
  return "?";
}
const char* warp_name(preduce::warp_algorithm w) {
  switch (w) {
    case preduce::warp_algorithm::automatic: return "automatic";
    case preduce::warp_algorithm::shuffle: return "shuffle";
    case preduce::warp_algorithm::fused_shuffle: return "fused_shuffle";
    case preduce::warp_algorithm::hardware: return "hardware";
  }
  return "?";
}
const char* det_name(determinism d) {
  switch (d) {
    case determinism::run_to_run: return "run_to_run";
    case determinism::fast: return "fast";
    case determinism::reproducible: return "reproducible";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// The matrix
// ---------------------------------------------------------------------------------------------

struct planned {
  op_id op;
  dtype type;
  shape layout;
  std::size_t len;  //!< rows: row length; columns: column length; 0 otherwise
  int log2_n;
};

template <class V>
bool wanted(const std::vector<V>& filter, V v) {
  return filter.empty() || std::find(filter.begin(), filter.end(), v) != filter.end();
}

bool defined_pair(op_id op, dtype type) {
  return visit_case(op, type, [](auto, auto) {});
}

std::vector<planned> plan(const settings& s, bool host) {
  std::vector<planned> all;
  if (s.quick) {
    const int biggest = host ? 22 : 24;
    const std::pair<op_id, dtype> whole[] = {{op_id::plus, dtype::f32},   {op_id::plus, dtype::i32},    {op_id::argmax, dtype::f32},
                                             {op_id::plus, dtype::bf16},  {op_id::moments, dtype::f32}, {op_id::dot, dtype::f32}};
    for (int k : {10, 16, 20, biggest})
      for (const auto& [op, type] : whole) all.push_back({op, type, shape::whole, 0, k});
    for (std::size_t len : {std::size_t(32), std::size_t(4096)}) all.push_back({op_id::plus, dtype::f32, shape::rows, len, 20});
    for (std::size_t len : {std::size_t(32), std::size_t(4096)}) all.push_back({op_id::plus, dtype::f32, shape::columns, len, 20});
    all.push_back({op_id::plus, dtype::f32, shape::segments, 0, 20});
  } else {
    for (int k = s.log2_min; k <= s.log2_max; k += s.log2_step) {
      for (dtype type : known_types) {
        for (shape layout : {shape::whole, shape::rows, shape::columns, shape::segments}) {
          std::vector<std::size_t> lens{0};
          if (layout == shape::rows || layout == shape::columns) {
            if (s.lengths.empty()) lens.assign(std::begin(batched_lengths), std::end(batched_lengths));
            else lens = s.lengths;
          }
          for (std::size_t len : lens) {
            if (len > (std::size_t(1) << k)) continue;
            for (const named_op& o : known_ops) all.push_back({o.id, type, layout, len, k});
          }
        }
      }
    }
  }
  std::vector<planned> kept;
  for (const planned& p : all) {
    const bool in_sizes = !s.sizes_given || (p.log2_n >= s.log2_min && p.log2_n <= s.log2_max && (p.log2_n - s.log2_min) % s.log2_step == 0);
    if (in_sizes && wanted(s.ops, p.op) && wanted(s.types, p.type) && wanted(s.shapes, p.layout) && defined_pair(p.op, p.type))
      kept.push_back(p);
  }
  // Grouped by size, then type, so each (size, type) draws and uploads its data once.
  std::stable_sort(kept.begin(), kept.end(), [](const planned& a, const planned& b) {
    if (a.log2_n != b.log2_n) return a.log2_n < b.log2_n;
    const auto rank = [](dtype t) { return std::find(std::begin(known_types), std::end(known_types), t) - std::begin(known_types); };
    return rank(a.type) < rank(b.type);
  });
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------------

//! What every case of one run shares.
struct context {
  settings s;
  queue q;
  device_report device;
  double ceiling_gb_per_s = 0;
  std::size_t budget = 0;  //!< device bytes the inputs of one (size, type) group may take
  std::vector<row> rows;
  std::size_t done = 0, total = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

//! Times call(i) (i indexes the input copy): warm-up, then the median of the timed calls. The
//! timed calls of a column take about a second at most (but are at least 10), so big sizes on
//! slow devices finish.
void measure(context& ctx, column& col, std::size_t bytes, const std::function<void(int)>& call) {
  const std::vector<double> warm = time_calls(ctx.q, ctx.s.quick ? 3 : 5, call);
  const double warm_ms = *std::min_element(warm.begin(), warm.end());
  const int reps = std::max(std::min(ctx.s.reps, int(1000.0 / std::max(warm_ms, 1e-6))), std::min(ctx.s.reps, 10));
  const std::vector<double> ms = time_calls(ctx.q, reps, call);
  col.ran = true;
  col.reps = reps;
  col.median_us = 1e3 * median(ms);
  col.min_us = 1e3 * *std::min_element(ms.begin(), ms.end());
  col.gb_per_s = double(bytes) / (col.median_us * 1e-6) / 1e9;
  col.percent_of_ceiling = 100.0 * col.gb_per_s / ctx.ceiling_gb_per_s;
}

//! Runs `body` for a column, turning an exception into an ERROR status.
template <class F>
void guarded(column& col, F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    col.ran = false;
    col.error = true;
    col.unavailable = e.what();
  }
}

//! The inputs of one (size, type) group: host data, and its device copies for rotation.
template <class T>
struct inputs {
  std::vector<T> x, y;  // y: dot's second input, when a dot case is in the group
  std::vector<device_buffer<T>> dx, dy;
};

//! Enqueues preduce's reduction of case c over x (and y) into out.
template <class Op, class T, class R>
void enqueue_preduce(const queue& q, const case_spec& c, const T* x, const T* y, R* out, options o) {
  Op op{};
  if constexpr (Op::id == op_id::dot) op.y = y;
  switch (c.layout) {
    case shape::whole: return reduce_async(q, x, c.n, out, op, o);
    case shape::rows: return reduce_rows(q, x, c.rows, c.cols, out, op, o);
    case shape::columns: return reduce_columns(q, x, c.rows, c.cols, out, op, o);
    case shape::segments: return reduce_segments(q, x, c.n, c.offsets, c.segments, out, op, o);
  }
}

template <class Op, class T>
void run_case(context& ctx, row& r, const case_spec& c, const inputs<T>& in, const std::vector<std::int64_t>& offsets) {
  using R = result_of<Op, T>;
  const int copies = static_cast<int>(in.dx.size());
  auto x_of = [&](int i) { return in.dx[std::size_t(i % copies)].data(); };
  auto y_of = [&](int i) -> const T* { return in.dy.empty() ? nullptr : in.dy[std::size_t(i % copies)].data(); };
  std::unique_ptr<R[]> got(new R[c.results()]);

  guarded(r.preduce, [&] {
    device_buffer<R> out(ctx.q, c.results());
    auto call = [&](int i) { enqueue_preduce<Op>(ctx.q, c, x_of(i), y_of(i), out.data(), ctx.s.opt); };
    call(0);
    ctx.q.synchronize();
    copy_to_host(ctx.q, got.get(), out.data(), c.results());
    r.preduce.check = check_results<Op, T>(c, got.get(), in.x, in.y, offsets, origin::preduce, ctx.s.opt.det);
    measure(ctx, r.preduce, r.bytes, call);
  });

  guarded(r.vendor, [&] {
    vendor_plan v = make_vendor(ctx.q, c);
    if (!v.run) {
      r.vendor.unavailable = v.unavailable;
      return;
    }
    auto call = [&](int i) { v.run->enqueue(x_of(i), y_of(i)); };
    call(0);
    v.run->copy_results(got.get());
    r.vendor.check = check_results<Op, T>(c, got.get(), in.x, in.y, offsets, origin::vendor, determinism::run_to_run);
    measure(ctx, r.vendor, r.bytes, call);
  });
}

std::string case_name(const context& ctx, const planned& p) {
  std::string name = std::string("{lvl:device,algo:reduce,backend:") + backend_name() + ",op:" + op_name(p.op) +
                     ",type:" + detail::dtype_name(p.type) + ",shape:" + shape_name(p.layout);
  if (p.len) name += ",len:" + std::to_string(p.len);
  name += ",n:2^" + std::to_string(p.log2_n);
  const options defaults{};
  if (ctx.s.opt.algo != defaults.algo || ctx.s.opt.warp != defaults.warp || ctx.s.opt.det != defaults.det)
    name += std::string(",cfg:") + algo_name(ctx.s.opt.algo) + "/" + warp_name(ctx.s.opt.warp) + "/" + det_name(ctx.s.opt.det);
  return name + "}";
}

//! Runs every planned case of one (size, type) group: draws the data once, uploads the copies
//! once, and runs the group's cases on them.
template <class T>
void run_group(context& ctx, const std::vector<planned>& group, const std::vector<std::int64_t>& offsets,
               const device_buffer<std::int64_t>& d_offsets) {
  const int log2_n = group.front().log2_n;
  const dtype type = group.front().type;
  const std::size_t n = std::size_t(1) << log2_n;
  const bool has_dot = std::any_of(group.begin(), group.end(), [](const planned& p) { return p.op == op_id::dot; });
  const std::size_t copy_bytes = n * sizeof(T) * (has_dot ? 2 : 1);

  auto skip = [&](const std::string& why) {
    for (const planned& p : group) {
      ++ctx.done;
      std::fprintf(stderr, "[%zu/%zu] %s %s %s 2^%d: skipped (%s)\n", ctx.done, ctx.total, op_name(p.op), detail::dtype_name(type),
                   shape_name(p.layout), log2_n, why.c_str());
    }
  };
  if (copy_bytes > ctx.budget) return skip("inputs need more than the memory budget");

  // Rotate among enough copies that consecutive calls find the input out of cache: at least
  // twice the cache in total where 64 copies and the budget allow; big inputs use one copy.
  const std::size_t cache = std::max<std::size_t>(ctx.device.cache_bytes, 1);
  std::size_t copies = copy_bytes >= 2 * cache ? 1 : std::min<std::size_t>(64, (2 * cache + copy_bytes - 1) / copy_bytes);
  copies = std::max<std::size_t>(1, std::min(copies, ctx.budget / copy_bytes));

  inputs<T> in;
  const std::uint64_t seed = (std::uint64_t(log2_n) << 8) | std::uint64_t(type);
  in.x = random_values<T>(n, seed);
  if (has_dot) in.y = random_values<T>(n, ~seed);
  for (std::size_t k = 0; k < copies; ++k) {
    in.dx.emplace_back(ctx.q, in.x);
    if (has_dot) in.dy.emplace_back(ctx.q, in.y);
  }

  for (const planned& p : group) {
    ++ctx.done;
    std::fprintf(stderr, "[%zu/%zu] %s %s %s%s 2^%d\n", ctx.done, ctx.total, op_name(p.op), detail::dtype_name(type), shape_name(p.layout),
                 p.len ? (" " + std::to_string(p.len)).c_str() : "", log2_n);
    case_spec c{p.op, type, p.layout, n, 0, 0, 0, nullptr};
    if (p.layout == shape::rows) c.rows = n / p.len, c.cols = p.len;
    if (p.layout == shape::columns) c.rows = p.len, c.cols = n / p.len;
    if (p.layout == shape::segments) c.segments = offsets.size() - 1, c.offsets = d_offsets.data();

    row r;
    r.name = case_name(ctx, p);
    r.op = op_name(p.op);
    r.type = detail::dtype_name(type);
    r.layout = shape_name(p.layout);
    r.len = p.len;
    r.n = n;
    r.log2_n = log2_n;
    r.results = c.results();
    r.segments = c.segments;
    visit_op<T>(p.op, [&](auto op) {
      using Op = decltype(op);
      const std::size_t inputs_read = p.op == op_id::dot ? 2 : 1;
      // Rows and columns of a length that does not divide n read rows * cols < n elements.
      const std::size_t elements = p.layout == shape::rows || p.layout == shape::columns ? c.rows * c.cols : n;
      r.bytes = inputs_read * elements * sizeof(T) + r.results * sizeof(result_of<Op, T>) +
                (p.layout == shape::segments ? offsets.size() * sizeof(std::int64_t) : 0);
      r.copies = static_cast<int>(copies);
      r.working_set = copies * inputs_read * n * sizeof(T);
      run_case<Op, T>(ctx, r, c, in, offsets);
    });
    print_table_row(stdout, r);
    std::fflush(stdout);
    ctx.rows.push_back(std::move(r));
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

void write_json(const context& ctx, const ceiling_run& ceiling, const std::string& path) {
  std::ofstream out(path);
  json_writer j(out);
  j.open('{').field("schema", "preduce-bench/1").field("backend", backend_name());
  j.field("device", ctx.device.device).field("driver", ctx.device.driver).field("runtime", ctx.device.runtime);
  j.field("vendor", ctx.device.vendor).field("vendor_version", ctx.device.vendor_version);
  j.field("git_revision", PREDUCE_BENCH_GIT_REVISION).field("git_dirty", bool(PREDUCE_BENCH_GIT_DIRTY));
  j.field("date", utc_now()).field("command", ctx.s.command);
  j.key("options").open('{').field("algo", algo_name(ctx.s.opt.algo)).field("warp", warp_name(ctx.s.opt.warp)).field("det", det_name(ctx.s.opt.det)).field("reps", ctx.s.reps);
  j.field("quick", ctx.s.quick).close('}');
  j.key("ceiling").open('{').field("gb_per_s", ctx.ceiling_gb_per_s).field("kind", "measured (not datasheet)");
  j.field("method", ceiling.method).field("bytes", ceiling.bytes).field("passes", int(ceiling.ms.size())).close('}');
  j.field("cache_bytes", ctx.device.cache_bytes).field("memory_bytes", ctx.device.memory_bytes);
  j.field("timer", timer_method());
  j.field("bytes_counted", "minimum traffic: each input element (and segment offset) read once, each result written once; "
                           "GB = 1e9 bytes");
  j.field("buffers", "inputs rotate among `copies` identical device copies, enough that copies x input bytes >= 2 x cache "
                     "(at most 64 copies, within the memory budget); inputs of 2 x cache or more use one copy; "
                     "segment offsets are one copy");
  j.field("checks", "each column's first call is checked against preduce::reference (host): exact for integer, comparison "
                    "and logical results, within the reference's worst-case bound for floating sums and moments (ok* = a "
                    "bound was infinite, so only NaN could fail; under det reproducible, preduce's floating sums and dots "
                    "within reproducible.hpp's bound ulp/2 + n 2^-78 max|term|); vendor columns may return any index among "
                    "equal extremes (tie) and are not checked on empty segments");
  j.key("rows").open('[');
  for (const row& r : ctx.rows) write_row(j, r);
  j.close(']').close('}');
  out << '\n';
  if (!out) throw error(errc::invalid_argument, "preduce-bench: could not write " + path);
}

int run(int argc, char** argv) {
  context ctx{parse(argc, argv), queue{0}, {}, 0, 0, {}, 0, 0};
  ctx.device = describe_device(ctx.q);
  std::fprintf(stderr, "preduce-bench: %s backend on %s\n", backend_name(), ctx.device.device.c_str());
  if (ctx.s.latency) {
    const int failures = run_latency(ctx.q, ctx.device, ctx.s.quick ? 1000 : 5000, ctx.s.json, ctx.s.command);
    std::fprintf(stderr, "preduce-bench: --latency, %d failed checks\n", failures);
    return failures ? 1 : 0;
  }

  // The ceiling: a buffer of 8 x the cache, at least 256 MiB, at most 1/8 of memory.
  const std::size_t ceiling_bytes =
      std::min(std::max<std::size_t>(8 * ctx.device.cache_bytes, std::size_t(256) << 20), ctx.device.memory_bytes / 8);
  const ceiling_run ceiling = run_read_ceiling(ctx.q, ceiling_bytes, ctx.s.quick ? 10 : 30);
  ctx.ceiling_gb_per_s = double(ceiling.bytes) / (median(ceiling.ms) * 1e-3) / 1e9;
  // Host devices share memory with the host data and the reference: leave them more room.
  ctx.budget = ctx.device.memory_bytes / (ctx.device.host ? 6 : 3);

  std::printf("# preduce-bench  backend %s  device %s\n", backend_name(), ctx.device.device.c_str());
  std::printf("# %s, %s; vendor %s %s; git %s%s\n", ctx.device.driver.c_str(), ctx.device.runtime.c_str(), ctx.device.vendor.c_str(),
              ctx.device.vendor_version.c_str(), PREDUCE_BENCH_GIT_REVISION, PREDUCE_BENCH_GIT_DIRTY ? "-dirty" : "");
  std::printf("# read ceiling %.1f GB/s measured (%s, %zu MiB); %%ceil is of it\n", ctx.ceiling_gb_per_s, ceiling.method.c_str(),
              ceiling.bytes >> 20);
  std::printf("# vendor = %s; speedup = vendor time / preduce time (> 1: preduce faster); GB/s of minimum traffic, 1 GB = 1e9 B\n",
              ctx.device.vendor.c_str());
  print_table_header(stdout);

  const std::vector<planned> cases = plan(ctx.s, ctx.device.host);
  ctx.total = cases.size();
  std::vector<std::int64_t> offsets;
  device_buffer<std::int64_t> d_offsets;
  int offsets_log2 = -1;
  for (std::size_t first = 0; first < cases.size();) {
    std::size_t last = first;
    while (last < cases.size() && cases[last].log2_n == cases[first].log2_n && cases[last].type == cases[first].type) ++last;
    const std::vector<planned> group(cases.begin() + first, cases.begin() + last);
    const bool segmented = std::any_of(group.begin(), group.end(), [](const planned& p) { return p.layout == shape::segments; });
    if (segmented && offsets_log2 != group.front().log2_n) {
      offsets = heavy_tailed_offsets(std::size_t(1) << group.front().log2_n, 0x5e9 + group.front().log2_n);
      d_offsets = device_buffer<std::int64_t>(ctx.q, offsets);
      offsets_log2 = group.front().log2_n;
    }
    visit_type(group.front().type, [&](auto t) { run_group<typename decltype(t)::type>(ctx, group, offsets, d_offsets); });
    first = last;
  }

  if (!ctx.s.json.empty()) write_json(ctx, ceiling, ctx.s.json);

  int failures = 0;
  for (const row& r : ctx.rows) {
    for (const column* c : {&r.preduce, &r.vendor}) {
      if (!c->failed()) continue;
      ++failures;
      std::fprintf(stderr, "preduce-bench: FAILED %s %s: %s\n", r.name.c_str(), c == &r.preduce ? "preduce" : ctx.device.vendor.c_str(),
                   c->error ? c->unavailable.c_str() : c->check.first_failure.c_str());
    }
  }
  std::fprintf(stderr, "preduce-bench: %zu cases, %d failed checks\n", ctx.rows.size(), failures);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace bench
}  // namespace preduce

int main(int argc, char** argv) {
  try {
    return preduce::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preduce-bench: %s\n", e.what());
    return 3;
  }
}
