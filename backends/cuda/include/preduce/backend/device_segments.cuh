// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one result per variable segment [offsets[i], offsets[i+1]). Two launches: the
// offsets are checked on the device, then one merge-path kernel reduces every segment.
//
// Merge path: the input is read as one sequence of items, each segment's elements followed by
// one item for the segment's end (so an empty segment is one item). Warp w of the grid takes
// the items [w * D, (w + 1) * D), D = ceil(items / warps): every warp does the same work whatever
// the lengths, so one 2^26-element segment among millions of tiny ones is spread over many
// warps instead of serialising on one. Inside its range a warp reduces the segments that start
// and end there (groups of 1..32 lanes per short segment, the whole warp with 16-byte loads per
// long one); a segment cut by warp boundaries gets one partial per warp, and the last of those
// warps to finish (an acq_rel counter) combines them in warp order. The cuts depend only on the
// offsets and the grid, so results are run_to_run deterministic; arg indices count from the
// segment's start.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/portable/segment_offsets.hpp>

#include "cuda_runtime_check.hpp"
#include "device_batched.cuh"
#include "device_reduce.cuh"
#include "queue_state.hpp"
#include "store_result.cuh"
#include "subwarp_reduce.cuh"
#include "tuning_batched.hpp"
#include "warp_slice.cuh"

