// SPDX-License-Identifier: Apache-2.0
// preduce tests: many host threads at once. 8 threads call every form (reduce, reduce_async then
// synchronize, reduce_rows, reduce_columns, reduce_segments with good and with bad offsets) on
// one shared queue object, on default queues each thread makes, and on queues of their own;
// every result is checked against the host reference, every bad call must be reported to the
// thread that made it (at its next synchronize, naming its own first bad offset) and to no other,
// and calls one thread chains on a queue must run in its order. PREDUCE_CONCURRENCY_CALLS sets
// the calls per thread (default 200) and PREDUCE_CONCURRENCY_THREADS the threads (default 8):
// the sanitizer runs use fewer (compute-sanitizer's racecheck itself fails to track launches
// of 8 threads on one stream: docs/reliability.md).
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "test_support.hpp"

namespace {

constexpr std::size_t capacity = 12000;  // elements of each thread's input

//! A positive count from the environment, or `otherwise`.
int from_environment(const char* name, int otherwise) {
  const char* v = std::getenv(name);
  const int n = v ? std::atoi(v) : 0;
  return n > 0 ? n : otherwise;
}

enum class queues { shared, defaults, own };
enum class form { reduce, async_chain, rows, columns, segments, segments_bad, mixed };
constexpr form forms[] = {form::reduce, form::async_chain, form::rows, form::columns, form::segments, form::segments_bad};

//! What one thread saw; asserted on by the main thread (doctest's assertions stay there).
struct outcome {
  std::size_t calls = 0, wrong = 0, bad_calls = 0, bad_reported = 0, misrouted = 0, unexpected = 0;
  std::vector<std::string> notes;
  void note(const std::string& s) {
    if (notes.size() < 4) notes.push_back(s);
  }
};

template <class R, class E>
void compare(outcome& o, const char* what, const R& got, const E& want) {
  const test::fields g = test::to_fields(got), w = test::to_fields(want);
  if (!test::same_fields(g, w)) {
    ++o.wrong;
    o.note(std::string(what) + ": got " + test::text(g) + ", expected " + test::text(w));
  }
}

template <class T>
std::vector<T> copy_back(const preduce::queue& q, const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) preduce::copy_to_host(q, h.data(), d, n);
  return h;
}

//! One thread's calls on q: random sizes and offsets into its own data, each result checked.
class worker {
 public:
  worker(const preduce::queue& q, std::uint64_t seed)
      : q_(q), r_(seed),
        hf_(test::make_data<float>(test::data::small_integers, capacity, seed, 100)),
        hi_(test::make_data<std::int32_t>(test::data::spread, capacity, seed ^ 0x5bd1e995)),
        df_(q, hf_), di_(q, hi_), out_f_(q, capacity), out_arg_(q, capacity), out_i_(q, capacity) {}

  void run(form f, int calls, outcome& o) {
    for (int k = 0; k < calls; ++k) {
      const form g = f == form::mixed ? forms[r_.between(0, 5)] : f;
      try {
        call(g, o);
      } catch (const preduce::error& e) {
        ++o.unexpected;
        o.note(std::string("threw ") + e.what());
      }
      ++o.calls;
    }
  }

 private:
  std::size_t pick(std::size_t lo, std::size_t hi) { return std::size_t(r_.between(std::int64_t(lo), std::int64_t(hi))); }

  void call(form f, outcome& o) {
    switch (f) {
      case form::reduce: return whole(o);
      case form::async_chain: return async_chain(o);
      case form::rows: return rows(o);
      case form::columns: return columns(o);
      case form::segments: return segments(o, false);
      default: return segments(o, true);
    }
  }

