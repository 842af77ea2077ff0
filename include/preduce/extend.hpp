// SPDX-License-Identifier: Apache-2.0
// preduce: custom operators and transforms. libpreduce has the built-in operators precompiled;
// user code cannot be, so this header brings the backend's kernel templates into the user's
// translation unit. Include it only in files compiled by the backend's compiler: in CMake,
// `preduce_device_sources(<target> <file>...)` marks them (CUDA, HIP or the Kokkos compiler), so
// the same source builds unchanged on every backend.
//
// A custom operator is a struct with
//   using value_type = A;                             // accumulator and result (trivially copyable)
//   PREDUCE_HD A identity() const;                    // neutral: op(identity(), a) == a
//   PREDUCE_HD A operator()(A a, A b) const;          // associative and commutative
//   PREDUCE_HD A lift(T x) const;                     // optional: element -> A (else A(x))
// A transform is any copyable callable with `PREDUCE_HD U operator()(T x) const`; U is then
// reduced with a built-in or custom operator. Lambdas work where the backend compiler allows
// host-device lambdas (nvcc: --extended-lambda, which preduce_device_sources adds).
#pragma once

#include <type_traits>

#include "batched.hpp"
#include "detail/source.hpp"
#include "reduce.hpp"
#include <preduce/backend/engine.hpp>
#include <preduce/portable/builtin_dispatch.hpp>

namespace preduce {
namespace detail {

template <class Op, class T>
auto reducer_of(const Op& op) {
  if constexpr (is_builtin_op<Op>::value) {
    static_assert(!std::is_same<typename element_of<Op, T>::type, pair_of<T>>::value,
                  "preduce: dot is not available as the operator of transform_reduce");
    check_supported<Op, T>();
    return reducer<Op, canonical_t<T>>{};
  } else {
    return custom_reducer<Op, T>{op};
  }
}

//! A custom operator's combine runs in an order that differs by backend and launch shape, so
//! it has no reproducible form: refused before anything runs.
inline void refuse_reproducible_custom(const char* function, options o) {
  if (o.det == determinism::reproducible)
    fail(errc::unsupported, function,
         "determinism::reproducible: a custom operator has no reproducible form; use plus, sum_of_squares or moments "
         "(with transform_reduce for a transform)");
}

//! Whether transform_reduce's operator Op on transformed values U runs on the binned reducers
//! under determinism::reproducible (floating-point plus, sum_of_squares, moments).
template <class Op, class U>
constexpr bool has_binned_form() {
  if constexpr (!is_builtin_op<Op>::value || is_partial<Op>::value) {
    return false;
  } else {
    return is_floating<canonical_t<U>> && (Op::id == op_id::plus || Op::id == op_id::sum_of_squares || Op::id == op_id::moments);
  }
}

//! Host-side checks of a custom call, the same as the built-in path's.
template <class T>
void validate_custom(const queue& q, const char* function, options o, shape layout, const T* x, std::size_t n, const void* out,
                     std::size_t results, std::size_t stride, std::size_t result_bytes, const void* offsets = nullptr,
                     dtype offset_type = dtype::none, std::size_t segments = 0) {
  request r{};
  r.function = function;
  r.opt = o;
  r.in = dtype::none;
  r.elem_size = sizeof(T);
  r.layout = layout;
  r.x = x;
  r.n = n;
  r.out = const_cast<void*>(out);
  r.results = results;
  r.out_stride = stride;
  r.result_bytes = result_bytes;
  r.offsets = offsets;
  r.offset_type = offset_type;
  r.segments = segments;
  validate(q, r);
}

template <class Red, class Source>
typename Red::result_type whole_to_host(const queue& q, const char* function, const Red& red, const Source& src, std::size_t n,
                                        options o) {
  using R = typename Red::result_type;
  static_assert(std::is_trivially_copyable<R>::value, "preduce: a custom accumulator must be trivially copyable");
  static_assert(sizeof(R) <= max_result_bytes,
                "preduce: a synchronous call returns at most 128 bytes (detail::max_result_bytes) on every backend; use "
                "reduce_async into device memory for a larger custom accumulator");
  portable::result_slot slot(q, function);
  backend::engine::whole(q, red, src, n, static_cast<R*>(slot.device()), o);
  R result;
  slot.read(&result, sizeof(R));
  return result;
}

template <class X>
struct extension<X, std::enable_if_t<!is_builtin_op<X>::value>> {
  // X is a custom operator.
  template <class T>
  static auto reduce(const queue& q, const T* d_in, std::size_t n, const X& op, options o) {
    refuse_reproducible_custom("reduce", o);
    const auto red = custom_reducer<X, T>{op};
    validate_custom(q, "reduce", o, shape::whole, d_in, n, nullptr, 0, 1, 0);
    return whole_to_host(q, "reduce", red, array_source<T>{d_in}, n, o);
  }

