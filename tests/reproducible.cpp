// SPDX-License-Identifier: Apache-2.0
// preduce tests: determinism::reproducible and partial_of. Golden bit patterns (computed once by
// the portable host code and stored here: every backend must return them), the documented error
// bound against an exact sum on ill-conditioned data, splits merged through reproducible_partial,
// launch shapes and alignments, batched forms against per-slice results, half / bfloat16 inputs,
// the operators that are exact already, and what reproducible mode refuses.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include <preduce/detail/merge.hpp>
#include <preduce/portable/binned_reducers.hpp>

#include "exact_sum.hpp"
#include "test_support.hpp"

TYPE_TO_STRING_AS("float", float);
TYPE_TO_STRING_AS("double", double);

namespace {

using preduce::half;
using preduce::bfloat16;
using preduce::detail::pair_of;

const preduce::options reproducible{preduce::determinism::reproducible};

// ---------------------------------------------------------------------------------------------
// Host computation: the portable reducers run on the host
// ---------------------------------------------------------------------------------------------

//! partial_of(op) over x[0..n) computed on the host by the portable reducers: chunk folds of 8,
//! then single elements, as one sequential thread would.
template <class Op, class E>
auto host_partial(const E* x, std::size_t n) {
  using Red = preduce::detail::reducer<preduce::partial<Op>, E>;
  auto a = Red::identity();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    E chunk[8];
    std::copy(x + i, x + i + 8, chunk);
    a = Red::fold(a, chunk, i);
  }
  for (; i < n; ++i) a = Red::combine(a, Red::lift(x[i], i));
  return Red::finalize(a);
}

template <class T>
std::vector<pair_of<T>> pairs(const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<pair_of<T>> p(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) p[i] = {x[i], y[i]};
  return p;
}

//! The raw bits of a float or double result, widened to 64 bits for tables and messages.
template <class R>
std::uint64_t bits_of(R v) {
  if constexpr (sizeof(R) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}
std::string hex(std::uint64_t b) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(b));
  return s;
}

//! Seeded data spread over 2^(+-e) times (-1, 1): e = 12 for half (its range), 30 otherwise.
template <class T>
std::vector<T> spread_data(std::size_t n, std::uint64_t seed) {
  test::rng r(seed);
  const int e = std::is_same<T, half>::value ? 12 : 30;
  std::vector<T> x(n);
  for (auto& v : x) v = test::from_double<T>(r.uniform(-1.0, 1.0) * std::ldexp(1.0, int(r.between(-e, e))));
  return x;
}

//! The default result (accumulator) type of plus on T.
template <class T>
using sum_t = test::result_of<preduce::plus<>, T>;

// ---------------------------------------------------------------------------------------------
// Golden results
// ---------------------------------------------------------------------------------------------

//! Bit patterns of plus, sum_of_squares, dot and moments (mean, M2) with the default
//! accumulator, on spread_data(n) (x, and y for dot) from seeds fixed by (type, n).
struct golden {
  std::size_t n;
  std::uint64_t plus, sum_of_squares, dot, mean, m2;
};

template <class T> struct golden_table;
template <> struct golden_table<float> {
  static constexpr golden rows[] = {
      {0, 0x0, 0x0, 0x0, 0x0, 0x0},
      {1, 0xcb20e436, 0x56ca3c1e, 0x568eacdc, 0xcb20e436, 0x0},
      {4097, 0xce93c7de, 0x5fd1574d, 0xdaa3a598, 0xc893bea2, 0x5fd156a2},
      {100003, 0x50e130e3, 0x6234e885, 0x5d11d9e8, 0x489393a4, 0x6234e803},
  };
};
template <> struct golden_table<double> {
  static constexpr golden rows[] = {
      {0, 0x0, 0x0, 0x0, 0x0, 0x0},
      {1, 0x41be2a44d021e086, 0x438c6f78db75d7c2, 0xc01ddd438d81c721, 0x41be2a44d021e086, 0x0},
      {4097, 0x41fc84500c303e02, 0x43fea7ba2c79d2d5, 0xc37df3806645996b, 0x413c8287e3b202e2, 0x43fea48d2964b400},
      {100003, 0xc21ea1e334841111, 0x44479e6b902d5179, 0xc3b781ccb39d84c0, 0xc114131af07c06a1, 0x44479e5858b56802},
  };
};
template <> struct golden_table<half> {
  static constexpr golden rows[] = {
      {0, 0x0, 0x0, 0x0, 0x0, 0x0},
      {1, 0x3ffe6000, 0x407cc2a4, 0x3e9b4218, 0x3ffe6000, 0x0},
      {4097, 0xc71ff16f, 0x4eaee584, 0xcbd53b4b, 0xc11fe771, 0x4eaed907},
      {100003, 0x481d37b5, 0x50dbd586, 0xccf0899e, 0x3fce0fe4, 0x50dbd508},
  };
};
template <> struct golden_table<bfloat16> {
  static constexpr golden rows[] = {
      {0, 0x0, 0x0, 0x0, 0x0, 0x0},
      {1, 0x43200000, 0x46c80000, 0x48fb4000, 0x43200000, 0x0},
      {4097, 0xcec8b27c, 0x5ff793c6, 0xdc86f979, 0xc8c8a5f1, 0x5ff7928b},
      {100003, 0xd09c1dca, 0x6237b769, 0xdbc01dc3, 0xc84c9e63, 0x6237b72b},
  };
};

//! The options every launch-shape check runs under: each algorithm and warp algorithm.
std::vector<preduce::options> shapes_to_try() {
  using preduce::algorithm;
  using preduce::warp_algorithm;
  std::vector<preduce::options> v;
  for (algorithm a : {algorithm::automatic, algorithm::single_pass, algorithm::two_pass, algorithm::atomic})
    for (warp_algorithm w : {warp_algorithm::automatic, warp_algorithm::shuffle, warp_algorithm::fused_shuffle})
      v.push_back({preduce::determinism::reproducible, a, w});
  return v;
}

//! x on the device twice: at the start of an allocation, and one element past it (misaligned
//! for vector loads).
template <class T>
struct aligned_and_not {
  preduce::device_buffer<T> aligned, shifted;
  aligned_and_not(const preduce::queue& q, const std::vector<T>& x) : aligned(q, x), shifted(q, with_front(x)) {}
  static std::vector<T> with_front(const std::vector<T>& x) {
    std::vector<T> v(x.size() + 1);
    std::copy(x.begin(), x.end(), v.begin() + 1);
    return v;
  }
  const T* at(bool misaligned) const { return misaligned ? shifted.data() + 1 : aligned.data(); }
};

}  // namespace