  // A synchronous reduce of a random slice (any alignment) with a random operator.
  void whole(outcome& o) {
    const std::size_t n = pick(0, 5000), at = pick(0, capacity - n);
    switch (r_.between(0, 3)) {
      case 0: return compare(o, "reduce plus<float>", preduce::reduce(q_, df_.data() + at, n), test::expected(preduce::plus<>{}, hf_.data() + at, n));
      case 1:
        return compare(o, "reduce argmax<float>", preduce::reduce(q_, df_.data() + at, n, preduce::argmax{}),
                       test::expected(preduce::argmax{}, hf_.data() + at, n));
      case 2:
        return compare(o, "reduce minmax<int32>", preduce::reduce(q_, di_.data() + at, n, preduce::minmax{}),
                       test::expected(preduce::minmax{}, hi_.data() + at, n));
      default:
        return compare(o, "reduce plus<int32>", preduce::reduce(q_, di_.data() + at, n, preduce::plus<>{}),
                       test::expected(preduce::plus<>{}, hi_.data() + at, n));
    }
  }

  // Two calls chained on the queue, the second reading what the first wrote: row sums into
  // out_f_, then their sum into one element past them. Right only if the queue kept this
  // thread's order, whatever other threads put on it between the two.
  void async_chain(outcome& o) {
    const std::size_t rows = pick(1, 60), cols = pick(0, 150), at = pick(0, capacity - rows * cols);
    preduce::reduce_rows(q_, df_.data() + at, rows, cols, out_f_.data(), preduce::plus<>{});
    preduce::reduce_async(q_, out_f_.data(), rows, out_f_.data() + rows, preduce::plus<>{});
    q_.synchronize();
    compare(o, "reduce_rows then reduce_async", copy_back(q_, out_f_.data() + rows, 1)[0],
            test::expected(preduce::plus<>{}, hf_.data() + at, rows * cols));
  }

  void rows(outcome& o) {
    const std::size_t rows = pick(0, 80), cols = pick(0, 140), at = pick(0, capacity - rows * cols);
    preduce::reduce_rows(q_, di_.data() + at, rows, cols, out_i_.data(), preduce::maximum{});
    q_.synchronize();
    const auto got = copy_back(q_, out_i_.data(), rows);
    for (std::size_t i = 0; i < rows; ++i)
      compare(o, "reduce_rows maximum<int32>", got[i], test::expected(preduce::maximum{}, hi_.data() + at + i * cols, cols));
  }

  void columns(outcome& o) {
    const std::size_t rows = pick(0, 100), cols = pick(1, 110), at = pick(0, capacity - rows * cols);
    preduce::reduce_columns(q_, df_.data() + at, rows, cols, out_arg_.data(), preduce::argmin{});
    q_.synchronize();
    const auto got = copy_back(q_, out_arg_.data(), cols);
    std::vector<float> column(rows);
    for (std::size_t j = 0; j < cols; ++j) {
      for (std::size_t i = 0; i < rows; ++i) column[i] = hf_[at + i * cols + j];
      compare(o, "reduce_columns argmin<float>", got[j], test::expected(preduce::argmin{}, column.data(), rows));
    }
  }

  // Segment sums over random offsets; with `bad`, one call in three has an offset that breaks
  // the contract, which this thread's synchronize must report, and only it.
  void segments(outcome& o, bool bad) {
    const std::size_t segments = pick(1, 60), n = pick(0, 8000);
    std::vector<std::int64_t> offsets(segments + 1);
    for (auto& v : offsets) v = std::int64_t(pick(0, n));
    std::sort(offsets.begin(), offsets.end());
    std::size_t first_bad = preduce::npos;
    if (bad && r_.between(0, 2) == 0) {
      first_bad = pick(1, segments);
      offsets[first_bad] = r_.between(0, 1) ? offsets[first_bad - 1] - 1 : std::int64_t(n) + 1;
      // A later offset may break the contract too; the first is what must be reported.
      ++o.bad_calls;
    }
    const preduce::device_buffer<std::int64_t> d_offsets(q_, offsets);
    float* out = out_f_.data();
    const float poison = -12345.0f;
    preduce::copy_to_device(q_, out, std::vector<float>(segments, poison).data(), segments);
    preduce::reduce_segments(q_, df_.data(), n, d_offsets.data(), segments, out, preduce::plus<>{});
    std::string what;
    const std::string code = test::error_of([&] { q_.synchronize(); }, what);
    const auto got = copy_back(q_, out, segments);
    if (first_bad != preduce::npos) {
      if (code == "bad_offsets" && what.find("offsets[" + std::to_string(first_bad) + "] breaks") != std::string::npos) ++o.bad_reported;
      else o.note("bad offsets[" + std::to_string(first_bad) + "]: synchronize gave " + code + " " + what);
      for (const float v : got)
        if (v != poison) {
          ++o.wrong;
          o.note("a call with bad offsets wrote its output");
          break;
        }
      return;
    }
    if (code != "nothing thrown") {
      ++o.misrouted;
      o.note("good offsets, synchronize threw " + code + ": " + what);
      return;
    }
    for (std::size_t s = 0; s < segments; ++s)
      compare(o, "reduce_segments plus<float>", got[s],
              test::expected(preduce::plus<>{}, hf_.data() + offsets[s], std::size_t(offsets[s + 1] - offsets[s])));
  }

