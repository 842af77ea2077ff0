// SPDX-License-Identifier: Apache-2.0
// preduce-bench hip: the vendor column for whole arrays, rocprim::reduce over each case's
// rocPRIM form (rocprim_forms.hpp).
// rocPRIM 5.3.3's device headers print with std::cout (debug_synchronous) but do not include
// <iostream> themselves.
#include <iostream>
#include <rocprim/device/device_reduce.hpp>

#include <cstddef>

#include "rocprim_forms.hpp"

namespace preduce {
namespace bench {
namespace amd {
namespace {

template <class Op, class T>
vendor_plan whole(const queue& q, const case_spec& c) {
  using F = rocprim_form<Op, T>;
  using S = typename F::stored;
  const std::size_t n = c.n;
  return make_rocprim<result_of<Op, T>, S, typename F::to_result>(
      q, 1, [n](void* t, std::size_t& b, const void* x, const void* y, void* out, hipStream_t s) {
        return rocprim::reduce(t, b, F::input(x, y), static_cast<S*>(out), F::init(), n, F::op(), s);
      });
}

}  // namespace

vendor_plan make_rocprim_whole(const queue& q, const case_spec& c) {
  vendor_plan plan;
  visit_case(c.op, c.type, [&](auto op, auto t) { plan = whole<decltype(op), typename decltype(t)::type>(q, c); });
  return plan;
}

}  // namespace amd
}  // namespace bench
}  // namespace preduce
