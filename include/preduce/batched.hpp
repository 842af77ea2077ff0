// SPDX-License-Identifier: Apache-2.0
// preduce: many reductions in one call: rows and columns of a row-major matrix, and variable
// segments [offsets[i], offsets[i+1]). All are stream ordered and write device memory.
#pragma once

#include <cstddef>
#include <type_traits>

#include "reduce.hpp"

namespace preduce {

//! An output written every `stride` elements: results[i] goes to ptr[i * stride]. Use it to
//! write a column (or any strided slice) of a larger array.
template <class Out>
struct strided_output {
  Out* ptr;
  std::size_t stride;
};
//! Makes a strided_output: `reduce_rows(q, x, r, c, strided(d_m + j, ld))`.
template <class Out>
strided_output<Out> strided(Out* ptr, std::size_t stride) {
  return {ptr, stride};
}

namespace detail {
template <class Out> strided_output<Out> as_strided(Out* p) { return {p, 1}; }
template <class Out> strided_output<Out> as_strided(strided_output<Out> s) { return s; }
template <class O> struct output_value { using type = O; };
template <class O> struct output_value<O*> { using type = O; };
template <class O> struct output_value<strided_output<O>> { using type = O; };

template <class Op, class T, class Out>
void run_batched(const queue& q, request& r, const Op&, Out out) {
  static_assert(!is_partial<Op>::value, "preduce: partial_of is available for whole reductions (reduce, reduce_async, transform_reduce)");
  const auto s = as_strided(out);
  using O = typename output_value<Out>::type;
  static_assert(std::is_same<std::remove_cv_t<O>, result_t<Op, canonical_t<T>>>::value,
                "preduce: the output must have the operator's result type (see detail::result_t)");
  r.out = s.ptr;
  r.out_stride = s.stride;
  validate(q, r);
  if (r.results > 0) dispatch(q, r);
}
}  // namespace detail

//! out[i] = op-reduction of row i of the row-major rows x cols matrix d_in, for i < rows.
//! A row of length 0 gives the identity. `out` is a device pointer or a strided_output.
template <class T, class Out, class Op = plus<>>
void reduce_rows(const queue& q, const T* d_in, std::size_t rows, std::size_t cols, Out out, Op op = {}, options o = {}) {
  if constexpr (!detail::is_builtin_op<Op>::value) {
    detail::extension<Op>::batched(q, detail::shape::rows, d_in, rows, cols, static_cast<const int*>(nullptr), 0, out, op, o);
  } else {
    using C = detail::canonical_t<T>;
    detail::check_supported<Op, T>();
    std::size_t n = 0;
    if (__builtin_mul_overflow(rows, cols, &n)) detail::fail(errc::size_overflow, "reduce_rows", "rows * cols overflows std::size_t");
    detail::request r = detail::make_request("reduce_rows", op, detail::shape::rows, reinterpret_cast<const C*>(d_in), n, o);
    r.rows = rows;
    r.cols = cols;
    r.results = rows;
    detail::run_batched<Op, T>(q, r, op, out);
  }
}

//! out[j] = op-reduction of column j of the row-major rows x cols matrix d_in, for j < cols.
template <class T, class Out, class Op = plus<>>
void reduce_columns(const queue& q, const T* d_in, std::size_t rows, std::size_t cols, Out out, Op op = {}, options o = {}) {
  if constexpr (!detail::is_builtin_op<Op>::value) {
    detail::extension<Op>::batched(q, detail::shape::columns, d_in, rows, cols, static_cast<const int*>(nullptr), 0, out, op, o);
  } else {
    using C = detail::canonical_t<T>;
    detail::check_supported<Op, T>();
    std::size_t n = 0;
    if (__builtin_mul_overflow(rows, cols, &n)) detail::fail(errc::size_overflow, "reduce_columns", "rows * cols overflows std::size_t");
    detail::request r = detail::make_request("reduce_columns", op, detail::shape::columns, reinterpret_cast<const C*>(d_in), n, o);
    r.rows = rows;
    r.cols = cols;
    r.results = cols;
    detail::run_batched<Op, T>(q, r, op, out);
  }
}

//! out[i] = op-reduction of d_in[d_offsets[i] .. d_offsets[i+1]) for i < segments, where d_in
//! holds n elements. Offsets are int32, int64, uint32 or uint64 in device memory (segments + 1
//! of them), non-decreasing, with 0 <= offsets[0] and offsets[segments] <= n. Empty segments give the identity; for argmin/argmax the index is relative
//! to the segment's start. Offsets out of order or out of range throw preduce::error at the
//! next synchronizing call and leave `out` untouched.
template <class T, class Off, class Out, class Op = plus<>>
void reduce_segments(const queue& q, const T* d_in, std::size_t n, const Off* d_offsets, std::size_t segments, Out out, Op op = {}, options o = {}) {
  using OffC = detail::canonical_t<Off>;
  static_assert(std::is_same<OffC, std::int32_t>::value || std::is_same<OffC, std::int64_t>::value ||
                    std::is_same<OffC, std::uint32_t>::value || std::is_same<OffC, std::uint64_t>::value,
                "preduce::reduce_segments: offsets must be 32- or 64-bit integers");
  if constexpr (!detail::is_builtin_op<Op>::value) {
    detail::extension<Op>::batched(q, detail::shape::segments, d_in, n, 0, d_offsets, segments, out, op, o);
  } else {
    using C = detail::canonical_t<T>;
    detail::check_supported<Op, T>();
    // The offsets live on the device: the backend checks them there before the reduction reads
    // anything they point at, and reports a violation at the next synchronizing call.
    detail::request r = detail::make_request("reduce_segments", op, detail::shape::segments, reinterpret_cast<const C*>(d_in), n, o);
    r.offsets = d_offsets;
    r.offset_type = detail::dtype_of<OffC>::value;
    r.segments = segments;
    r.results = segments;
    detail::run_batched<Op, T>(q, r, op, out);
  }
}

}  // namespace preduce