  preduce::queue q_;
  test::rng r_;
  std::vector<float> hf_;
  std::vector<std::int32_t> hi_;
  preduce::device_buffer<float> df_;
  preduce::device_buffer<std::int32_t> di_;
  preduce::device_buffer<float> out_f_;
  preduce::device_buffer<preduce::arg<float>> out_arg_;
  preduce::device_buffer<std::int32_t> out_i_;
};

const char* form_name(form f) {
  switch (f) {
    case form::reduce: return "reduce";
    case form::async_chain: return "reduce_async chained";
    case form::rows: return "reduce_rows";
    case form::columns: return "reduce_columns";
    case form::segments: return "reduce_segments";
    case form::segments_bad: return "reduce_segments with bad offsets";
    default: return "every form mixed";
  }
}

//! Threads (8) running form f on queues of kind k; asserts on what they saw.
void run_threads(queues k, form f) {
  const int calls = from_environment("PREDUCE_CONCURRENCY_CALLS", 200);
  const int threads = from_environment("PREDUCE_CONCURRENCY_THREADS", 8);
  const preduce::queue shared(0);
  std::vector<outcome> seen(threads);
  std::vector<std::thread> pool;
  std::atomic<int> ready{0};
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const std::uint64_t seed = 0xc0ffee00u + std::uint64_t(t) * 7919u + std::uint64_t(f) * 104729u + std::uint64_t(k);
      try {
        const preduce::queue q = k == queues::shared ? shared : k == queues::defaults ? preduce::queue{} : preduce::queue(0);
        worker w(q, seed);
        ready.fetch_add(1);
        while (ready.load() < threads) std::this_thread::yield();  // start the calls together
        w.run(f, calls, seen[t]);
      } catch (const std::exception& e) {
        ready.fetch_add(1);
        ++seen[t].unexpected;
        seen[t].note(std::string("setup threw ") + e.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  std::size_t total = 0, bad = 0;
  for (int t = 0; t < threads; ++t) {
    const outcome& o = seen[t];
    INFO("thread " << t << ", " << std::string(form_name(f)) << ": " << (o.notes.empty() ? std::string() : o.notes[0]));
    for (const auto& n : o.notes) MESSAGE(n);
    CHECK(o.calls == std::size_t(calls));
    CHECK(o.wrong == 0);
    CHECK(o.unexpected == 0);
    CHECK(o.misrouted == 0);
    CHECK(o.bad_reported == o.bad_calls);
    total += o.calls;
    bad += o.bad_calls;
  }
  if (f == form::segments_bad || f == form::mixed) CHECK(bad > 0);  // the bad path ran
  MESSAGE(std::string(form_name(f)) << ": " << total << " calls by " << threads << " threads, " << bad << " with bad offsets");
}

void every_form(queues k) {
  for (const form f : forms)
    SUBCASE(form_name(f)) { run_threads(k, f); }
  SUBCASE(form_name(form::mixed)) { run_threads(k, form::mixed); }
}

}  // namespace

TEST_CASE("concurrency.one_shared_queue") { every_form(queues::shared); }
TEST_CASE("concurrency.default_queues") { every_form(queues::defaults); }
TEST_CASE("concurrency.own_queues") { every_form(queues::own); }
