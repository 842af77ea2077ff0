// SPDX-License-Identifier: Apache-2.0
// preduce tests: helpers shared by every test file: type lists, sizes, seeded random data,
// poisoned device outputs, the oracle for each built-in operator and result comparisons.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <preduce/testing/reference.hpp>
#include <preduce/testing/splitmix64.hpp>
#include <preduce/preduce.hpp>

// Short type names, so test names read "reduce.sum<int8_t>" and ctest names carry no spaces.
TYPE_TO_STRING_AS("int8_t", std::int8_t);
TYPE_TO_STRING_AS("int16_t", std::int16_t);
TYPE_TO_STRING_AS("int32_t", std::int32_t);
TYPE_TO_STRING_AS("int64_t", std::int64_t);
TYPE_TO_STRING_AS("uint8_t", std::uint8_t);
TYPE_TO_STRING_AS("uint16_t", std::uint16_t);
TYPE_TO_STRING_AS("uint32_t", std::uint32_t);
TYPE_TO_STRING_AS("uint64_t", std::uint64_t);
TYPE_TO_STRING_AS("half", preduce::half);
TYPE_TO_STRING_AS("bfloat16", preduce::bfloat16);

namespace test {

namespace ref = preduce::reference;

// ---------------------------------------------------------------------------------------------
// Types and sizes
// ---------------------------------------------------------------------------------------------

using integer_types = std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                                 std::uint32_t, std::uint64_t>;
using floating_types = std::tuple<float, double, preduce::half, preduce::bfloat16>;
using all_types = std::tuple<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                             std::uint32_t, std::uint64_t, float, double, preduce::half, preduce::bfloat16>;
//! A few types covering every element width, signedness and floating format, for the tests that
//! need breadth of layout rather than every type.
using sample_types = std::tuple<std::int8_t, std::uint16_t, std::int32_t, std::uint64_t, float, double, preduce::half>;

//! Every whole-array size of the per-(operator, type) tests: empty, tiny, around warp (32),
//! block (256, 1024) and tile (4096, 65536) boundaries, and a prime.
inline const std::vector<std::size_t> whole_sizes = {0,    1,    2,    3,    31,   32,   33,    63,    64,    65,   255, 256,
                                                     257,  1023, 1024, 1025, 4095, 4096, 4097, 7919, 65535, 65536, 65537};
//! Sizes around 2^20 and a large prime, for a few types and operators (big_sizes.cpp).
inline const std::vector<std::size_t> large_sizes = {1000003, (std::size_t(1) << 20) - 1, std::size_t(1) << 20,
                                                     (std::size_t(1) << 20) + 1};

//! "n=4097": the name of a size's SUBCASE.
inline std::string size_name(std::size_t n) { return "n=" + std::to_string(n); }

//! The type reduce() returns for Op on T (the accumulator for sums, arg<T> for argmax, ...).
template <class Op, class T>
using result_of = decltype(preduce::reduce(std::declval<const preduce::queue&>(), std::declval<const T*>(), std::size_t{},
                                           std::declval<Op>()));

//! Whether the host reports at least `bytes` available to new allocations (MemAvailable in
//! /proc/meminfo): the inputs of 2^32 elements and more need it (they are host memory on host
//! backends). When not, prints why the calling test is skipped.
bool enough_memory_for(std::uint64_t bytes);

//! The queue most tests share (the default queue, made on first use, never at static init).
inline const preduce::queue& shared_queue() {
  static const preduce::queue q;
  return q;
}

// ---------------------------------------------------------------------------------------------
// Seeded random data
// ---------------------------------------------------------------------------------------------

//! The suite's seeded generator.
using rng = preduce::testing::splitmix64;

//! A seed fixed by (what, type, n, variant) and mixed from all four, so every size and type
//! gets its own data, the same on every run and backend.
template <class T>
std::uint64_t seed_for(const char* what, std::size_t n, std::uint64_t variant = 0) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the names
  auto mix = [&h](const char* s) {
    for (; *s; ++s) h = (h ^ std::uint8_t(*s)) * 0x100000001b3ull;
  };
  mix(what);
  mix(doctest::toString<T>().c_str());
  return h ^ (std::uint64_t(n) * 0x9e3779b97f4a7c15ull) ^ (variant << 56);
}

//! The T nearest to v (half and bfloat16 round through float; integers truncate).
template <class T>
T from_double(double v) {
  if constexpr (std::is_same<T, preduce::half>::value || std::is_same<T, preduce::bfloat16>::value) {
    return T(float(v));
  } else {
    return static_cast<T>(v);
  }
}