// Every backend returns the stored bits, under every algorithm and alignment; the host's
// portable reducers return them too.
TEST_CASE_TEMPLATE("reproducible.golden", T, float, double, half, bfloat16) {
  using R = sum_t<T>;
  const auto& q = test::shared_queue();
  for (const golden& g : golden_table<T>::rows) {
    SUBCASE(test::size_name(g.n).c_str()) {
      const auto x = spread_data<T>(g.n, test::seed_for<T>("golden x", g.n));
      const auto y = spread_data<T>(g.n, test::seed_for<T>("golden y", g.n));
      const auto xy = pairs(x, y);
      const auto host_plus = host_partial<preduce::plus<>>(x.data(), g.n).value();
      const auto host_squares = host_partial<preduce::sum_of_squares<>>(x.data(), g.n).value();
      const auto host_dot = host_partial<preduce::dot<T>>(xy.data(), g.n).value();
      const auto host_moments = host_partial<preduce::moments<>>(x.data(), g.n).value();
      INFO("host: plus " << hex(bits_of(host_plus)) << ", sum_of_squares " << hex(bits_of(host_squares)) << ", dot "
                         << hex(bits_of(host_dot)) << ", mean " << hex(bits_of(host_moments.mean)) << ", m2 "
                         << hex(bits_of(host_moments.m2)));
      CHECK(bits_of(host_plus) == g.plus);
      CHECK(bits_of(host_squares) == g.sum_of_squares);
      CHECK(bits_of(host_dot) == g.dot);
      CHECK(bits_of(host_moments.mean) == g.mean);
      CHECK(bits_of(host_moments.m2) == g.m2);
      CHECK(host_moments.count == g.n);

      const aligned_and_not<T> dx(q, x), dy(q, y);
      for (const bool misaligned : {false, true}) {
        for (const preduce::options& o : shapes_to_try()) {
          CAPTURE(misaligned);
          CAPTURE(int(o.algo));
          CAPTURE(int(o.warp));
          const T* px = dx.at(misaligned);
          CHECK(bits_of(preduce::reduce(q, px, g.n, preduce::plus<>{}, o)) == g.plus);
          CHECK(bits_of(preduce::reduce(q, px, g.n, preduce::sum_of_squares<>{}, o)) == g.sum_of_squares);
          CHECK(bits_of(preduce::reduce(q, px, g.n, preduce::dot<T>{dy.at(misaligned)}, o)) == g.dot);
          const auto m = preduce::reduce(q, px, g.n, preduce::moments<>{}, o);
          CHECK(m.count == g.n);
          CHECK(bits_of(m.mean) == g.mean);
          CHECK(bits_of(m.m2) == g.m2);
        }
      }
      static_assert(std::is_same<decltype(host_plus), const R>::value, "golden bits are of the default result type");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The error bound, against an exact sum
// ---------------------------------------------------------------------------------------------

namespace {

//! Ill-conditioned data shapes of the error-bound test.
enum class hard {
  cancellation,    //!< pairs v, -v (|v| up to 2^20) shuffled among a few small values: the sum is theirs
  wide,            //!< magnitudes 2^-120 .. 2^120, random signs
  tiny_plus_huge,  //!< many values near 2^-30 and one 2^30
  uniform,         //!< (-1, 1)
  integers,        //!< integers below 2^20: the documented exact regime for every type
};
const char* hard_name(hard h) {
  switch (h) {
    case hard::cancellation: return "cancellation";
    case hard::wide: return "wide";
    case hard::tiny_plus_huge: return "tiny_plus_huge";
    case hard::uniform: return "uniform";
    case hard::integers: return "integers";
  }
  return "?";
}

template <class T>
std::vector<T> hard_data(hard h, std::size_t n, std::uint64_t seed) {
  test::rng r(seed);
  std::vector<T> x(n);
  switch (h) {
    case hard::cancellation: {
      std::size_t i = 0;
      for (; i + 1 < n - n / 16; i += 2) {
        x[i] = T(r.uniform(1.0, 2.0) * std::ldexp(1.0, int(r.between(-20, 20))));
        x[i + 1] = T(-x[i]);
      }
      for (; i < n; ++i) x[i] = T(r.uniform(-1.0, 1.0) * std::ldexp(1.0, -10));
      for (std::size_t k = n; k > 1; --k) std::swap(x[k - 1], x[r.below(k)]);  // Fisher-Yates
      break;
    }
    case hard::wide:
      for (auto& v : x) v = T((r.next() & 1 ? -1.0 : 1.0) * r.uniform(1.0, 2.0) * std::ldexp(1.0, int(r.between(-120, 120))));
      break;
    case hard::tiny_plus_huge:
      for (auto& v : x) v = T(r.uniform(1.0, 2.0) * std::ldexp(1.0, -30));
      x[r.below(n)] = T(std::ldexp(1.0, 30));
      break;
    case hard::uniform:
      for (auto& v : x) v = T(r.uniform(-1.0, 1.0));
      break;
    case hard::integers:
      for (auto& v : x) v = T(double(r.between(-(1 << 20), 1 << 20)));
      break;
  }
  return x;
}

//! The exact terms of a sum of x (plus) or x * y (dot): products exactly, as two doubles for
//! double input (the rounded product and its error).
template <class T>
void add_terms(test::exact_sum& s, long double& max_term, const std::vector<T>& x, const std::vector<T>* y) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double a = double(x[i]);
    double t = a, e = 0.0;
    if (y) {
      const double b = double((*y)[i]);
      t = a * b;  // exact for float inputs (48 bits)
      if (std::is_same<T, double>::value) e = std::fma(a, b, -t);
    }
    s.add(t);
    s.add(e);
    max_term = std::max<long double>(max_term, std::fabs(static_cast<long double>(t)));
  }
}

//! Checks r against the documented bound |r - S| <= ulp(r) / 2 + n 2^-78 M, and, when every
//! non-zero term is at least 2^-floor_bits M, that r is the correctly rounded S.
template <class R>
void check_bound(R r, const test::exact_sum& exact, std::size_t n, long double max_term, int floor_bits, long double min_term) {
  if (std::isinf(r)) {  // the exact sum must lie beyond the largest R plus half its ulp
    INFO("result " << double(r) << ", exact " << double(exact.approx()));
    const R largest = std::numeric_limits<R>::max();
    CHECK(exact.sign() == (r > 0 ? 1 : -1));
    test::exact_sum threshold;  // the largest R plus half its ulp: where rounding reaches infinity
    threshold.add(double(largest));
    threshold.add(double(largest) - double(std::nextafter(largest, R(0))), -1);
    CHECK(exact.compare_magnitude(threshold) >= 0);
    return;
  }
  test::exact_sum diff = exact;
  diff.add(-double(r));
  double h;
  int scale;
  test::half_gap(r, exact.approx(), &h, &scale);
  const long double err = std::fabs(diff.approx());
  const long double allowed = std::ldexp(static_cast<long double>(h), scale) + static_cast<long double>(n) * std::ldexp(max_term, -78);
  INFO("result " << double(r) << ", exact " << double(exact.approx()) << ", |error| " << double(err) << ", bound " << double(allowed));
  CHECK(err <= allowed * (1.0L + std::ldexp(1.0L, -60)));
  if (max_term > 0 && min_term >= std::ldexp(max_term, -floor_bits)) {
    const int c = diff.compare_magnitude(h, scale);
    std::uint64_t b = bits_of(r);
    CHECK((c < 0 || (c == 0 && (b & 1u) == 0)));  // correctly rounded: within half a gap, ties to even
  }
}

}  // namespace

TEST_CASE_TEMPLATE("reproducible.error_bound", T, float, double) {
  const auto& q = test::shared_queue();
  // Documented exact regimes: float elements 2^-55, double elements 2^-26, float products 2^-31.
  const int element_floor = std::is_same<T, float>::value ? 55 : 26;
  for (const hard h : {hard::cancellation, hard::wide, hard::tiny_plus_huge, hard::uniform, hard::integers}) {
    for (const std::size_t n : {std::size_t(2), std::size_t(4099), std::size_t(200003)}) {
      SUBCASE((std::string(hard_name(h)) + " " + test::size_name(n)).c_str()) {
        const auto x = hard_data<T>(h, n, test::seed_for<T>(hard_name(h), n));
        const auto y = hard_data<T>(h, n, test::seed_for<T>(hard_name(h), n, 1));
        const preduce::device_buffer<T> dx(q, x), dy(q, y);
        long double min_element = std::numeric_limits<long double>::infinity();
        for (T v : x)
          if (v != 0) min_element = std::min(min_element, std::fabs(static_cast<long double>(v)));

        test::exact_sum sum;
        long double max_element = 0;
        add_terms(sum, max_element, x, static_cast<const std::vector<T>*>(nullptr));
        SUBCASE("plus") { check_bound(preduce::reduce(q, dx.data(), n, preduce::plus<>{}, reproducible), sum, n, max_element, element_floor, min_element); }
        SUBCASE("dot") {
          test::exact_sum products;
          long double max_product = 0;
          add_terms(products, max_product, x, &y);
          check_bound(preduce::reduce(q, dx.data(), n, preduce::dot<T>{dy.data()}, reproducible), products, n, max_product, 0, 0);
        }
        if constexpr (std::is_same<T, float>::value) {
          SUBCASE("plus<double>") {
            check_bound(preduce::reduce(q, dx.data(), n, preduce::plus<double>{}, reproducible), sum, n, max_element, element_floor, min_element);
          }
        }
      }
    }
  }
}

// The narrow types widen exactly: their sums obey the float bound, exactly rounded in the
// documented regime (spans of at most 2^68 / 2^71 for half / bfloat16: always, at these sizes).
TEST_CASE_TEMPLATE("reproducible.error_bound_narrow", T, half, bfloat16) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(7), std::size_t(65537)}) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = spread_data<T>(n, test::seed_for<T>("narrow bound", n));
      const preduce::device_buffer<T> dx(q, x);
      test::exact_sum sum;
      long double max_element = 0, min_element = std::numeric_limits<long double>::infinity();
      for (T v : x) {
        const float f = float(v);
        sum.add(f);
        max_element = std::max<long double>(max_element, std::fabs(f));
        if (f != 0) min_element = std::min<long double>(min_element, std::fabs(f));
      }
      check_bound(preduce::reduce(q, dx.data(), n, preduce::plus<>{}, reproducible), sum, n, max_element, 55, min_element);
      check_bound(preduce::reduce(q, dx.data(), n, preduce::plus<double>{}, reproducible), sum, n, max_element, 55, min_element);
    }
  }
}

