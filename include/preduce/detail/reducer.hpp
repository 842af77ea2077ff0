// SPDX-License-Identifier: Apache-2.0
// preduce: what each built-in operator computes, as host+device code every backend runs.
//
// A reducer binds an operator to an input type T and describes one reduction completely:
//   acc_type                          the accumulator (register) type
//   result_type                       what the user gets back
//   identity()                        the neutral accumulator; never visible for n > 0
//   lift(element, index) -> acc_type  one input element (and its 64-bit index) as an accumulator
//   combine(a, b) -> acc_type         associative and commutative merge of two accumulators
//   finalize(acc_type) -> result_type
// Kernels start every lane at identity(), fold lifted elements in with combine, and merge the
// partial accumulators in a fixed tree, so results are run_to_run deterministic.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../ops.hpp"
#include "dtype.hpp"

namespace preduce {
namespace detail {

//! Two elements at the same index of two inputs (x[i], y[i]), the element type of `dot`.
template <class T>
struct pair_of {
  T x, y;
};

// ---------------------------------------------------------------------------------------------
// Accumulator rules
// ---------------------------------------------------------------------------------------------

//! Default accumulator of the sum-like operators (plus, multiplies, sum_of_squares, dot):
//! 8/16-bit integers widen to 64 bits, half and bfloat16 to float, other types keep their own.
template <class T> struct default_sum_accumulator { using type = T; };
template <> struct default_sum_accumulator<std::int8_t> { using type = std::int64_t; };
template <> struct default_sum_accumulator<std::int16_t> { using type = std::int64_t; };
template <> struct default_sum_accumulator<std::uint8_t> { using type = std::uint64_t; };
template <> struct default_sum_accumulator<std::uint16_t> { using type = std::uint64_t; };
template <> struct default_sum_accumulator<half> { using type = float; };
template <> struct default_sum_accumulator<bfloat16> { using type = float; };

//! Accumulators a caller may name for a sum-like operator on T. Each pair is compiled into
//! libpreduce: floating inputs take float or double (double inputs only double); integers take
//! an integer of the same signedness and at least 32 bits, never narrower than the input.
template <class T, class A>
constexpr bool sum_accumulator_allowed() {
  if constexpr (std::is_void<A>::value) {
    return false;
  } else if constexpr (is_floating<T>) {
    return std::is_same<A, double>::value || (std::is_same<A, float>::value && !std::is_same<T, double>::value);
  } else {
    return (std::is_same<A, std::int32_t>::value || std::is_same<A, std::int64_t>::value ||
            std::is_same<A, std::uint32_t>::value || std::is_same<A, std::uint64_t>::value) &&
           std::is_signed<A>::value == std::is_signed<T>::value && sizeof(A) >= sizeof(T);
  }
}
template <class T, class A>
inline constexpr bool is_sum_accumulator = sum_accumulator_allowed<T, A>();

//! Default floating type of `moments`: float for float/half/bfloat16, double otherwise.
template <class T>
using default_moments_accumulator =
    std::conditional_t<std::is_same<T, float>::value || is_narrow_float<T>, float, double>;

template <class T, class A>
inline constexpr bool is_moments_accumulator =
    std::is_same<A, double>::value || (std::is_same<A, float>::value && !std::is_same<T, double>::value);

template <class Requested, class Default>
using chosen_t = std::conditional_t<std::is_void<Requested>::value, Default, Requested>;

//! The type comparisons happen in: float for half/bfloat16, T itself otherwise.
template <class T>
using compare_t = std::conditional_t<is_narrow_float<T>, float, T>;

// ---------------------------------------------------------------------------------------------
// Scalar helpers
// ---------------------------------------------------------------------------------------------

template <class V, class T>
PREDUCE_HD PREDUCE_INLINE V convert(T x) {
  if constexpr (is_narrow_float<T>) {
    return V(float(x));
  } else {
    return V(x);
  }
}

template <class V>
PREDUCE_HD PREDUCE_INLINE bool is_nan(V x) {
  if constexpr (std::is_floating_point<V>::value) {
    return x != x;
  } else {
    return false;
  }
}

// Signed integer overflow is undefined in C++; integer sums and products wrap modulo 2^bits
// through the unsigned type, which is well defined and exactly what two's complement gives.
template <class A>
PREDUCE_HD PREDUCE_INLINE A wrapping_add(A a, A b) {
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) + U(b));
  } else {
    return a + b;
  }
}
template <class A>
PREDUCE_HD PREDUCE_INLINE A wrapping_mul(A a, A b) {
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) * U(b));
  } else {
    return a * b;
  }
}