//! Shapes of random data.
enum class data {
  spread,          //!< integers: every bit random; floats: uniform in (-1, 1) times 2^[-3, 3]
  small_integers,  //!< integer values in [-m, m] ([0, m] unsigned): float sums stay exact
  near_one,        //!< integers: odd (products never collapse to 0); floats: 1 +- 1/64
  ties,            //!< few distinct values, many repeats: arg forms must pick the first index
};

inline const char* data_name(data d) {
  switch (d) {
    case data::spread: return "data=spread";
    case data::small_integers: return "data=small_integers";
    case data::near_one: return "data=near_one";
    case data::ties: return "data=ties";
  }
  return "data=?";
}

//! n random elements of shape d from seed; m bounds small_integers.
template <class T>
std::vector<T> make_data(data d, std::size_t n, std::uint64_t seed, std::int64_t m = 100) {
  rng r(seed);
  std::vector<T> x(n);
  const std::int64_t lo = std::is_signed<T>::value || ref::is_floating<T> ? -1 : 0;
  for (auto& v : x) {
    switch (d) {
      case data::spread:
        if constexpr (std::is_integral<T>::value) {
          v = static_cast<T>(r.next());
        } else {
          v = from_double<T>(r.uniform(-1.0, 1.0) * std::ldexp(1.0, int(r.between(-3, 3))));
        }
        break;
      case data::small_integers: {
        std::int64_t cap = m;
        if constexpr (std::is_integral<T>::value && sizeof(T) < 8) cap = std::min<std::int64_t>(cap, std::numeric_limits<T>::max());
        v = from_double<T>(double(r.between(lo * cap, cap)));
        break;
      }
      case data::near_one:
        if constexpr (std::is_integral<T>::value) {
          v = static_cast<T>(r.next() | 1u);
        } else {
          v = from_double<T>(1.0 + r.uniform(-1.0 / 64, 1.0 / 64));
        }
        break;
      case data::ties:
        if constexpr (std::is_integral<T>::value) {
          v = static_cast<T>(lo == 0 ? r.between(0, 16) : r.between(-8, 8));
        } else {
          v = from_double<T>(0.5 * double(r.between(-8, 8)));
        }
        break;
    }
  }
  return x;
}

//! The largest m such that n integer terms of magnitude <= m (m^2 when squared) have every
//! partial sum exactly representable in A (n m <= 2^digits), capped at 100. Floating sums of
//! such data are exact in any order, so the library must match the oracle exactly.
template <class A>
std::int64_t exact_magnitude(std::size_t n, bool squared) {
  const long double limit = std::ldexp(1.0L, std::numeric_limits<A>::digits) / static_cast<long double>(n ? n : 1);
  const long double m = std::floor(squared ? std::sqrt(limit) : limit);
  REQUIRE(m >= 1.0L);  // else no exact data of this size exists for A
  return m > 100.0L ? 100 : static_cast<std::int64_t>(m);
}

// ---------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------

//! Calls f(op) for every built-in operator but dot (which needs a second array), each in its
//! own SUBCASE named after the operator; bitwise operators on integer T only.
template <class T, class F>
void for_each_operator(F&& f) {
  using preduce::nan_ignoring;
  SUBCASE("plus") { f(preduce::plus<>{}); }
  SUBCASE("multiplies") { f(preduce::multiplies<>{}); }
  SUBCASE("sum_of_squares") { f(preduce::sum_of_squares<>{}); }
  SUBCASE("moments") { f(preduce::moments<>{}); }
  SUBCASE("minimum") { f(preduce::minimum{}); }
  SUBCASE("maximum") { f(preduce::maximum{}); }
  SUBCASE("minmax") { f(preduce::minmax{}); }
  SUBCASE("argmin") { f(preduce::argmin{}); }
  SUBCASE("argmax") { f(preduce::argmax{}); }
  SUBCASE("nan_ignoring<minimum>") { f(nan_ignoring<preduce::minimum>{}); }
  SUBCASE("nan_ignoring<maximum>") { f(nan_ignoring<preduce::maximum>{}); }
  SUBCASE("nan_ignoring<minmax>") { f(nan_ignoring<preduce::minmax>{}); }
  SUBCASE("nan_ignoring<argmin>") { f(nan_ignoring<preduce::argmin>{}); }
  SUBCASE("nan_ignoring<argmax>") { f(nan_ignoring<preduce::argmax>{}); }
  SUBCASE("logical_and") { f(preduce::logical_and{}); }
  SUBCASE("logical_or") { f(preduce::logical_or{}); }
  if constexpr (std::is_integral<T>::value) {
    SUBCASE("bit_and") { f(preduce::bit_and{}); }
    SUBCASE("bit_or") { f(preduce::bit_or{}); }
    SUBCASE("bit_xor") { f(preduce::bit_xor{}); }
  }
}

