// SPDX-License-Identifier: Apache-2.0
// preduce: runtime tags for the element types the compiled library is instantiated for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../types.hpp"

namespace preduce {
namespace detail {

//! Element types crossing the library boundary. `none` marks an unused slot of a request.
enum class dtype : unsigned char { none, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, boolean };

template <class T> struct dtype_of { static constexpr dtype value = dtype::none; };
template <> struct dtype_of<std::int8_t> { static constexpr dtype value = dtype::i8; };
template <> struct dtype_of<std::int16_t> { static constexpr dtype value = dtype::i16; };
template <> struct dtype_of<std::int32_t> { static constexpr dtype value = dtype::i32; };
template <> struct dtype_of<std::int64_t> { static constexpr dtype value = dtype::i64; };
template <> struct dtype_of<std::uint8_t> { static constexpr dtype value = dtype::u8; };
template <> struct dtype_of<std::uint16_t> { static constexpr dtype value = dtype::u16; };
template <> struct dtype_of<std::uint32_t> { static constexpr dtype value = dtype::u32; };
template <> struct dtype_of<std::uint64_t> { static constexpr dtype value = dtype::u64; };
template <> struct dtype_of<half> { static constexpr dtype value = dtype::f16; };
template <> struct dtype_of<bfloat16> { static constexpr dtype value = dtype::bf16; };
template <> struct dtype_of<float> { static constexpr dtype value = dtype::f32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::f64; };
template <> struct dtype_of<bool> { static constexpr dtype value = dtype::boolean; };

// `long` and `long long` are distinct types of the same width on LP64; map whichever of them
// is not int64_t (and its unsigned twin) to the 64-bit tags, so `std::size_t` data works too.
template <class T>
using canonical_t = std::conditional_t<
    std::is_integral<T>::value && !std::is_same<T, bool>::value && !std::is_same<T, char>::value,
    std::conditional_t<std::is_signed<T>::value,
                       std::conditional_t<sizeof(T) == 1, std::int8_t,
                       std::conditional_t<sizeof(T) == 2, std::int16_t,
                       std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>>>,
                       std::conditional_t<sizeof(T) == 1, std::uint8_t,
                       std::conditional_t<sizeof(T) == 2, std::uint16_t,
                       std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>>,
    T>;

//! True for the element types the compiled library reduces.
template <class T>
inline constexpr bool is_supported_input =
    dtype_of<canonical_t<T>>::value != dtype::none && !std::is_same<T, bool>::value;

template <class T>
inline constexpr bool is_narrow_float = std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

template <class T>
inline constexpr bool is_floating = std::is_floating_point<T>::value || is_narrow_float<T>;

//! Size in bytes of one element of `t`.
constexpr std::size_t dtype_size(dtype t) {
  switch (t) {
    case dtype::i8: case dtype::u8: case dtype::boolean: return 1;
    case dtype::i16: case dtype::u16: case dtype::f16: case dtype::bf16: return 2;
    case dtype::i32: case dtype::u32: case dtype::f32: return 4;
    case dtype::i64: case dtype::u64: case dtype::f64: return 8;
    case dtype::none: return 0;
  }
  return 0;
}

//! Short name of `t` as the benchmark and error messages print it ("f32", "bf16", ...).
constexpr const char* dtype_name(dtype t) {
  switch (t) {
    case dtype::i8: return "i8"; case dtype::i16: return "i16"; case dtype::i32: return "i32";
    case dtype::i64: return "i64"; case dtype::u8: return "u8"; case dtype::u16: return "u16";
    case dtype::u32: return "u32"; case dtype::u64: return "u64"; case dtype::f16: return "f16";
    case dtype::bf16: return "bf16"; case dtype::f32: return "f32"; case dtype::f64: return "f64";
    case dtype::boolean: return "bool"; case dtype::none: return "none";
  }
  return "?";
}

//! Carries a type through a generic lambda.
template <class T> struct type_tag { using type = T; };

//! f(type_tag<T>) for the input element type t names; otherwise() (which throws) for none and
//! boolean.
template <class F, class Otherwise>
void with_input_dtype(dtype t, F&& f, Otherwise&& otherwise) {
  switch (t) {
    case dtype::i8: return f(type_tag<std::int8_t>{});
    case dtype::i16: return f(type_tag<std::int16_t>{});
    case dtype::i32: return f(type_tag<std::int32_t>{});
    case dtype::i64: return f(type_tag<std::int64_t>{});
    case dtype::u8: return f(type_tag<std::uint8_t>{});
    case dtype::u16: return f(type_tag<std::uint16_t>{});
    case dtype::u32: return f(type_tag<std::uint32_t>{});
    case dtype::u64: return f(type_tag<std::uint64_t>{});
    case dtype::f16: return f(type_tag<half>{});
    case dtype::bf16: return f(type_tag<bfloat16>{});
    case dtype::f32: return f(type_tag<float>{});
    case dtype::f64: return f(type_tag<double>{});
    default: return otherwise();
  }
}

//! f(type_tag<A>) for the accumulator type t names (32- and 64-bit integers, float, double);
//! otherwise() (which throws) for any other.
template <class F, class Otherwise>
void with_accumulator_dtype(dtype t, F&& f, Otherwise&& otherwise) {
  switch (t) {
    case dtype::i32: return f(type_tag<std::int32_t>{});
    case dtype::i64: return f(type_tag<std::int64_t>{});
    case dtype::u32: return f(type_tag<std::uint32_t>{});
    case dtype::u64: return f(type_tag<std::uint64_t>{});
    case dtype::f32: return f(type_tag<float>{});
    case dtype::f64: return f(type_tag<double>{});
    default: return otherwise();
  }
}

}  // namespace detail
}  // namespace preduce
