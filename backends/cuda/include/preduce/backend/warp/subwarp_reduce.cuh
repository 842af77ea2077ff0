// SPDX-License-Identifier: Apache-2.0
// preduce cuda: reductions over parts of a warp: groups of 2..16 consecutive lanes (several
// short rows or segments per warp), and lanes that share a residue (the rows a warp reads side by
// side in a column reduction). Both are a shuffle-down tree that stops early; whole-warp cases
// go to warp_reduce or warp_reduce_each (which may use redux.sync).
#pragma once

#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

//! Shuffle-down tree with offsets top, top/2, ..., stop (powers of two, stop >= 1; nothing
//! happens when top < stop). Requires: all 32 lanes active, each holding a valid accumulator.
//! Returns in lane i the combination of lanes i + k*stop for k < 2*top/stop, provided those
//! lanes exist (lanes past 31 would contribute their own value again, so callers read only
//! lanes whose whole set lies inside the warp). Uses the fused PTX step where it exists and `w`
//! asks for it (fuses_steps, warp_reduce's rule; redux.sync cannot serve part of a warp).
//! The five possible steps are unrolled, each taken where top >= d >= stop: where top and stop
//! are known only at run time that costs a uniform branch a step instead of a loop (the short-row
//! kernel's group of 16 lanes: probe beside small_row_items). Accumulators of more than 16 bytes
//! (binned sums) keep the loop: five inlined copies of their combine would crowd the registers.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc down_tree(const Reducer& red, Acc v, unsigned top, unsigned stop, warp_algorithm w) {
  if constexpr (sizeof(Acc) > 16) {
    for (unsigned d = top; d >= stop; d /= 2) v = device_combine(red, v, shfl_down(v, d));
  } else {
    if constexpr (has_fused_shuffle<Reducer, Acc>()) {
      if (fuses_steps(w)) {
        using W = lane_word_t<Acc>;
        W x = W(v);
#pragma unroll
        for (unsigned d = warp_threads / 2; d > 0; d /= 2)
          if (d <= top && d >= stop) x = fused_step<Reducer::fused>(x, d);
        return Acc(x);
      }
    }
#pragma unroll
    for (unsigned d = warp_threads / 2; d > 0; d /= 2)
      if (d <= top && d >= stop) v = device_combine(red, v, shfl_down(v, d));
  }
  return v;
}

//! Reduces each group of `lanes` consecutive lanes (lanes a power of two, 1..32; the groups are
//! lanes [g*lanes, (g+1)*lanes)). Requires: all 32 lanes active, each with a valid accumulator
//! (identity where it has no data). Returns the group's result in the group's first lane.
template <class Reducer, class Acc>
__device__ __forceinline__ Acc group_reduce(const Reducer& red, Acc v, unsigned lanes, warp_algorithm w) {
  if (lanes == warp_threads) return warp_reduce(red, v, w);
  return down_tree(red, v, lanes / 2, 1, w);
}

//! group_reduce for groups whose lanes hold consecutive runs in lane order (every index of lane
//! i below every index of lane i + 1): arg reducers then combine without comparing indices
//! (combine_in_order); other reducers as group_reduce.
//! The offsets grow (1, 2, 4, ...), so at each step lane i, holding lanes i .. i + d - 1, takes
//! lanes i + d .. i + 2d - 1: always a later run. (Shrinking offsets would interleave them.)
template <class Reducer, class Acc>
__device__ __forceinline__ Acc group_reduce_ordered(const Reducer& red, Acc v, unsigned lanes, warp_algorithm w) {
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    if (lanes == warp_threads) return warp_reduce(red, v, w);
    for (unsigned d = 1; d < lanes; d *= 2) v = combine_in_order(red, v, shfl_down(v, d));
    return v;
  } else {
    return group_reduce(red, v, lanes, w);
  }
}

//! Reduces, for each of a thread's N accumulators, the lanes that share lane % stride (stride a
//! power of two, 1..32), the N reductions step by step (warp_reduce_each; accumulators of more
//! than 16 bytes one after another). Requires: all 32 lanes active, each with N valid
//! accumulators. Returns in lane r < stride, in v[k], the combination of lanes r, r + stride,
//! r + 2*stride, ... of v[k].
template <int N, class Reducer, class Acc>
__device__ __forceinline__ void strided_reduce_each(const Reducer& red, Acc (&v)[N], unsigned stride, warp_algorithm w) {
  if (stride == 1) return warp_reduce_each(red, v, w);
  if constexpr (sizeof(Acc) <= 16) {
    if (stride < warp_threads) return tree_reduce_each(red, v, stride, w);
  }
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = down_tree(red, v[k], warp_threads / 2, stride, w);
}

}  // namespace backend
}  // namespace preduce