template <class Op> struct is_product : std::false_type {};
template <class A> struct is_product<preduce::multiplies<A>> : std::true_type {};
template <class Op> struct is_moments : std::false_type {};
template <class A> struct is_moments<preduce::moments<A>> : std::true_type {};
template <class Op> struct is_sum : std::false_type {};
template <class A> struct is_sum<preduce::plus<A>> : std::true_type {};
template <class A> struct is_sum<preduce::sum_of_squares<A>> : std::true_type {};
template <class Op> struct is_bitwise : std::false_type {};
template <> struct is_bitwise<preduce::bit_and> : std::true_type {};
template <> struct is_bitwise<preduce::bit_or> : std::true_type {};
template <> struct is_bitwise<preduce::bit_xor> : std::true_type {};

//! The data shape that best exposes a wrong result of Op on T: full-range integers or exactly
//! summable floats for sums, odd / near-one values for products, many ties for comparisons
//! (first-index rules) and logical operators (zeros among non-zeros), random bits for bitwise.
template <class Op, class T>
data shape_for() {
  if constexpr (is_product<Op>::value) {
    return data::near_one;
  } else if constexpr (is_moments<Op>::value || is_bitwise<Op>::value) {
    return data::spread;
  } else if constexpr (is_sum<Op>::value) {
    return std::is_integral<T>::value ? data::spread : data::small_integers;
  } else {
    return data::ties;
  }
}

// ---------------------------------------------------------------------------------------------
// Guarded device outputs
// ---------------------------------------------------------------------------------------------

//! Poison byte of every guarded output; a library write leaves a different pattern behind.
inline constexpr unsigned char poison = 0xa5;

//! `slots` results of type Out in device memory with `guard` slots of poison on either side;
//! every byte starts as poison. Lets a test see exactly which bytes a call wrote.
template <class Out>
class guarded_output {
 public:
  guarded_output(const preduce::queue& q, std::size_t slots, std::size_t guard = 4)
      : slots_(slots), guard_(guard), buffer_(q, std::vector<unsigned char>((slots + 2 * guard) * sizeof(Out), poison)) {}

  //! The first result slot (device memory).
  Out* data() { return reinterpret_cast<Out*>(buffer_.data() + guard_ * sizeof(Out)); }
  //! Whether no byte at all was written.
  bool untouched() const { return count_written(bytes()) == 0; }
  //! Whether every byte outside the result slots k * stride (k < results) is still poison.
  bool only_results_written(std::size_t results, std::size_t stride = 1) const {
    const auto b = bytes();
    for (std::size_t s = 0; s < slots_ + 2 * guard_; ++s) {
      const bool is_result = s >= guard_ && (s - guard_) % stride == 0 && (s - guard_) / stride < results;
      if (is_result) continue;
      for (std::size_t k = 0; k < sizeof(Out); ++k)
        if (b[s * sizeof(Out) + k] != poison) return false;
    }
    return true;
  }
  //! The results at slots k * stride, k < results.
  std::vector<Out> values(std::size_t results, std::size_t stride = 1) const {
    const auto b = bytes();
    std::vector<Out> v;
    v.reserve(results);
    for (std::size_t k = 0; k < results; ++k) {
      Out o;  // copied through a scalar: std::vector<bool> has no addressable elements
      std::memcpy(&o, &b[(guard_ + k * stride) * sizeof(Out)], sizeof(Out));
      v.push_back(o);
    }
    return v;
  }

 private:
  std::vector<unsigned char> bytes() const { return buffer_.to_host(); }
  static std::size_t count_written(const std::vector<unsigned char>& b) {
    std::size_t c = 0;
    for (unsigned char x : b) c += x != poison;
    return c;
  }
  std::size_t slots_, guard_;
  preduce::device_buffer<unsigned char> buffer_;
};

// ---------------------------------------------------------------------------------------------
// The oracle of each built-in operator
// ---------------------------------------------------------------------------------------------

using ref::nan_policy;