// Special values: NaN, infinities of one and of both signs, overflow of the exact sum.
TEST_CASE_TEMPLATE("reproducible.special_values", T, float, double) {
  const auto& q = test::shared_queue();
  const T inf = std::numeric_limits<T>::infinity(), big = std::numeric_limits<T>::max();
  auto sum_of = [&](std::vector<T> x) {
    const preduce::device_buffer<T> d(q, x);
    return preduce::reduce(q, d.data(), x.size(), preduce::plus<T>{}, reproducible);
  };
  const T nan = sum_of({T(1), std::numeric_limits<T>::quiet_NaN(), T(2)});
  CHECK(bits_of(nan) == bits_of(std::numeric_limits<T>::quiet_NaN()));  // the default quiet NaN
  CHECK(sum_of({T(1), inf, T(-5)}) == inf);
  CHECK(sum_of({-inf, T(1)}) == -inf);
  CHECK(std::isnan(sum_of({inf, T(1), -inf})));
  CHECK(sum_of({big, big, T(-1)}) == inf);                 // the exact sum is beyond the range
  CHECK(sum_of({big, big, -big}) == big);                  // but intermediate overflow is not an issue
  CHECK(bits_of(sum_of({T(-0.0), T(-0.0)})) == bits_of(T(0)));  // an all-zero sum is +0
  const T tiny = std::numeric_limits<T>::min();
  CHECK(sum_of({tiny, tiny, tiny}) == T(3) * tiny);         // down to the smallest normal: exact
  if constexpr (std::is_same<T, float>::value) {
    const T sub = std::numeric_limits<T>::denorm_min();
    CHECK(sum_of({sub, sub, sub}) == T(3) * sub);           // float subnormals too
  }
}

