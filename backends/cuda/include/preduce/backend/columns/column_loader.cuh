// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how the column kernels load a row's columns: column_loader, one aligned load of
// 4, 8 or 16 bytes (load_bytes) per row for arrays and pairs of 1-, 2-, 4- or 8-byte elements,
// else element by element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <preduce/detail/reducer.hpp>
#include <preduce/detail/source.hpp>

namespace preduce {
namespace backend {

//! Copies Bytes (4, 8 or 16) from p, which is Bytes-aligned, with one read-only load.
template <int Bytes>
__device__ __forceinline__ void load_bytes(const void* p, void* dst) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "load_bytes: 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    const uint4 v = __ldg(static_cast<const uint4*>(p));
    std::memcpy(dst, &v, sizeof v);
  } else if constexpr (Bytes == 8) {
    const uint2 v = __ldg(static_cast<const uint2*>(p));
    std::memcpy(dst, &v, sizeof v);
  } else {
    const unsigned v = __ldg(static_cast<const unsigned*>(p));
    std::memcpy(dst, &v, sizeof v);
  }
}

//! How a source serves reduce_columns_kernel: `columns` consecutive elements of one row per
//! load. The primary template reads element by element (one column per load).
template <class Source, class Enable = void>
struct column_loader {
  static constexpr int columns = 1;
  static constexpr bool vectorized = false;
};

//! Element types of 1, 2, 4 or 8 bytes: 4 columns per load (16, 8 or 4 bytes), 2 for 8-byte
//! types (16 bytes), so a thread holds at most 4 accumulators.
template <class T>
constexpr bool column_vector_type = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;
template <class T>
constexpr int columns_per_load = sizeof(T) == 8 ? 2 : 4;

template <class T>
struct column_loader<detail::array_source<T>, std::enable_if_t<column_vector_type<T>>> {
  using source = detail::array_source<T>;
  static constexpr int columns = columns_per_load<T>;
  static constexpr int bytes = columns * int(sizeof(T));
  static constexpr bool vectorized = true;
  //! Every row's columns c, c + 1, ... (c % columns == 0) share one aligned load.
  static bool usable(const source& s, std::uint64_t cols) {
    return reinterpret_cast<std::uintptr_t>(s.x) % bytes == 0 && cols % columns == 0;
  }
  __device__ static void load(const source& s, std::uint64_t i, T (&e)[columns]) { load_bytes<bytes>(s.x + i, e); }
};

template <class T>
struct column_loader<detail::pair_source<T>, std::enable_if_t<column_vector_type<T>>> {
  using source = detail::pair_source<T>;
  static constexpr int columns = columns_per_load<T>;
  static constexpr int bytes = columns * int(sizeof(T));
  static constexpr bool vectorized = true;
  static bool usable(const source& s, std::uint64_t cols) {
    return reinterpret_cast<std::uintptr_t>(s.x) % bytes == 0 && reinterpret_cast<std::uintptr_t>(s.y) % bytes == 0 &&
           cols % columns == 0;
  }
  __device__ static void load(const source& s, std::uint64_t i, detail::pair_of<T> (&e)[columns]) {
    T x[columns], y[columns];
    load_bytes<bytes>(s.x + i, x);
    load_bytes<bytes>(s.y + i, y);
#pragma unroll
    for (int k = 0; k < columns; ++k) e[k] = {x[k], y[k]};
  }
};

}  // namespace backend
}  // namespace preduce
