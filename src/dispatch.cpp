// SPDX-License-Identifier: Apache-2.0
// preduce: the library's non-template entry points, the same for every backend. Each backend
// supplies run_compiled<G> (one translation unit per group), result_scratch and read_result.
#include <preduce/detail/request.hpp>
#include <preduce/portable/builtin_dispatch.hpp>

namespace preduce {
namespace detail {

void dispatch(const queue& q, const request& r) {
  using portable::group;
  switch (portable::group_of(r)) {
    case group::sums: return portable::run_compiled<group::sums>(q, r);
    case group::products: return portable::run_compiled<group::products>(q, r);
    case group::dots: return portable::run_compiled<group::dots>(q, r);
    case group::moments: return portable::run_compiled<group::moments>(q, r);
    case group::extremes: return portable::run_compiled<group::extremes>(q, r);
    case group::args: return portable::run_compiled<group::args>(q, r);
    case group::logical_bitwise: return portable::run_compiled<group::logical_bitwise>(q, r);
    case group::binned_sums: return portable::run_compiled<group::binned_sums>(q, r);
    case group::binned_dots: return portable::run_compiled<group::binned_dots>(q, r);
    case group::binned_moments: return portable::run_compiled<group::binned_moments>(q, r);
  }
}

void dispatch_to_host(const queue& q, const request& r, void* host_out) {
  request to_slot = r;
  to_slot.out = portable::result_scratch(q, r.result_bytes);
  dispatch(q, to_slot);
  portable::read_result(q, host_out, to_slot.out, r.result_bytes);
}

}  // namespace detail
}  // namespace preduce
