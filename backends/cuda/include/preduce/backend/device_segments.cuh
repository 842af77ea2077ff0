// SPDX-License-Identifier: Apache-2.0
// preduce cuda: one result per variable segment [offsets[i], offsets[i+1]). Two launches: the
// offsets are checked on the device (the same kernel finds where each warp of the next one
// starts), then one merge-path kernel reduces every segment. Small inputs (a few thousand
// segments, about 10^5 elements) take one launch instead, which checks the offsets itself:
// there the time is the chain of dependent round trips, not the bandwidth.
// Up to 2^16 elements a warp or a block takes each segment (reduce_short_segments_kernel: two
// round trips, offsets then elements, where the segments fit; blocks of 256 threads to 2^14
// elements, of 512 above); above, one merge path over the blocks
// (reduce_segments_small_kernel). Both are near the end of this file.
//
// Merge path: the input is read as one sequence of items, each segment's elements followed by
// one item for the segment's end (so an empty segment is one item); an element counts one unit
// of work and an end item segment_end_weight units (what a segment costs beyond its elements).
// Warp w of the grid takes the units [w * D, (w + 1) * D), D = ceil(units / warps): every warp
// does about the same work whatever the lengths, so one 2^26-element segment among millions of
// tiny ones is spread over many warps instead of serialising on one. Inside its range a warp
// reduces the segments that start and end there: it copies the elements of up to 32 of them at
// a time into shared memory with 16-byte asynchronous copies and folds them there (a lane or a
// group of lanes a segment), while a segment longer than that copy is folded by the whole warp
// from global memory with 16-byte loads; a segment cut by warp boundaries gets one partial per
// warp, and the last of those warps to finish (an acq_rel counter) combines them in warp order.
// The cuts depend only on the offsets and the grid, so results are run_to_run deterministic; arg
// indices count from the segment's start.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/portable/segment_offsets.hpp>

#include <preduce/backend/cuda_runtime_check.hpp>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/whole/dispatch_whole.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/warp/warp_stage.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/batched_plan.hpp>
#include <preduce/backend/warp/warp_slice.cuh>

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