// Extremes without std::numeric_limits (its members are host functions under nvcc).
template <class V>
PREDUCE_HD PREDUCE_INLINE V highest() {
  if constexpr (std::is_same<V, float>::value) {
    return bits_float(0x7f800000u);  // +inf
  } else if constexpr (std::is_same<V, double>::value) {
    return double(bits_float(0x7f800000u));
  } else if constexpr (std::is_signed<V>::value) {
    return V(std::make_unsigned_t<V>(~std::make_unsigned_t<V>(0)) >> 1);
  } else {
    return V(~V(0));
  }
}
template <class V>
PREDUCE_HD PREDUCE_INLINE V lowest() {
  if constexpr (std::is_floating_point<V>::value) {
    return -highest<V>();  // -inf
  } else if constexpr (std::is_signed<V>::value) {
    return V(-highest<V>() - 1);
  } else {
    return V(0);
  }
}
template <class V>
PREDUCE_HD PREDUCE_INLINE V quiet_nan() {
  return V(bits_float(0x7fc00000u));
}

// NaN-aware minimum and maximum. `propagate`: a NaN operand wins. `ignore`: a NaN operand
// loses (fmin/fmax). On equal values the first operand is kept.
template <nan_rule R, class V>
PREDUCE_HD PREDUCE_INLINE V min_of(V a, V b) {
  if constexpr (R == nan_rule::propagate) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
  } else {
    if (is_nan(b)) return a;
    if (is_nan(a)) return b;
  }
  return b < a ? b : a;
}
template <nan_rule R, class V>
PREDUCE_HD PREDUCE_INLINE V max_of(V a, V b) {
  if constexpr (R == nan_rule::propagate) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
  } else {
    if (is_nan(b)) return a;
    if (is_nan(a)) return b;
  }
  return a < b ? b : a;
}

// ---------------------------------------------------------------------------------------------
// Reducers
// ---------------------------------------------------------------------------------------------

//! The single machine operation a reducer's combine is, when it is one, so backends can fuse it
//! with a lane exchange (CUDA shfl+op in PTX, redux.sync; AMD DPP). `none`: use combine().
enum class fused_op : unsigned char { none, add, mul, min, max, min_ignore_nan, max_ignore_nan, bit_and, bit_or, bit_xor };

template <class Op, class T, class Enable = void>
struct reducer;  // an (operator, type) pair without a reducer is unsupported; see op_supports

template <class T, class A>
struct sum_reducer {
  using acc_type = A;
  using result_type = A;
  static constexpr fused_op fused = fused_op::add;
  PREDUCE_HD static A identity() { return A(0); }
  PREDUCE_HD static A lift(T x, std::uint64_t) { return convert<A>(x); }
  PREDUCE_HD static A combine(A a, A b) { return wrapping_add(a, b); }
  PREDUCE_HD static A finalize(A a) { return a; }
};

template <class AccT, class T>
struct reducer<plus<AccT>, T> : sum_reducer<T, chosen_t<AccT, typename default_sum_accumulator<T>::type>> {};

template <class AccT, class T>
struct reducer<sum_of_squares<AccT>, T> : sum_reducer<T, chosen_t<AccT, typename default_sum_accumulator<T>::type>> {
  using A = chosen_t<AccT, typename default_sum_accumulator<T>::type>;
  PREDUCE_HD static A lift(T x, std::uint64_t) {
    const A v = convert<A>(x);
    return wrapping_mul(v, v);
  }
};

template <class U, class AccT, class T>
struct reducer<dot<U, AccT>, pair_of<T>> : sum_reducer<T, chosen_t<AccT, typename default_sum_accumulator<T>::type>> {
  using A = chosen_t<AccT, typename default_sum_accumulator<T>::type>;
  PREDUCE_HD static A lift(pair_of<T> e, std::uint64_t) { return wrapping_mul(convert<A>(e.x), convert<A>(e.y)); }
};

