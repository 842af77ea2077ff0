// SPDX-License-Identifier: Apache-2.0
// preduce-bench cuda: what the CUB baselines share: CUDA's own 16-bit types, the functors CUB
// applies, and one vendor_reduction that owns CUB's temporary storage and the output.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/util_type.cuh>

#include "../baseline.hpp"

namespace preduce {
namespace bench {
namespace nvidia {

//! Throws preduce::error(device_fault) naming `what` when e is not cudaSuccess.
void check(cudaError_t e, const char* what);

//! The CUDA type CUB sees for a preduce element type: __half and __nv_bfloat16 for the 16-bit
//! floats (layout-compatible with preduce::half and preduce::bfloat16), the type itself otherwise.
template <class T> struct native { using type = T; };
template <> struct native<half> { using type = __half; };
template <> struct native<bfloat16> { using type = __nv_bfloat16; };
template <class T> using native_t = typename native<T>::type;

//! Converts an element to the accumulator A (CUDA's own conversions for __half / __nv_bfloat16).
template <class A>
struct to_accumulator {
  template <class N>
  __device__ A operator()(N x) const { return static_cast<A>(x); }
};

//! x * x in the accumulator A.
template <class A>
struct square_in {
  template <class N>
  __device__ A operator()(N x) const {
    const A v = static_cast<A>(x);
    return v * v;
  }
};

//! x[i] * y[i] in the accumulator A, for dot over a counting iterator.
template <class N, class A>
struct product_at {
  const N* x;
  const N* y;
  __device__ A operator()(std::int64_t i) const { return static_cast<A>(x[i]) * static_cast<A>(y[i]); }
};

//! x != 0, compared in V (float for the 16-bit types).
template <class V>
struct is_nonzero {
  template <class N>
  __device__ bool operator()(N x) const { return static_cast<V>(x) != V(0); }
};

//! Where CUB has no operator (minmax, moments), CUB's machinery runs preduce's arithmetic: the
//! reducer's lift, combine and finalize, so both columns compute the same thing.
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
//! Run on the host when the results are read back: CUB derives its accumulator from the output's
//! value type, so it writes the reducer's accumulator and this finalizes it.
template <class Red>
struct reducer_finalize {
  typename Red::result_type operator()(const typename Red::acc_type& a) const { return Red::finalize(a); }
};

//! CUB's segmented arg result {int key, value} as preduce's arg<T> {value, 64-bit index}; run on
//! the host when the results are read back.
template <class T>
struct key_value_to_arg {
  arg<T> operator()(const cub::KeyValuePair<int, native_t<T>>& kv) const {
    arg<T> r;
    std::memcpy(&r.value, &kv.value, sizeof(T));
    r.index = static_cast<std::uint64_t>(kv.key);
    return r;
  }
};

//! Results written as they are (CUB's output is already preduce's result layout).
struct as_written {};

//! Device memory of the vendor side (cudaMalloc / cudaFree), so CUB's storage is not preduce's.
class device_bytes {
 public:
  device_bytes() = default;
  explicit device_bytes(std::size_t bytes) {
    if (bytes) check(cudaMalloc(&p_, bytes), "cudaMalloc (baseline storage)");
  }
  device_bytes(device_bytes&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  device_bytes& operator=(device_bytes&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
  ~device_bytes() {
    if (p_) (void)cudaFree(p_);
  }
  void* get() const noexcept { return p_; }

 private:
  void* p_ = nullptr;
};

//! One CUB call, prepared once. Launch is callable as
//!   cudaError_t launch(void* temp, std::size_t& temp_bytes, const void* x, const void* y, void* out, cudaStream_t s)
//! and follows CUB's two-phase protocol: with temp == nullptr it only sets temp_bytes. CUB writes
//! `results` values of type Stored to out; ToResult turns one into preduce's result type R on the
//! host (as_written: Stored is R).
template <class R, class Stored, class ToResult, class Launch>
class cub_reduction final : public vendor_reduction {
 public:
  cub_reduction(cudaStream_t stream, std::size_t results, Launch launch)
      : stream_(stream), results_(results), launch_(std::move(launch)), out_(results * sizeof(Stored)) {
    check(launch_(nullptr, temp_bytes_, nullptr, nullptr, out_.get(), stream_), "CUB temporary storage query");
    temp_ = device_bytes(temp_bytes_);
  }
  void enqueue(const void* x, const void* y) override {
    check(launch_(temp_.get(), temp_bytes_, x, y, out_.get(), stream_), "CUB launch");
  }
  void copy_results(void* host) override {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (CUB result)");
    if constexpr (std::is_same<ToResult, as_written>::value) {
      check(cudaMemcpy(host, out_.get(), results_ * sizeof(R), cudaMemcpyDeviceToHost), "cudaMemcpy (CUB result)");
    } else {
      std::vector<Stored> stored(results_);
      check(cudaMemcpy(stored.data(), out_.get(), results_ * sizeof(Stored), cudaMemcpyDeviceToHost), "cudaMemcpy (CUB result)");
      R* out = static_cast<R*>(host);
      for (std::size_t i = 0; i < results_; ++i) out[i] = ToResult{}(stored[i]);
    }
  }
  void reduce_to_host(const void* x, const void* y, void* host) override {
    if (!pinned_) check(cudaMallocHost(&pinned_, results_ * sizeof(Stored)), "cudaMallocHost (CUB result)");
    enqueue(x, y);
    check(cudaMemcpyAsync(pinned_, out_.get(), results_ * sizeof(Stored), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (CUB result)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (CUB result)");
    const Stored* stored = static_cast<const Stored*>(pinned_);
    R* out = static_cast<R*>(host);
    for (std::size_t i = 0; i < results_; ++i) {
      if constexpr (std::is_same<ToResult, as_written>::value) out[i] = stored[i];
      else out[i] = ToResult{}(stored[i]);
    }
  }
  ~cub_reduction() override {
    if (pinned_) (void)cudaFreeHost(pinned_);
  }

 private:
  void* pinned_ = nullptr;
  cudaStream_t stream_;
  std::size_t results_;
  Launch launch_;
  device_bytes out_;
  std::size_t temp_bytes_ = 0;
  device_bytes temp_;
};

//! Prepares a cub_reduction on q's stream writing `results` values of type Stored, read back as R.
template <class R, class Stored = R, class ToResult = as_written, class Launch>
vendor_plan make_cub(const queue& q, std::size_t results, Launch launch) {
  auto stream = static_cast<cudaStream_t>(q.native_handle());
  return {std::make_unique<cub_reduction<R, Stored, ToResult, Launch>>(stream, results, std::move(launch)), {}};
}

//! CUB's DeviceReduce for a whole-array case (cub_whole.cu).
vendor_plan make_cub_whole(const queue& q, const case_spec& c);
//! CUB's DeviceSegmentedReduce for a rows, columns or segments case (cub_segmented.cu).
vendor_plan make_cub_segmented(const queue& q, const case_spec& c);

}  // namespace nvidia
}  // namespace bench
}  // namespace preduce
