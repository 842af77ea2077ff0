// SPDX-License-Identifier: Apache-2.0
// preduce tests: must not compile: bitwise operators need integers.
// expect: preduce: bit_and, bit_or and bit_xor need an integer element type
#include <preduce/preduce.hpp>

float reduce_bits(const preduce::queue& q, const float* x, std::size_t n) { return preduce::reduce(q, x, n, preduce::bit_xor{}); }
