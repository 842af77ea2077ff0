// SPDX-License-Identifier: Apache-2.0
// preduce tests: must not compile: integer inputs accumulate in integers only.
// expect: preduce: this accumulator is not available for this element type
#include <cstdint>

#include <preduce/preduce.hpp>

float sum(const preduce::queue& q, const std::int32_t* x, std::size_t n) { return preduce::reduce(q, x, n, preduce::plus<float>{}); }