  template <class T, class Out>
  static void reduce_async(const queue& q, const T* d_in, std::size_t n, Out* d_out, const X& op, options o) {
    using R = typename custom_reducer<X, T>::result_type;
    static_assert(std::is_same<std::remove_cv_t<Out>, R>::value, "preduce::reduce_async: *d_out must be the operator's value_type");
    refuse_reproducible_custom("reduce_async", o);
    validate_custom(q, "reduce_async", o, shape::whole, d_in, n, d_out, 1, 1, sizeof(R));
    backend::engine::whole(q, custom_reducer<X, T>{op}, array_source<T>{d_in}, n, d_out, o);
  }

  template <class T, class Off, class OutArg>
  static void batched(const queue& q, shape layout, const T* d_in, std::size_t a, std::size_t b, const Off* d_offsets,
                      std::size_t segments, OutArg out, const X& op, options o) {
    using R = typename custom_reducer<X, T>::result_type;
    const auto s = as_strided(out);
    static_assert(std::is_same<std::remove_cv_t<std::remove_pointer_t<decltype(s.ptr)>>, R>::value,
                  "preduce: the output must be the operator's value_type");
    refuse_reproducible_custom(layout == shape::segments ? "reduce_segments" : layout == shape::rows ? "reduce_rows" : "reduce_columns", o);
    const auto red = custom_reducer<X, T>{op};
    const array_source<T> src{d_in};
    if (layout == shape::segments) {
      validate_custom(q, "reduce_segments", o, layout, d_in, a, s.ptr, segments, s.stride, sizeof(R), d_offsets,
                      dtype_of<canonical_t<Off>>::value, segments);
      if (segments) backend::engine::segments(q, red, src, a, d_offsets, segments, s.ptr, s.stride, o);
      return;
    }
    std::size_t n = 0;
    if (__builtin_mul_overflow(a, b, &n)) fail(errc::size_overflow, "reduce_rows", "rows * cols overflows std::size_t");
    const bool by_rows = layout == shape::rows;
    const std::size_t results = by_rows ? a : b;
    validate_custom(q, by_rows ? "reduce_rows" : "reduce_columns", o, layout, d_in, n, s.ptr, results, s.stride, sizeof(R));
    if (results == 0) return;
    if (by_rows) backend::engine::rows(q, red, src, a, b, s.ptr, s.stride, o);
    else backend::engine::columns(q, red, src, a, b, s.ptr, s.stride, o);
  }

  // X is a transform. Under determinism::reproducible, floating-point plus, sum_of_squares and
  // moments run on the binned reducers; multiplies on floating-point values and custom
  // operators are refused; the rest are exact already.
  template <class T, class Op>
  static auto transform_reduce(const queue& q, const T* d_in, std::size_t n, const X& transform, const Op& op, options o) {
    using Src = transform_source<array_source<T>, X>;
    using U = typename Src::value_type;
    const auto red = reducer_of<Op, U>(op);
    if constexpr (!is_builtin_op<Op>::value) refuse_reproducible_custom("transform_reduce", o);
    if constexpr (is_builtin_op<Op>::value && !is_partial<Op>::value) {
      if (o.det == determinism::reproducible && reproducible_refusal(Op::id, dtype_of<canonical_t<U>>::value))
        fail(errc::unsupported, "transform_reduce", reproducible_refusal(Op::id, dtype_of<canonical_t<U>>::value));
    }
    validate_custom(q, "transform_reduce", o, shape::whole, d_in, n, nullptr, 0, 1, 0);
    const Src src{array_source<T>{d_in}, transform};
    if constexpr (has_binned_form<Op, U>()) {
      if (o.det == determinism::reproducible)
        return whole_to_host(q, "transform_reduce", reducer<portable::reproducible_value<Op>, canonical_t<U>>{}, src, n, o);
    }
    return whole_to_host(q, "transform_reduce", red, src, n, o);
  }
};

}  // namespace detail
}  // namespace preduce