template <class AccT, class T>
struct reducer<multiplies<AccT>, T> {
  using A = chosen_t<AccT, typename default_sum_accumulator<T>::type>;
  using acc_type = A;
  using result_type = A;
  static constexpr fused_op fused = fused_op::mul;
  PREDUCE_HD static A identity() { return A(1); }
  PREDUCE_HD static A lift(T x, std::uint64_t) { return convert<A>(x); }
  PREDUCE_HD static A combine(A a, A b) { return wrapping_mul(a, b); }
  PREDUCE_HD static A finalize(A a) { return a; }
};

template <class AccT, class T>
struct reducer<moments<AccT>, T> {
  using A = chosen_t<AccT, default_moments_accumulator<T>>;
  using acc_type = moments_result<A>;
  using result_type = moments_result<A>;
  static constexpr fused_op fused = fused_op::none;
  PREDUCE_HD static acc_type identity() { return {0, A(0), A(0)}; }
  PREDUCE_HD static acc_type lift(T x, std::uint64_t) { return {1, convert<A>(x), A(0)}; }
  // Chan, Golub and LeVeque's pairwise update: exact in count, stable in mean and M2. NaN and
  // infinite elements follow determinism::reproducible's rule (reproducible.hpp) whatever the
  // merge order: the mean of parts holding one is the sum of their means (NaN for a NaN or
  // infinities of both signs, else that infinity), where the update would give inf - inf.
  PREDUCE_HD static acc_type combine(acc_type a, acc_type b) {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    const std::uint64_t n = a.count + b.count;
    const A delta = b.mean - a.mean;
    const A b_share = A(b.count) / A(n);
    const bool special = !(a.mean - a.mean == A(0)) || !(b.mean - b.mean == A(0));  // a NaN or infinite mean
    return {n, special ? a.mean + b.mean : a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * A(a.count) * b_share};
  }
  //! M2 is NaN where the mean is NaN or infinite (reproducible.hpp's rule).
  PREDUCE_HD static result_type finalize(acc_type a) {
    if (!(a.mean - a.mean == A(0))) a.m2 = a.mean - a.mean;  // NaN
    return a;
  }
  //! Merges W consecutive elements at once: their mean and M2 from two passes over registers,
  //! then one Chan merge, so a chunk costs one division instead of W.
  template <int W>
  PREDUCE_HD static acc_type fold(acc_type a, const T (&x)[W], std::uint64_t) {
    A sum = A(0);
    for (int k = 0; k < W; ++k) sum += convert<A>(x[k]);
    const A mean = sum / A(W);
    A m2 = A(0);
    for (int k = 0; k < W; ++k) {
      const A d = convert<A>(x[k]) - mean;
      m2 += d * d;
    }
    return combine(a, {std::uint64_t(W), mean, m2});
  }
};

//! True when Reducer has a `fold(acc, const E (&)[W], first_index)` that merges W consecutive
//! elements at once. Callers guarantee every index already in acc is below first_index.
template <class Reducer, class E, int W, class = void>
struct has_chunk_fold : std::false_type {};
template <class Reducer, class E, int W>
struct has_chunk_fold<Reducer, E, W,
                      std::void_t<decltype(std::declval<const Reducer&>().template fold<W>(
                          std::declval<typename Reducer::acc_type>(), std::declval<const E (&)[W]>(), std::uint64_t{}))>>
    : std::true_type {};

//! True for the arg reducers: those with a value-only twin (`value_reducer`) and a tie test,
//! whose lanes backends reduce as two narrow trees.
template <class Reducer, class = void>
struct has_value_reducer : std::false_type {};
template <class Reducer>
struct has_value_reducer<Reducer, std::void_t<typename Reducer::value_reducer>> : std::true_type {};