//! The first segment whose end item starts at or after unit d: the smallest s in [lo, hi) with
//! off(s + 1) - base + end_weight * s >= d (where segment s's end item starts), or hi when
//! there is none. Requires: all 32 lanes active; checked offsets (the condition is then
//! monotone in s). Each round probes 32 evenly spaced s with one load per lane and keeps the
//! interval between the last probe below d and the first at or above it. Returns the same value
//! in every lane.
__device__ inline std::uint64_t first_end_at_or_after(const offset_reader& off, std::uint64_t base, std::uint64_t end_weight,
                                                      std::uint64_t d, std::uint64_t lo, std::uint64_t hi) {
  const unsigned lane = threadIdx.x % warp_threads;
  while (lo < hi) {
    const std::uint64_t step = (hi - lo + warp_threads - 1) / warp_threads;
    const std::uint64_t probe = lo + lane * step;
    const bool at_or_after = probe >= hi || off(probe + 1) - base + end_weight * probe >= d;
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

//! Calls first(p, 0) for element k0 of a staged range (at: stage_range's) and later(p, u, i)
//! for each element k0 + i, 0 < i < n, in index order, where p[r][u] is the element in array r's
//! copy: the skewed copy is read a contiguous run at a time (up to the next skew), so an element
//! costs a shared-memory load. Requires: n >= 1.
template <class T, int Skew, int Arrays, class First, class Later>
__device__ __forceinline__ void walk_staged_run(const staged_array<T, Skew> (&at)[Arrays], unsigned k0, unsigned n, First&& first,
                                                Later&& later) {
  for (unsigned i = 0; i < n;) {
    const T* p[Arrays];
    unsigned run = n - i;
#pragma unroll
    for (int r = 0; r < Arrays; ++r) {
      p[r] = at[r].at(k0 + i);
      const unsigned m = at[r].run(k0 + i);
      run = m < run ? m : run;
    }
    unsigned u = 0;
    if (i == 0) first(p, u++);
#pragma unroll 4
    for (; u < run; ++u) later(p, u, i + u);
    i += run;
  }
}

//! Folds elements k0 .. k0 + n - 1 of a staged range (at: stage_range's), in index order,
//! element k0 + i lifted with index i, into the identity (walk_staged_run). Arg reducers keep the
//! best value and its index in 32 bits (a stage holds fewer than 2^32 elements), a later
//! element winning only when strictly better: a `better` test and two selects an element, where
//! the 64-bit accumulator's fold took a third for the index's high word. H200, heavy-tailed f32
//! segments at 2^28 (the bench's layout), a graph of 8 calls, us a call (probe of 2026-11-27):
//! argmax 365.4-366.1 -> 353.0-353.7. Also measured: a test of NaN only in the element (`v` is
//! NaN or beats `best`, which keeps the last NaN) and a search for the first NaN where the best
//! is one: 355.3-356.3.
template <class Reducer, class Source, class T, int Skew, int Arrays>
__device__ __forceinline__ typename Reducer::acc_type fold_staged_run(const Reducer& red, const Source& src,
                                                                      const staged_array<T, Skew> (&at)[Arrays], unsigned k0,
                                                                      unsigned n) {
  using Elements = const T* const (&)[Arrays];
  if (n == 0) return red.identity();
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    using V = typename Reducer::value_reducer::acc_type;
    const auto value = [&](Elements p, unsigned u) { return Reducer::lift(stage_traits<Source>::read(src, p, u), 0).value; };
    V best{};
    unsigned best_at = 0;
    walk_staged_run(
        at, k0, n, [&](Elements p, unsigned u) { best = value(p, u); },
        [&](Elements p, unsigned u, unsigned i) {
          const V v = value(p, u);
          if (Reducer::better(v, best)) {
            best = v;
            best_at = i;
          }
        });
    return {best, best_at};
  } else {
    auto a = red.identity();
    walk_staged_run(
        at, k0, n, [&](Elements p, unsigned u) { a = fold_element(red, a, stage_traits<Source>::read(src, p, u), 0); },
        [&](Elements p, unsigned u, unsigned i) { a = fold_after_first(red, a, stage_traits<Source>::read(src, p, u), i); });
    return a;
  }
}

//! Folds elements k0 + j, k0 + j + stride, ... (below k0 + n) of a staged range into `a`, the
//! first lifted with index j: one lane's share of a segment several lanes fold.
template <class Reducer, class Source, class T, int Skew, int Arrays>
__device__ __forceinline__ typename Reducer::acc_type fold_staged_strided(const Reducer& red, const Source& src,
                                                                          const staged_array<T, Skew> (&at)[Arrays], unsigned k0,
                                                                          unsigned n, unsigned j, unsigned stride) {
  auto a = red.identity();
  for (unsigned i = j; i < n; i += stride) {
    const T* p[Arrays];
#pragma unroll
    for (int r = 0; r < Arrays; ++r) p[r] = at[r].at(k0 + i);
    const auto x = stage_traits<Source>::read(src, p, 0);
    a = i == j ? fold_element(red, a, x, i) : fold_after_first(red, a, x, i);
  }
  return a;
}

//! One piece of a segment cut among warps wa .. wb of reduce_segments_kernel (wa < wb), each
//! holding one piece: wa's at pieces[2 wa + 1] (its carry-out), each later one's at
//! pieces[2 v] (its carry-in). Stores this warp's piece `a` (lane 0's) at pieces[slot] and
//! counts its arrival in counters[wa]; the last of the count = wb - wa + 1 to arrive combines
//! the pieces, lane i taking pieces i, i + 32, ... before a warp_reduce (a fixed order: results
//! are run_to_run deterministic), writes finalize(result) to *out and zeroes counters[wa].
//! Requires: all 32 lanes active.
template <class Reducer>
__device__ __forceinline__ void join_cut_piece(const Reducer& red, const typename Reducer::acc_type& a, std::uint64_t slot,
                                               std::uint64_t wa, std::uint64_t wb, typename Reducer::acc_type* pieces,
                                               unsigned* counters, typename Reducer::result_type* out, warp_algorithm w) {
  using Acc = typename Reducer::acc_type;
  const unsigned lane = threadIdx.x % warp_threads;
  const std::uint64_t count = wb - wa + 1;
  bool last_arrival = false;
  if (lane == 0) {
    store_words(pieces + slot, a);
    // acq_rel: releases this piece with the count; the last warp acquires every other piece.
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(counters[wa]);
    last_arrival = arrived.fetch_add(1u, cuda::memory_order_acq_rel) == unsigned(count - 1);
  }
  if (!__shfl_sync(full_warp_mask, last_arrival, 0)) return;
  __syncwarp();  // extends lane 0's acquire to the warp; pieces are then read from L2
  Acc t = red.identity();
  for (std::uint64_t i = lane; i < count; i += warp_threads) {
    const std::uint64_t v = wa + i;
    t = red.combine(t, load_coherent(pieces + 2 * v + (v == wa ? 1 : 0)));
  }
  t = warp_reduce(red, t, w);
  if (lane == 0) {
    store_result(out, red.finalize(t));
    counters[wa] = 0;
  }
}

//! The merge path's offset check, and where each of its warps starts (enqueued before
//! reduce_segments_kernel). Split: warp v of this grid (and v + its warps, ...) writes starts[v]
//! = first_end_at_or_after(off, base, segment_end_weight, v * D, 0, segments) for v in [0,
//! split_warps], with base = offsets[0], units = offsets[segments] - base + segment_end_weight *
//! segments and D = ceil(units / split_warps): the first segment of merge path warp v, which
//! computes D the same way. The searches come first, so their chains of dependent loads overlap
//! the other warps' check. Check: offsets[i] for i in [0, segments], a thread's i = t, t +
//! threads, ... segment_check_offsets_in_flight at a time, all loaded before any is tested; on a
//! violation (portable::offset_value_breaks) portable::record_bad_offset(status, i). Where the
//! offsets break the contract, starts holds whatever the searches found (they end on any
//! offsets), and the merge path uses none of it. Requires: blockDim.x == BlockThreads;
//! split_warps >= 1; starts holds split_warps + 1 entries.
template <int BlockThreads, class Off>
__global__ void __launch_bounds__(BlockThreads)
    check_and_split_segments_kernel(const Off* offsets, std::uint64_t segments, std::uint64_t n, std::uint64_t split_warps,
                                    std::uint64_t* starts, device_status* status) {
  begin_after_prior_grid();
  const std::uint64_t threads = std::uint64_t(gridDim.x) * BlockThreads;
  const std::uint64_t t = std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x;
  const offset_reader off{offsets, sizeof(Off) == 8};
  if (t / warp_threads <= split_warps) {  // warp-uniform
    const std::uint64_t base = off(0), units = off(segments) - base + segment_end_weight * segments;
    const std::uint64_t D = (units + split_warps - 1) / split_warps;
    for (std::uint64_t v = t / warp_threads; v <= split_warps; v += threads / warp_threads) {
      const std::uint64_t s = first_end_at_or_after(off, base, segment_end_weight, v * D, 0, segments);
      if (threadIdx.x % warp_threads == 0) starts[v] = s;
    }
  }
  constexpr int in_flight = segment_check_offsets_in_flight;
  for (std::uint64_t i0 = t; i0 <= segments; i0 += in_flight * threads) {
    Off v[in_flight], before[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const std::uint64_t i = i0 + k * threads;
      if (i <= segments) {
        v[k] = offsets[i];
        before[k] = i > 0 ? offsets[i - 1] : Off(0);
      }
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const std::uint64_t i = i0 + k * threads;
      if (i <= segments && portable::offset_value_breaks(v[k], before[k], i, n)) portable::record_bad_offset(status, i);
    }
  }
}

//! Requires: blockDim.x == BlockThreads; segments >= 1; check_and_split_segments_kernel
//! enqueued before it on the same stream, with split_warps = warps, writing starts;
//! counters[0 .. warps) zero on entry (zero again on exit); pieces holds 2 * warps
//! accumulators; a vectorized Source usable (else a scalar_view).
//! Work (warps = gridDim.x * BlockThreads / 32, K = segment_end_weight, units = offsets[segments]
//! - offsets[0] + K * segments, D = ceil(units / warps)): element e of the span (counted from
//! offsets[0]) in segment s is unit e + K s, and segment s's end item takes the K units from
//! offsets[s + 1] - offsets[0] + K s. Warp w takes units [w D, min(units, (w + 1) D)): the end
//! items starting there (segments starts[w] .. starts[w + 1] - 1, as the check kernel found
//! them) and the elements there. Complete
//! segments (first element and end item in the range) go in rounds: a
//! round takes the next k <= 32 of them whose elements fit the warp's stage
//! (stage_elements<Source, segment_stage_bytes, segment_stage_skew>()), copies those elements
//! into shared memory (stage_range: 16-byte cp.async, skewed when segment_skew_starts of the
//! round's segments start in one bank; the next round's offsets load meanwhile), and then
//! groups of 32 / 2^ceil(log2 k) lanes fold one segment each from there (a lane alone: in
//! index order, a run of the copy at a time; a group: lane j taking elements j, j + lanes, ...,
//! then group_reduce) when it has at most lanes * segment_lane_elements elements; the round's
//! longer ones are folded there by the whole warp, one after another. A segment too long for
//! the stage is folded from global memory by the whole warp (warp_fold). The segment cut at the
//! range's start (carry-in) and the one cut at its end (carry-out) are folded by the whole warp
//! into pieces[2w] and pieces[2w + 1]; the segment's first warp wa counts arrivals in
//! counters[wa], and the last to arrive folds pieces[2wa + 1], pieces[2(wa + 1)], ...,
//! pieces[2wb] (wb: the warp holding its end item's first unit), lane i taking pieces i, i + 32,
//! ... before a warp_reduce, and resets the counter. Reads no element outside [offsets[0],
//! offsets[segments]).
//! Writes: nothing if the offset check failed; otherwise out[s * out_stride] = finalize(segment
//! s), elements lifted with their position in the segment (empty segments: the identity).
template <int BlockThreads, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads, segment_blocks_per_sm)
    reduce_segments_kernel(Reducer red, Source src, offset_reader off, std::uint64_t segments, typename Reducer::acc_type* pieces,
                           unsigned* counters, typename Reducer::result_type* out, std::uint64_t out_stride,
                           const device_status* status, const std::uint64_t* starts, warp_algorithm w) {
  // The next grid launches as this one's blocks exit, not at its start: where that was the next
  // call's check_and_split_segments_kernel, equal segments of 3000 f32 elements at 2^28 (a
  // graph of 8 calls, us a call, plus / argmax; H200, probe of 2026-11-27) took 319.2 / 381.7
  // against 265.1 / 276.2 (and 264.2 / 275.2 with the portable check, an ordinary launch, before
  // it); why was not measured. The heavy-tailed layout 328.2 / 353.2 -> 330.6 / 350.6, equal
  // segments of 100 316.4 / 409.4 -> 315.9 / 408.4.
  wait_for_prior_grid();
  using Acc = typename Reducer::acc_type;
  using T = typename stage_traits<Source>::raw;
  constexpr int arrays = stage_traits<Source>::arrays;
  constexpr std::uint64_t stage_capacity = stage_elements<Source, segment_stage_bytes, segment_stage_skew>();
  constexpr std::uint64_t end_weight = segment_end_weight;
  __shared__ alignas(vector_bytes) unsigned char stages[BlockThreads / warp_threads][segment_stage_bytes];
  // The check's verdict, the warp's range (the check kernel's starts) and the span's ends load
  // together, one round trip; the range is used only once the verdict has passed. The merge
  // path's own search for its range, two chains of dependent offset loads, made the
  // heavy-tailed sums 3% slower (evidence beside segment_check_offsets_in_flight).
  const unsigned check_failed = status->code;
  const unsigned lane = threadIdx.x % warp_threads;
  unsigned char* const stage = stages[threadIdx.x / warp_threads];
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x) / warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (BlockThreads / warp_threads);
  const std::uint64_t s0 = starts[warp], next_start = starts[warp + 1];
  const std::uint64_t base = off(0), span_end = off(segments);
  const std::uint64_t units = span_end - base + end_weight * segments;
  const std::uint64_t D = (units + warps - 1) / warps;
  const std::uint64_t d0 = warp * D;
  if (d0 >= units || check_failed != 0) return;  // warp-uniform
  if (s0 == segments) return;  // d0 falls inside the last end item: nothing starts here
  const std::uint64_t d1 = units - d0 < D ? units : d0 + D;
  const std::uint64_t s1 = d1 == units ? segments : next_start;
  // The range's first element: segment s's first element is at unit off(s) - base + end_weight * s.
  const std::uint64_t b0 = off(s0);
  const bool carry_in = d0 > b0 - base + end_weight * s0;  // s0 started in an earlier warp
  const std::uint64_t e0 = carry_in ? base + d0 - end_weight * s0 : b0;
  const std::uint64_t b1 = s1 < segments ? off(s1) : span_end;
  // s1 is cut at the range's end when its first element is here (its end item is not).
  const bool s1_started = s1 < segments && d1 > b1 - base + end_weight * s1;
  const std::uint64_t e1 = s1_started ? base + d1 - end_weight * s1 : b1;  // the range's end element
  const bool carry_out = s1_started && !(s1 == s0 && carry_in);
  const std::uint64_t c_begin = s0 + (carry_in ? 1 : 0), c_end = s1;  // complete segments

  // The warp's work, in order: the carry-in piece, the rounds of complete segments, the
  // carry-out piece. Every fold from global memory goes through the one warp_fold below, which
  // keeps the kernel small.
  bool carry_in_due = carry_in, carry_out_due = carry_out;
  std::uint64_t c = c_begin;             // first segment of the next round
  std::uint64_t next_b = 0, next_e = 0;  // segment c + lane's offsets, loaded a round ahead
  if (c + lane < c_end) {
    next_b = off(c + lane);
    next_e = off(c + lane + 1);
  }
  for (;;) {  // warp-uniform
    std::uint64_t ts, first, last, slot = 0;
    bool cut = true;
    if (carry_in_due) {
      carry_in_due = false;
      const std::uint64_t end = off(s0 + 1);
      ts = s0, first = e0, last = end < e1 ? end : e1, slot = 2 * warp;
    } else if (c < c_end) {
      const std::uint64_t b = next_b, len = next_e - next_b;
      const std::uint64_t round_first = __shfl_sync(full_warp_mask, b, 0);
      // Ends grow with the lane, so the segments that fit the stage are a prefix of the round.
      const unsigned k = __popc(__ballot_sync(full_warp_mask, c + lane < c_end && next_e - round_first <= stage_capacity));
      if (k == 0) {  // segment c alone is longer than the stage: the whole warp reads it below
        ts = c, first = round_first, last = __shfl_sync(full_warp_mask, next_e, 0), cut = false;
        c += 1;
        if (c + lane < c_end) {
          next_b = off(c + lane);
          next_e = off(c + lane + 1);
        }
      } else {
        // Lanes a segment: 32 / 2^ceil(log2 k), so the round's segments spread over the warp
        // (one lane each from 17 segments up, the whole warp for one).
        const unsigned lanes = warp_threads >> (32 - __clz(int(k - 1))), g = lane / lanes, j = lane % lanes;
        const unsigned from = g < k ? g : 0;  // the lane holding group g's offsets
        const std::uint64_t g_len = __shfl_sync(full_warp_mask, len, from);
        const unsigned g0 = unsigned(__shfl_sync(full_warp_mask, b, from) - round_first);  // its place in the stage
        const bool grouped = g < k && g_len <= lanes * segment_lane_elements;
        // Skew the copy when segments start in the same bank: the most group starts that share
        // one (the first element's 4-byte word mod 32) is at least segment_skew_starts.
        const unsigned first_byte = offset_in_vector(stage_traits<Source>::array(src, 0) + round_first);
        const unsigned bank = grouped && j == 0 ? (first_byte + g0 * unsigned(sizeof(T))) / 4 % 32 : warp_threads + lane;
        const bool skewed = warp_extreme_word<true>(unsigned(__popc(__match_any_sync(full_warp_mask, bank)))) >= segment_skew_starts;
        staged_array<T, segment_stage_skew> at[arrays];
        stage_range<segment_stage_bytes, segment_stage_skew>(src, round_first, __shfl_sync(full_warp_mask, next_e, k - 1), base, span_end,
                                                             skewed, stage, at);
        c += k;
        if (c + lane < c_end) {  // the next round's offsets, in flight with the stage
          next_b = off(c + lane);
          next_e = off(c + lane + 1);
        }
        stage_wait();
        Acc a = red.identity();
        if (grouped) {
          a = lanes == 1 ? fold_staged_run(red, src, at, g0, unsigned(g_len))
                         : fold_staged_strided(red, src, at, g0, unsigned(g_len), j, lanes);
        }
        a = group_reduce(red, a, lanes, w);
        if (grouped && j == 0) store_result(out + (c - k + g) * out_stride, red.finalize(a));
        // The round's segments too long for their group, one at a time, by the whole warp.
        for (unsigned longer = __ballot_sync(full_warp_mask, lane < k && len > lanes * segment_lane_elements); longer != 0;
             longer &= longer - 1) {
          const int leader = __ffs(int(longer)) - 1;
          const unsigned lk0 = unsigned(__shfl_sync(full_warp_mask, b, leader) - round_first);
          const unsigned llen = unsigned(__shfl_sync(full_warp_mask, len, leader));
          Acc t = fold_staged_strided(red, src, at, lk0, llen, lane, warp_threads);
          t = warp_reduce(red, t, w);
          if (lane == 0) store_result(out + (c - k + unsigned(leader)) * out_stride, red.finalize(t));
        }
        __syncwarp();  // every lane is done with the stage before the next round's copies
        continue;
      }
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
    // A cut piece: the warps holding the segment's first element and its end item.
    const std::uint64_t wa = (seg_b - base + end_weight * ts) / D, wb = (off(ts + 1) - base + end_weight * ts) / D;
    join_cut_piece(red, a, slot, wa, wb, pieces, counters, out + ts * out_stride, w);
  }
}

