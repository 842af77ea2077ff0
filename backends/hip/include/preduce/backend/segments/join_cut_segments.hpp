// SPDX-License-Identifier: Apache-2.0
// preduce hip: the kernel that finishes the segments the merge-path parts cut
// (reduce_segment_parts.hpp): each cut segment's pieces joined in order.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include <preduce/portable/merge_path.hpp>
#include <preduce/types.hpp>

#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! The cut segments after reduce_segment_parts_kernel, a thread a part (any grid): where cut[p]
//! names segment s, out[s * out_stride] = finalize(its pieces joined in order). Writes nothing
//! if the status is raised.
template <class Reducer, class Off>
__global__ void join_cut_segments_kernel(Reducer red, portable::merge_path<Off> path, std::uint64_t parts,
                                         const typename Reducer::acc_type* pieces, const std::uint64_t* cut,
                                         typename Reducer::result_type* out, std::uint64_t out_stride, const device_status* status) {
  if (status->code != 0) return;
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t p = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < parts; p += step) {
    const std::uint64_t seg = cut[p];
    if (seg != npos) out[seg * out_stride] = red.finalize(path.join_cut(red, pieces, p, seg));
  }
}

}  // namespace backend
}  // namespace preduce
