// SPDX-License-Identifier: Apache-2.0
// preduce: the library's non-template entry points, the same for every backend. Each backend
// supplies run_compiled<G, P, W> (one translation unit per group, part and width) and
// portable::result_slot.
#include <preduce/detail/request.hpp>
#include <preduce/portable/builtin_dispatch.hpp>

namespace preduce {
namespace detail {
namespace {

template <portable::group G, portable::part P>
void run_width(const queue& q, const request& r) {
  using portable::width;
  if (portable::width_of(r) == width::narrow) return portable::run_compiled<G, P, width::narrow>(q, r);
  return portable::run_compiled<G, P, width::wide>(q, r);
}

template <portable::group G>
void run_part(const queue& q, const request& r) {
  using portable::part;
  if (portable::part_of(r) == part::segments) return run_width<G, part::segments>(q, r);
  return run_width<G, part::arrays>(q, r);
}

}  // namespace

void dispatch(const queue& q, const request& r) {
  using portable::group;
  switch (portable::group_of(r)) {
    case group::sums: return run_part<group::sums>(q, r);
    case group::products: return run_part<group::products>(q, r);
    case group::dots: return run_part<group::dots>(q, r);
    case group::moments: return run_part<group::moments>(q, r);
    case group::extremes: return run_part<group::extremes>(q, r);
    case group::args: return run_part<group::args>(q, r);
    case group::logical_bitwise: return run_part<group::logical_bitwise>(q, r);
    case group::binned_sums: return run_part<group::binned_sums>(q, r);
    case group::binned_dots: return run_part<group::binned_dots>(q, r);
    case group::binned_moments_float: return run_part<group::binned_moments_float>(q, r);
    case group::binned_moments_double: return run_part<group::binned_moments_double>(q, r);
  }
}

void dispatch_to_host(const queue& q, const request& r, void* host_out) {
  portable::result_slot slot(q, r.function);
  request to_slot = r;
  to_slot.out = slot.device();
  dispatch(q, to_slot);
  slot.read(host_out, r.result_bytes);
}

}  // namespace detail
}  // namespace preduce