//! A segmented scan's element: `reset` when the value's run began in it (the value then holds
//! only that run), else the value continues the run of the elements before it.
template <class Acc>
struct run_part {
  bool reset;
  Acc value;
};

//! (a then b) under the segmented scan: b alone where b began a run, else a's run extended by b
//! (every index of a's run below b's).
template <class Reducer, class Acc>
__device__ __forceinline__ run_part<Acc> join_runs(const Reducer& red, const run_part<Acc>& a, const run_part<Acc>& b) {
  return b.reset ? b : run_part<Acc>{a.reset, combine_in_order(red, a.value, b.value)};
}

//! __shfl_up_sync for a run_part: lane (lane - d)'s, or the caller's own where lane < d.
template <class Acc>
__device__ __forceinline__ run_part<Acc> shfl_up_run(const run_part<Acc>& r, unsigned d) {
  return {bool(__shfl_up_sync(full_warp_mask, r.reset, d)),
          shfl_words(r.value, [d](unsigned v) { return __shfl_up_sync(full_warp_mask, v, d); })};
}

//! Piece `a` of a segment cut among piece warps wa .. wb (wa < wb) of
//! reduce_short_segments_kernel, held by warp j: warps before wb publish theirs
//! (publish_partial: flagged words, no fence where they fit a slot; wa's at slot 2 wa + 1, each
//! later one's at 2 j), and wb collects them (collect_partial, which clears the slots), lane i
//! taking pieces i, i + 32, ... before a warp_reduce, adds its own last (a fixed order: results
//! are run_to_run deterministic) and writes finalize(result) to *out. Piece warps are numbered
//! in the order their blocks take start tickets, so every warp wb waits for has started, and
//! none of them waits before it publishes: the wait ends. It replaced counting arrivals with a
//! relaxed atomicAdd per warp, the last to count collecting (join_cut_piece's protocol through
//! the slots): 32 warps counting on one word, then the collection, took the 2^16 heavy-tailed
//! case's piece blocks about 3000 cycles past their check (clock64 stamps); figures beside
//! short_segment_max_elements. Requires: all 32 lanes active; wa <= j <= wb; slots 2 wa + 1 ..
//! 2 wb - 1 within the queue's slots.
template <class Reducer>
__device__ __forceinline__ void join_piece_in_order(const Reducer& red, const typename Reducer::acc_type& a, std::uint32_t j,
                                                    std::uint32_t wa, std::uint32_t wb, typename Reducer::acc_type* pieces,
                                                    unsigned long long* slots, typename Reducer::result_type* out,
                                                    warp_algorithm w) {
  using Acc = typename Reducer::acc_type;
  const unsigned lane = threadIdx.x % warp_threads;
  if (j < wb) {
    if (lane == 0) publish_partial(a, j == wa ? 2 * j + 1 : 2 * j, pieces, slots);
    return;
  }
  Acc t = red.identity();
  for (std::uint32_t v = wa + lane; v < wb; v += warp_threads)
    t = red.combine(t, collect_partial<Acc>(v == wa ? 2 * v + 1 : 2 * v, pieces, slots));
  __syncwarp();  // the polling lanes reconverge before the shuffles (reduce_whole_kernel's note)
  t = warp_reduce(red, t, w);
  if (lane == 0) store_result(out, red.finalize(red.combine(t, a)));
}

