// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the host side of the segmented reductions (enqueue_segments): one result per
// variable segment [offsets[i], offsets[i+1]). Two launches: the offsets are checked on the
// device (the same kernel finds where each warp of the next one starts), then one merge-path
// kernel reduces every segment. Small inputs (a few thousand segments, about 10^5 elements)
// take one launch instead, which checks the offsets itself: there the time is the chain of
// dependent round trips, not the bandwidth.
// Up to 2^16 elements a warp or a block takes each segment (reduce_short_segments_kernel: two
// round trips, offsets then elements, where the segments fit; blocks of 256 threads to 2^14
// elements, of 512 above); above, one merge path over the blocks
// (reduce_segments_small_kernel). The kernels are a file each beside this one:
// check_and_split_segments.cuh, reduce_segments.cuh (the merge path, described there),
// reduce_short_segments.cuh and reduce_segments_small.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/execution.hpp>

#include <preduce/backend/batched_plan.hpp>
#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/segments/check_and_split_segments.cuh>
#include <preduce/backend/segments/offset_search.cuh>
#include <preduce/backend/segments/reduce_segments.cuh>
#include <preduce/backend/segments/reduce_segments_small.cuh>
#include <preduce/backend/segments/reduce_short_segments.cuh>
#include <preduce/backend/thread/thread_load.cuh>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/warp/warp_reduce.cuh>

namespace preduce {
namespace backend {

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
    // segment_check_offsets_in_flight), and at least a warp for each search (warps + 1 of them):
    // grid_for's grid alone (24 blocks at 2^18, 90 at 2^20) had a warp run up to six searches one
    // after another.
    // Evidence: heavy-tailed sums at 2^18 13.44 -> 9.99-10.10 us (docs/tuning/segments.md#enqueue_segments).
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