template <class T, class A>
auto expected(preduce::plus<A>, const T* x, std::size_t n) {
  return ref::sum<result_of<preduce::plus<A>, T>>(x, n);
}
template <class T, class A>
auto expected(preduce::multiplies<A>, const T* x, std::size_t n) {
  return ref::product<result_of<preduce::multiplies<A>, T>>(x, n);
}
template <class T, class A>
auto expected(preduce::sum_of_squares<A>, const T* x, std::size_t n) {
  return ref::sum_of_squares<result_of<preduce::sum_of_squares<A>, T>>(x, n);
}
template <class T, class A>
auto expected(preduce::moments<A>, const T* x, std::size_t n) {
  return ref::moments<decltype(result_of<preduce::moments<A>, T>::mean)>(x, n);
}
template <class T>
T expected(preduce::minimum, const T* x, std::size_t n) { return ref::minimum(x, n, nan_policy::propagate); }
template <class T>
T expected(preduce::maximum, const T* x, std::size_t n) { return ref::maximum(x, n, nan_policy::propagate); }
template <class T>
auto expected(preduce::minmax, const T* x, std::size_t n) { return ref::minmax(x, n, nan_policy::propagate); }
template <class T>
auto expected(preduce::argmin, const T* x, std::size_t n) { return ref::argmin(x, n, nan_policy::propagate); }
template <class T>
auto expected(preduce::argmax, const T* x, std::size_t n) { return ref::argmax(x, n, nan_policy::propagate); }
template <class T>
T expected(preduce::nan_ignoring<preduce::minimum>, const T* x, std::size_t n) { return ref::minimum(x, n, nan_policy::ignore); }
template <class T>
T expected(preduce::nan_ignoring<preduce::maximum>, const T* x, std::size_t n) { return ref::maximum(x, n, nan_policy::ignore); }
template <class T>
auto expected(preduce::nan_ignoring<preduce::minmax>, const T* x, std::size_t n) { return ref::minmax(x, n, nan_policy::ignore); }
template <class T>
auto expected(preduce::nan_ignoring<preduce::argmin>, const T* x, std::size_t n) { return ref::argmin(x, n, nan_policy::ignore); }
template <class T>
auto expected(preduce::nan_ignoring<preduce::argmax>, const T* x, std::size_t n) { return ref::argmax(x, n, nan_policy::ignore); }
template <class T>
bool expected(preduce::logical_and, const T* x, std::size_t n) { return ref::logical_and(x, n); }
template <class T>
bool expected(preduce::logical_or, const T* x, std::size_t n) { return ref::logical_or(x, n); }
template <class T>
T expected(preduce::bit_and, const T* x, std::size_t n) { return ref::bit_and(x, n); }
template <class T>
T expected(preduce::bit_or, const T* x, std::size_t n) { return ref::bit_or(x, n); }
template <class T>
T expected(preduce::bit_xor, const T* x, std::size_t n) { return ref::bit_xor(x, n); }
//! dot reads a second array y; its oracle needs the host copy of y.
template <class T, class U, class A>
auto expected(preduce::dot<U, A>, const T* x, const T* y, std::size_t n) {
  return ref::dot<result_of<preduce::dot<U, A>, T>>(x, y, n);
}

//! The oracle of every row (by_rows) or every column of the row-major rows x cols matrix x.
template <class Op, class T>
auto expected_lines(Op op, const std::vector<T>& x, std::size_t rows, std::size_t cols, bool by_rows) {
  const std::size_t lines = by_rows ? rows : cols, along = by_rows ? cols : rows;
  std::vector<T> line(along);
  std::vector<decltype(expected(op, x.data(), 0))> want;
  for (std::size_t t = 0; t < lines; ++t) {
    for (std::size_t k = 0; k < along; ++k) line[k] = by_rows ? x[t * cols + k] : x[k * cols + t];
    want.push_back(expected(op, line.data(), along));
  }
  return want;
}

//! The row-major block of the rows x cols matrix x that holds columns [first, first + count) of
//! every row (by_rows: what a rank holds for allreduce_rows) or rows [first, first + count).
template <class T>
std::vector<T> block_of(const std::vector<T>& x, std::size_t rows, std::size_t cols, bool by_rows, std::size_t first, std::size_t count) {
  if (!by_rows) return std::vector<T>(x.begin() + std::ptrdiff_t(first * cols), x.begin() + std::ptrdiff_t((first + count) * cols));
  std::vector<T> block;
  for (std::size_t i = 0; i < rows; ++i)
    block.insert(block.end(), x.begin() + std::ptrdiff_t(i * cols + first), x.begin() + std::ptrdiff_t(i * cols + first + count));
  return block;
}

// ---------------------------------------------------------------------------------------------
// Comparing results with the oracle
// ---------------------------------------------------------------------------------------------

//! A result as the checks see it: up to three named fields (a value, an index, a count...),
//! each an exact long double (every element, accumulator and index type fits) or NaN, and the
//! distance from it that the oracle allows (0: exact). Results of every type become this, so
//! the comparison and its doctest assertions are compiled once, not per type and operator.
struct fields {
  struct field {
    const char* name;
    long double value;
    long double bound;
  };
  std::size_t size = 0;
  field at[3];

