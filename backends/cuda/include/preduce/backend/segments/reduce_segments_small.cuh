// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the one-launch merge path for small inputs (reduce_segments_small_kernel), with
// the segmented scan (run_part, join_runs, shfl_up_run) that joins a segment across its threads.
#pragma once

#include <cstdint>

#include <preduce/portable/segment_offsets.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/block_offset_check.cuh>
#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_combine.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

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
  w = portable::compiled_warp(w);
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
  // __forceinline__ helper for both changed the short kernel's PTX well beyond the call sites
  // (the arg folds' loops laid out anew) with no timing to say it was harmless
  // (docs/tuning/segments.md#reduce_segments_small_kernel).
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

}  // namespace backend
}  // namespace preduce