// moments: mean and M2 within reproducible.hpp's bounds of the exact values (the oracle's
// two-pass long double moments, whose own error is a few long double ulps of each), on data
// spread over magnitudes and on data far from zero (large mean, small spread).
TEST_CASE_TEMPLATE("reproducible.moments_accuracy", T, float, double) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(4099), std::size_t(200003)}) {
    for (const double offset : {0.0, 1e4}) {
      SUBCASE((test::size_name(n) + (offset ? " offset" : "")).c_str()) {
        auto x = spread_data<T>(n, test::seed_for<T>("moments accuracy", n));
        for (auto& v : x) v = T(offset + double(v) * (offset ? 1e-9 : 1.0));
        const preduce::device_buffer<T> d(q, x);
        const auto got = preduce::reduce(q, d.data(), n, preduce::moments<>{}, reproducible);
        const auto want = test::ref::moments<T>(x.data(), n);
        long double m = 0;
        for (T v : x) m = std::max<long double>(m, std::fabs(static_cast<long double>(v)));
        auto ulp = [](T v) { return static_cast<long double>(std::nextafter(std::fabs(v), std::numeric_limits<T>::infinity())) - std::fabs(v); };
        const long double ld_error = 8 * std::numeric_limits<long double>::epsilon();
        const long double mean_bound = ulp(got.mean) + std::ldexp(m, -78) + ld_error * std::fabs(want.mean.value);
        const long double m2_bound = ulp(got.m2) + static_cast<long double>(n) * std::ldexp(m * m, -76) + ld_error * want.m2.value;
        INFO("mean " << double(got.mean) << " vs " << double(want.mean.value) << ", m2 " << double(got.m2) << " vs " << double(want.m2.value));
        CHECK(got.count == n);
        CHECK(std::fabs(got.mean - want.mean.value) <= mean_bound);
        CHECK(std::fabs(got.m2 - want.m2.value) <= m2_bound);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Splits: partials of pieces merged give one call's bits
// ---------------------------------------------------------------------------------------------

namespace {

//! Cut points of [0, n): the edges, block and vector boundaries, thirds, and k random cuts.
std::vector<std::vector<std::size_t>> cuts_of(std::size_t n, std::uint64_t seed) {
  std::vector<std::vector<std::size_t>> cuts;
  for (std::size_t c : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(255), std::size_t(257), n / 3, n / 2, n - 1, n})
    if (c <= n) cuts.push_back({c});
  test::rng r(seed);
  for (int k = 0; k < 3; ++k) {
    std::vector<std::size_t> c(5);
    for (auto& v : c) v = std::size_t(r.below(n + 1));
    std::sort(c.begin(), c.end());
    cuts.push_back(c);
  }
  return cuts;
}

//! The partial of op over each piece between consecutive cuts, each through to_bytes and
//! from_bytes, merged left to right, right to left and as a tree in another order: every one
//! must equal the whole call's partial to the byte, and its value the whole call's value.
template <class T, class Op, class PieceCall>
void check_cuts(const std::vector<std::size_t>& cut, std::size_t n, const preduce::reproducible_partial<test::result_of<Op, T>>& whole,
                PieceCall piece) {
  using P = preduce::reproducible_partial<test::result_of<Op, T>>;
  std::vector<P> parts;
  std::size_t begin = 0;
  for (std::size_t k = 0; k <= cut.size(); ++k) {
    const std::size_t end = k < cut.size() ? cut[k] : n;
    const auto bytes = piece(begin, end - begin).to_bytes();
    parts.push_back(P::from_bytes(bytes.data(), bytes.size()));
    begin = end;
  }
  P left, right;
  for (const P& p : parts) left += p;
  for (std::size_t k = parts.size(); k > 0; --k) right = parts[k - 1] + right;
  // A pairwise tree over the pieces rotated by half: another grouping and order.
  std::vector<P> level = parts;
  std::rotate(level.begin(), level.begin() + std::ptrdiff_t(level.size() / 2), level.end());
  while (level.size() > 1) {
    std::vector<P> next;
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) next.push_back(level[k + 1] + level[k]);
    if (level.size() % 2) next.push_back(level.back());
    level = next;
  }
  CHECK(left == whole);
  CHECK(right == whole);
  CHECK(level.front() == whole);
  CHECK(test::same_bits(left.value(), whole.value()));
}

}  // namespace

TEST_CASE_TEMPLATE("reproducible.splits", T, float, double, half, bfloat16) {
  const auto& q = test::shared_queue();
  const std::size_t n = 30011;
  const auto x = spread_data<T>(n, test::seed_for<T>("splits x", n));
  const auto y = spread_data<T>(n, test::seed_for<T>("splits y", n));
  const preduce::device_buffer<T> dx(q, x), dy(q, y);
  for (const auto& cut : cuts_of(n, test::seed_for<T>("splits cuts", n))) {
    CAPTURE(cut.size());
    CAPTURE(cut.front());
    SUBCASE("plus") {
      using Op = preduce::plus<>;
      const auto whole = preduce::reduce(q, dx.data(), n, preduce::partial_of(Op{}));
      CHECK(test::same_bits(whole.value(), preduce::reduce(q, dx.data(), n, Op{}, reproducible)));
      check_cuts<T, Op>(cut, n, whole, [&](std::size_t b, std::size_t len) { return preduce::reduce(q, dx.data() + b, len, preduce::partial_of(Op{})); });
    }
    SUBCASE("sum_of_squares") {
      using Op = preduce::sum_of_squares<>;
      const auto whole = preduce::reduce(q, dx.data(), n, preduce::partial_of(Op{}));
      CHECK(test::same_bits(whole.value(), preduce::reduce(q, dx.data(), n, Op{}, reproducible)));
      check_cuts<T, Op>(cut, n, whole, [&](std::size_t b, std::size_t len) { return preduce::reduce(q, dx.data() + b, len, preduce::partial_of(Op{})); });
    }
    SUBCASE("dot") {
      using Op = preduce::dot<T>;
      const auto whole = preduce::reduce(q, dx.data(), n, preduce::partial_of(Op{dy.data()}));
      CHECK(test::same_bits(whole.value(), preduce::reduce(q, dx.data(), n, Op{dy.data()}, reproducible)));
      check_cuts<T, Op>(cut, n, whole, [&](std::size_t b, std::size_t len) {
        return preduce::reduce(q, dx.data() + b, len, preduce::partial_of(Op{dy.data() + b}));
      });
    }
    SUBCASE("moments") {
      using Op = preduce::moments<>;
      const auto whole = preduce::reduce(q, dx.data(), n, preduce::partial_of(Op{}));
      CHECK(test::same_bits(whole.value(), preduce::reduce(q, dx.data(), n, Op{}, reproducible)));
      check_cuts<T, Op>(cut, n, whole, [&](std::size_t b, std::size_t len) { return preduce::reduce(q, dx.data() + b, len, preduce::partial_of(Op{})); });
    }
  }
}

namespace {

// The compact form of partials, as the exchange defines it: the code (level - level_min, or 255
// for NaN and infinities) and the bins moved to a common code's level (or the flags as 0 / 1).
std::uint8_t code_of(const preduce::detail::binned::digits& d) {
  return d.specials ? preduce::detail::exchange::special_code : std::uint8_t(d.level - preduce::detail::binned::level_min);
}
void limbs_at(const preduce::detail::binned::digits& d, std::uint8_t common, std::int64_t* limbs) {
  namespace binned = preduce::detail::binned;
  for (int k = 0; k < binned::folds; ++k) limbs[k] = 0;
  if (common == preduce::detail::exchange::special_code) {
    limbs[0] = (d.specials & binned::saw_nan) != 0;
    limbs[1] = (d.specials & binned::saw_pos_inf) != 0;
    limbs[2] = (d.specials & binned::saw_neg_inf) != 0;
    return;
  }
  const int shift = int(common) + binned::level_min - d.level;
  for (int k = 0; k + shift < binned::folds; ++k) limbs[k + shift] = std::int64_t(d.bin[k].limb[0]);
}

// The merged digits the exchange stands for: the common code's level and the ranks' summed
// limbs as bins, or, under the special code, the flags any rank saw.
preduce::detail::binned::digits digits_of(std::uint8_t common, const std::int64_t* limbs) {
  namespace binned = preduce::detail::binned;
  binned::digits d = binned::empty_digits();
  if (common == preduce::detail::exchange::special_code) {
    d.specials = (limbs[0] ? std::uint32_t(binned::saw_nan) : 0u) | (limbs[1] ? std::uint32_t(binned::saw_pos_inf) : 0u) |
                 (limbs[2] ? std::uint32_t(binned::saw_neg_inf) : 0u);
    return d;
  }
  d.level = int(common) + binned::level_min;
  for (int k = 0; k < binned::folds; ++k) d.bin[k] = binned::digit_total::from(limbs[k]);
  return d;
}

}  // namespace

// What the partial-lines kernels write for the exchange, straight from a line's accumulator
// (Red::compact: 64-bit bins from the lattice counts), is the compact form of its digits: lines
// of 1 to 300 terms at levels far apart, with NaN and infinities, and lines of 6000 terms near
// the top of their level (bins past 2^50 units: carries), each folded in two halves that are
// then merged, for float, double and dot of floats (two terms an element), on the host.
TEST_CASE_TEMPLATE("reproducible.compact_of_an_accumulator_is_its_digits", T, float, double) {
  namespace binned = preduce::detail::binned;
  using Red = preduce::detail::reducer_for<preduce::partial<preduce::plus<>>, T>;
  using Dot = preduce::portable::binned::binned_reducer<preduce::dot<float>, preduce::detail::pair_of<float>, true>;
  auto check = [](const auto& red, const auto& x, std::size_t n, std::uint64_t trial) {
    using R = std::decay_t<decltype(red)>;
    auto a = red.identity(), b = red.identity();
    for (std::size_t k = 0; k < n / 2; ++k) a = red.combine(a, red.lift(x(k), k));
    for (std::size_t k = n / 2; k < n; ++k) b = red.combine(b, red.lift(x(k), k));
    a = red.combine(a, b);
    const binned::digits d = red.finalize(a).digits();
    std::uint8_t code = 0, want_code = code_of(d);
    std::int64_t limbs[binned::folds], want[binned::folds];
    R::compact(a, code, limbs);
    limbs_at(d, want_code, want);
    CAPTURE(trial);
    CHECK(code == want_code);
    for (int k = 0; k < binned::folds; ++k) CHECK(limbs[k] == want[k]);
  };
  for (std::uint64_t trial = 0; trial < 60; ++trial) {
    const bool carries = trial % 5 == 0;
    const std::size_t n = carries ? 6000 : 1 + (trial * 37) % 300;
    auto x = spread_data<T>(n, test::seed_for<T>("compact of an accumulator", trial));
    const int scale = int(trial % 11) * 20 - 100;
    for (std::size_t k = 0; k < n; ++k)
      x[k] = carries ? std::ldexp(T(1) + T(0.9) * std::fabs(x[k]) / (T(1) + std::fabs(x[k])), 37) : std::ldexp(x[k], k % 3 == 0 ? scale : -scale / 2);
    if (trial % 7 == 3) x[n / 2] = std::numeric_limits<T>::infinity();
    if (trial % 7 == 4) x[n - 1] = -std::numeric_limits<T>::infinity();
    if (trial % 13 == 5) x[0] = std::numeric_limits<T>::quiet_NaN();
    check(Red{}, [&](std::size_t k) { return x[k]; }, n, trial);
    check(Dot{}, [&](std::size_t k) { return preduce::detail::pair_of<float>{float(x[k]), float(x[n - 1 - k]) * 0.75f}; }, n, trial);
  }
}

// The exchange's rounding of summed bins (exchange::value_of: 192-bit words in registers) has
// round_to's bits: bins of every magnitude and sign (zero, +-1, powers of two, near 2^62 and
// 2^40), ties, every level (subnormal results and overflow included) and the special code, for
// float and double, on the host.
TEST_CASE("reproducible.exchange_value_is_round_to") {
  namespace ex = preduce::detail::exchange;
  namespace binned = preduce::detail::binned;
  test::rng random(0x5eed);
  auto next = [&] { return random.next(); };
  auto limb = [&]() -> std::int64_t {
    const std::uint64_t r = next();
    switch (next() % 6) {
      case 0: return 0;
      case 1: return std::int64_t(r) >> (r % 64);
      case 2: return std::int64_t(r % 3) - 1;
      case 3: return (std::int64_t(1) << (r % 62)) * ((r >> 62) & 1 ? -1 : 1);
      case 4: return std::int64_t(r) >> 1;
      default: return (std::int64_t(1) << 40) * ((r >> 63) ? -1 : 1) + std::int64_t(r % 7) - 3;
    }
  };
  std::size_t differ = 0;
  for (int i = 0; i < 400000; ++i) {
    std::int64_t l[binned::folds] = {limb(), limb(), limb()};
    std::uint8_t code = std::uint8_t(next() % std::uint64_t(binned::level_max - binned::level_min + 1));
    if (i % 500 == 0) code = ex::special_code, l[0] = std::int64_t(next() % 2), l[1] = std::int64_t(next() % 2), l[2] = std::int64_t(next() % 2);
    if (i % 7 == 0) l[0] = 0, l[1] = std::int64_t(next() % (std::uint64_t(1) << 40)) | 1, l[2] = std::int64_t(1) << 39;  // halfway cases
    const binned::digits d = digits_of(code, l);
    differ += !test::same_bits(ex::value_of<float>(code, l), binned::round_to<float>(d));
    differ += !test::same_bits(ex::value_of<double>(code, l), binned::round_to<double>(d));
  }
  CHECK(differ == 0);
}

// A binned sum's value finish (binned::rounded: inline from 64-bit bin totals while every carry
// count is below 2^12, else through to_digits) has round_to(to_digits)'s bits: accumulators of
// random terms at every scale, doubled by merging with themselves until the carry counts pass
// 2^12 (about 2^24 terms of a bin's largest magnitude) and the fallback takes over, for float
// and double results, positive, negative and mixed terms, and with a NaN or an infinity.
TEST_CASE_TEMPLATE("reproducible.value_finish_is_round_to", T, float, double) {
  namespace pb = preduce::portable::binned;
  namespace binned = preduce::detail::binned;
  using Red = pb::binned_reducer<preduce::plus<>, T, false>;
  test::rng random(0xf1415);
  std::size_t differ = 0, checked = 0, past_limit = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int scale = int(random.next() % 200) - 100;
    const int sign_mode = trial % 3;  // all positive, all negative, mixed
    auto a = Red::identity();
    for (int i = 0; i < 4096; ++i) {
      const double u = double(random.next() >> 11) * 0x1p-53;  // [0, 1)
      double t = std::ldexp(0.5 + 0.5 * u, scale);
      if (sign_mode == 1 || (sign_mode == 2 && (random.next() & 1))) t = -t;
      a = Red::combine(a, Red::lift(T(t), 0));
    }
    if (trial % 20 == 7) a = Red::combine(a, Red::lift(std::numeric_limits<T>::infinity(), 0));
    if (trial % 20 == 13) a = Red::combine(a, Red::lift(std::numeric_limits<T>::quiet_NaN(), 0));
    for (int doubling = 0; doubling < 16; ++doubling, a = Red::combine(a, a)) {
      const auto m = a.level == pb::raw_level ? pb::materialized(a) : a;
      std::int64_t totals[binned::folds];
      past_limit += !pb::low_totals(m, totals) && !m.specials;
      differ += !test::same_bits(Red::finalize(a), binned::round_to<T>(pb::to_digits(a)));
      ++checked;
    }
  }
  CHECK(checked == 960);
  CHECK(past_limit > 0);  // the fallback ran
  CHECK(differ == 0);
}

