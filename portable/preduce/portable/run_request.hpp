// SPDX-License-Identifier: Apache-2.0
// preduce: runs a built-in request on a backend's engine. Every backend defines an Engine with
// these static member templates (each enqueues on q, never waits, and writes finalized results
// of type Reducer::result_type to device memory):
//
//   whole(q, red, src, n, d_out, opt)
//   rows(q, red, src, rows, cols, d_out, out_stride, opt)        arg index: column within the row
//   columns(q, red, src, rows, cols, d_out, out_stride, opt)     arg index: row within the column
//   segments(q, red, src, n, d_offsets, segments, d_out, out_stride, opt)
//                                                                arg index: offset in the segment
//   partial_lines(q, red, src, lines, length, line_step, element_step, sink)
//        sink(t, p) with p = the partial (partial_of's result) of src[t * line_step + k *
//        element_step], k < length, for every t < lines: rows (element_step 1) or columns
//        (line_step 1) for the distributed calls; sink a copyable host and device functor
//        (detail/merge.hpp's store_partial, exchange::store_compact)
//   for_each(q, count, step)
//        step(t) for every t < count, in any order (step: a copyable host and device functor:
//        the distributed calls' merges and exchange steps, detail/merge.hpp)
//
// Each engine function holds the queue's lock while it enqueues (any number of host threads may
// call on one queue). The backend also defines portable::result_slot (builtin_dispatch.hpp):
// the synchronous forms' result slot, one per call, which waits and throws the calling thread's
// pending device-side errors.
#pragma once

#include "builtin_dispatch.hpp"
#include <preduce/detail/merge.hpp>
#include <preduce/detail/source.hpp>

namespace preduce {
namespace portable {

//! Enqueues one request of group G on Engine, whose shape is in part P and whose input type has
//! width W (the body of each per-group, per-part, per-width translation unit).
template <group G, part P, width W, class Engine>
void run_group(const queue& q, const detail::request& r) {
  visit_group<G, W>(r, [&](auto op, auto t) {
    using T = typename std::decay_t<decltype(t)>::type;
    using Op = decltype(op);
    using Red = detail::reducer_for<Op, T>;
    using Out = typename Red::result_type;
    if (r.layout == detail::shape::merged) {  // pieces' results in r.x (distributed calls)
      if constexpr (P == part::arrays)
        Engine::for_each(q, r.results, detail::merge_step<Red, detail::merged_t<Red>>{static_cast<const Out*>(r.x), r.n, r.cols, r.index_shift,
                                                                                     static_cast<detail::merged_t<Red>*>(r.out), r.out_stride});
      return;
    }
    if (r.layout == detail::shape::binned_align || r.layout == detail::shape::binned_values) {
      if constexpr (P == part::arrays && detail::is_reproducible_partial<Out>::value) {
        using V = detail::merged_t<Red>;
        if constexpr (std::is_floating_point<V>::value) {  // sums, not moments
          namespace ex = detail::exchange;
          const auto* common = static_cast<const std::uint8_t*>(r.y);
          if (r.layout == detail::shape::binned_align)
            return Engine::for_each(q, r.results, ex::align_step{static_cast<const std::uint8_t*>(r.x), common, static_cast<std::int64_t*>(r.out), r.n});
          return Engine::for_each(q, r.results, ex::value_step<V>{static_cast<const std::int64_t*>(r.x), common, static_cast<V*>(r.out)});
        }
      }
      return;
    }
    Out* out = static_cast<Out*>(r.out);
    auto run = [&](const auto& src) {
      if constexpr (P == part::arrays && detail::is_partial<Op>::value) {  // partial_of: whole arrays, and lines for the distributed calls
        if (r.layout != detail::shape::rows && r.layout != detail::shape::columns) return Engine::whole(q, Red{}, src, r.n, out, r.opt);
        auto lines = [&](const auto& sink) {
          if (r.layout == detail::shape::rows) return Engine::partial_lines(q, Red{}, src, r.rows, r.cols, r.cols, 1, sink);
          return Engine::partial_lines(q, Red{}, src, r.cols, r.rows, 1, r.cols, sink);
        };
        using V = detail::merged_t<Red>;
        if constexpr (std::is_floating_point<V>::value) {  // sums: the exchange's compact form when asked
          if (r.limbs) return lines(detail::exchange::store_compact{static_cast<std::uint8_t*>(r.out), static_cast<std::int64_t*>(r.limbs)});
        }
        return lines(detail::store_partial<Out>{out});
      } else if constexpr (P == part::arrays) {
        switch (r.layout) {
          case detail::shape::rows: return Engine::rows(q, Red{}, src, r.rows, r.cols, out, r.out_stride, r.opt);
          case detail::shape::columns: return Engine::columns(q, Red{}, src, r.rows, r.cols, out, r.out_stride, r.opt);
          default: return Engine::whole(q, Red{}, src, r.n, out, r.opt);  // part_of sends segments elsewhere
        }
      } else if constexpr (detail::is_partial<Op>::value) {
        unsupported(r, "segments of a partial reduction");  // not reached: part_of sends partials to arrays
      } else {
        switch (r.offset_type) {
          case detail::dtype::i32: return Engine::segments(q, Red{}, src, r.n, static_cast<const std::int32_t*>(r.offsets), r.segments, out, r.out_stride, r.opt);
          case detail::dtype::i64: return Engine::segments(q, Red{}, src, r.n, static_cast<const std::int64_t*>(r.offsets), r.segments, out, r.out_stride, r.opt);
          case detail::dtype::u32: return Engine::segments(q, Red{}, src, r.n, static_cast<const std::uint32_t*>(r.offsets), r.segments, out, r.out_stride, r.opt);
          default: return Engine::segments(q, Red{}, src, r.n, static_cast<const std::uint64_t*>(r.offsets), r.segments, out, r.out_stride, r.opt);
        }
      }
    };
    const T* x = static_cast<const T*>(r.x);
    if constexpr (std::is_same<typename detail::element_of<Op, T>::type, detail::pair_of<T>>::value) {  // dot
      run(detail::pair_source<T>{x, static_cast<const T*>(r.y)});
    } else {
      run(detail::array_source<T>{x});
    }
  });
}

}  // namespace portable
}  // namespace preduce
