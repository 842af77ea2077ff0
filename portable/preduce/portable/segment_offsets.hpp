// SPDX-License-Identifier: Apache-2.0
// preduce: the contract segment offsets keep, 0 <= offsets[0] <= offsets[1] <= ... <=
// offsets[segments] <= n, as every backend checks it on the device before reading through the
// offsets, and the error every backend reports when it is broken: the same position and the same
// words, so a user who switches backends sees the same message; and the hip backend's check
// kernel.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <preduce/config.hpp>
#include <preduce/error.hpp>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // check_offsets_kernel's builtins (nvcc includes CUDA's itself)
#endif

namespace preduce {
namespace portable {

//! offset_breaks for values already loaded: o = offsets[i] and, for i > 0, before = offsets[i - 1].
template <class Off>
PREDUCE_HD bool offset_value_breaks(Off o, Off before, std::uint64_t i, std::uint64_t n) {
  bool bad = std::uint64_t(o) > n;
  if constexpr (std::is_signed<Off>::value) bad = bad || o < 0;
  return bad || (i > 0 && o < before);
}

//! Whether offsets[i] (i <= segments) breaks the contract where offsets[0 .. i - 1] may keep it:
//! it is negative, past n, or below offsets[i - 1]. The smallest such i is the first offset at
//! which the contract fails, the position every backend reports.
template <class Off>
PREDUCE_HD bool offset_breaks(const Off* offsets, std::uint64_t i, std::uint64_t n) {
  return offset_value_breaks(offsets[i], i > 0 ? offsets[i - 1] : Off(0), i, n);
}

//! The message of the bad_offsets error for first offending position i (offset_breaks).
inline std::string bad_offsets_message(std::uint64_t i) {
  return "reduce_segments: offsets[" + std::to_string(i) +
         "] breaks 0 <= offsets[0] <= offsets[1] <= ... <= offsets[segments] <= n (found on the device; that call wrote no output)";
}

#if defined(__CUDACC__) || defined(__HIPCC__)
//! Records that offsets[i] breaks the contract in a backend's device status (unsigned code,
//! unsigned long long position): code = errc::bad_offsets + 1, and position the smallest such i
//! any thread records, stored as ~i under atomicMax.
template <class Status>
__device__ inline void record_bad_offset(Status* status, std::uint64_t i) {
  atomicExch(&status->code, unsigned(errc::bad_offsets) + 1u);
  atomicMax(&status->position, ~(unsigned long long)i);
}

//! The hip backend's offset check, enqueued before the kernel that reads through the offsets;
//! threads take i in [0, segments] grid-strided. Writes: on a violation, record_bad_offset.
template <class Off, class Status>
__global__ void check_offsets_kernel(const Off* offsets, std::uint64_t segments, std::uint64_t n, Status* status) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= segments; i += stride) {
    if (offset_breaks(offsets, i, n)) record_bad_offset(status, i);
  }
}
#endif

}  // namespace portable
}  // namespace preduce