//! Every block's offset check on the small paths: loads offsets[0 .. segments], each in the same
//! round trip as the one before it, calls issued() once they are all requested, then visit(i,
//! offsets[i], offsets[i - 1]) (0 for i = 0; values read as uint64, so a negative offset reads as
//! one past n) for each i of this thread's (i = threadIdx.x, + BlockThreads, ...), and returns the
//! first of those i at which offset_breaks would hold, or ~0u. All of a thread's offsets are loaded
//! before any is visited, in as few slots as the count needs (1, 2, 4 or all): every slot costs
//! each thread its predicated loads, issued or not. H100 probe of 2026-11-27 (the bench's
//! heavy-tailed layouts, f32, graph of 64 calls, us, plus / argmax, kernels launched to overlap:
//! launch.cuh), slots 1, 4, 16 -> 1, 2, 4, 16, two runs in one call: 2^14 (351 offsets, blocks of
//! 256) 1.92 / 2.21 -> 1.88 / 2.21 and 1.91 / 2.21 -> 1.88 / 2.19; 2^15 (730 offsets, blocks of
//! 512) 2.26 / 2.80 -> 2.22 / 2.76 and 2.25 / 2.80 -> 2.21 / 2.75; 2^16 2.77 / 3.58 -> 2.71 / 3.47
//! and 2.77 / 3.60 -> 2.68 / 3.46; 2^10 - 2^13 up to 0.03 slower (an earlier call). Checking only
//! the first slot's offsets (not a check: a bound on what the slots cost) took 2^14 to 1.85 / 2.14
//! and 2^15 to 2.15 / 2.71. Requires: blockDim.x == BlockThreads; segments < small_segment_offsets;
//! every thread of the block calls it (issued may hold a barrier).
template <int BlockThreads, class Issued, class Visit>
__device__ __forceinline__ std::uint32_t check_offsets_here(const offset_reader& off, std::uint64_t n, std::uint32_t segments,
                                                            Issued&& issued, Visit&& visit) {
  static_assert(small_segment_offsets % BlockThreads == 0, "every thread checks the same number of offsets");
  const unsigned t = threadIdx.x;
  std::uint32_t bad = ~0u;
  const auto check = [&](auto slots) {
    constexpr int k_slots = decltype(slots)::value;
    std::uint64_t v[k_slots], before[k_slots];
#pragma unroll
    for (int k = 0; k < k_slots; ++k) {
      const std::uint32_t i = t + std::uint32_t(k) * BlockThreads;
      if (i <= segments) {
        v[k] = off(i);
        before[k] = i > 0 ? off(i - 1) : 0;
      }
    }
    issued();
#pragma unroll
    for (int k = 0; k < k_slots; ++k) {
      const std::uint32_t i = t + std::uint32_t(k) * BlockThreads;
      if (i <= segments) {
        visit(i, v[k], before[k]);
        if (bad == ~0u && (v[k] > n || v[k] < before[k])) bad = i;  // a thread's i increase with k
      }
    }
  };
  if (segments < BlockThreads)
    check(std::integral_constant<int, 1>{});
  else if (segments < 2 * BlockThreads)
    check(std::integral_constant<int, 2>{});
  else if (segments < 4 * BlockThreads)
    check(std::integral_constant<int, 4>{});
  else
    check(std::integral_constant<int, int(small_segment_offsets / BlockThreads)>{});
  return bad;
}

