// SPDX-License-Identifier: Apache-2.0
// preduce-bench cuda: the vendor column for rows, columns and segments,
// cub::DeviceSegmentedReduce. This CCCL (3.0) has no fixed-size segmented form, so rows are
// segments whose offsets a transform iterator computes (row * cols), and no offset array is read
// for them. CUB has no column reduction: columns are segments of `rows` elements read through a
// permutation iterator in column-major order (element r of segment c is x[r * cols + c]), what a
// CUB user would write. Inputs CUB has no operator for go through a transform iterator, as in
// cub_whole.cu.
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <type_traits>

#include "cub_common.cuh"

namespace preduce {
namespace bench {
namespace nvidia {
namespace {

//! The first element of segment i when every segment has `length` elements.
struct row_start {
  std::int64_t length;
  __device__ std::int64_t operator()(std::int64_t i) const { return i * length; }
};

//! Element k of the segmented sequence is element k of the input (rows, segments).
struct in_order {
  __device__ std::int64_t operator()(std::int64_t k) const { return k; }
};
//! Element k of the segmented sequence is x[r * cols + c] with c = k / rows, r = k % rows: the
//! columns of a row-major matrix, one after another.
struct column_major {
  std::int64_t rows, cols;
  __device__ std::int64_t operator()(std::int64_t k) const { return (k % rows) * cols + k / rows; }
};

//! The input sequence over x in the order `order` gives: x itself in order, else a permutation
//! iterator (CUB reads a plain pointer with vector loads, so rows and segments keep it).
template <class N, class Order>
auto sequence(const N* x, Order order) {
  if constexpr (std::is_same<Order, in_order>::value) {
    return x;
  } else {
    return thrust::make_permutation_iterator(x, thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), order));
  }
}

//! The element index of sequence position k (dot's products are formed at it).
template <class Order>
auto positions(Order order) {
  return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), order);
}

//! The CUB call for (Op, T) over segments [begin[i], end[i]) with begin = `begins`, end = begins
//! + 1, of the input read in the order `order`.
template <class Op, class T, class Begins, class Order>
vendor_plan segmented(const queue& q, const case_spec& c, Begins begins, Order order) {
  using N = native_t<T>;
  using R = result_of<Op, T>;
  using Red = detail::reducer_for<Op, T>;
  const auto segments = static_cast<std::int64_t>(c.results());
  const auto ends = begins + 1;
  constexpr op_id id = Op::id;

  if constexpr (id == op_id::plus && std::is_same<N, R>::value) {
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceSegmentedReduce::Sum(t, b, sequence(static_cast<const N*>(x), order), static_cast<R*>(out), segments, begins, ends, s);
    });
  } else if constexpr (id == op_id::plus || id == op_id::sum_of_squares) {
    using F = std::conditional_t<id == op_id::plus, to_accumulator<R>, square_in<R>>;
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      auto in = thrust::make_transform_iterator(sequence(static_cast<const N*>(x), order), F{});
      return cub::DeviceSegmentedReduce::Reduce(t, b, in, static_cast<R*>(out), segments, begins, ends, ::cuda::std::plus<R>{}, R(0), s);
    });
  } else if constexpr (id == op_id::dot) {
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void* y, void* out, cudaStream_t s) {
      const product_at<N, R> product{static_cast<const N*>(x), static_cast<const N*>(y)};
      auto in = thrust::make_transform_iterator(positions(order), product);
      return cub::DeviceSegmentedReduce::Reduce(t, b, in, static_cast<R*>(out), segments, begins, ends, ::cuda::std::plus<R>{}, R(0), s);
    });
  } else if constexpr (id == op_id::minimum || id == op_id::maximum) {
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      if constexpr (id == op_id::minimum)
        return cub::DeviceSegmentedReduce::Min(t, b, sequence(static_cast<const N*>(x), order), static_cast<N*>(out), segments, begins, ends, s);
      else
        return cub::DeviceSegmentedReduce::Max(t, b, sequence(static_cast<const N*>(x), order), static_cast<N*>(out), segments, begins, ends, s);
    });
  } else if constexpr (id == op_id::argmin || id == op_id::argmax) {
    // CUB writes KeyValuePair<int, T> (index within the segment), converted when read back.
    using KV = cub::KeyValuePair<int, N>;
    return make_cub<R, KV, key_value_to_arg<T>>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      if constexpr (id == op_id::argmin)
        return cub::DeviceSegmentedReduce::ArgMin(t, b, sequence(static_cast<const N*>(x), order), static_cast<KV*>(out), segments, begins, ends, s);
      else
        return cub::DeviceSegmentedReduce::ArgMax(t, b, sequence(static_cast<const N*>(x), order), static_cast<KV*>(out), segments, begins, ends, s);
    });
  } else if constexpr (id == op_id::logical_and || id == op_id::logical_or) {
    using L = std::conditional_t<id == op_id::logical_and, ::cuda::std::logical_and<bool>, ::cuda::std::logical_or<bool>>;
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      auto in = thrust::make_transform_iterator(sequence(static_cast<const N*>(x), order), is_nonzero<detail::compare_t<T>>{});
      return cub::DeviceSegmentedReduce::Reduce(t, b, in, static_cast<bool*>(out), segments, begins, ends, L{}, id == op_id::logical_and, s);
    });
  } else if constexpr (id == op_id::bit_xor) {
    return make_cub<R>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      return cub::DeviceSegmentedReduce::Reduce(t, b, sequence(static_cast<const T*>(x), order), static_cast<T*>(out), segments, begins, ends,
                                                ::cuda::std::bit_xor<T>{}, T(0), s);
    });
  } else {
    // minmax and moments: preduce's reducer through a transform iterator.
    using A = typename Red::acc_type;
    return make_cub<R, A, reducer_finalize<Red>>(q, segments, [=](void* t, std::size_t& b, const void* x, const void*, void* out, cudaStream_t s) {
      auto in = thrust::make_transform_iterator(sequence(static_cast<const T*>(x), order), reducer_lift<Red, T>{});
      return cub::DeviceSegmentedReduce::Reduce(t, b, in, static_cast<A*>(out), segments, begins, ends, reducer_combine<Red>{},
                                                Red::identity(), s);
    });
  }
}

}  // namespace

vendor_plan make_cub_segmented(const queue& q, const case_spec& c) {
  vendor_plan plan;
  visit_case(c.op, c.type, [&](auto op, auto t) {
    using Op = decltype(op);
    using T = typename decltype(t)::type;
    const auto rows = static_cast<std::int64_t>(c.rows), cols = static_cast<std::int64_t>(c.cols);
    const auto starts_every = [](std::int64_t length) {
      return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), row_start{length});
    };
    if (c.layout == shape::rows) plan = segmented<Op, T>(q, c, starts_every(cols), in_order{});
    else if (c.layout == shape::columns) plan = segmented<Op, T>(q, c, starts_every(rows), column_major{rows, cols});
    else plan = segmented<Op, T>(q, c, c.offsets, in_order{});
  });
  return plan;
}

}  // namespace nvidia
}  // namespace bench
}  // namespace preduce
