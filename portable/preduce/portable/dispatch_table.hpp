// SPDX-License-Identifier: Apache-2.0
// preduce: the dispatch matrix, written once. Each row is a group of built-in operators that
// every backend compiles as its own translation units (one per group, part and width:
// builtin_dispatch.hpp), so the compiler builds them in parallel. From these rows come
//   - the generated units (cmake/preduce_dispatch.cmake reads the group names below),
//   - portable::group and group_of (builtin_dispatch.hpp), and
//   - the library entry point's switch (src/dispatch.cpp).
// Columns: the group; whether it holds the binned (reproducible) forms (detail::runs_binned);
// the accumulators it takes (any_acc, f64_acc, or other_acc: every one but double); its
// operators (detail::op_id). A request goes to the first row that matches it.
// Rows slowest first: the build starts units in this order, so the longest begin at once
// (docs/tuning/build.md has the per-unit times).
#pragma once

// clang-format off
#define PREDUCE_DISPATCH_TABLE(X)                                                        \
  X(binned_sums,           true,  any_acc,   plus, sum_of_squares)                       \
  X(extremes,              false, any_acc,   minimum, maximum, minmax)                   \
  X(args,                  false, any_acc,   argmin, argmax)                             \
  X(binned_moments_double, true,  f64_acc,   moments)                                    \
  X(binned_moments_float,  true,  other_acc, moments)                                    \
  X(binned_dots,           true,  any_acc,   dot)                                        \
  X(moments,               false, any_acc,   moments)                                    \
  X(sums,                  false, any_acc,   plus, sum_of_squares)                       \
  X(logical_bitwise,       false, any_acc,   logical_and, logical_or, bit_and, bit_or, bit_xor) \
  X(dots,                  false, any_acc,   dot)                                        \
  X(products,              false, any_acc,   multiplies)
// clang-format on
