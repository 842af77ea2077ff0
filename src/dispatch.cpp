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
  switch (portable::group_of(r)) {  // a case per row of portable/dispatch_table.hpp
#define PREDUCE_GROUP_CASE(name, ...) \
  case group::name: return run_part<group::name>(q, r);
    PREDUCE_DISPATCH_TABLE(PREDUCE_GROUP_CASE)
#undef PREDUCE_GROUP_CASE
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
