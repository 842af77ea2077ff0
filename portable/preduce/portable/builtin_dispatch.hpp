// SPDX-License-Identifier: Apache-2.0
// preduce: turns a runtime request (op_id, dtype, accumulator dtype) back into the compile-time
// (operator, type) pair it names, so each backend instantiates exactly the built-in set.
//
// Backends compile one translation unit per dispatch group, part and width (so nvcc/hipcc work
// in parallel); each calls visit_group<G, W>(r, f), which instantiates f only for that group's
// operators on the element types of that width, and runs them on the shapes of its part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/detail/request.hpp>

#include "binned_reducers.hpp"
#include "dispatch_table.hpp"

namespace preduce {
namespace portable {

using detail::type_tag;

//! Dispatch groups: the rows of dispatch_table.hpp, in its order.
enum class group : unsigned char {
#define PREDUCE_GROUP_NAME(name, binned, acc, ...) name,
  PREDUCE_DISPATCH_TABLE(PREDUCE_GROUP_NAME)
#undef PREDUCE_GROUP_NAME
};

//! The accumulator column of dispatch_table.hpp.
enum class accumulators : unsigned char { any_acc, f64_acc, other_acc };

//! One row of dispatch_table.hpp as data.
struct group_row {
  group g;
  bool binned;
  accumulators acc;
  detail::op_id ops[5];
  int op_count;
};

//! The table's rows, in a scope where its operator and accumulator names resolve.
namespace table {
using detail::op_id;
constexpr op_id plus = op_id::plus, multiplies = op_id::multiplies, sum_of_squares = op_id::sum_of_squares, dot = op_id::dot,
                moments = op_id::moments, minimum = op_id::minimum, maximum = op_id::maximum, minmax = op_id::minmax,
                argmin = op_id::argmin, argmax = op_id::argmax, logical_and = op_id::logical_and, logical_or = op_id::logical_or,
                bit_and = op_id::bit_and, bit_or = op_id::bit_or, bit_xor = op_id::bit_xor;
constexpr accumulators any_acc = accumulators::any_acc, f64_acc = accumulators::f64_acc, other_acc = accumulators::other_acc;

template <class... Ops>
constexpr group_row row(group g, bool binned, accumulators acc, Ops... ops) {
  return group_row{g, binned, acc, {ops...}, int(sizeof...(Ops))};
}

constexpr group_row rows[] = {
#define PREDUCE_GROUP_ROW(name, binned, acc, ...) row(group::name, binned, acc, __VA_ARGS__),
    PREDUCE_DISPATCH_TABLE(PREDUCE_GROUP_ROW)
#undef PREDUCE_GROUP_ROW
};
}  // namespace table

constexpr bool takes(accumulators a, detail::dtype acc) {
  return a == accumulators::any_acc || (a == accumulators::f64_acc) == (acc == detail::dtype::f64);
}

//! The group whose translation units compile the kernels for r: the first row of the table
//! with r's kind (binned or not), accumulator and operator. A binned request no row takes (a
//! partial of an operator with no binned form) goes to the binned moments rows, which refuse it.
constexpr group group_of(const detail::request& r) {
  const bool binned = detail::runs_binned(r);
  for (const group_row& row : table::rows) {
    if (row.binned != binned || !takes(row.acc, r.acc)) continue;
    for (int k = 0; k < row.op_count; ++k)
      if (row.ops[k] == r.op) return row.g;
  }
  return r.acc == detail::dtype::f64 ? group::binned_moments_double : group::binned_moments_float;
}

//! Each group compiles as two translation units: whole arrays, rows and columns in one, and
//! segments (offsets of int32, int64, uint32 or uint64) in the other, which take about as long
//! (docs/tuning/build.md).
enum class part : unsigned char { arrays, segments };

//! The part whose translation unit compiles r's shape. partial_of runs in the arrays part: whole
//! arrays, and the lines of the distributed calls' rows and columns (Engine::partial_lines).
constexpr part part_of(const detail::request& r) {
  return r.layout == detail::shape::segments && !r.partial ? part::segments : part::arrays;
}

//! And each part compiles as two units again, by the input's element size: narrow (1 and 2
//! bytes: int8, int16, uint8, uint16, half, bfloat16) and wide (4 and 8 bytes: int32, int64,
//! uint32, uint64, float, double); the binned groups' inputs are half and bfloat16, float and
//! double. Without this split the longest unit outlasted a 600 s device call (docs/tuning/build.md).
enum class width : unsigned char { narrow, wide };

//! The width of an element of `bytes` bytes: narrow up to 2 bytes, wide from 4.
constexpr width width_of_bytes(std::size_t bytes) { return bytes <= 2 ? width::narrow : width::wide; }

template <class T>
constexpr width width_of_type() {
  return width_of_bytes(sizeof(T));
}

//! The width whose translation unit compiles r's input type.
constexpr width width_of(const detail::request& r) { return width_of_bytes(detail::dtype_size(r.in)); }

constexpr bool is_binned(group g) { return table::rows[int(g)].binned; }

//! Whether group G compiles accumulator A (the table's accumulator column).
template <group G, class A>
constexpr bool compiles_accumulator() {
  constexpr accumulators a = table::rows[int(G)].acc;
  return a == accumulators::any_acc || (a == accumulators::f64_acc) == std::is_same<A, double>::value;
}

[[noreturn]] inline void unsupported(const detail::request& r, const char* what) {
  detail::fail(errc::unsupported, r.function, std::string("no compiled kernel for ") + what + " on " + detail::dtype_name(r.in));
}

//! Calls f(type_tag<T>) for the input type r.in.
template <class F>
void with_input_type(const detail::request& r, F&& f) {
  detail::with_input_dtype(r.in, f, [&] { unsupported(r, "this element type"); });
}

//! Calls f(type_tag<A>) for the accumulator r.acc.
template <class F>
void with_accumulator(const detail::request& r, F&& f) {
  detail::with_accumulator_dtype(r.acc, f, [&] { unsupported(r, "this accumulator"); });
}

//! The signed integer type of T's size for an unsigned integer T, else T: where an operator's
//! results do not depend on signedness, bit for bit (wrapping sums, products and dots into an
//! accumulator of the input's own size; logical and bitwise operators), unsigned inputs run the
//! signed type's kernels, the same machine code, compiled once.
template <class T>
using same_bits_t = typename std::conditional_t<std::is_integral<T>::value && std::is_unsigned<T>::value, std::make_signed<T>, type_tag<T>>::type;

//! Calls f(Op{}, type_tag<T>{}) for the built-in operator of group G that r names, where T is
//! the input element type, of width W (or its same_bits_t where that gives the same results). Dot's operator carries r.y. The binned groups' operators
//! are partial<Op> (r.partial) or reproducible_value<Op> over plus, sum_of_squares, dot and
//! moments.
template <group G, width W, class F>
void visit_group(const detail::request& r, F&& f) {
  using detail::op_id;
  using detail::nan_rule;
  with_input_type(r, [&](auto t) {
    using T = typename std::decay_t<decltype(t)>::type;
    if constexpr (width_of_type<T>() != W) {
      unsupported(r, "this element type in this translation unit");  // not reached: width_of
    } else if constexpr (is_binned(G)) {
      if constexpr (detail::is_floating<T>) {
        with_accumulator(r, [&](auto a) {
          using A = typename std::decay_t<decltype(a)>::type;
          auto run = [&](auto op) {
            if (r.partial) return f(partial<decltype(op)>{op}, t);
            return f(reproducible_value<decltype(op)>{op}, t);
          };
          // is_sum_accumulator: the same pairs as is_moments_accumulator
          if constexpr (detail::is_sum_accumulator<T, A> && compiles_accumulator<G, A>()) {
            if constexpr (G == group::binned_sums) {
              if (r.op == op_id::plus) return run(plus<A>{});
              if (r.op == op_id::sum_of_squares) return run(sum_of_squares<A>{});
            } else if constexpr (G == group::binned_dots) {
              if (r.op == op_id::dot) return run(dot<T, A>{static_cast<const T*>(r.y)});
            } else {
              if (r.op == op_id::moments) return run(moments<A>{});
            }
          }
          unsupported(r, "a reproducible form of this operator and accumulator");
        });
      } else {
        unsupported(r, "a reproducible form of this operator");
      }
    } else if constexpr (G == group::sums || G == group::products || G == group::dots || G == group::moments) {
      with_accumulator(r, [&](auto a) {
        using A = typename std::decay_t<decltype(a)>::type;
        if constexpr (G == group::moments) {
          if constexpr (detail::is_moments_accumulator<T, A>) return f(moments<A>{}, t);
        } else if constexpr (detail::is_sum_accumulator<T, A>) {
          // Integer sums wrap: into an accumulator of the input's own size, unsigned and signed
          // give the same bits (same_bits_t).
          constexpr bool fold = sizeof(A) == sizeof(T);
          using T2 = std::conditional_t<fold, same_bits_t<T>, T>;
          using A2 = std::conditional_t<fold, same_bits_t<A>, A>;
          const type_tag<T2> t2{};
          if constexpr (G == group::sums) {
            if (r.op == op_id::plus) return f(plus<A2>{}, t2);
            return f(sum_of_squares<A2>{}, t2);
          } else if constexpr (G == group::products) {
            return f(multiplies<A2>{}, t2);
          } else {
            return f(dot<T2, A2>{static_cast<const T2*>(r.y)}, t2);
          }
        }
        unsupported(r, "this accumulator");
      });
    } else if constexpr (G == group::extremes || G == group::args) {
      // Integers hold no NaN: their nan_ignoring forms give the plain forms' bits, and run those
      // kernels (a third fewer kernels in these groups).
      auto compare = [&](auto plain) {
        using Op = decltype(plain);
        if constexpr (detail::is_floating<T>)
          if (r.nan == nan_rule::ignore) return f(nan_ignoring<Op>{}, t);
        return f(plain, t);
      };
      if constexpr (G == group::extremes) {
        if (r.op == op_id::minimum) return compare(minimum{});
        if (r.op == op_id::maximum) return compare(maximum{});
        return compare(minmax{});
      } else {
        if (r.op == op_id::argmin) return compare(argmin{});
        return compare(argmax{});
      }
    } else {
      const type_tag<same_bits_t<T>> t2{};  // logical and bitwise results do not depend on signedness
      switch (r.op) {
        case op_id::logical_and: return f(logical_and{}, t2);
        case op_id::logical_or: return f(logical_or{}, t2);
        default:
          if constexpr (std::is_integral<T>::value) {
            if (r.op == op_id::bit_and) return f(bit_and{}, t2);
            if (r.op == op_id::bit_or) return f(bit_or{}, t2);
            return f(bit_xor{}, t2);
          } else {
            unsupported(r, "bitwise operators");
          }
      }
    }
  });
}

}  // namespace portable
}  // namespace preduce