// The distributed calls' compact exchange (detail/merge.hpp's exchange::: one-byte codes met
// by max, int64 bins written at each line's level, moved to the common level in place and
// summed) gives exactly the digits the partials' own merge gives: pieces at top bins far apart
// (scaled by 2^-150 .. 2^150, so bins move down and drop), empty pieces, and pieces holding NaN,
// +inf or -inf.
TEST_CASE_TEMPLATE("reproducible.compact_exchange_is_the_merge", T, float, double) {
  namespace ex = preduce::detail::exchange;
  namespace binned = preduce::detail::binned;
  const auto& q = test::shared_queue();
  const std::size_t pieces = 7, length = 1001;
  for (std::uint64_t trial = 0; trial < 24; ++trial) {
    CAPTURE(trial);
    std::vector<preduce::reproducible_partial<T>> parts;
    for (std::size_t k = 0; k < pieces; ++k) {
      auto x = spread_data<T>(length, test::seed_for<T>("compact exchange", trial * pieces + k));
      const int scale = int((trial * 5 + k * 3) % 13) * 25 - 150;
      for (T& v : x) v = std::ldexp(v, std::is_same<T, float>::value ? scale / 2 : scale);
      const std::size_t used = (trial + k) % 5 == 0 ? 0 : length;  // some pieces empty
      if (trial % 6 == 5 && k == trial % pieces) x[3] = std::numeric_limits<T>::infinity();
      if (trial % 6 == 5 && k == (trial + 2) % pieces && trial % 12 == 5) x[9] = -std::numeric_limits<T>::infinity();
      if (trial % 8 == 7 && k == 1) x[0] = std::numeric_limits<T>::quiet_NaN();
      const preduce::device_buffer<T> d(q, x);
      parts.push_back(preduce::reduce(q, d.data(), used, preduce::partial_of(preduce::plus<>{})));
    }
    preduce::reproducible_partial<T> merged;
    std::uint8_t common = 0;
    for (const auto& p : parts) {
      merged += p;
      common = std::max(common, code_of(p.digits()));
    }
    std::int64_t sums[binned::folds] = {};
    bool aligned_as_limbs_of = true;
    for (const auto& p : parts) {
      std::int64_t limbs[binned::folds];
      limbs_at(p.digits(), common, limbs);
      for (int b = 0; b < binned::folds; ++b) sums[b] += limbs[b];
      // The partial-lines path: the compact form at the line's own level, then aligned in place.
      std::uint8_t own = 0;
      std::int64_t totals[binned::folds], compact[binned::folds];
      for (int b = 0; b < binned::folds; ++b) totals[b] = std::int64_t(p.digits().bin[b].limb[0]);
      ex::compact_of(p.digits().level, p.digits().specials, totals, own, compact);
      ex::align_step{&own, &common, compact, 1}(0);
      for (int b = 0; b < binned::folds; ++b) aligned_as_limbs_of = aligned_as_limbs_of && compact[b] == limbs[b];
    }
    CHECK(aligned_as_limbs_of);
    const preduce::reproducible_partial<T> exchanged(digits_of(common, sums));
    CHECK(test::same_bits(exchanged.value(), merged.value()));
    if (!merged.digits().specials) CHECK(exchanged == merged);
  }
}

