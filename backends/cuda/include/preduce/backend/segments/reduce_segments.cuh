// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the merge-path kernel for segments (reduce_segments_kernel), with its folds of
// staged segments and the join of a segment cut among warps.
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

#include <cstdint>

#include <preduce/detail/reducer.hpp>

#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/subwarp_reduce.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>
#include <preduce/backend/warp/warp_slice.cuh>
#include <preduce/backend/warp/warp_stage.cuh>

namespace preduce {
namespace backend {

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
//! the 64-bit accumulator's fold took a third for the index's high word. A test of NaN only in
//! the element, with a search for the first NaN where the best is one, was slower
//! (docs/tuning/segments.md#fold_staged_run).
//! Evidence: H200 heavy-tailed argmax at 2^28, 365.4-366.1 -> 353.0-353.7 us.
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
  // call's check_and_split_segments_kernel, equal segments of 3000 elements ran up to 38%
  // slower; why was not measured.
  // Evidence: f32 argmax, segments of 3000 at 2^28, 381.7 -> 276.2 us (docs/tuning/segments.md#reduce_segments_kernel).
  wait_for_prior_grid();
  w = portable::compiled_warp(w);
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

}  // namespace backend
}  // namespace preduce