template <nan_rule R, bool IsMax, class T>
struct extreme_reducer {
  using V = compare_t<T>;
  using acc_type = V;
  using result_type = T;
  static constexpr fused_op fused = R == nan_rule::propagate || !std::is_floating_point<V>::value
                                        ? (IsMax ? fused_op::max : fused_op::min)
                                        : (IsMax ? fused_op::max_ignore_nan : fused_op::min_ignore_nan);
  // Under `ignore` the identity is NaN: it loses to every value, and an all-NaN (or empty)
  // input yields NaN, as fmin/fmax chains do.
  PREDUCE_HD static V identity() {
    if constexpr (R == nan_rule::ignore && std::is_floating_point<V>::value) return quiet_nan<V>();
    return IsMax ? lowest<V>() : highest<V>();
  }
  PREDUCE_HD static V lift(T x, std::uint64_t) { return convert<V>(x); }
  PREDUCE_HD static V combine(V a, V b) { return IsMax ? max_of<R>(a, b) : min_of<R>(a, b); }
  PREDUCE_HD static T finalize(V a) { return T(a); }
};
template <class T> struct reducer<minimum, T> : extreme_reducer<nan_rule::propagate, false, T> {};
template <class T> struct reducer<maximum, T> : extreme_reducer<nan_rule::propagate, true, T> {};
template <class T> struct reducer<nan_ignoring<minimum>, T> : extreme_reducer<nan_rule::ignore, false, T> {};
template <class T> struct reducer<nan_ignoring<maximum>, T> : extreme_reducer<nan_rule::ignore, true, T> {};

//! True for the min and max reducers (those built on extreme_reducer).
template <class Reducer>
struct is_extreme_reducer {
  template <nan_rule R, bool IsMax, class T>
  static std::true_type test(const extreme_reducer<R, IsMax, T>*);
  static std::false_type test(...);
  static constexpr bool value = decltype(test(static_cast<const Reducer*>(nullptr)))::value;
};

template <nan_rule R, class T>
struct minmax_reducer {
  using lo = extreme_reducer<R, false, T>;
  using hi = extreme_reducer<R, true, T>;
  using V = compare_t<T>;
  using acc_type = minmax_result<V>;
  using result_type = minmax_result<T>;
  static constexpr fused_op fused = fused_op::none;
  PREDUCE_HD static acc_type identity() { return {lo::identity(), hi::identity()}; }
  PREDUCE_HD static acc_type lift(T x, std::uint64_t) { return {convert<V>(x), convert<V>(x)}; }
  PREDUCE_HD static acc_type combine(acc_type a, acc_type b) { return {lo::combine(a.min, b.min), hi::combine(a.max, b.max)}; }
  PREDUCE_HD static result_type finalize(acc_type a) { return {T(a.min), T(a.max)}; }
};
template <class T> struct reducer<minmax, T> : minmax_reducer<nan_rule::propagate, T> {};
template <class T> struct reducer<nan_ignoring<minmax>, T> : minmax_reducer<nan_rule::ignore, T> {};

//! True for minmax's accumulator and result (minmax_result<V>).
template <class T> struct is_minmax_result : std::false_type {};
template <class V> struct is_minmax_result<minmax_result<V>> : std::true_type {};

