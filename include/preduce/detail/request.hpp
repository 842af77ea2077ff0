// SPDX-License-Identifier: Apache-2.0
// preduce: the one non-template entry point into the compiled library, and the host-side
// argument checks every call makes before anything is launched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../error.hpp"
#include "../execution.hpp"
#include "reducer.hpp"

namespace preduce {

template <class Op> struct partial;  // reproducible.hpp

namespace detail {

//! The layout being reduced.
enum class shape : unsigned char {
  whole,     //!< x[0..n) -> one result
  rows,      //!< row-major rows x cols matrix -> one result per row
  columns,   //!< row-major rows x cols matrix -> one result per column
  segments,  //!< x[offsets[i] .. offsets[i+1]) -> one result per segment
};

//! Everything a backend needs to run one built-in reduction. Built by make_request below.
struct request {
  const char* function;          //!< public function name, for error messages
  op_id op;
  nan_rule nan;
  dtype in;                      //!< element type of x (and y); none for custom element types
  std::size_t elem_size;         //!< bytes per input element
  dtype acc;                     //!< requested accumulator for the sum and moments families
  shape layout;
  const void* x;
  const void* y;                 //!< second input of dot, else null
  std::size_t n;                 //!< whole: element count; rows/columns: rows * cols
  std::size_t rows, cols;        //!< rows / columns layouts
  const void* offsets;           //!< segments layout: segments + 1 offsets
  dtype offset_type;             //!< i32, i64, u32 or u64
  std::size_t segments;
  void* out;                     //!< device memory, `results` elements of result_bytes each
  std::size_t results;           //!< 1 for whole, rows / cols / segments otherwise
  std::size_t out_stride;        //!< distance between consecutive results, in elements
  std::size_t result_bytes;
  options opt;
  bool partial;                  //!< results are reproducible_partial states (partial_of)
};

// Implemented by the backend (libpreduce).
//! Checks that p (bytes long) is device memory usable on q's device; throws otherwise.
void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument);
//! Enqueues r on q; the result lands in r.out. Never waits.
void dispatch(const queue& q, const request& r);
//! Runs r on q into library scratch memory, copies the result to host_out and waits.
void dispatch_to_host(const queue& q, const request& r, void* host_out);

//! True for f16, bf16, f32 and f64.
constexpr bool is_floating_dtype(dtype t) { return t == dtype::f16 || t == dtype::bf16 || t == dtype::f32 || t == dtype::f64; }

//! True when r runs on the binned (reproducible) reducers: partial_of, or a floating-point
//! sum, sum of squares, dot or moments under determinism::reproducible. Every other request is
//! exact already and runs its ordinary kernels, or is refused (reproducible_refusal).
constexpr bool runs_binned(const request& r) {
  const bool sum_like = r.op == op_id::plus || r.op == op_id::sum_of_squares || r.op == op_id::dot || r.op == op_id::moments;
  return r.partial || (r.opt.det == determinism::reproducible && sum_like && is_floating_dtype(r.in));
}

//! Why determinism::reproducible refuses operator `op` on input `in`, or null when it does not.
constexpr const char* reproducible_refusal(op_id op, dtype in) {
  if (op == op_id::multiplies && is_floating_dtype(in))
    return "determinism::reproducible: multiplies on floating-point input has no reproducible form (each product rounds, so "
           "the result depends on the order); use determinism::run_to_run";
  if (op == op_id::moments && !is_floating_dtype(in))
    return "determinism::reproducible: moments of integer input has no reproducible form in the compiled library; convert "
           "to double first (transform_reduce with a conversion and moments is reproducible)";
  return nullptr;
}

[[noreturn]] inline void fail(errc c, const char* function, const std::string& what) {
  throw error(c, std::string(function) + ": " + what);
}

inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(a), b0 = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes && b_bytes && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

//! Host-side checks that need no device: null pointers, size overflow, output overlap, and (via
//! the backend) that every pointer is device memory of q's device. Throws before any launch.
inline void validate(const queue& q, const request& r) {
  const std::size_t elem = r.elem_size;
  std::size_t in_bytes = 0;
  if (r.layout == shape::rows || r.layout == shape::columns) {
    std::size_t n = 0;
    if (__builtin_mul_overflow(r.rows, r.cols, &n)) fail(errc::size_overflow, r.function, "rows * cols overflows std::size_t");
  }
  if (__builtin_mul_overflow(r.n, elem, &in_bytes)) fail(errc::size_overflow, r.function, "input size in bytes overflows std::size_t");
  std::size_t out_bytes = 0;
  if (r.results && __builtin_mul_overflow((r.results - 1), r.out_stride, &out_bytes))
    fail(errc::size_overflow, r.function, "output extent overflows std::size_t");
  out_bytes = r.results ? (out_bytes + 1) * r.result_bytes : 0;

  if (r.opt.det == determinism::reproducible && r.in != dtype::none && reproducible_refusal(r.op, r.in))
    fail(errc::unsupported, r.function, reproducible_refusal(r.op, r.in));
  if (r.n > 0 && r.x == nullptr) fail(errc::null_pointer, r.function, "input pointer is null but the input has elements");
  if (r.op == op_id::dot && r.n > 0 && r.y == nullptr) fail(errc::null_pointer, r.function, "dot's second input (y) is null");
  if (r.results > 0 && r.out == nullptr) fail(errc::null_pointer, r.function, "output pointer is null");
  if (r.layout == shape::segments && r.offsets == nullptr) fail(errc::null_pointer, r.function, "offsets pointer is null");
  if (r.layout == shape::segments && r.out_stride == 0 && r.results > 1) fail(errc::invalid_argument, r.function, "output stride is 0");
  if ((r.layout == shape::rows || r.layout == shape::columns) && r.out_stride == 0 && r.results > 1)
    fail(errc::invalid_argument, r.function, "output stride is 0");

  if (r.out) {
    if (ranges_overlap(r.out, out_bytes, r.x, in_bytes)) fail(errc::overlap, r.function, "output overlaps the input");
    if (r.y && ranges_overlap(r.out, out_bytes, r.y, in_bytes)) fail(errc::overlap, r.function, "output overlaps dot's second input");
    if (r.offsets && ranges_overlap(r.out, out_bytes, r.offsets, (r.segments + 1) * dtype_size(r.offset_type)))
      fail(errc::overlap, r.function, "output overlaps the offsets");
  }
  if (r.n > 0) check_device_pointer(q, r.x, in_bytes, r.function, "input");
  if (r.n > 0 && r.y) check_device_pointer(q, r.y, in_bytes, r.function, "dot's second input (y)");
  if (r.offsets) check_device_pointer(q, r.offsets, (r.segments + 1) * dtype_size(r.offset_type), r.function, "offsets");
  if (r.out && r.results > 0) check_device_pointer(q, r.out, out_bytes, r.function, "output");
}

template <class Op> struct is_builtin_op {
  template <class O> static auto test(int) -> decltype(op_traits<O>::family, std::true_type{});
  template <class O> static std::false_type test(...);
  static constexpr bool value = decltype(test<Op>(0))::value;
};

template <class Op, class T> struct is_dot_of_other_type : std::false_type {};
template <class U, class A, class T> struct is_dot_of_other_type<dot<U, A>, T> : std::bool_constant<!std::is_same<canonical_t<U>, T>::value> {};

template <class T> struct dependent_false { static constexpr bool value = false; };

//! Compile-time checks of an (operator, type) pair with messages a user can act on.
template <class Op, class T>
constexpr void check_supported() {
  static_assert(is_supported_input<T>,
                "preduce: unsupported element type; use int8..int64, uint8..uint64, float, double, preduce::half or preduce::bfloat16");
  if constexpr (is_supported_input<T>) {
    using C = canonical_t<T>;
    static_assert(!(op_traits<Op>::family == 4 && !std::is_integral<C>::value),
                  "preduce: bit_and, bit_or and bit_xor need an integer element type");
    static_assert(!(op_traits<Op>::family == 0 && !op_supports<Op, C>()),
                  "preduce: this accumulator is not available for this element type (floating inputs: float or double, "
                  "double inputs: double; integers: a 32- or 64-bit integer of the same signedness, at least as wide)");
    static_assert(!(op_traits<Op>::family == 1 && !op_supports<Op, C>()),
                  "preduce: moments accumulates in float or double (double inputs: double)");
    static_assert(!is_dot_of_other_type<base_op_t<Op>, C>::value, "preduce: dot's second input must have the same element type as the first");
    if constexpr (is_partial<Op>::value) {
      static_assert(is_floating<C>, "preduce: partial_of needs floating-point input (float, double, half, bfloat16)");
      static_assert(Op::id == op_id::plus || Op::id == op_id::sum_of_squares || Op::id == op_id::dot || Op::id == op_id::moments,
                    "preduce: partial_of takes plus, sum_of_squares, dot or moments");
    }
  }
}

template <class Op> const void* second_input(const Op&) { return nullptr; }
template <class U, class A> const void* second_input(const dot<U, A>& d) { return d.y; }
template <class Op> const void* second_input(const partial<Op>& p) { return second_input(p.op); }
template <class Op> constexpr nan_rule nan_rule_of(const Op*) { return nan_rule::propagate; }
template <class O> constexpr nan_rule nan_rule_of(const nan_ignoring<O>*) { return nan_rule::ignore; }

template <class Op, class T>
constexpr dtype accumulator_dtype() {
  constexpr int f = op_traits<Op>::family;
  if constexpr (f == 0) return dtype_of<acc_t<Op, T>>::value;
  else if constexpr (f == 1) return dtype_of<decltype(acc_t<Op, T>::mean)>::value;
  else return dtype::none;
}

//! A request for a built-in operator on element type T (already canonical).
template <class Op, class T>
request make_request(const char* function, const Op& op, shape layout, const T* x, std::size_t n, options o) {
  request r{};
  r.function = function;
  r.op = Op::id;
  r.nan = nan_rule_of(static_cast<const Op*>(nullptr));
  r.in = dtype_of<T>::value;
  r.elem_size = sizeof(T);
  r.acc = accumulator_dtype<base_op_t<Op>, T>();
  r.layout = layout;
  r.x = x;
  r.y = second_input(op);
  r.n = n;
  r.offset_type = dtype::none;
  r.results = 1;
  r.out_stride = 1;
  r.result_bytes = sizeof(result_t<Op, T>);
  r.opt = o;
  r.partial = is_partial<Op>::value;
  if (r.partial) r.opt.det = determinism::reproducible;
  return r;
}

}  // namespace detail
}  // namespace preduce
