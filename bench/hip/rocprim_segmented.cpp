// SPDX-License-Identifier: Apache-2.0
// preduce-bench hip: the vendor column for rows and segments, rocprim::segmented_reduce over
// each case's rocPRIM form (rocprim_forms.hpp). Rows are segments too: their offsets (row *
// cols) are written to device memory once when the case is prepared, so both shapes share one
// instantiation per (operator, type); the rows column thereby reads rows + 1 extra offsets, 8
// bytes per row against cols elements.
// rocPRIM 5.3.3's device headers print with std::cout (debug_synchronous) but do not include
// <iostream> themselves.
#include <iostream>
#include <rocprim/device/device_segmented_reduce.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "rocprim_forms.hpp"

namespace preduce {
namespace bench {
namespace amd {
namespace {

template <class Op, class T>
vendor_plan segmented(const queue& q, const case_spec& c, const std::int64_t* offsets) {
  using F = rocprim_form<Op, T>;
  using S = typename F::stored;
  const auto segments = static_cast<unsigned>(c.results());
  return make_rocprim<result_of<Op, T>, S, typename F::to_result>(
      q, c.results(), [=](void* t, std::size_t& b, const void* x, const void* y, void* out, hipStream_t s) {
        return rocprim::segmented_reduce(t, b, F::input(x, y), static_cast<S*>(out), segments, offsets, offsets + 1, F::op(),
                                         F::init(), s);
      });
}

//! A vendor_reduction that also owns the rows' offsets.
class with_offsets final : public vendor_reduction {
 public:
  with_offsets(device_bytes offsets, std::unique_ptr<vendor_reduction> run) : offsets_(std::move(offsets)), run_(std::move(run)) {}
  void enqueue(const void* x, const void* y) override { run_->enqueue(x, y); }
  void copy_results(void* host) override { run_->copy_results(host); }
  void reduce_to_host(const void* x, const void* y, void* host) override { run_->reduce_to_host(x, y, host); }

 private:
  device_bytes offsets_;
  std::unique_ptr<vendor_reduction> run_;
};

}  // namespace

vendor_plan make_rocprim_segmented(const queue& q, const case_spec& c) {
  vendor_plan plan;
  device_bytes row_offsets;
  const std::int64_t* offsets = c.offsets;
  if (c.layout == shape::rows) {
    std::vector<std::int64_t> host(c.rows + 1);
    for (std::size_t r = 0; r <= c.rows; ++r) host[r] = static_cast<std::int64_t>(r * c.cols);
    row_offsets = device_bytes(host.size() * sizeof(std::int64_t));
    check(hipMemcpy(row_offsets.get(), host.data(), host.size() * sizeof(std::int64_t), hipMemcpyHostToDevice), "hipMemcpy (row offsets)");
    offsets = static_cast<const std::int64_t*>(row_offsets.get());
  }
  visit_case(c.op, c.type, [&](auto op, auto t) { plan = segmented<decltype(op), typename decltype(t)::type>(q, c, offsets); });
  if (plan.run && row_offsets.get()) plan.run = std::make_unique<with_offsets>(std::move(row_offsets), std::move(plan.run));
  return plan;
}

}  // namespace amd
}  // namespace bench
}  // namespace preduce