template <nan_rule R, bool IsMax, class T>
struct arg_reducer {
  using V = compare_t<T>;
  using acc_type = arg<V>;
  using result_type = arg<T>;
  static constexpr fused_op fused = fused_op::none;
  // index == npos marks the identity, which loses to everything (NaN included).
  PREDUCE_HD static acc_type identity() { return {IsMax ? lowest<V>() : highest<V>(), npos}; }
  PREDUCE_HD static acc_type lift(T x, std::uint64_t i) { return {convert<V>(x), i}; }
  // Keeps `a` unless `b` is strictly better (see better), or ties it at a smaller index.
  PREDUCE_HD static acc_type combine(acc_type a, acc_type b) {
    if (a.index == npos) return b;
    if (b.index == npos) return a;
    return better(b.value, a.value) || (ties(b.value, a.value) && b.index < a.index) ? b : a;
  }
  PREDUCE_HD static result_type finalize(acc_type a) { return {T(a.value), a.index}; }
  //! The value-only reduction an arg result's value comes from, and the test for an element
  //! that ties its result (NaN ties NaN, -0 ties +0): the first index among the ties is the arg
  //! result's index. Backends reduce lanes this way (two narrow trees instead of one wide one).
  using value_reducer = extreme_reducer<R, IsMax, T>;
  PREDUCE_HD static bool ties(V x, V best) { return is_nan(best) ? is_nan(x) : x == best; }
  //! Folds W consecutive elements at indices first, first + 1, ... that all exceed every index
  //! already in a (as inside one thread's share): a later element wins only when strictly better,
  //! so ties need no index comparison. Each group of up to 4 elements finds its best as a tree
  //! of pairs, independent of a, and only the groups' bests are tested against a in order (the
  //! identity loses): a chain of W / 4 + 2 dependent compares instead of W, with the same
  //! instructions as a running fold (groups of 4, not one tree of W: one tree of 16 one-byte
  //! elements spilled 104 bytes at 32 registers).
  //! Evidence: f32 argmax 2^24 24.04 -> 22.12 us on an H200 (docs/tuning/building-blocks.md#arg_reducer-fold).
  //! Seeded: `a` already holds an element (never the identity), so the identity test is skipped.
  template <int W, bool Seeded = false>
  PREDUCE_HD static acc_type fold(acc_type a, const T (&x)[W], std::uint64_t first) {
    constexpr int G = W < 4 ? W : 4;
    static_assert(W % G == 0 && (G & (G - 1)) == 0, "chunks of a power-of-two width");
    for (int c = 0; c < W; c += G) {
      V v[G];
      unsigned k[G];
      for (int i = 0; i < G; ++i) {
        v[i] = convert<V>(x[c + i]);
        k[i] = unsigned(c + i);
      }
      for (int step = 1; step < G; step *= 2) {
        for (int i = 0; i + step < G; i += 2 * step) {
          if (better(v[i + step], v[i])) {  // the later of a pair only when strictly better
            v[i] = v[i + step];
            k[i] = k[i + step];
          }
        }
      }
      if ((!Seeded && a.index == npos) || better(v[0], a.value)) a = {v[0], first + k[0]};
    }
    return a;
  }
  //! Combines b into a where every index of b exceeds every index of a (lanes that hold
  //! consecutive runs, combined in order): b wins only when strictly better, or when a is the
  //! identity; no index comparison.
  PREDUCE_HD static acc_type combine_ordered(acc_type a, acc_type b) {
    return b.index != npos && (a.index == npos || better(b.value, a.value)) ? b : a;
  }
  //! Whether value v is strictly better than value a: under `propagate` NaN beats numbers,
  //! under `ignore` numbers beat NaN.
  PREDUCE_HD static bool better(V v, V a) {
    const bool beats = IsMax ? a < v : v < a;
    return R == nan_rule::propagate ? !is_nan(a) && (is_nan(v) || beats) : !is_nan(v) && (is_nan(a) || beats);
  }
};
template <class T> struct reducer<argmin, T> : arg_reducer<nan_rule::propagate, false, T> {};
template <class T> struct reducer<argmax, T> : arg_reducer<nan_rule::propagate, true, T> {};
template <class T> struct reducer<nan_ignoring<argmin>, T> : arg_reducer<nan_rule::ignore, false, T> {};
template <class T> struct reducer<nan_ignoring<argmax>, T> : arg_reducer<nan_rule::ignore, true, T> {};

template <bool IsAnd, class T>
struct logical_reducer {
  using acc_type = bool;
  using result_type = bool;
  static constexpr fused_op fused = IsAnd ? fused_op::bit_and : fused_op::bit_or;  // on 0/1 values
  PREDUCE_HD static bool identity() { return IsAnd; }
  PREDUCE_HD static bool lift(T x, std::uint64_t) { return convert<compare_t<T>>(x) != compare_t<T>(0); }
  PREDUCE_HD static bool combine(bool a, bool b) { return IsAnd ? (a && b) : (a || b); }
  PREDUCE_HD static bool finalize(bool a) { return a; }
};
template <class T> struct reducer<logical_and, T> : logical_reducer<true, T> {};
template <class T> struct reducer<logical_or, T> : logical_reducer<false, T> {};

