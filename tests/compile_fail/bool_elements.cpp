// SPDX-License-Identifier: Apache-2.0
// preduce tests: must not compile: bool is not an element type.
// expect: preduce: unsupported element type
#include <preduce/preduce.hpp>

bool any(const preduce::queue& q, const bool* x, std::size_t n) { return preduce::reduce(q, x, n, preduce::logical_or{}); }