//! The small-input path for short segments (enqueue_segments decides): one launch with the
//! offset check folded in, where a segment of at most C = 32 * LaneItems elements is reduced by
//! a warp of its own, one of at most M = BlockThreads * LaneItems by a block, and a longer one
//! in pieces of the flat input. Requires: blockDim.x == BlockThreads; 1 <= segments <
//! small_segment_offsets; n < 32 (M + 1); gridDim.x = segment_blocks + piece_blocks, segment_blocks
//! = ceil(segments / warps), piece_blocks = 0 where n <= M (no segment is longer), else
//! ceil(ceil(n / C) / warps), warps = BlockThreads / 32; with piece warps = piece_blocks *
//! warps: control->tickets zero on entry (zero again on exit), the queue's slots 0 .. 2 piece
//! warps - 1 clear on entry (clear again on exit), pieces holds 2 accumulators a piece warp.
//! Check: every block loads all segments + 1 offsets (check_offsets_here: one round trip) and
//! finds the first that breaks the contract; if there is one, block 0 records it in
//! *status (the call's own status slot) and no block writes anything.
//! Segment blocks (blockIdx.x < segment_blocks; segments g0 .. g0 + warps - 1, g0 = blockIdx.x
//! * warps): lane k of every warp loads offsets[g0 + k], with the check's loads, so each warp
//! knows all its block's segments after one round trip. Warp g - g0 then loads segment g when it
//! has at most C elements (lane l: elements l, l + 32, ...), and every thread t its share (t,
//! t + BlockThreads, ...) of the block's first segment of C + 1 .. M elements: the second
//! round trip, issued before the check's barrier. Only loads inside [0, n) are issued (offsets
//! that break the contract locally load nothing). After the barrier the warp folds its segment
//! in order (elements lifted with their position in it), warp_reduce combines the lanes (a fixed
//! order: run_to_run deterministic) and lane 0 writes finalize(segment g) (an empty segment: the
//! identity); a block segment is folded the same way per thread, then per warp, then warp 0
//! combines the warps' parts through shared memory (any further such segments of the block
//! after it, one at a time). A block segment's loads are issued before the warps' own, and it
//! is folded beside them (two accumulators, one warp_reduce_each): clock64 stamps had a block
//! holding one end about 1000 cycles after the others, folding its warps' own segments
//! 440 cycles after its block segment (the instructions only it runs); figures beside
//! short_segment_max_elements.
//! Piece blocks (the rest), in the order they take start tickets: piece warp j = ticket *
//! warps + warp takes elements [j C, (j + 1) C) of [0, n), loaded once the ticket is known
//! while the check's offsets are on their way. A segment longer than M meets at most
//! two such ranges partly and covers the rest, so a range holds pieces of at most two of them:
//! the one holding its first element and the one holding its last. The check lists the
//! segments longer than M in shared memory as it meets their offsets (at most 31 where the
//! offsets keep the contract, as n < 32 (M + 1)), and lane h of a piece warp tests the h-th (no
//! search). The warp folds each of its two segments' elements into a piece (one accumulator
//! where its range lies inside one segment, as most do), and the pieces of
//! segment s over the piece warps wa = offsets[s] / C .. wb = (offsets[s + 1] - 1) / C are
//! joined by wb (join_piece_in_order; a warp publishes the piece of the segment that starts in
//! its range before it waits for those of the one that ends there).
//! Writes: nothing if the offsets break the contract; otherwise out[s * out_stride] =
//! finalize(segment s). Reads no element outside [0, n).
template <int BlockThreads, int LaneItems, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_short_segments_kernel(Reducer red, Source src, offset_reader off, std::uint32_t n, std::uint32_t segments,
                                 std::uint32_t segment_blocks, typename Reducer::acc_type* pieces, unsigned long long* slots,
                                 control_block* control, device_status* status, typename Reducer::result_type* out,
                                 std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  using E = typename Source::value_type;
  constexpr unsigned warps = BlockThreads / warp_threads;
  constexpr std::uint32_t chunk = std::uint32_t(warp_threads) * LaneItems;       // C
  constexpr std::uint32_t block_chunk = std::uint32_t(BlockThreads) * LaneItems;  // M
  static_assert(warps < warp_threads, "a lane for each of the block's warps + 1 offsets");
  __shared__ unsigned first_bad;
  // Piece blocks: the segments longer than M (at most 31 where the offsets keep the contract).
  __shared__ unsigned long_count;
  __shared__ std::uint32_t long_segment[warp_threads], long_first[warp_threads], long_end[warp_threads];
  __shared__ Acc warp_parts[warps];
  const unsigned t = threadIdx.x, lane = t % warp_threads, warp = t / warp_threads;
  if (t == 0) first_bad = ~0u;
  // The check's verdict, after the barrier that publishes what the block wrote to shared
  // memory; on a bad offset block 0 records the first and every block returns false.
  const auto check_passed = [&](std::uint32_t bad) {
    if (!__syncthreads_or(bad != ~0u)) return true;  // block-uniform
    atomicMin(&first_bad, bad);
    __syncthreads();
    if (blockIdx.x == 0 && t == 0) portable::record_bad_offset(status, first_bad);
    return false;
  };

  if (blockIdx.x < segment_blocks) {
    const std::uint32_t g0 = blockIdx.x * warps;
    // Lane k's offsets[g0 + k], loaded with the check's; then lane k's segment g0 + k, whether
    // its offsets allow loads, and its length.
    const std::uint64_t bound = lane <= warps && g0 + lane <= segments ? off(g0 + lane) : 0;
    const std::uint32_t bad =
        check_offsets_here<BlockThreads>(off, n, segments, [] {}, [](std::uint32_t, std::uint64_t, std::uint64_t) {});
    const std::uint64_t next = __shfl_down_sync(full_warp_mask, bound, 1);
    const bool loadable = lane < warps && g0 + lane < segments && bound <= next && next <= n;
    const std::uint32_t length = loadable ? std::uint32_t(next - bound) : 0;
    const std::uint32_t own_first = std::uint32_t(__shfl_sync(full_warp_mask, bound, warp));
    const std::uint32_t own_length = __shfl_sync(full_warp_mask, length, warp);
    const bool own = __shfl_sync(full_warp_mask, loadable, warp) && own_length <= chunk;
    unsigned block_long = __ballot_sync(full_warp_mask, loadable && length > chunk && length <= block_chunk);
    E x[LaneItems], y[LaneItems];
    std::uint32_t long_length = 0;
    const auto load_block_long = [&] {  // the block's next segment of C + 1 .. M elements
      const unsigned k = unsigned(__ffs(int(block_long))) - 1;
      const std::uint32_t first = std::uint32_t(__shfl_sync(full_warp_mask, bound, k));
      long_length = __shfl_sync(full_warp_mask, length, k);
#pragma unroll
      for (int i = 0; i < LaneItems; ++i)
        if (t + i * BlockThreads < long_length) y[i] = src[first + t + i * BlockThreads];
    };
    if (block_long != 0) load_block_long();
    if (own) {
#pragma unroll
      for (int i = 0; i < LaneItems; ++i)
        if (lane + i * warp_threads < own_length) x[i] = src[own_first + lane + i * warp_threads];
    }
    if (!check_passed(bad)) return;
    // Elements k = k0, k0 + stride, ... below `length` of a segment, v[i] holding element k0 +
    // i stride, folded in order, each lifted with its position in the segment. A fold of one
    // operation (a fused_op tag) is predicated over all LaneItems slots; a longer one (arg,
    // minmax, moments, ...) leaves the loop at the lane's first slot past the segment, H100 probe
    // of 2026-11-26 (f32 argmax, heavy-tailed layouts, graph of 64 calls, us, 2^10 .. 2^15):
    // 1.85 / 1.88 / 2.62 / 2.67 / 2.75 / 3.62 -> 1.70 / 1.82 / 2.43 / 2.52 / 2.54 / 3.31; the
    // same for sums made 2^11 and 2^14 slower (1.63 / 2.21 -> 1.73 / 2.30), and leaving the
    // element loads' loop too (by lane, or where the whole warp is past the segment) was no faster.
    const auto fold_strided = [&](const E(&v)[LaneItems], std::uint32_t k0, std::uint32_t stride, std::uint32_t length) {
      Acc a = red.identity();
#pragma unroll
      for (int i = 0; i < LaneItems; ++i) {
        const std::uint32_t k = k0 + i * stride;
        if constexpr (Reducer::fused == detail::fused_op::none) {
          if (k >= length) break;
        } else if (k >= length) {
          continue;
        }
        a = i == 0 ? fold_element(red, a, v[i], k) : fold_after_first(red, a, v[i], k);
      }
      return a;
    };
    // The block's next block segment, from each warp's part of it (lane 0's).
    const auto finish_block_segment = [&](const Acc& part) {
      if (lane == 0) warp_parts[warp] = part;
      __syncthreads();
      if (warp == 0) {
        Acc a = lane < warps ? warp_parts[lane] : red.identity();
        a = warp_reduce(red, a, w);
        if (lane == 0) store_result(out + (g0 + unsigned(__ffs(int(block_long))) - 1) * out_stride, red.finalize(a));
      }
      block_long &= block_long - 1;
    };
    if (block_long == 0) {  // block-uniform
      if (own) {  // warp-uniform
        const Acc a = warp_reduce(red, fold_strided(x, lane, warp_threads, own_length), w);
        if (lane == 0) store_result(out + (g0 + warp) * out_stride, red.finalize(a));
      }
      return;
    }
    Acc a[2] = {fold_strided(y, t, BlockThreads, long_length), own ? fold_strided(x, lane, warp_threads, own_length) : red.identity()};
    warp_reduce_each(red, a, w);
    if (own && lane == 0) store_result(out + (g0 + warp) * out_stride, red.finalize(a[1]));
    finish_block_segment(a[0]);
    while (block_long != 0) {  // block-uniform
      __syncthreads();  // warp_parts is read before the next segment's parts are written
      load_block_long();
      finish_block_segment(warp_reduce(red, fold_strided(y, t, BlockThreads, long_length), w));
    }
    return;
  }

  // Piece blocks, in the order they take start tickets: warp j = ticket * warps + warp takes
  // the range [r0, r1), loaded while the check's offsets are on their way.
  __shared__ unsigned piece_ticket;
  unsigned ticket = 0;
  if (t == 0) {
    long_count = 0;
    ticket = atomicAdd(&control->tickets, 1u);
  }
  E x[LaneItems];
  std::uint32_t j = 0, r0 = 0;
  const std::uint32_t bad = check_offsets_here<BlockThreads>(
      off, n, segments,
      [&] {
        if (t == 0) {
          piece_ticket = ticket;
          if (ticket == gridDim.x - segment_blocks - 1) control->tickets = 0;  // every ticket has been taken
        }
        __syncthreads();  // piece_ticket and long_count
        j = piece_ticket * warps + warp;
        r0 = j * chunk;
        if (r0 < n) {
#pragma unroll
          for (int i = 0; i < LaneItems; ++i)
            if (r0 + lane + i * warp_threads < n) x[i] = src[r0 + lane + i * warp_threads];
        }
      },
      [&](std::uint32_t i, std::uint64_t v, std::uint64_t before) {
        if (i == 0 || v > n || v < before || v - before <= block_chunk) return;
        const unsigned k = atomicAdd(&long_count, 1u);  // segment i - 1 is longer than M: listed
        if (k < warp_threads) {
          long_segment[k] = i - 1;
          long_first[k] = std::uint32_t(before);
          long_end[k] = std::uint32_t(v);
        }
      });
  if (!check_passed(bad) || r0 >= n) return;  // warp-uniform
  const std::uint32_t r1 = n - r0 < chunk ? n : r0 + chunk;  // the range's end
  // Lane h tests the h-th listed segment: which one holds r0 (a) and which r1 - 1 (b).
  const bool listed = lane < long_count;
  const std::uint32_t h_first = listed ? long_first[lane] : 0, h_end = listed ? long_end[lane] : 0;
  const unsigned holds_a = __ballot_sync(full_warp_mask, listed && h_first <= r0 && r0 < h_end);
  const unsigned holds_b = __ballot_sync(full_warp_mask, listed && h_first < r1 && r1 <= h_end);
  const bool take_a = holds_a != 0, take_b = holds_b != 0 && holds_b != holds_a;
  if (!take_a && !take_b) return;  // warp-uniform
  const unsigned ha = take_a ? unsigned(__ffs(int(holds_a))) - 1 : 0, hb = take_b ? unsigned(__ffs(int(holds_b))) - 1 : 0;
  const std::uint32_t a_first = take_a ? long_first[ha] : r0, a_end = take_a ? long_end[ha] : r0;
  const std::uint32_t b_first = take_b ? long_first[hb] : r1;
  Acc a[2] = {red.identity(), red.identity()};
  if (take_a && !take_b && a_end >= r1) {  // warp-uniform: the whole range in a (most piece warps)
#pragma unroll
    for (int i = 0; i < LaneItems; ++i) {
      const std::uint32_t e = r0 + lane + i * warp_threads;
      if (e < r1) a[0] = i == 0 ? fold_element(red, a[0], x[i], e - a_first) : fold_after_first(red, a[0], x[i], e - a_first);
    }
    a[0] = warp_reduce(red, a[0], w);
  } else {  // the ends of a and b: two accumulators
#pragma unroll
    for (int i = 0; i < LaneItems; ++i) {
      const std::uint32_t e = r0 + lane + i * warp_threads;
      if (e < a_end) a[0] = i == 0 ? fold_element(red, a[0], x[i], e - a_first) : fold_after_first(red, a[0], x[i], e - a_first);
      if (e >= b_first && e < r1) a[1] = fold_element(red, a[1], x[i], e - b_first);
    }
    warp_reduce_each(red, a, w);
  }
  // b goes on past r1 (it is longer than C and starts after r0): its first piece, published
  // before this warp waits for a's.
  if (take_b && lane == 0) publish_partial(a[1], 2 * j + 1, pieces, slots);
  if (take_a) {
    const std::uint32_t wa = a_first / chunk;
    join_piece_in_order(red, a[0], j, wa, (a_end - 1) / chunk, pieces, slots, out + long_segment[ha] * out_stride, w);
  }
}

