// SPDX-License-Identifier: Apache-2.0
// preduce: value types of the public API: 16-bit floating-point storage types and the result
// types of the multi-field operators (arg, minmax_result, moments_result).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "config.hpp"

namespace preduce {

//! The index an arg reduction returns for an empty input.
inline constexpr std::uint64_t npos = ~std::uint64_t{0};

namespace detail {

// Bit casts usable in device code (std::bit_cast is C++20; memcpy is the portable C++17 form
// and compiles to a register move under g++, nvcc and hipcc). __builtin_memcpy, because under
// hipcc std::memcpy names only the host function when <cstring> comes before the HIP headers.
PREDUCE_HD PREDUCE_INLINE std::uint32_t float_bits(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
PREDUCE_HD PREDUCE_INLINE float bits_float(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

// IEEE binary16 -> binary32, exact for every input (normals, subnormals, inf, NaN payloads).
PREDUCE_HD PREDUCE_INLINE float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (man << 13));  // normal: bias 15 -> 127
  if (man == 0) return bits_float(sign);                                      // +-0
  // Subnormal: value = man * 2^-24, exact in float.
  const float mag = float(man) * 5.9604644775390625e-8f;  // 2^-24
  return sign ? -mag : mag;
}

// IEEE binary32 -> binary16 with round-to-nearest-even; overflow gives inf, NaN stays NaN.
PREDUCE_HD PREDUCE_INLINE std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return std::uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN, quiet
  if (abs >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    // Scale so that one half-ulp (2^-24) becomes 1, then round to nearest even in float.
    const float scaled = bits_float(abs) * 16777216.0f;  // 2^24, exact
    // Adding 2^23 (and subtracting it) rounds to an integer with the FPU's ties-to-even.
    const float rounded = (scaled + 8388608.0f) - 8388608.0f;
    return std::uint16_t(sign | std::uint16_t(rounded));
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  const std::uint32_t rebased = abs - 0x38000000u;  // exponent bias 127 -> 15
  const std::uint32_t lsb = (rebased >> 13) & 1u;
  return std::uint16_t(sign | ((rebased + 0xfffu + lsb) >> 13));
}

// bfloat16 is the top half of a binary32; conversion down rounds to nearest even.
PREDUCE_HD PREDUCE_INLINE float bf16_bits_to_float(std::uint16_t b) {
  return bits_float(std::uint32_t(b) << 16);
}
PREDUCE_HD PREDUCE_INLINE std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((x >> 16) | 0x40u);  // NaN, quiet
  const std::uint32_t lsb = (x >> 16) & 1u;
  return std::uint16_t((x + 0x7fffu + lsb) >> 16);
}

}  // namespace detail

//! IEEE 754 binary16 storage type. Layout-compatible with CUDA's `__half` and HIP's `_Float16`,
//! so device arrays of either can be passed reinterpreted. Arithmetic happens in float.
struct half {
  std::uint16_t bits;
  half() = default;
  PREDUCE_HD explicit half(float f) : bits(detail::float_to_half_bits(f)) {}
  PREDUCE_HD explicit operator float() const { return detail::half_bits_to_float(bits); }
  //! Builds a half from its raw bit pattern.
  PREDUCE_HD static half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

//! bfloat16 storage type (8-bit exponent, 7-bit mantissa). Layout-compatible with CUDA's
//! `__nv_bfloat16` and HIP's `hip_bfloat16`. Arithmetic happens in float.
struct bfloat16 {
  std::uint16_t bits;
  bfloat16() = default;
  PREDUCE_HD explicit bfloat16(float f) : bits(detail::float_to_bf16_bits(f)) {}
  PREDUCE_HD explicit operator float() const { return detail::bf16_bits_to_float(bits); }
  //! Builds a bfloat16 from its raw bit pattern.
  PREDUCE_HD static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

//! Result of argmin / argmax: the extreme value and the index of its first occurrence
//! (`npos` for an empty input).
template <class T>
struct arg {
  T value;
  std::uint64_t index;
};

//! Result of minmax: both extremes in one pass.
template <class T>
struct minmax_result {
  T min;
  T max;
};

//! Result of moments: count, mean and M2 (the sum of squared deviations from the mean), merged
//! pairwise with Chan et al.'s formula, so the variance comes from one pass without cancellation.
template <class A>
struct moments_result {
  std::uint64_t count;
  A mean;
  A m2;
  //! Population variance (M2 / count); NaN for an empty input.
  PREDUCE_HD A variance() const { return m2 / A(count); }
  //! Sample variance (M2 / (count - 1)); NaN for fewer than two values.
  PREDUCE_HD A sample_variance() const { return count > 1 ? m2 / A(count - 1) : A(0) / A(0); }
};

}  // namespace preduce
