// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the one-launch path for short segments of small inputs
// (reduce_short_segments_kernel): a warp or a block a segment, longer ones in pieces joined in
// order (join_piece_in_order).
#pragma once

#include <cstdint>

#include <preduce/detail/reducer.hpp>
#include <preduce/portable/segment_offsets.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/block/partial_publication.cuh>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/block_offset_check.cuh>
#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/thread/store_result.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

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
  w = portable::compiled_warp(w);
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
    // operation (a fused_op tag) is predicated over all LaneItems slots (for sums leaving early
    // was slower); a longer one (arg, minmax, moments, ...) leaves the loop at the lane's first
    // slot past the segment. Leaving the element loads' loop too was no faster.
    // Evidence: H100 f32 argmax at 2^15, 3.62 -> 3.31 us (docs/tuning/segments.md#fold_strided).
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

}  // namespace backend
}  // namespace preduce