// reduce_async writes partials to device memory (and nothing else); merged on the host they
// match the sync call.
TEST_CASE("reproducible.partials_async") {
  const auto& q = test::shared_queue();
  const std::size_t n = 10007;
  const auto x = spread_data<double>(n, test::seed_for<double>("async partial", n));
  const preduce::device_buffer<double> dx(q, x);
  using P = preduce::reproducible_partial<double>;
  test::guarded_output<P> out(q, 2);
  preduce::reduce_async(q, dx.data(), 4000, out.data(), preduce::partial_of(preduce::plus<>{}));
  preduce::reduce_async(q, dx.data() + 4000, n - 4000, out.data() + 1, preduce::partial_of(preduce::plus<>{}));
  q.synchronize();
  CHECK(out.only_results_written(2));
  const auto got = out.values(2);
  CHECK(got[0] + got[1] == preduce::reduce(q, dx.data(), n, preduce::partial_of(preduce::plus<>{})));
  // An empty piece writes the empty partial.
  test::guarded_output<P> empty(q, 1);
  preduce::reduce_async(q, static_cast<const double*>(nullptr), 0, empty.data(), preduce::partial_of(preduce::plus<>{}));
  q.synchronize();
  CHECK(empty.values(1)[0] == P{});
  CHECK(bits_of(P{}.value()) == 0u);
}

// from_bytes refuses what to_bytes did not write.
TEST_CASE("reproducible.partial_bytes_checked") {
  using P = preduce::reproducible_partial<float>;
  using M = preduce::reproducible_partial<preduce::moments_result<double>>;
  const auto good = P{}.to_bytes();
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, P::from_bytes(good.data(), good.size() - 1));
  PREDUCE_CHECK_ERROR(preduce::errc::null_pointer, P::from_bytes(nullptr, good.size()));
  auto wrong_type = good;
  wrong_type[6] = 8;  // the result width: a double partial's bytes
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, P::from_bytes(wrong_type.data(), wrong_type.size()));
  auto bad_level = good;
  bad_level[8] = 0x7f;  // level 127: beyond level_max
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, P::from_bytes(bad_level.data(), bad_level.size()));
  const auto moments_bytes = M{}.to_bytes();
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, P::from_bytes(moments_bytes.data(), P::serialized_size));
  CHECK(M::from_bytes(moments_bytes.data(), moments_bytes.size()) == M{});
}

// ---------------------------------------------------------------------------------------------
// Sizes across block and tile boundaries, every launch shape
// ---------------------------------------------------------------------------------------------