template <class Op, class T>
struct bitwise_reducer {
  using acc_type = T;
  using result_type = T;
  static constexpr fused_op fused = std::is_same<Op, bit_and>::value  ? fused_op::bit_and
                                    : std::is_same<Op, bit_or>::value ? fused_op::bit_or
                                                                      : fused_op::bit_xor;
  PREDUCE_HD static T identity() { return std::is_same<Op, bit_and>::value ? T(~T(0)) : T(0); }
  PREDUCE_HD static T lift(T x, std::uint64_t) { return x; }
  PREDUCE_HD static T combine(T a, T b) {
    if constexpr (std::is_same<Op, bit_and>::value) return T(a & b);
    else if constexpr (std::is_same<Op, bit_or>::value) return T(a | b);
    else return T(a ^ b);
  }
  PREDUCE_HD static T finalize(T a) { return a; }
};
template <class T> struct reducer<bit_and, T, std::enable_if_t<std::is_integral<T>::value>> : bitwise_reducer<bit_and, T> {};
template <class T> struct reducer<bit_or, T, std::enable_if_t<std::is_integral<T>::value>> : bitwise_reducer<bit_or, T> {};
template <class T> struct reducer<bit_xor, T, std::enable_if_t<std::is_integral<T>::value>> : bitwise_reducer<bit_xor, T> {};

// ---------------------------------------------------------------------------------------------
// Which (operator, type, accumulator) triples exist. The public templates static_assert these
// with readable messages; the backends instantiate exactly this set.
// ---------------------------------------------------------------------------------------------

template <class Op> struct op_traits;  // family and requested accumulator of each operator tag
template <class A> struct op_traits<plus<A>> { static constexpr int family = 0; using requested = A; };
template <class A> struct op_traits<multiplies<A>> { static constexpr int family = 0; using requested = A; };
template <class A> struct op_traits<sum_of_squares<A>> { static constexpr int family = 0; using requested = A; };
template <class U, class A> struct op_traits<dot<U, A>> { static constexpr int family = 0; using requested = A; };
template <class A> struct op_traits<moments<A>> { static constexpr int family = 1; using requested = A; };
template <> struct op_traits<minimum> { static constexpr int family = 2; using requested = void; };
template <> struct op_traits<maximum> { static constexpr int family = 2; using requested = void; };
template <> struct op_traits<minmax> { static constexpr int family = 2; using requested = void; };
template <> struct op_traits<argmin> { static constexpr int family = 2; using requested = void; };
template <> struct op_traits<argmax> { static constexpr int family = 2; using requested = void; };
template <class O> struct op_traits<nan_ignoring<O>> { static constexpr int family = 2; using requested = void; };
template <> struct op_traits<logical_and> { static constexpr int family = 3; using requested = void; };
template <> struct op_traits<logical_or> { static constexpr int family = 3; using requested = void; };
template <> struct op_traits<bit_and> { static constexpr int family = 4; using requested = void; };
template <> struct op_traits<bit_or> { static constexpr int family = 4; using requested = void; };
template <> struct op_traits<bit_xor> { static constexpr int family = 4; using requested = void; };

template <class Op, class T>
constexpr bool op_supports() {
  using R = typename op_traits<Op>::requested;
  constexpr int f = op_traits<Op>::family;
  if constexpr (f == 0) return std::is_void<R>::value || is_sum_accumulator<T, R>;
  else if constexpr (f == 1) return std::is_void<R>::value || is_moments_accumulator<T, R>;
  else if constexpr (f == 4) return std::is_integral<T>::value;
  else return true;
}

//! The element type a reducer for Op reads from input T (dot reads pairs).
template <class Op, class T> struct element_of { using type = T; };
template <class U, class A, class T> struct element_of<dot<U, A>, T> { using type = pair_of<T>; };

template <class Op, class T>
using reducer_for = reducer<Op, typename element_of<Op, T>::type>;

//! The type reduce() returns for Op on T: the reducer's result type (partial_of's is
//! specialized in reproducible.hpp, whose reducers live with the backends' kernels).
template <class Op, class T> struct result_type_of { using type = typename reducer_for<Op, T>::result_type; };

//! The accumulator type of Op on T, and the type reduce() returns.
template <class Op, class T> using acc_t = typename reducer_for<Op, T>::acc_type;
template <class Op, class T> using result_t = typename result_type_of<Op, T>::type;

//! The operator a wrapper (partial<Op>) wraps; Op itself otherwise.
template <class Op> struct base_op { using type = Op; };
template <class Op> using base_op_t = typename base_op<Op>::type;
//! True for partial<Op> (reproducible.hpp).
template <class Op> struct is_partial : std::false_type {};

}  // namespace detail
}  // namespace preduce