//! The small-input path (enqueue_segments decides): one launch with the offset check folded in,
//! for fewer than small_segment_offsets segments. Requires: blockDim.x == BlockThreads;
//! 1 <= segments < small_segment_offsets; n + segments < 2^32 - 1 and at most gridDim.x *
//! BlockThreads * Items; gridDim.x at most the slots' blocks; on entry control->tickets == 0
//! and every slot is 0 (both hold again on exit); pieces holds gridDim.x accumulators.
//! Check: every block loads all segments + 1 offsets into shared memory (one round trip, the
//! only one before the elements', each offset read with the one before it) and finds the first
//! that breaks the contract, as check_offsets_kernel would; if there is one, block 0 records it
//! in *status (the call's own status slot) and no block writes anything. So the whole call is
//! two dependent round trips (offsets, elements), and a third where a segment is cut between
//! blocks, where the two-launch path has a dozen.
//! Work: the merge path with unit weight: element e (counted from offsets[0]) of segment s is
//! unit e + s, and segment s's end item unit offsets[s + 1] - offsets[0] + s. The block with
//! start ticket b (blocks take tickets as they start, so every block before b in this order has
//! started) takes units [b BU, (b + 1) BU), BU = BlockThreads * Items, and its thread t the
//! Items units from b BU + t Items: a radix-4 search in shared memory finds the segment of the
//! first, the thread loads all its elements before folding any, folds them in order (element
//! lifted with its position in its segment), and writes each segment that begins and ends among
//! its units. A segment that reaches past a thread's units is joined by a segmented scan over
//! the block's threads (shuffles; then the warp totals, through shared memory, by the same scan
//! over lanes): the thread holding its end item combines the scan's prefix with its own part.
//! One that reaches past the block's units leaves a piece in the block's slot (publish_partial:
//! no fence), and the block holding its end item collects the pieces of the blocks before it
//! (collect_partial, which clears the slots; they have all started, so the wait ends), lane i
//! taking pieces i, i + 32, ... before a warp_reduce (a fixed order: results are run_to_run
//! deterministic), then adds its own part.
//! Writes: nothing if the offsets break the contract; otherwise out[s * out_stride] =
//! finalize(segment s) (empty segments: the identity). Reads no element outside
//! [offsets[0], offsets[segments]).
template <int BlockThreads, int Items, class Reducer, class Source>
__global__ void __launch_bounds__(BlockThreads)
    reduce_segments_small_kernel(Reducer red, Source src, offset_reader off, std::uint64_t n, std::uint64_t segments,
                                 typename Reducer::acc_type* pieces, unsigned long long* slots, control_block* control,
                                 device_status* status,
                                 typename Reducer::result_type* out, std::uint64_t out_stride, warp_algorithm w) {
  begin_after_prior_grid();
  using Acc = typename Reducer::acc_type;
  using E = typename Source::value_type;
  constexpr unsigned warps = BlockThreads / warp_threads;
  constexpr std::uint32_t block_units = std::uint32_t(BlockThreads) * Items;
  static_assert(Items <= 32, "a thread's end items are the bits of one word");
  __shared__ std::uint32_t at[small_segment_offsets];  // offsets, those past n as n + 1
  __shared__ unsigned first_bad, ticket;
  __shared__ run_part<Acc> warp_runs[warps];
  // This block's piece of a segment that goes on past it, and its part of one that came from
  // earlier blocks and ends here; the segments they belong to (`none`: there is no such one).
  __shared__ Acc outgoing, incoming;
  __shared__ std::uint32_t outgoing_at, incoming_at;
  const unsigned t = threadIdx.x, lane = t % warp_threads, warp = t / warp_threads;
  const std::uint32_t none = std::uint32_t(segments);

  if (t == 0) {
    ticket = 0;
    if (gridDim.x > 1) {
      ticket = atomicAdd(&control->tickets, 1u);
      if (ticket == gridDim.x - 1) control->tickets = 0;  // every ticket has been taken
    }
    first_bad = ~0u;
    outgoing_at = incoming_at = none;
  }
  const std::uint32_t bad = check_offsets_here<BlockThreads>(off, n, none, [] {}, [&](std::uint32_t i, std::uint64_t v, std::uint64_t) {
    at[i] = std::uint32_t(v <= n ? v : n + 1);
  });
  // The same verdict as reduce_short_segments_kernel's check_passed, written out in each: one
  // __forceinline__ helper for both (git b30c675) changed the short kernel's PTX well beyond
  // the call sites (the arg folds' loops laid out anew) with no timing to say it was harmless.
  if (__syncthreads_or(bad != ~0u)) {  // block-uniform
    atomicMin(&first_bad, bad);
    __syncthreads();
    if (blockIdx.x == 0 && t == 0) portable::record_bad_offset(status, first_bad);
    return;
  }

  const std::uint32_t base = at[0];
  const std::uint32_t units = at[none] - base + none;
  const auto end_unit = [&](std::uint32_t s) { return at[s + 1] - base + s; };  // segment s's end item
  const std::uint32_t block = ticket;
  const std::uint32_t block_first = block * block_units;
  if (block_first >= units) return;  // block-uniform: the grid counts n + segments units
  const std::uint32_t block_last = units - block_first < block_units ? units : block_first + block_units;
  const std::uint32_t u0 = block_first + t * Items;
  const std::uint32_t u1 = u0 < block_last ? (block_last - u0 < Items ? block_last : u0 + Items) : u0;

  // The segment of unit u0: the first whose end item is at or after it, i.e. the number of
  // segments that end before it (end items increase with the segment). The same steps in every
  // thread (no divergence): quartering powers of four from the largest not above `none`, three
  // independent shared-memory reads a step (half the dependent steps of a binary search).
  std::uint32_t s0 = 0;
  for (std::uint32_t q = 1u << ((31 - __clz(int(none))) & ~1); q > 0; q >>= 2) {
    // Segments s0 + q - 1, s0 + 2q - 1 and s0 + 3q - 1 probed together (the answer lies in
    // [s0, s0 + 4q)); those that end before u0 are a prefix of the three.
    std::uint32_t below = 0;
#pragma unroll
    for (std::uint32_t j = 1; j <= 3; ++j)
      if (s0 + j * q <= none && end_unit(s0 + j * q - 1) < u0) ++below;
    s0 += below * q;
  }
  // Which units are end items (those of segments s0, s0 + 1, ...: at most Items of them, read
  // from shared memory together), then every element (one round trip): unit u0 + k is element
  // u0 + k - s0 - (ends before it).
  unsigned ends = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const std::uint32_t e = s0 + j < none ? end_unit(s0 + j) : ~0u;
    if (e < u1) ends |= 1u << (e - u0);  // e >= u0: s0's end item is at or after u0
  }
  E x[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const std::uint32_t u = u0 + k;
    const std::uint32_t ends_before = unsigned(__popc(ends & ((1u << k) - 1u)));
    if (u < u1 && !(ends >> k & 1u)) x[k] = src[std::uint64_t(base) + (u - s0 - ends_before)];
  }
  // Fold in order; write the segments that begin and end here.
  const bool carried = u1 > u0 && at[s0] - base + s0 < u0;  // s0 began before this thread's units
  std::uint32_t s = s0, start = at[s0] - base;  // the current segment and its first element
  Acc a = red.identity(), head = a;
  bool head_ends = false;  // s0 was carried in and ends here: joined after the scan
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const std::uint32_t u = u0 + k;
    if (u >= u1) break;
    if (ends >> k & 1u) {
      if (s == s0 && carried) {
        head = a;
        head_ends = true;
      } else {
        store_result(out + s * out_stride, red.finalize(a));
      }
      start = u - s;  // where the next segment's elements begin
      ++s;
      a = red.identity();
    } else {
      a = fold_element(red, a, x[k], u - s - start);
    }
  }
  // The run open after this thread's units: segment s, carried through when it is s0.
  const run_part<Acc> mine{!(s == s0 && carried), a};

  // Segmented scan over the block's threads: inclusive in the warp, then the warps before.
  run_part<Acc> inc = mine;