  fields& add(const char* name, long double value, long double bound = 0.0L) {
    at[size++] = {name, value, bound};
    return *this;
  }
};

//! An element, accumulator or index value as one exact field.
template <class T>
fields to_fields(const T& v) {
  static_assert(std::is_arithmetic<T>::value || ref::is_floating<T>, "test::to_fields: no conversion for this result type");
  return fields{}.add("value", ref::value(v));
}
inline fields to_fields(const ref::estimate& e) { return fields{}.add("value", e.value, e.bound); }
template <class T>
fields to_fields(const preduce::arg<T>& a) {
  return fields{}.add("value", ref::value(a.value)).add("index", static_cast<long double>(a.index));
}
template <class T>
fields to_fields(const preduce::minmax_result<T>& m) {
  return fields{}.add("min", ref::value(m.min)).add("max", ref::value(m.max));
}
template <class A>
fields to_fields(const preduce::moments_result<A>& m) {
  return fields{}.add("count", static_cast<long double>(m.count)).add("mean", m.mean).add("m2", m.m2);
}
inline fields to_fields(const ref::moments_estimate& m) {
  return fields{}.add("count", static_cast<long double>(m.count)).add("mean", m.mean.value, m.mean.bound).add("m2", m.m2.value, m.m2.bound);
}

//! Checks every field of got against want: NaN matches only NaN, -0 matches +0, and a value
//! matches within want's bound, which must be finite (an infinite bound would accept anything).
void check_fields(const fields& got, const fields& want);
//! check_fields' verdict without doctest assertions (for threads that report in bulk), and the
//! text of a result.
bool same_fields(const fields& got, const fields& want);
std::string text(const fields& f);

//! Checks a result against the oracle's value for it.
template <class R, class E>
void check_result(const R& got, const E& want) {
  check_fields(to_fields(got), to_fields(want));
}

//! Checks batched results against the oracle's, element by element.
void check_fields_each(const std::vector<fields>& got, const std::vector<fields>& want);
template <class R, class E>
void check_results(const std::vector<R>& got, const std::vector<E>& want) {
  std::vector<fields> g, w;
  for (const auto& r : got) g.push_back(to_fields(static_cast<R>(r)));
  for (const auto& e : want) w.push_back(to_fields(static_cast<E>(e)));
  check_fields_each(g, w);
}

//! Bitwise equality of two results. Every result type but arg<T> has no padding.
template <class R>
bool same_bits(const R& a, const R& b) {
  return std::memcmp(&a, &b, sizeof(R)) == 0;
}
template <class T>
bool same_bits(const preduce::arg<T>& a, const preduce::arg<T>& b) {
  return same_bits(a.value, b.value) && a.index == b.index;
}

//! Runs a built-in reduction of the whole host array x on q and checks it against the oracle.
template <class T, class Op>
void check_whole(const preduce::queue& q, const std::vector<T>& x, Op op) {
  const preduce::device_buffer<T> d(q, x);
  check_result(preduce::reduce(q, d.data(), x.size(), op), expected(op, x.data(), x.size()));
}

//! Checks op on T at every size of whole_sizes and every data shape, each its own SUBCASE;
//! `name` feeds the seed.
template <class T, class Op>
void check_whole_sizes(Op op, const char* name, std::initializer_list<data> shapes) {
  for (const std::size_t n : whole_sizes) {
    SUBCASE(size_name(n).c_str()) {
      for (const data shape : shapes) {
        SUBCASE(data_name(shape)) {
          check_whole(shared_queue(), make_data<T>(shape, n, seed_for<T>(name, n, std::uint64_t(shape))), op);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

//! Runs f; returns the name of the preduce::errc it threw ("nothing thrown" if none) and keeps
//! the message in `what`.
template <class F>
std::string error_of(F&& f, std::string& what) {
  try {
    f();
  } catch (const preduce::error& e) {
    what = e.what();
    return preduce::to_string(e.code());
  }
  return "nothing thrown";
}

}  // namespace test

//! Checks that the statements throw preduce::error with errc `code`.
#define PREDUCE_CHECK_ERROR(code, ...)                                       \
  do {                                                                       \
    std::string preduce_what_;                                               \
    const std::string preduce_got_ = test::error_of([&] { __VA_ARGS__; }, preduce_what_); \
    INFO("message: " << preduce_what_);                                      \
    CHECK(preduce_got_ == std::string(preduce::to_string(code)));            \
  } while (0)
