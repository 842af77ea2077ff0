// SPDX-License-Identifier: Apache-2.0
// preduce-bench: what one benchmark case is, shared by the portable driver and by every backend's
// vendor baseline, so both sides name and instantiate exactly the same (operator, type) pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/preduce.hpp>

namespace preduce {
namespace bench {

using detail::dtype;
using detail::op_id;
using detail::shape;
using detail::type_tag;

//! An operator preduce-bench runs, with its command-line and report name.
struct named_op {
  const char* name;
  op_id id;
};

//! Every operator preduce-bench knows, in report order. bit_xor runs on integer types only.
inline constexpr named_op known_ops[] = {
    {"plus", op_id::plus},       {"sum_of_squares", op_id::sum_of_squares}, {"dot", op_id::dot},
    {"moments", op_id::moments}, {"minimum", op_id::minimum},               {"maximum", op_id::maximum},
    {"minmax", op_id::minmax},   {"argmin", op_id::argmin},                 {"argmax", op_id::argmax},
    {"logical_and", op_id::logical_and}, {"logical_or", op_id::logical_or}, {"bit_xor", op_id::bit_xor},
};

//! Every element type preduce-bench knows, in report order (named by detail::dtype_name).
inline constexpr dtype known_types[] = {dtype::f32, dtype::f64, dtype::i32, dtype::bf16, dtype::f16, dtype::i8};

//! The report name of `op` ("plus", "argmax", ...).
constexpr const char* op_name(op_id op) {
  for (const named_op& k : known_ops)
    if (k.id == op) return k.name;
  return "?";
}

//! Report name of a layout: "whole", "rows", "columns" or "segments".
constexpr const char* shape_name(shape s) {
  switch (s) {
    case shape::whole: return "whole";
    case shape::rows: return "rows";
    case shape::columns: return "columns";
    case shape::segments: return "segments";
    case shape::merged: return "merged";
  }
  return "?";
}

//! Calls f(type_tag<T>{}) for the element type `type` names; returns false, calling nothing,
//! for a type the benchmark does not know.
template <class F>
bool visit_type(dtype type, F&& f) {
  switch (type) {
    case dtype::f32: f(type_tag<float>{}); return true;
    case dtype::f64: f(type_tag<double>{}); return true;
    case dtype::i32: f(type_tag<std::int32_t>{}); return true;
    case dtype::bf16: f(type_tag<bfloat16>{}); return true;
    case dtype::f16: f(type_tag<half>{}); return true;
    case dtype::i8: f(type_tag<std::int8_t>{}); return true;
    default: return false;
  }
}

//! Calls f(op) with the operator tag (default accumulator) that `op` names for elements of type
//! T; dot's tag has a null second input, for the caller to fill in. Returns false, calling
//! nothing, for a pair preduce does not define (bit_xor on floating types).
template <class T, class F>
bool visit_op(op_id op, F&& f) {
  switch (op) {
    case op_id::plus: f(plus<>{}); return true;
    case op_id::sum_of_squares: f(sum_of_squares<>{}); return true;
    case op_id::dot: f(dot<T>{nullptr}); return true;
    case op_id::moments: f(moments<>{}); return true;
    case op_id::minimum: f(minimum{}); return true;
    case op_id::maximum: f(maximum{}); return true;
    case op_id::minmax: f(minmax{}); return true;
    case op_id::argmin: f(argmin{}); return true;
    case op_id::argmax: f(argmax{}); return true;
    case op_id::logical_and: f(logical_and{}); return true;
    case op_id::logical_or: f(logical_or{}); return true;
    case op_id::bit_xor:
      if constexpr (std::is_integral<T>::value) {
        f(bit_xor{});
        return true;
      }
      return false;
    default: return false;
  }
}

//! Calls f(op, type_tag<T>{}) for the pair (op, type) names (see visit_op and visit_type);
//! returns false, calling nothing, for a pair preduce does not define or the benchmark does not know.
template <class F>
bool visit_case(op_id op, dtype type, F&& f) {
  bool known = false;
  visit_type(type, [&](auto t) {
    using T = typename decltype(t)::type;
    known = visit_op<T>(op, [&](auto o) { f(o, t); });
  });
  return known;
}

//! The type preduce returns for operator tag Op on elements T (what both columns write).
template <class Op, class T>
using result_of = detail::result_t<Op, T>;

//! One benchmark case: what is reduced and how the input is laid out. Input pointers are not
//! part of it, because the timed calls rotate among several copies of the input.
struct case_spec {
  op_id op;
  dtype type;
  shape layout;
  std::size_t n;                  //!< elements of the input (and of dot's second input)
  std::size_t rows, cols;         //!< rows / columns layouts: the row-major rows x cols matrix
  std::size_t segments;           //!< segments layout: how many
  const std::int64_t* offsets;    //!< segments layout: segments + 1 offsets in device memory

  //! How many results the case writes.
  std::size_t results() const {
    switch (layout) {
      case shape::rows: return rows;
      case shape::columns: return cols;
      case shape::segments: return segments;
      case shape::whole: case shape::merged: break;
    }
    return 1;
  }
};

}  // namespace bench
}  // namespace preduce