#pragma unroll
  for (unsigned d = 1; d < warp_threads; d *= 2) {
    const run_part<Acc> before = shfl_up_run(inc, d);
    if (lane >= d) inc = join_runs(red, before, inc);
  }
  if (lane == warp_threads - 1) warp_runs[warp] = inc;
  __syncthreads();
  // The warps before this one, joined by the same scan over lanes 0 .. warp - 1 (lane v holding
  // warp v's run; {false, identity} joins as nothing), read from lane warp - 1.
  run_part<Acc> runs{false, red.identity()};
  if (lane < warp) runs = warp_runs[lane];
#pragma unroll
  for (unsigned d = 1; d < warps; d *= 2) {
    const run_part<Acc> before = shfl_up_run(runs, d);
    if (lane >= d) runs = join_runs(red, before, runs);
  }
  const run_part<Acc> from_last{bool(__shfl_sync(full_warp_mask, runs.reset, warp == 0 ? 0u : warp - 1)),
                                 shfl_from(runs.value, warp == 0 ? 0u : warp - 1)};
  const run_part<Acc> warps_before = warp == 0 ? run_part<Acc>{false, red.identity()} : from_last;
  const run_part<Acc> lane_before = shfl_up_run(inc, 1);
  const run_part<Acc> before = lane == 0 ? warps_before : join_runs(red, warps_before, lane_before);

  if (head_ends) {
    const Acc v = combine_in_order(red, before.value, head);
    if (before.reset) {
      store_result(out + s0 * out_stride, red.finalize(v));
    } else {  // s0 began in an earlier block
      incoming = v;
      incoming_at = s0;
    }
  }
  // One block: every segment began and ended in it (before.reset above), so no piece goes
  // out or comes in, and the block need not wait for its threads.
  if (gridDim.x == 1) return;  // block-uniform
  // The last thread with units: the run open at the block's end, when it has units here and
  // goes on into the next block.
  if (u0 < block_last && u1 == block_last && block_last < units && !(ends >> (u1 - 1 - u0) & 1u)) {
    outgoing = join_runs(red, before, mine).value;
    outgoing_at = s;
  }
  __syncthreads();
  if (warp != 0) return;
  // This block's piece first: the blocks after it may be waiting for it.
  if (outgoing_at != none && lane == 0) publish_partial(outgoing, block, pieces, slots);
  const std::uint32_t ts = incoming_at;
  if (ts == none) return;  // warp-uniform
  const std::uint32_t first_block = (at[ts] - base + ts) / block_units;
  Acc p = red.identity();
  for (std::uint32_t v = first_block + lane; v < block; v += warp_threads)
    p = red.combine(p, collect_partial<Acc>(v, pieces, slots));
  __syncwarp();  // the lanes' waits end apart: reconverge before the shuffles (reduce_whole_kernel's note)
  p = warp_reduce(red, p, w);
  if (lane == 0) store_result(out + ts * out_stride, red.finalize(device_combine(red, p, incoming)));
}

