// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how the library's kernels are launched, and what each of them does first.
//
// On devices of compute capability 9.0 and up every kernel is launched with programmatic stream
// serialization (programmatic dependent launch): the next kernel on the queue's stream may be
// launched while this one runs, and its blocks then wait (begin_after_prior_grid) until this grid
// has finished and its writes are visible. So a kernel's launch (the grid's setup, its blocks'
// placement, their parameters) overlaps the kernel before it instead of following it: back-to-back
// calls on one stream, as in a pipeline or a CUDA graph, lose most of the gap between kernels. A
// kernel whose predecessor is not a kernel (a copy, a memset, an event wait) starts after it as
// usual.
//
// The rule every kernel launched this way keeps: begin_after_prior_grid (or wait_for_prior_grid,
// which does not let the next grid launch early) comes before its first access to global memory,
// reads and writes alike (what it reads may be written by the kernel before it, and what it
// writes may still be read there).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/queue_state.hpp>

namespace preduce {
namespace backend {

//! What every kernel launched by launch() does first, before its first access to global memory:
//! lets the next kernel on the stream be launched (once every block of this grid has done so or
//! exited), then waits until the grid before it has finished and its writes are visible. Both are
//! no-ops for an ordinary launch and on devices before compute capability 9.0. Letting the next
//! grid launch before the wait, not after it, starts its launch while this grid still waits for the
//! one before: faster on small inputs, the same from 2^18 elements up. At 2^28 the early start made
//! the columns kernel and the segments' merge path slower, and those two wait without it
//! (wait_for_prior_grid; docs/tuning/building-blocks.md#begin_after_prior_grid).
//! Evidence: H200 segment sums at 2^10, no overlap 1.59 us, wait first 1.30, launch first 1.20.
//! No grid waits on one launched after it, and the next grid launches only once all of this one's
//! blocks have started, so the blocks waiting here never hold a place a block of an earlier grid
//! still needs.
__device__ __forceinline__ void begin_after_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! begin_after_prior_grid without letting the next grid launch early: that happens as this grid's
//! blocks exit. For reduce_segments_kernel and reduce_columns_kernel, which letting the next grid
//! launch at their start made slower on large inputs (why was not measured; the next grid's
//! blocks then wait on the SMs, as many as there is room for, while this one still streams). The
//! other kernels keep begin_after_prior_grid: with it they were as fast or faster
//! (docs/tuning/building-blocks.md#wait_for_prior_grid).
//! Evidence: H200 argmax over columns of 4096 at 2^28, 252.4-253.7 -> 249.6-251.2 us.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

//! Enqueues kernel<<<grid, block, 0, s.stream>>>(args...), launched to overlap the kernel before
//! it where s.overlaps_prior_grid says it may; the kernel keeps this file's rule. Throws
//! preduce::error (`what`) when the launch fails.
template <class... Params, class... Args>
void launch(detail::queue_state& s, void (*kernel)(Params...), unsigned grid, unsigned block, const char* what, Args&&... args) {
  cudaLaunchAttribute overlap[1] = {};
  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap[0].val.programmaticStreamSerializationAllowed = s.overlaps_prior_grid(reinterpret_cast<const void*>(kernel)) ? 1 : 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = 0;
  config.stream = s.stream;
  config.attrs = overlap;
  config.numAttrs = 1;
  check_gpu(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), what);
}

//! Blocks of `Kernel` launched with BlockThreads threads that one SM holds at once (registers and
//! shared memory permitting), asked of the runtime once per kernel. Assumes one GPU model per
//! process; on another it only shapes the grid less well.
template <auto Kernel, int BlockThreads>
int resident_blocks_per_sm() {
  static const int blocks = [] {
    int b = 0;
    check_gpu(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, Kernel, BlockThreads, 0), "reduce: querying occupancy");
    return b;
  }();
  return blocks;
}

//! Blocks of `Kernel` (BlockThreads threads) that one wave holds: every SM's resident blocks,
//! counting one where the occupancy query says none fit.
template <auto Kernel, int BlockThreads>
std::uint64_t one_wave_blocks(int sm_count) {
  const int per_sm = resident_blocks_per_sm<Kernel, BlockThreads>();
  return std::uint64_t(sm_count) * std::uint64_t(per_sm > 0 ? per_sm : 1);
}

}  // namespace backend
}  // namespace preduce
