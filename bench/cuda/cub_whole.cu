// SPDX-License-Identifier: Apache-2.0
// preduce-bench cuda: the vendor column for whole arrays, cub::DeviceReduce. CUB's own entry
// points where it has one (Sum, Min, Max, ArgMin, ArgMax, Reduce with CCCL's functors), and
// TransformReduce with a conversion or a product, or Reduce with preduce's reducer arithmetic,
// where it has none.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <type_traits>

#include "cub_common.cuh"

namespace preduce {
namespace bench {
namespace nvidia {
namespace {

template <class Op, class T>
vendor_plan whole(const queue& q, const case_spec& c) {
  using N = native_t<T>;
  using R = result_of<Op, T>;
  using Red = detail::reducer_for<Op, T>;
  const auto n = static_cast<std::int64_t>(c.n);
  constexpr op_id id = Op::id;

  if constexpr (id == op_id::plus && std::is_same<N, R>::value) {
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceReduce::Sum(t, b, static_cast<const N*>(x), static_cast<R*>(out), n, s);
    });
  } else if constexpr (id == op_id::plus || id == op_id::sum_of_squares) {
    // Narrow inputs accumulate in preduce's (wider) accumulator, as preduce does.
    using F = std::conditional_t<id == op_id::plus, to_accumulator<R>, square_in<R>>;
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceReduce::TransformReduce(t, b, static_cast<const N*>(x), static_cast<R*>(out), n,
                                                ::cuda::std::plus<R>{}, F{}, R(0), s);
    });
  } else if constexpr (id == op_id::dot) {
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void* y, void* out, cudaStream_t s) {
      const product_at<N, R> product{static_cast<const N*>(x), static_cast<const N*>(y)};
      return cub::DeviceReduce::TransformReduce(t, b, thrust::counting_iterator<std::int64_t>(0), static_cast<R*>(out), n,
                                                ::cuda::std::plus<R>{}, product, R(0), s);
    });
  } else if constexpr (id == op_id::minimum || id == op_id::maximum) {
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      if constexpr (id == op_id::minimum) return cub::DeviceReduce::Min(t, b, static_cast<const N*>(x), static_cast<N*>(out), n, s);
      else return cub::DeviceReduce::Max(t, b, static_cast<const N*>(x), static_cast<N*>(out), n, s);
    });
  } else if constexpr (id == op_id::argmin || id == op_id::argmax) {
    // CUB writes the extreme and its int64 index through two iterators: point them at the
    // fields of preduce's arg<T>.
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      auto* value = reinterpret_cast<N*>(static_cast<char*>(out) + offsetof(R, value));
      auto* index = reinterpret_cast<std::int64_t*>(static_cast<char*>(out) + offsetof(R, index));
      if constexpr (id == op_id::argmin) return cub::DeviceReduce::ArgMin(t, b, static_cast<const N*>(x), value, index, n, s);
      else return cub::DeviceReduce::ArgMax(t, b, static_cast<const N*>(x), value, index, n, s);
    });
  } else if constexpr (id == op_id::logical_and || id == op_id::logical_or) {
    using L = std::conditional_t<id == op_id::logical_and, ::cuda::std::logical_and<bool>, ::cuda::std::logical_or<bool>>;
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceReduce::TransformReduce(t, b, static_cast<const N*>(x), static_cast<bool*>(out), n, L{},
                                                is_nonzero<detail::compare_t<T>>{}, id == op_id::logical_and, s);
    });
  } else if constexpr (id == op_id::bit_xor) {
    return make_cub<R>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceReduce::Reduce(t, b, static_cast<const T*>(x), static_cast<T*>(out), n, ::cuda::std::bit_xor<T>{}, T(0), s);
    });
  } else {
    // minmax and moments: no CUB operator; Reduce with preduce's reducer over a transform
    // iterator. Not TransformReduce over the pointer: CUB 3.0.1 then vectorizes int8 loads with
    // too few items per thread for a 24-byte accumulator and reads 4 bytes at 2-byte offsets
    // (compute-sanitizer: misaligned address in DeviceReduceKernel, moments on i8, H200).
    using A = typename Red::acc_type;
    return make_cub<R, A, reducer_finalize<Red>>(q, 1, [n](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      auto in = thrust::make_transform_iterator(static_cast<const T*>(x), reducer_lift<Red, T>{});
      return cub::DeviceReduce::Reduce(t, b, in, static_cast<A*>(out), n, reducer_combine<Red>{}, Red::identity(), s);
    });
  }
}

}  // namespace

vendor_plan make_cub_whole(const queue& q, const case_spec& c) {
  vendor_plan plan;
  visit_case(c.op, c.type, [&](auto op, auto t) { plan = whole<decltype(op), typename decltype(t)::type>(q, c); });
  return plan;
}

}  // namespace nvidia
}  // namespace bench
}  // namespace preduce
