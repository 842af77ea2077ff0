// SPDX-License-Identifier: Apache-2.0
// preduce: whole-array reductions: reduce (waits, returns the value), reduce_async (stream
// ordered, result in device memory) and transform_reduce (a user transform applied first).
#pragma once

#include <cstddef>
#include <type_traits>

#include "detail/request.hpp"
#include "execution.hpp"
#include "ops.hpp"

namespace preduce {

namespace detail {
//! The path for custom operators and transforms, which libpreduce cannot have precompiled.
//! extend.hpp specializes it; without extend.hpp a call with a custom operator stops here.
template <class Op, class Enable = void>
struct extension {
  static_assert(dependent_false<Op>::value,
                "preduce: a custom operator or a transform needs #include <preduce/extend.hpp> in a source file "
                "compiled by the backend's compiler (CMake: preduce_device_sources(<target> <file>...))");
};
}  // namespace detail

//! Reduces d_in[0..n) with op on q and returns the result; waits for it.
//! n == 0 returns the operator's identity. Throws preduce::error on bad input or device failure.
template <class T, class Op = plus<>>
auto reduce(const queue& q, const T* d_in, std::size_t n, Op op = {}, options o = {}) {
  if constexpr (!detail::is_builtin_op<Op>::value) {
    return detail::extension<Op>::reduce(q, d_in, n, op, o);
  } else {
    using C = detail::canonical_t<T>;
    detail::check_supported<Op, T>();
    detail::result_t<Op, C> result{};
    detail::request r = detail::make_request("reduce", op, detail::shape::whole, reinterpret_cast<const C*>(d_in), n, o);
    r.results = 0;  // the result goes to the host, through the queue's result slot
    detail::validate(q, r);
    detail::dispatch_to_host(q, r, &result);
    return result;
  }
}

//! reduce() on the default queue.
template <class T, class Op = plus<>>
auto reduce(const T* d_in, std::size_t n, Op op = {}) {
  return reduce(queue{}, d_in, n, op);
}

//! Enqueues the reduction of d_in[0..n) on q and writes the result to *d_out (device memory).
//! Returns at once; device errors surface at the next synchronizing call. Out must be the
//! operator's result type (e.g. float for plus on half, arg<T> for argmax).
template <class T, class Out, class Op = plus<>>
void reduce_async(const queue& q, const T* d_in, std::size_t n, Out* d_out, Op op = {}, options o = {}) {
  if constexpr (!detail::is_builtin_op<Op>::value) {
    detail::extension<Op>::reduce_async(q, d_in, n, d_out, op, o);
  } else {
    using C = detail::canonical_t<T>;
    detail::check_supported<Op, T>();
    static_assert(std::is_same<std::remove_cv_t<Out>, detail::result_t<Op, C>>::value,
                  "preduce::reduce_async: *d_out must have the operator's result type (see detail::result_t)");
    detail::request r = detail::make_request("reduce_async", op, detail::shape::whole, reinterpret_cast<const C*>(d_in), n, o);
    r.out = d_out;
    detail::validate(q, r);
    detail::dispatch(q, r);
  }
}

//! Reduces transform(d_in[i]) over i in [0, n) with op. The transform is user code, so this
//! needs <preduce/extend.hpp> and a file compiled by the backend's compiler.
template <class T, class Transform, class Op = plus<>>
auto transform_reduce(const queue& q, const T* d_in, std::size_t n, Transform transform, Op op = {}, options o = {}) {
  return detail::extension<Transform>::transform_reduce(q, d_in, n, transform, op, o);
}

}  // namespace preduce
