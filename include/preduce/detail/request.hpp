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
  merged,    //!< x holds n pieces of `cols` finalized results (piece k's result t at
             //!< x[k * cols + t]) -> their merge in piece order for t < results
             //!< (detail/merge.hpp); arg indices shifted by index_shift. Library-internal (the
             //!< distributed calls).
  // The compact exchange of binned sums (detail/merge.hpp, exchange::), library-internal, for a
  // reducer whose results are sum partials; `results` steps, x's first `n` entries real:
  binned_align,   //!< x: results local codes, y: results common codes, out: 3 * results int64
                  //!< bins, moved in place to the common level (align_step); n lines real
  binned_values,  //!< x: 3 * results summed int64, y: results common codes -> out: results values
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
  bool partial;                  //!< results are reproducible_partial states (partial_of); merged:
                                 //!< the pieces are such states, merged to their value
  std::uint64_t index_shift;     //!< merged: added to every arg index
  void* limbs;                   //!< partial lines of sums (distributed calls): non-null for the
                                 //!< compact form (exchange::store_compact): out gets the one-byte
                                 //!< codes, limbs the int64 bins
};

//! The largest result a synchronous call returns (custom accumulators included), on every
//! backend: a reproducible moments partial of double, the largest built-in result, has 120 bytes.
inline constexpr std::size_t max_result_bytes = 128;

//! The most bytes any pointer range may span: a C++ object's limit (PTRDIFF_MAX). Every range
//! the front door accepts is below it and does not wrap the address space, so no rounding-up a
//! backend makes of a size (adding far less than 2^63) can wrap.
inline constexpr std::size_t max_range_bytes = std::size_t(PTRDIFF_MAX);

// Implemented by the backend (libpreduce).
//! Checks that [p, p + bytes) is device memory usable on q's device and, where the backend knows
//! p's allocation, lies inside it; throws otherwise.
void check_device_pointer(const queue& q, const void* p, std::size_t bytes, const char* function, const char* argument);
//! Enqueues r on q; the result lands in r.out. Never waits.
void dispatch(const queue& q, const request& r);
//! Runs r on q into a result slot of its own, waits, and copies the result to host_out.
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

//! a * b, or errc::size_overflow naming `what`.
inline std::size_t checked_multiply(std::size_t a, std::size_t b, const char* function, const char* what) {
  std::size_t p = 0;
  if (__builtin_mul_overflow(a, b, &p)) fail(errc::size_overflow, function, std::string(what) + " overflows std::size_t");
  return p;
}

//! Throws errc::size_overflow unless [p, p + bytes) spans at most max_range_bytes and ends at or
//! below the top of the address space.
inline void check_range(const void* p, std::size_t bytes, const char* function, const char* argument) {
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  if (bytes > max_range_bytes || start > std::uintptr_t(-1) - bytes)
    fail(errc::size_overflow, function,
         std::string(argument) + " spans " + std::to_string(bytes) + " bytes, past the end of the address space");
}

//! Throws errc::invalid_argument for an option outside its enumeration.
inline void check_options(const char* function, const options& o) {
  if (unsigned(o.det) > unsigned(determinism::reproducible))
    fail(errc::invalid_argument, function, "options::det holds " + std::to_string(unsigned(o.det)) + ", not a preduce::determinism");
  if (unsigned(o.algo) > unsigned(algorithm::atomic))
    fail(errc::invalid_argument, function, "options::algo holds " + std::to_string(unsigned(o.algo)) + ", not a preduce::algorithm");
  if (unsigned(o.warp) > unsigned(warp_algorithm::hardware))
    fail(errc::invalid_argument, function,
         "options::warp holds " + std::to_string(unsigned(o.warp)) + ", not a preduce::warp_algorithm");
}

inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(a), b0 = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes && b_bytes && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

//! Host-side checks that need no device: options, null pointers, sizes (every product and sum
//! the front door forms is overflow-checked, and every range fits the address space), (via the
//! backend) that every range is device memory of q's device inside its allocation, and output
//! overlap. Throws before any launch, so nothing is written.
inline void validate(const queue& q, const request& r) {
  check_options(r.function, r.opt);
  if (r.layout == shape::rows || r.layout == shape::columns) checked_multiply(r.rows, r.cols, r.function, "rows * cols");
  const std::size_t in_bytes = checked_multiply(r.n, r.elem_size, r.function, "the input's size in bytes");
  // The output spans (results - 1) * stride + 1 results.
  std::size_t out_bytes = 0;
  if (r.results) {
    const std::size_t span = checked_multiply(r.results - 1, r.out_stride, r.function, "the output's extent (results - 1) * stride");
    if (span == std::size_t(-1)) fail(errc::size_overflow, r.function, "the output's extent overflows std::size_t");
    out_bytes = checked_multiply(span + 1, r.result_bytes, r.function, "the output's extent in bytes");
  }
  std::size_t offset_bytes = 0;
  if (r.layout == shape::segments) {
    if (r.segments == std::size_t(-1)) fail(errc::size_overflow, r.function, "segments + 1 offsets overflow std::size_t");
    offset_bytes = checked_multiply(r.segments + 1, dtype_size(r.offset_type), r.function, "the offsets' size in bytes");
  }

  if (r.opt.det == determinism::reproducible && r.in != dtype::none && reproducible_refusal(r.op, r.in))
    fail(errc::unsupported, r.function, reproducible_refusal(r.op, r.in));
  if (r.n > 0 && r.x == nullptr) fail(errc::null_pointer, r.function, "input pointer is null but the input has elements");
  if (r.op == op_id::dot && r.n > 0 && r.y == nullptr) fail(errc::null_pointer, r.function, "dot's second input (y) is null");
  if (r.results > 0 && r.out == nullptr) fail(errc::null_pointer, r.function, "output pointer is null");
  if (r.layout == shape::segments && r.offsets == nullptr) fail(errc::null_pointer, r.function, "offsets pointer is null");
  if (r.layout != shape::whole && r.out_stride == 0 && r.results > 1) fail(errc::invalid_argument, r.function, "output stride is 0");

  if (r.n > 0) check_range(r.x, in_bytes, r.function, "the input");
  if (r.n > 0 && r.y) check_range(r.y, in_bytes, r.function, "dot's second input (y)");
  if (r.offsets) check_range(r.offsets, offset_bytes, r.function, "the offsets");
  if (r.out && r.results > 0) check_range(r.out, out_bytes, r.function, "the output");

  if (r.n > 0) check_device_pointer(q, r.x, in_bytes, r.function, "input");
  if (r.n > 0 && r.y) check_device_pointer(q, r.y, in_bytes, r.function, "dot's second input (y)");
  if (r.offsets) check_device_pointer(q, r.offsets, offset_bytes, r.function, "offsets");
  if (r.out && r.results > 0) check_device_pointer(q, r.out, out_bytes, r.function, "output");
  if (r.out) {
    if (ranges_overlap(r.out, out_bytes, r.x, in_bytes)) fail(errc::overlap, r.function, "output overlaps the input");
    if (r.y && ranges_overlap(r.out, out_bytes, r.y, in_bytes)) fail(errc::overlap, r.function, "output overlaps dot's second input");
    if (r.offsets && ranges_overlap(r.out, out_bytes, r.offsets, offset_bytes)) fail(errc::overlap, r.function, "output overlaps the offsets");
  }
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
