// SPDX-License-Identifier: Apache-2.0
// preduce-bench hip: what the rocPRIM baselines share: the functors rocPRIM applies, and one
// vendor_reduction that owns rocPRIM's temporary storage and the output.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include <rocprim/types/key_value_pair.hpp>

#include "../baseline.hpp"

namespace preduce {
namespace bench {
namespace amd {

//! Throws preduce::error(device_fault) naming `what` when e is not hipSuccess.
void check(hipError_t e, const char* what);

//! An element in the accumulator A. preduce's half and bfloat16 convert through float (rocPRIM
//! has no arithmetic of its own on them that preduce's layout-compatible types could borrow).
template <class A, class T>
__device__ A as(T x) {
  if constexpr (detail::is_narrow_float<T>) return static_cast<A>(static_cast<float>(x));
  else return static_cast<A>(x);
}

//! Converts an element to the accumulator A.
template <class A>
struct to_accumulator {
  template <class T>
  __device__ A operator()(T x) const { return as<A>(x); }
};

//! x * x in the accumulator A.
template <class A>
struct square_in {
  template <class T>
  __device__ A operator()(T x) const {
    const A v = as<A>(x);
    return v * v;
  }
};

//! x[i] * y[i] in the accumulator A, for dot over a counting iterator.
template <class T, class A>
struct product_at {
  const T* x;
  const T* y;
  __device__ A operator()(std::int64_t i) const { return as<A>(x[i]) * as<A>(y[i]); }
};

//! x != 0, compared in V (float for the 16-bit types).
template <class V>
struct is_nonzero {
  template <class T>
  __device__ bool operator()(T x) const { return as<V>(x) != V(0); }
};

//! The operators rocPRIM's functional.hpp does not have.
struct both {
  __device__ bool operator()(bool a, bool b) const { return a && b; }
};
struct either {
  __device__ bool operator()(bool a, bool b) const { return a || b; }
};
template <class T>
struct exclusive_or {
  __device__ T operator()(T a, T b) const { return T(a ^ b); }
};

//! Where rocPRIM has no operator (minmax, moments), rocPRIM's machinery runs preduce's
//! arithmetic: the reducer's lift, combine and finalize, so both columns compute the same thing.
template <class Red, class T>
struct reducer_lift {
  __device__ typename Red::acc_type operator()(T x) const { return Red::lift(x, 0); }
};
template <class Red>
struct reducer_combine {
  __device__ typename Red::acc_type operator()(const typename Red::acc_type& a, const typename Red::acc_type& b) const {
    return Red::combine(a, b);
  }
};
//! Run on the host when the results are read back: rocPRIM writes the reducer's accumulator and
//! this finalizes it.
template <class Red>
struct reducer_finalize {
  typename Red::result_type operator()(const typename Red::acc_type& a) const { return Red::finalize(a); }
};

//! rocPRIM's arg result {key, value} (value in V: float for the 16-bit types) as preduce's
//! arg<T> {value, 64-bit index}; run on the host when the results are read back.
template <class T, class V>
struct key_value_to_arg {
  arg<T> operator()(const rocprim::key_value_pair<std::ptrdiff_t, V>& kv) const { return {T(kv.value), std::uint64_t(kv.key)}; }
};

//! Results written as they are (rocPRIM's output is already preduce's result layout).
struct as_written {};

//! Device memory of the vendor side (hipMalloc / hipFree), so rocPRIM's storage is not preduce's.
class device_bytes {
 public:
  device_bytes() = default;
  explicit device_bytes(std::size_t bytes) {
    if (bytes) check(hipMalloc(&p_, bytes), "hipMalloc (baseline storage)");
  }
  device_bytes(device_bytes&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  device_bytes& operator=(device_bytes&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
  ~device_bytes() {
    if (p_) (void)hipFree(p_);
  }
  void* get() const noexcept { return p_; }

 private:
  void* p_ = nullptr;
};

//! One rocPRIM call, prepared once. Launch is callable as
//!   hipError_t launch(void* temp, std::size_t& temp_bytes, const void* x, const void* y, void* out, hipStream_t s)
//! and follows rocPRIM's two-phase protocol: with temp == nullptr it only sets temp_bytes.
//! rocPRIM writes `results` values of type Stored to out; ToResult turns one into preduce's
//! result type R on the host (as_written: Stored is R).
template <class R, class Stored, class ToResult, class Launch>
class rocprim_reduction final : public vendor_reduction {
 public:
  rocprim_reduction(hipStream_t stream, std::size_t results, Launch launch)
      : stream_(stream), results_(results), launch_(std::move(launch)), out_(results * sizeof(Stored)) {
    check(launch_(nullptr, temp_bytes_, nullptr, nullptr, out_.get(), stream_), "rocPRIM temporary storage query");
    temp_ = device_bytes(temp_bytes_);
  }
  void enqueue(const void* x, const void* y) override {
    check(launch_(temp_.get(), temp_bytes_, x, y, out_.get(), stream_), "rocPRIM launch");
  }
  void copy_results(void* host) override {
    check(hipStreamSynchronize(stream_), "hipStreamSynchronize (rocPRIM result)");
    std::unique_ptr<Stored[]> stored(new Stored[results_]);  // not a vector: Stored may be bool
    check(hipMemcpy(stored.get(), out_.get(), results_ * sizeof(Stored), hipMemcpyDeviceToHost), "hipMemcpy (rocPRIM result)");
    R* out = static_cast<R*>(host);
    for (std::size_t i = 0; i < results_; ++i) {
      if constexpr (std::is_same<ToResult, as_written>::value) std::memcpy(&out[i], &stored[i], sizeof(R));
      else out[i] = ToResult{}(stored[i]);
    }
  }
  void reduce_to_host(const void* x, const void* y, void* host) override {
    if (!pinned_) check(hipHostMalloc(&pinned_, results_ * sizeof(Stored), hipHostMallocDefault), "hipHostMalloc (rocPRIM result)");
    enqueue(x, y);
    check(hipMemcpyAsync(pinned_, out_.get(), results_ * sizeof(Stored), hipMemcpyDeviceToHost, stream_), "hipMemcpyAsync (rocPRIM result)");
    check(hipStreamSynchronize(stream_), "hipStreamSynchronize (rocPRIM result)");
    const Stored* stored = static_cast<const Stored*>(pinned_);
    R* out = static_cast<R*>(host);
    for (std::size_t i = 0; i < results_; ++i) {
      if constexpr (std::is_same<ToResult, as_written>::value) std::memcpy(&out[i], &stored[i], sizeof(R));
      else out[i] = ToResult{}(stored[i]);
    }
  }
  ~rocprim_reduction() override {
    if (pinned_) (void)hipHostFree(pinned_);
  }

 private:
  void* pinned_ = nullptr;
  hipStream_t stream_;
  std::size_t results_;
  Launch launch_;
  device_bytes out_;
  std::size_t temp_bytes_ = 0;
  device_bytes temp_;
};

//! Prepares a rocprim_reduction on q's stream writing `results` values of type Stored, read back as R.
template <class R, class Stored = R, class ToResult = as_written, class Launch>
vendor_plan make_rocprim(const queue& q, std::size_t results, Launch launch) {
  static_assert(!std::is_same<ToResult, as_written>::value || sizeof(Stored) == sizeof(R), "as_written needs the result layout");
  auto stream = static_cast<hipStream_t>(q.native_handle());
  return {std::make_unique<rocprim_reduction<R, Stored, ToResult, Launch>>(stream, results, std::move(launch)), {}};
}

//! rocPRIM's reduce for a whole-array case (rocprim_whole.cpp).
vendor_plan make_rocprim_whole(const queue& q, const case_spec& c);
//! rocPRIM's segmented_reduce for a rows or segments case (rocprim_segmented.cpp).
vendor_plan make_rocprim_segmented(const queue& q, const case_spec& c);

}  // namespace amd
}  // namespace bench
}  // namespace preduce