TEST_CASE_TEMPLATE("reproducible.sizes_and_launch_shapes", T, float, double, half, bfloat16) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : test::whole_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = spread_data<T>(n, test::seed_for<T>("sizes x", n));
      const auto y = spread_data<T>(n, test::seed_for<T>("sizes y", n));
      const auto xy = pairs(x, y);
      const auto plus = host_partial<preduce::plus<>>(x.data(), n).value();
      const auto dot = host_partial<preduce::dot<T>>(xy.data(), n).value();
      const auto moments = host_partial<preduce::moments<>>(x.data(), n).value();
      const aligned_and_not<T> dx(q, x), dy(q, y);
      for (const preduce::options& o : shapes_to_try()) {
        for (const bool misaligned : {false, true}) {
          CAPTURE(int(o.algo));
          CAPTURE(int(o.warp));
          CAPTURE(misaligned);
          const T* px = dx.at(misaligned);
          CHECK(test::same_bits(preduce::reduce(q, px, n, preduce::plus<>{}, o), plus));
          CHECK(test::same_bits(preduce::reduce(q, px, n, preduce::moments<>{}, o), moments));
          CHECK(test::same_bits(preduce::reduce(q, px, n, preduce::dot<T>{dy.at(misaligned)}, o), dot));
          // x and y at different offsets from a vector boundary: the scalar path.
          CHECK(test::same_bits(preduce::reduce(q, px, n, preduce::dot<T>{dy.at(!misaligned)}, o), dot));
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rows, columns and segments: each result equals the whole reduction of its slice
// ---------------------------------------------------------------------------------------------

namespace {

template <class T, class Op>
void check_batched(const preduce::queue& q, std::size_t rows, std::size_t cols, Op op) {
  using R = test::result_of<Op, T>;
  const auto x = spread_data<T>(rows * cols, test::seed_for<T>("batched", rows * cols, cols));
  const preduce::device_buffer<T> dx(q, x);
  auto slice_value = [](const std::vector<T>& slice) { return host_partial<Op>(slice.data(), slice.size()).value(); };
  SUBCASE("rows") {
    test::guarded_output<R> out(q, rows);
    preduce::reduce_rows(q, dx.data(), rows, cols, out.data(), op, reproducible);
    const auto got = out.values(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      CAPTURE(i);
      CHECK(test::same_bits(got[i], slice_value(std::vector<T>(x.begin() + std::ptrdiff_t(i * cols), x.begin() + std::ptrdiff_t((i + 1) * cols)))));
    }
    if (rows > 0) CHECK(test::same_bits(got[0], preduce::reduce(q, dx.data(), cols, op, reproducible)));
    CHECK(out.only_results_written(rows));
  }
  SUBCASE("columns") {
    test::guarded_output<R> out(q, cols);
    preduce::reduce_columns(q, dx.data(), rows, cols, out.data(), op, reproducible);
    const auto got = out.values(cols);
    for (std::size_t j = 0; j < cols; ++j) {
      std::vector<T> column(rows);
      for (std::size_t i = 0; i < rows; ++i) column[i] = x[i * cols + j];
      CAPTURE(j);
      CHECK(test::same_bits(got[j], slice_value(column)));
    }
  }
  SUBCASE("segments") {
    // Random cuts of the whole array, empty segments included.
    const std::size_t n = rows * cols, segments = 1 + n / 97;
    test::rng r(test::seed_for<T>("segments", n));
    std::vector<std::int64_t> offsets(segments + 1);
    for (auto& o : offsets) o = std::int64_t(r.below(n + 1));
    std::sort(offsets.begin(), offsets.end());
    const preduce::device_buffer<std::int64_t> d_offsets(q, offsets);
    test::guarded_output<R> out(q, segments);
    preduce::reduce_segments(q, dx.data(), n, d_offsets.data(), segments, out.data(), op, reproducible);
    const auto got = out.values(segments);
    for (std::size_t s = 0; s < segments; ++s) {
      CAPTURE(s);
      CHECK(test::same_bits(got[s], slice_value(std::vector<T>(x.begin() + offsets[s], x.begin() + offsets[s + 1]))));
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("reproducible.batched", T, float, double, half, bfloat16) {
  const auto& q = test::shared_queue();
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{1, 1}, {7, 1}, {5, 257}, {33, 1000}, {2, 70001}}) {
    SUBCASE((std::to_string(rows) + "x" + std::to_string(cols)).c_str()) {
      SUBCASE("plus") { check_batched<T>(q, rows, cols, preduce::plus<>{}); }
      SUBCASE("sum_of_squares") { check_batched<T>(q, rows, cols, preduce::sum_of_squares<>{}); }
      SUBCASE("moments") { check_batched<T>(q, rows, cols, preduce::moments<>{}); }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Operators that are exact already, and what reproducible mode refuses
// ---------------------------------------------------------------------------------------------

// Comparisons, logical and bitwise operators and integer arithmetic run their ordinary kernels
// under reproducible: the same bits as run_to_run and the oracle's value (on data without NaN
// or signed zeros, see reproducible.hpp). moments of integers is refused.
TEST_CASE_TEMPLATE("reproducible.exact_operators", T, std::int8_t, std::int32_t, std::uint64_t, float, double, half) {
  const auto& q = test::shared_queue();
  for (const std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(65537)}) {
    SUBCASE(test::size_name(n).c_str()) {
      test::for_each_operator<T>([&](auto op) {
        using Op = decltype(op);
        const auto x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>("exact ops", n));
        const preduce::device_buffer<T> d(q, x);
        if constexpr (preduce::reference::is_floating<T> && (test::is_sum<Op>::value || test::is_product<Op>::value || test::is_moments<Op>::value)) {
          return;  // binned (tested above) or refused (below)
        } else if constexpr (test::is_moments<Op>::value) {
          PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce(q, d.data(), n, op, reproducible));
        } else {
          const auto got = preduce::reduce(q, d.data(), n, op, reproducible);
          CHECK(test::same_bits(got, preduce::reduce(q, d.data(), n, op)));
          test::check_result(got, test::expected(op, x.data(), n));
        }
      });
    }
  }
}

// multiplies on floating-point input has no reproducible form: refused before anything runs.
TEST_CASE_TEMPLATE("reproducible.multiplies_refused", T, float, double, half, bfloat16) {
  const auto& q = test::shared_queue();
  const std::vector<T> x(100, T(1.0f));
  const preduce::device_buffer<T> d(q, x);
  using R = test::result_of<preduce::multiplies<>, T>;
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce(q, d.data(), x.size(), preduce::multiplies<>{}, reproducible));
  test::guarded_output<R> out(q, 10);
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported,
                      preduce::reduce_async(q, d.data(), x.size(), out.data(), preduce::multiplies<>{}, reproducible));
  PREDUCE_CHECK_ERROR(preduce::errc::unsupported, preduce::reduce_rows(q, d.data(), 10, 10, out.data(), preduce::multiplies<>{}, reproducible));
  q.synchronize();
  CHECK(out.untouched());
}

// ---------------------------------------------------------------------------------------------
// The stated rules: NaN and inf in moments, the condition for correct rounding, from_bytes
// ---------------------------------------------------------------------------------------------

// moments of data holding a NaN or an infinity follow one rule under run_to_run and
// reproducible, on every backend: the mean is the special sum (NaN for a NaN or infinities of
// both signs, else that infinity) and M2 is NaN; the count is exact. Small inputs and long ones
// (the special value at the start, inside and at the end of many blocks' shares).
TEST_CASE_TEMPLATE("reproducible.moments_nan_and_inf_rule", T, float, double) {
  const auto& q = test::shared_queue();
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  struct special_case {
    const char* name;
    std::vector<std::pair<std::size_t, T>> at;  // positions (as fractions of n, in 1/8) and values
    int mean;                                    // 0: NaN, +1: +inf, -1: -inf
  };
  const std::vector<special_case> cases = {{"a NaN", {{3, nan}}, 0},
                                           {"+inf", {{8, inf}}, +1},
                                           {"+inf first", {{0, inf}}, +1},
                                           {"-inf, twice", {{2, -inf}, {5, -inf}}, -1},
                                           {"+inf and -inf", {{1, inf}, {6, -inf}}, 0},
                                           {"+inf and a NaN", {{7, inf}, {4, nan}}, 0}};
  for (const std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(33), std::size_t(5000), std::size_t(300007)}) {
    for (const auto& c : cases) {
      if (n < c.at.size()) continue;
      CAPTURE(n);
      CAPTURE(c.name);
      auto x = test::make_data<T>(test::data::spread, n, test::seed_for<T>("moments rule", n));
      for (const auto& [eighths, v] : c.at) x[std::min(n - 1, eighths * n / 8)] = v;
      const preduce::device_buffer<T> d(q, x);
      for (const auto det : {preduce::determinism::run_to_run, preduce::determinism::reproducible}) {
        CAPTURE(int(det));
        const auto m = preduce::reduce(q, d.data(), n, preduce::moments<>{}, preduce::options{det});
        CHECK(m.count == n);
        if (c.mean == 0) CHECK(std::isnan(m.mean));
        else CHECK(m.mean == (c.mean > 0 ? inf : -inf));
        CHECK(std::isnan(m.m2));
      }
      // Rows take the same rule: one row of n.
      preduce::device_buffer<preduce::moments_result<T>> row(q, 1);
      preduce::reduce_rows(q, d.data(), 1, n, row.data(), preduce::moments<>{});
      const auto m = row.to_host()[0];
      CHECK(m.count == n);
      CHECK(std::isnan(m.m2));
    }
  }
}

// The reproducible double sum is the correctly rounded exact sum when every non-zero term is
// at least 2^-26 of the largest and at least 2^-988 (its lattice's finest unit is 2^-1040; a
// term finer than that is rounded to it: four terms of 2^-1041 sum to 2^-1038, within the
// stated bound n 2^-1040 of the exact 2^-1039).
TEST_CASE("reproducible.correct_rounding_condition") {
  const auto& q = test::shared_queue();
  SUBCASE("terms of at least 2^-988: correctly rounded") {
    // Terms m 2^(s - 1040) with 2^52 <= m < 2^53 and 0 <= s <= 8 (each a double of at least
    // 2^-988, all within 2^-9 of each other), mixed signs; the exact sum as a 128-bit integer in
    // units of 2^-1040, rounded once to double and scaled exactly.
    test::rng r(0x2d988);
    for (const std::size_t n : {std::size_t(4), std::size_t(1000), std::size_t(65537)}) {
      std::vector<double> x(n);
      __int128 exact = 0;
      for (auto& v : x) {
        const std::int64_t m = std::int64_t((r.next() >> 11) | (std::uint64_t(1) << 52));
        const int s = int(r.between(0, 8));
        const bool negative = r.between(0, 2) == 0;
        const __int128 k = __int128(m) << s;  // shifted while non-negative (a negative left shift is undefined)
        exact += negative ? -k : k;
        v = std::ldexp(negative ? -double(m) : double(m), s - 1040);
      }
      const double want = std::ldexp(double(exact), -1040);  // int128 -> double rounds once; the scaling is exact
      const preduce::device_buffer<double> d(q, x);
      CAPTURE(n);
      CHECK(bits_of(preduce::reduce(q, d.data(), n, preduce::plus<>{}, reproducible)) == bits_of(want));
    }
  }
  SUBCASE("terms below 2^-1040: within the bound") {
    const std::vector<double> x(4, std::ldexp(1.0, -1041));
    const preduce::device_buffer<double> d(q, x);
    const double got = preduce::reduce(q, d.data(), x.size(), preduce::plus<>{}, reproducible);
    CHECK(std::fabs(got - std::ldexp(1.0, -1039)) <= 4 * std::ldexp(1.0, -1040));
  }
}

// from_bytes refuses states no reduction produces: digits beyond what the terms can hold,
// random bytes behind a valid header, and a moments state of no elements that holds a sum.
TEST_CASE("reproducible.partial_bytes_impossible_states") {
  using P = preduce::reproducible_partial<double>;
  using M = preduce::reproducible_partial<preduce::moments_result<double>>;
  test::rng r(0xb17e5);
  std::size_t refused = 0;
  const int tries = 1000;
  for (int k = 0; k < tries; ++k) {
    auto bytes = P{}.to_bytes();
    for (std::size_t i = 16; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(r.next());  // the bins, random
    std::string what;
    refused += test::error_of([&] { (void)P::from_bytes(bytes.data(), bytes.size()); }, what) == "invalid_argument";
  }
  CHECK(refused == std::size_t(tries));
  // A moments state of count 0 with a non-zero sum.
  auto empty = M{}.to_bytes();
  empty[8 + 8 + 8] = 1;  // the sum's top bin, lowest byte
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, (void)M::from_bytes(empty.data(), empty.size()));
  // A real state passes, and one bin pushed past its terms' reach does not.
  const auto& q = test::shared_queue();
  const std::vector<double> x = test::make_data<double>(test::data::spread, 4096, 0x5eed);
  const preduce::device_buffer<double> d(q, x);
  const auto m = preduce::reduce(q, d.data(), x.size(), preduce::partial_of(preduce::moments<>{}));
  auto good = m.to_bytes();
  CHECK(M::from_bytes(good.data(), good.size()) == m);
  good[8 + 8 + 8 + 8 + 15] = 0x40;  // the sum's top bin: bit 126 set
  PREDUCE_CHECK_ERROR(preduce::errc::invalid_argument, (void)M::from_bytes(good.data(), good.size()));
}
