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
//! one before: H200, reduce_segments over the bench's heavy-tailed layouts, f32, a graph of 64
//! calls, us a call, sum / argmax (probe of 2026-11-27; CUB's DeviceSegmentedReduce 1.40 / 1.50 and
//! 1.82 / 2.00 in the same run): 2^10 without overlap 1.59 / 1.70, wait first 1.30 / 1.43, allow
//! first 1.20 / 1.34; 2^12 2.01 / 2.22, 1.73 / 1.95, 1.60 / 1.81; 2^16 2.98 / 3.74, 2.53 / 3.55,
//! 2.51 / 3.52; from 2^18 (10.8 / 12.2 us) the three agree within 0.1 us. At 2^28 the early start
//! made the columns kernel up to 1.3% slower and the segments' merge path up to 38%, and those two
//! wait without it (wait_for_prior_grid).
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
//! blocks exit. For reduce_segments_kernel (its evidence there) and reduce_columns_kernel, which
//! letting the next grid launch at their start made slower on large inputs (why was not
//! measured; the next grid's blocks then wait on the SMs, as many as there is room for, while
//! this one still streams). Columns: f32, 2^28 elements, a graph of 8
//! calls, us a call, three runs of each form interleaved (probes of 2026-11-27), next grid allowed
//! at the start -> as blocks exit. H100: argmax over columns of 32 435.9-437.1 -> 434.3-434.4, of
//! 256 363.4-364.1 -> 363.0-363.4, of 4096 360.2-361.0 -> 357.0-358.0; sums over columns of 4096
//! 350.3-351.0 -> 348.5-348.8, of 32 and 256 within 0.3%. H200 (the two forms): argmax over columns
//! of 4096 252.4-253.7 -> 249.6-251.2, sums 244.1-245.2 -> 240.9-241.7; columns of 32 and 256
//! within 0.3% (argmax of 32: 318.3-320.0 -> 317.8-319.2). The other kernels keep
//! begin_after_prior_grid: in the same H100 runs the whole-array sum was faster with it (342.0
//! against 342.6-343.4), and argmax over rows of 4096 and sums over rows of 32 took the same time
//! either way (within 0.2%); on the H200 all three were within 0.3% either way.
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