namespace preduce {
namespace portable {

//! One per group, part and width, defined by each backend in that translation unit (as
//! run_group<G, P, W, Engine>) so they compile in parallel.
template <group G, part P, width W>
void run_compiled(const queue& q, const detail::request& r);

//! The synchronous forms' result: a slot of detail::max_result_bytes that belongs to one call
//! from construction to destruction, so threads sharing a queue never share one. Each backend
//! defines the members (its runtime): the slot lives where the device writes and the host reads
//! once the queue's work is done (CUDA and HIP: mapped pinned host memory, no copy to wait for).
class result_slot {
 public:
  //! Takes a slot of q's. Throws errc::invalid_argument where q cannot wait now (its stream is
  //! capturing a CUDA graph), naming `function`.
  result_slot(const queue& q, const char* function);
  ~result_slot();
  result_slot(const result_slot&) = delete;
  result_slot& operator=(const result_slot&) = delete;

  //! Where the reduction writes its result (device-accessible).
  void* device() const noexcept { return device_; }
  //! Waits for q's work, throws the first bad verdict among this thread's earlier calls (or a
  //! device fault), then copies the result's `bytes` (at most detail::max_result_bytes) to host.
  void read(void* host, std::size_t bytes);

 private:
  const queue& q_;
  const char* function_;
  void* device_ = nullptr;
  void* host_ = nullptr;
  std::uint32_t index_ = 0;
};

}  // namespace portable
}  // namespace preduce