namespace preduce {
namespace backend {

//! Offsets of 4 or 8 bytes read as uint64. Checked offsets are non-negative, so int32 and
//! uint32 (int64 and uint64) offsets have the same bits: one reduction kernel serves all four.
struct offset_reader {
  const void* p;
  bool wide;  //!< 8-byte offsets
  __device__ std::uint64_t operator()(std::uint64_t i) const {
    return wide ? static_cast<const std::uint64_t*>(p)[i] : std::uint64_t(static_cast<const std::uint32_t*>(p)[i]);
  }
};

//! The first segment whose end item lies at or after item d: the smallest s in [lo, hi) with
//! off(s + 1) - base + s >= d (the end item of segment s is item off(s + 1) - base + s), or hi
//! when there is none. Requires: all 32 lanes active; checked offsets (the condition is then
//! monotone in s). Each round probes 32 evenly spaced s with one load per lane and keeps the
//! interval between the last probe below d and the first at or above it. Returns the same value
//! in every lane.
__device__ inline std::uint64_t first_end_at_or_after(const offset_reader& off, std::uint64_t base, std::uint64_t d,
                                                      std::uint64_t lo, std::uint64_t hi) {
  const unsigned lane = threadIdx.x % warp_threads;
  while (lo < hi) {
    const std::uint64_t step = (hi - lo + warp_threads - 1) / warp_threads;
    const std::uint64_t probe = lo + lane * step;
    const bool at_or_after = probe >= hi || off(probe + 1) - base + probe >= d;
    const unsigned ballot = __ballot_sync(full_warp_mask, at_or_after);
    if (ballot == 0) {  // every probe is below hi and before d
      lo += (warp_threads - 1) * step + 1;
      continue;
    }
    const unsigned f = unsigned(__ffs(int(ballot))) - 1;  // first probe at or after d (or past hi)
    if (f == 0) return lo;
    const std::uint64_t found = lo + f * step;
    lo += (f - 1) * step + 1;
    if (found < hi) hi = found;
  }
  return lo;
}

//! Requires: blockDim.x == BlockThreads; segments >= 1; check_offsets_kernel enqueued before it
//! on the same stream; counters[0 .. warps) zero on entry (zero again on exit); pieces holds
//! 2 * warps accumulators; lanes = 2^lanes_log2 <= 32; a vectorized Source usable (else a
//! scalar_view).
//! Work (warps = gridDim.x * BlockThreads / 32, items = offsets[segments] - offsets[0] +
//! segments, D = ceil(items / warps)): warp w takes items [w D, min(items, (w + 1) D)), found by
//! first_end_at_or_after. Complete segments (start and end item in the range) go in rounds to
//! groups of `lanes` consecutive lanes, one segment per group, segment_loads_in_flight elements
//! per lane loaded before any is folded; those longer than lanes * segment_loads_in_flight *
//! segment_group_steps are then reduced by the whole warp (warp_fold). The segment cut at the
//! range's start (carry-in) and the one cut at its end (carry-out) are folded by the whole warp
//! into pieces[2w] and pieces[2w + 1]; the segment's first warp wa counts arrivals in
//! counters[wa], and the last to arrive folds pieces[2wa + 1], pieces[2(wa + 1)], ...,
//! pieces[2wb] (wb: the warp holding its end item), lane i taking pieces i, i + 32, ... before
//! a warp_reduce, and resets the counter.
//! Writes: nothing if the offset check failed; otherwise out[s * out_stride] = finalize(segment
//! s), elements lifted with their position in the segment (empty segments: the identity).
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, segment_blocks_per_sm)
    reduce_segments_kernel(Reducer red, Source src, offset_reader off, std::uint64_t segments, unsigned lanes_log2,
                           typename Reducer::acc_type* pieces, unsigned* counters, typename Reducer::result_type* out,
                           std::uint64_t out_stride, const device_status* status, warp_algorithm w) {
  using Acc = typename Reducer::acc_type;
  using E = typename Source::value_type;
  constexpr int U = segment_loads_in_flight;
  if (status->code != 0) return;
  const unsigned lane = threadIdx.x % warp_threads;
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  const std::uint64_t base = off(0);
  const std::uint64_t items = off(segments) - base + segments;
  const std::uint64_t D = (items + warps - 1) / warps;
  const std::uint64_t d0 = warp * D;
  if (d0 >= items) return;  // warp-uniform
  const std::uint64_t d1 = items - d0 < D ? items : d0 + D;
  const std::uint64_t s0 = first_end_at_or_after(off, base, d0, 0, segments);
  // At most D end items lie in the range, so s1 <= s0 + D.
  const std::uint64_t s1 = d1 == items ? segments : first_end_at_or_after(off, base, d1, s0, segments - s0 < D ? segments : s0 + D);
  const std::uint64_t e0 = base + d0 - s0, e1 = base + d1 - s1;  // the range's first and end element
  const bool carry_in = e0 > off(s0);                             // s0 started in an earlier warp

  const unsigned lanes = 1u << lanes_log2, groups = warp_threads >> lanes_log2;
  const unsigned g = lane >> lanes_log2, j = lane & (lanes - 1);
  const std::uint64_t group_max = std::uint64_t(lanes) * U * segment_group_steps;
  const std::uint64_t c_begin = s0 + (carry_in ? 1 : 0), c_end = s1;  // complete segments
  const std::uint64_t b1 = s1 < segments ? off(s1) : 0;
  // s1 is cut at the range's end when its first element is here (its end item is not).
  const bool carry_out = s1 < segments && b1 < e1 && !(s1 == s0 && carry_in);

  // The warp's work, in order: the carry-in piece, rounds of complete segments (one per group;
  // a round may leave long ones to the whole warp), the carry-out piece. Every whole-warp fold
  // goes through the one warp_fold below, which keeps the kernel small.
  bool carry_in_due = carry_in, carry_out_due = carry_out;
  std::uint64_t round = c_begin;    // first segment of the next round
  unsigned long_ones = 0;           // group leaders of the last round holding a long segment
  std::uint64_t s = 0, b = 0, len = 0;  // this lane's group segment in the last round
  std::uint64_t next_b = 0, next_e = 0;  // its next one, loaded a round ahead
  if (c_begin + g < c_end) {
    next_b = off(c_begin + g);
    next_e = off(c_begin + g + 1);
  }
  for (;;) {  // warp-uniform
    std::uint64_t ts, first, last, slot = 0;
    bool cut = true;
    if (carry_in_due) {
      carry_in_due = false;
      const std::uint64_t end = off(s0 + 1);
      ts = s0, first = e0, last = end < e1 ? end : e1, slot = 2 * warp;
    } else if (long_ones != 0) {
      const int leader = __ffs(int(long_ones)) - 1;
      long_ones &= long_ones - 1;
      ts = __shfl_sync(full_warp_mask, s, leader);
      first = __shfl_sync(full_warp_mask, b, leader);
      last = first + __shfl_sync(full_warp_mask, len, leader);
      cut = false;
    } else if (round < c_end) {
      s = round + g;
      const bool has = s < c_end;
      b = next_b;
      len = next_e - next_b;
      if (s + groups < c_end) {
        next_b = off(s + groups);
        next_e = off(s + groups + 1);
      }
      round += groups;
      const bool small = len <= group_max;
      Acc a = red.identity();
      if (has && small) {
        const unsigned n = unsigned(len);  // <= group_max: positions fit 32 bits
        for (unsigned i0 = 0; i0 < n; i0 += lanes * U) {
          E v[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const unsigned i = i0 + u * lanes + j;
            if (i < n) v[u] = src[b + i];
          }
          // After a lane's first element, an arg fold skips the identity test (fold_after_first):
          // H200, heavy-tailed f32 segments at 2^28, launches timed alone (probe of 2026-11-22),
          // argmax 769.5 -> 687.8 us, plus unchanged (533.7 -> 532.3).
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const unsigned i = i0 + u * lanes + j;
            if (i < n) a = u == 0 && i0 == 0 ? fold_element(red, a, v[u], i) : fold_after_first(red, a, v[u], i);
          }
        }
      }
      a = group_reduce(red, a, lanes, w);
      if (has && small && j == 0) store_result(out + s * out_stride, red.finalize(a));
      long_ones = __ballot_sync(full_warp_mask, has && !small && j == 0);
      continue;
    } else if (carry_out_due) {
      carry_out_due = false;
      ts = s1, first = b1, last = e1, slot = 2 * warp + 1;
    } else {
      break;
    }

    const std::uint64_t seg_b = cut ? off(ts) : first;
    const Acc a = warp_fold(red, src, first, last, first - seg_b, w);
    if (!cut) {
      if (lane == 0) store_result(out + ts * out_stride, red.finalize(a));
      continue;
    }
    // A cut piece: store it; the segment's last warp to arrive combines all of its pieces.
    const std::uint64_t wa = (seg_b - base + ts) / D, wb = (off(ts + 1) - base + ts) / D;  // warps of its first and end item
    const std::uint64_t count = wb - wa + 1;
    bool last_arrival = false;
    if (lane == 0) {
      pieces[slot] = a;
      // acq_rel: releases this piece with the count; the last warp acquires every other piece.
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(counters[wa]);
      last_arrival = arrived.fetch_add(1u, cuda::memory_order_acq_rel) == unsigned(count - 1);
    }
    if (!__shfl_sync(full_warp_mask, last_arrival, 0)) continue;
    __syncwarp();  // extends lane 0's acquire to the warp; pieces are then read from L2
    Acc t = red.identity();
    for (std::uint64_t i = lane; i < count; i += warp_threads) {
      const std::uint64_t v = wa + i;
      t = red.combine(t, load_coherent(pieces + 2 * v + (v == wa ? 1 : 0)));
    }
    t = warp_reduce(red, t, w);
    if (lane == 0) {
      store_result(out + ts * out_stride, red.finalize(t));
      counters[wa] = 0;
    }
  }
}

