// SPDX-License-Identifier: Apache-2.0
// preduce hip: the segments kernel: variable segments given by offsets, cut into merge-path
// parts of equal work (a block a part), so a huge segment among many tiny ones is shared by many
// blocks; join_cut_segments.hpp finishes the segments it cuts. Untuned: the cuda backend's tuned
// segments family is not ported.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/portable/merge_path.hpp>
#include <preduce/types.hpp>

#include <preduce/backend/block/block_reduce.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/warp/warp_reduce.hpp>

namespace preduce {
namespace backend {

//! The merge-path parts of segments (portable/merge_path.hpp), a block a part (grid-strided
//! over parts), so a huge segment among many tiny ones is shared by many blocks. Requires:
//! blockDim.x == BlockThreads; Wave == the device's wavefront size; check_offsets_kernel
//! enqueued before it; pieces holds 2 * parts accumulators and cut parts entries. Writes nothing
//! if the status is raised; otherwise, for part p: out[s * out_stride] = finalize(reduction of
//! segment s) for its complete segments (a thread a segment), pieces[2p] its cut-in piece and
//! pieces[2p + 1] its cut-out piece (block reductions), cut[p] the cut-out segment or npos.
//! Arg index = position within the segment. join_cut_segments_kernel finishes the cut segments.
template <int Wave, int BlockThreads, class Reducer, class Source, class Off>
__global__ void __launch_bounds__(BlockThreads)
    reduce_segment_parts_kernel(Reducer red, Source src, portable::merge_path<Off> path, std::uint64_t parts,
                                typename Reducer::result_type* out, std::uint64_t out_stride, typename Reducer::acc_type* pieces,
                                std::uint64_t* cut, const device_status* status, warp_algorithm w) {
  if constexpr (!wave_matches<Wave>) {
    __builtin_trap();
  } else {
    using Acc = typename Reducer::acc_type;
    __shared__ block_reduce_storage<Acc, Wave, BlockThreads> smem;
    if (status->code != 0) return;
    // src[first + j], j < count, lifted with index0 + j, reduced by the whole block (thread 0's).
    auto block_fold = [&](std::uint64_t first, std::uint64_t count, std::uint64_t index0) {
      Acc a = red.identity();
      for (std::uint64_t j = threadIdx.x; j < count; j += BlockThreads) a = red.combine(a, red.lift(src[first + j], index0 + j));
      a = block_reduce<Wave, BlockThreads>(red, a, smem, w);
      __syncthreads();  // smem is reused by the next fold
      return a;
    };
    for (std::uint64_t p = blockIdx.x; p < parts; p += gridDim.x) {
      const auto r = path.of(p);
      if (r.empty) {
        if (threadIdx.x == 0) cut[p] = npos;
        continue;
      }
      if (r.cut_in) {
        const Acc a = block_fold(r.e0, r.cut_in_end - r.e0, r.e0 - path.off(r.s0));
        if (threadIdx.x == 0) pieces[2 * p] = a;
      }
      for (std::uint64_t seg = r.complete_begin + threadIdx.x; seg < r.complete_end; seg += BlockThreads) {
        const std::uint64_t begin = path.off(seg), end = path.off(seg + 1);
        Acc a = red.identity();
        for (std::uint64_t i = begin; i < end; ++i) a = red.combine(a, red.lift(src[i], i - begin));
        out[seg * out_stride] = red.finalize(a);
      }
      if (r.cut_out) {
        const std::uint64_t begin = path.off(r.s1);
        const Acc a = block_fold(begin, r.e1 - begin, 0);
        if (threadIdx.x == 0) {
          pieces[2 * p + 1] = a;
          cut[p] = r.s1;
        }
      } else if (threadIdx.x == 0) {
        cut[p] = npos;
      }
    }
  }
}

}  // namespace backend
}  // namespace preduce
