// SPDX-License-Identifier: Apache-2.0
// preduce: compiler portability macros shared by the public headers, portable/ and the backends.
#pragma once

//! Marks a function callable from host and device code. Under nvcc and hipcc it expands to
//! `__host__ __device__`; under a plain host compiler (g++, clang++, Kokkos Serial/OpenMP) to
//! nothing. Custom operators and transforms (extend.hpp) mark their members with it so one
//! source compiles unchanged on every backend.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PREDUCE_HD __host__ __device__
#else
#define PREDUCE_HD
#endif

//! Forces inlining of small host+device helpers on every compiler.
#if defined(_MSC_VER)
#define PREDUCE_INLINE __forceinline
#else
#define PREDUCE_INLINE inline __attribute__((always_inline))
#endif

//! Keeps a rarely taken host+device path (a slow path, a finalization) out of line, so that
//! kernels inlining their hot loops do not also inline it at every call site (code size and
//! compile time). nvcc, hipcc and host compilers all honour the GNU attribute.
#if defined(_MSC_VER)
#define PREDUCE_NOINLINE __declspec(noinline)
#else
#define PREDUCE_NOINLINE __attribute__((noinline))
#endif