//! Enqueues out[i * out_stride] = reduction of segment i for i < segments (segments >= 1),
//! unless the offsets break the contract: then nothing is written and the call's status slot
//! (queue_state::status_slot_for_call) records the first bad offset for the next synchronizing
//! call of the calling thread.
//! Shape: fewer than small_segment_offsets segments over at most short_segment_max_elements
//! elements (and the queue's slots hold two a piece warp): reduce_short_segments_kernel, one
//! launch. Else fewer than small_segment_offsets segments whose n + segments items fit
//! small_segment_blocks blocks of half of small_segment_items a thread (or of small_segment_items,
//! or twice as many; below): reduce_segments_small_kernel, one launch. Otherwise the offset check, then
//! reduce_segments_kernel, its grid one wave (its occupancy), fewer blocks when the input has
//! under segment_min_items_per_warp items per warp (items <= n + segments on the host).
template <class Reducer, class Source, class Off>
void enqueue_segments(detail::queue_state& s, const Reducer& red, const Source& src, std::uint64_t n, const Off* offsets,
                      std::uint64_t segments, typename Reducer::result_type* out, std::uint64_t out_stride, options o) {
  using Acc = typename Reducer::acc_type;
  device_status* status = s.status_slot_for_call();
  const std::uint64_t items = n + segments;
  const offset_reader reader{offsets, sizeof(Off) == 8};

  // Small inputs: a warp or a block a segment, longer ones in pieces (two slots a piece warp),
  // in blocks of BT threads, for inputs of at most most_elements_constant's value elements (at
  // most 31 segments longer than a block's elements); false where the slots are too few.
  const auto short_segments = [&](auto block_threads_constant, auto most_elements_constant) {
    constexpr int BT = decltype(block_threads_constant)::value;
    constexpr unsigned warps = BT / warp_threads;
    constexpr std::uint64_t chunk = std::uint64_t(warp_threads) * short_segment_lane_items;
    constexpr std::uint64_t block_chunk = std::uint64_t(BT) * short_segment_lane_items;
    static_assert(decltype(most_elements_constant)::value < warp_threads * (block_chunk + 1),
                  "at most 31 segments longer than a block's elements: a lane of a warp for each");
    // No segment is longer than a block's elements where n is not: then no piece blocks.
    const std::uint64_t piece_warps = n > block_chunk ? ((n + chunk - 1) / chunk + warps - 1) / warps * warps : 0;
    if (2 * piece_warps > s.whole_grid_cap) return false;
    const unsigned segment_blocks = unsigned((segments + warps - 1) / warps);
    Acc* pieces = static_cast<Acc*>(s.scratch(2 * piece_warps * sizeof(Acc)));
    constexpr auto kernel = reduce_short_segments_kernel<BT, short_segment_lane_items, Reducer, Source>;
    launch(s, kernel, segment_blocks + unsigned(piece_warps / warps), BT, "reduce_segments: launch", red, src, reader, std::uint32_t(n),
           std::uint32_t(segments), segment_blocks, pieces, s.partial_slots, s.control, status, out, out_stride, o.warp);
    return true;
  };
  if (segments < small_segment_offsets && n <= short_segment_max_elements &&
      (n <= short_segment_narrow_elements
           ? short_segments(std::integral_constant<int, short_segment_block_threads>{},
                            std::integral_constant<std::uint64_t, short_segment_narrow_elements>{})
           : short_segments(std::integral_constant<int, short_segment_wide_block_threads>{},
                            std::integral_constant<std::uint64_t, short_segment_max_elements>{})))
    return;
  // The small kernel at `per` units a thread: launched where the input fits its blocks.
  const auto small = [&](auto items_per_thread) {
    constexpr int per = decltype(items_per_thread)::value;
    constexpr std::uint64_t block_items = std::uint64_t(block_threads) * per;
    if (items > small_segment_blocks * block_items) return false;
    const unsigned grid = unsigned((items + block_items - 1) / block_items);
    if (grid > s.whole_grid_cap) return false;  // more blocks than the queue has slots
    Acc* pieces = static_cast<Acc*>(s.scratch(grid * sizeof(Acc)));
    constexpr auto kernel = reduce_segments_small_kernel<block_threads, per, Reducer, Source>;
    launch(s, kernel, grid, block_threads, "reduce_segments: launch", red, src, reader, n, segments, pieces, s.partial_slots, s.control,
           status, out, out_stride, o.warp);
    return true;
  };
  // As many blocks as fit at half of small_segment_items units a thread (the input takes more
  // than one block here: the join between blocks is paid either way, and each thread's chain of
  // loads and folds is half as long), then the same at small_segment_items, then at twice as many.
  using half_items = std::integral_constant<int, small_segment_items / 2>;
  using items_a_thread = std::integral_constant<int, small_segment_items>;
  using twice_items = std::integral_constant<int, 2 * small_segment_items>;
  if (segments < small_segment_offsets && (small(half_items{}) || small(items_a_thread{}) || small(twice_items{}))) return;

  with_loadable(src, [&](const auto& source) {
    constexpr auto kernel = reduce_segments_kernel<block_threads, Reducer, std::decay_t<decltype(source)>>;
    const std::uint64_t wave = one_wave_blocks<kernel, block_threads>(s.sm_count);
    const std::uint64_t block_items = segment_min_items_per_warp * (block_threads / warp_threads);
    const std::uint64_t wanted = (items + block_items - 1) / block_items;
    const unsigned grid = unsigned(wanted < wave ? wanted : wave);
    const std::uint64_t warps = std::uint64_t(grid) * (block_threads / warp_threads);
    // The pieces, then the warps' starts: 2 * warps accumulators end on a multiple of 8 bytes
    // (warps is a multiple of 4), where the 8-byte starts may begin.
    static_assert(block_threads / warp_threads % 4 == 0, "starts follow the pieces 8-byte aligned");
    Acc* pieces = static_cast<Acc*>(s.scratch(2 * warps * sizeof(Acc) + (warps + 1) * sizeof(std::uint64_t)));
    std::uint64_t* starts = reinterpret_cast<std::uint64_t*>(pieces + 2 * warps);
    unsigned* counters = s.zeroed_counters(warps);
    // A grid of many waves (grid_for's), each thread's offsets loaded at once (evidence beside
    // segment_check_offsets_in_flight), and at least a warp for each search (warps + 1 of them).
    // grid_for's grid alone (24 blocks at 2^18, 90 at 2^20) had a warp run up to six searches one
    // after another: preduce-bench's heavy-tailed sums at 2^18 / 2^20 took 11.1 / 12.8 us at git
    // f37e5cd and 14.0 / 15.5 at df25fd0 (argmax 12.4 / 18.1 -> 15.3 / 21.2; H200). Probe of
    // 2026-11-27 (H200, the library's segment path, heavy-tailed f32, a graph of 8 calls, us a
    // call, plus / argmax; f37e5cd's kernels, df25fd0's, this): 2^18 9.66-9.77 / 11.12-11.19,
    // 13.44 / 14.85, 9.99-10.10 / 11.86-12.00; 2^20 11.70-12.01 / 17.18-17.39, 14.38 / 19.92,
    // 11.46-11.57 / 17.14-17.27; 2^22 15.65 / 20.58, 15.78 / 19.53, 15.17 / 18.96. At 2^18 the
    // merge path also letting the next grid launch at its start (as before df25fd0) left it at
    // 10.18-10.21 / 12.02-12.04.
    const unsigned check_for = grid_for(s.sm_count, s.cc_major, segments + 1, block_threads);
    const unsigned check_grid = check_for > grid ? check_for : grid + 1;
    launch(s, check_and_split_segments_kernel<block_threads, Off>, check_grid, block_threads, "reduce_segments: launching the offset check",
           offsets, std::uint64_t(segments), n, warps, starts, status);
    launch(s, kernel, grid, block_threads, "reduce_segments: launch", red, source, reader, segments, pieces, counters, out, out_stride,
           status, starts, o.warp);
  });
}

}  // namespace backend
}  // namespace preduce
