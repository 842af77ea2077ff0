// SPDX-License-Identifier: Apache-2.0
// preduce hip: thread-level input folding. The head / 16-byte body / tail split and the fold
// order are vendor-neutral (portable/thread_fold.hpp); this file supplies AMD's 16-byte load.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/portable/thread_fold.hpp>

namespace preduce {
namespace backend {

//! One 16-byte global load (global_load_dwordx4). The input is never written during a
//! reduction, so an ordinary cached load is right; streaming (nontemporal) hints are unmeasured.
struct vector_load {
  template <class T>
  __device__ static void load(const T* p, T (&e)[portable::vector_bytes / sizeof(T)]) {
    using words = unsigned __attribute__((ext_vector_type(4)));
    const words v = *reinterpret_cast<const words*>(p);
    __builtin_memcpy(e, &v, sizeof v);
  }
};

template <class Source>
using chunk_loader = portable::chunk_loader<vector_load, Source>;

template <class Source>
std::uint64_t vector_head(const Source& src, std::uint64_t n) {
  return portable::vector_head<vector_load>(src, n);
}

}  // namespace backend
}  // namespace preduce