//! Enqueues the offset check, then out[i * out_stride] = reduction of segment i for i <
//! segments (segments >= 1), unless the check fails: then nothing is written and the queue's
//! status records the first bad offset for the next synchronizing call.
//! Shape: the grid is one wave of reduce_segments_kernel (its occupancy), fewer blocks when the
//! input has under segment_min_items_per_warp items per warp (items <= n + segments on the
//! host); lanes per short segment = 2^floor(log2(average items per segment /
//! segment_loads_in_flight)), 1..32, so an average segment takes about one group step.
template <class Reducer, class Source, class Off>
void enqueue_segments(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n, const Off* offsets,
                      std::uint64_t segments, typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using Acc = typename Reducer::acc_type;
  device_status* status = &s.control->status;
  s.may_have_device_status = true;
  const unsigned check_grid = grid_for(s.sm_count, s.cc_major, segments + 1, block_threads);
  portable::check_offsets_kernel<<<check_grid, block_threads, 0, s.stream>>>(offsets, segments, n, status);
  check_cuda(cudaGetLastError(), "reduce_segments: launching the offset check");

  const std::uint64_t items = n + segments;
  const std::uint64_t per_group = items / segments / segment_loads_in_flight;
  unsigned lanes_log2 = 0;
  while (lanes_log2 < 5 && (std::uint64_t(2) << lanes_log2) <= per_group) ++lanes_log2;
  const offset_reader reader{offsets, sizeof(Off) == 8};

  with_loadable(src, [&](const auto& source) {
    constexpr auto kernel = reduce_segments_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>;
    const int per_sm = resident_blocks_per_sm<kernel, block_threads>();
    const std::uint64_t wave = std::uint64_t(s.sm_count) * std::uint64_t(per_sm > 0 ? per_sm : 1);
    const std::uint64_t block_items = segment_min_items_per_warp * (block_threads / warp_threads);
    const std::uint64_t wanted = (items + block_items - 1) / block_items;
    const unsigned grid = unsigned(wanted < wave ? wanted : wave);
    const std::uint64_t warps = std::uint64_t(grid) * (block_threads / warp_threads);
    Acc* pieces = static_cast<Acc*>(s.scratch(2 * warps * sizeof(Acc)));
    unsigned* counters = s.zeroed_counters(warps);
    kernel<<<grid, block_threads, 0, s.stream>>>(red, source, reader, segments, lanes_log2, pieces, counters, out, out_stride, status,
                                                 o.warp);
  });
  check_cuda(cudaGetLastError(), "reduce_segments: launch");
}

}  // namespace backend
}  // namespace preduce
