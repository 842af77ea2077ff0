// SPDX-License-Identifier: Apache-2.0
// preduce hip: the host side of whole-array reductions: which shape of the whole-array kernel
// (whole/reduce_whole.hpp) runs an array, on how many blocks, and its launches (with the second
// pass of two_pass, whole/reduce_partials.hpp).
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/execution.hpp>

#include <preduce/portable/gpu_check.hpp>
#include <preduce/backend/launch.hpp>
#include <preduce/backend/queue_state.hpp>
#include <preduce/portable/study_kernels.hpp>
#include <preduce/backend/thread/thread_load.hpp>
#include <preduce/backend/tuning.hpp>
#include <preduce/backend/whole/reduce_partials.hpp>
#include <preduce/backend/whole/reduce_whole.hpp>

namespace preduce {
namespace backend {

//! Enqueues the reduction of src[0..n) on s's stream with the shape `o` asks for (see the
//! fallbacks in execution.hpp); writes finalize(result) to d_out.
template <class Reducer, class Source>
void enqueue_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                   typename Reducer::result_type* d_out, options o) {
  using Acc = typename Reducer::acc_type;
  using L = chunk_loader<Source>;
  // The vector path needs a source whose arrays share one alignment; otherwise the scalar path.
  bool vectorized = false;
  if constexpr (L::vectorized) vectorized = L::usable(src);
  std::uint64_t head = 0, per_block = std::uint64_t(block_threads) * vectors_in_flight;
  if constexpr (L::vectorized) {
    if (vectorized) {
      head = vector_head(src, n);
      per_block *= L::width;
    }
  }
  const unsigned grid = grid_for(s.cu_count, n, per_block);

  device_shape shape = device_shape::single_pass;
  if (o.algo == algorithm::two_pass) shape = device_shape::two_pass_partials;
  if constexpr (has_atomic_merge<Reducer, Acc>()) {
    if (o.det == determinism::fast && (o.algo == algorithm::atomic || o.algo == algorithm::automatic)) shape = device_shape::atomic;
  }

  unsigned* blocks_done = &s.control->blocks_done;
  Acc* partials = shape == device_shape::atomic ? reinterpret_cast<Acc*>(s.control->atomic_slot)
                  : grid > 1                    ? static_cast<Acc*>(s.scratch(grid * sizeof(Acc)))
                                                : nullptr;
  with_wave(s, [&](auto wave) {
    constexpr int W = decltype(wave)::value;
    auto launch = [&](auto shape_tag, const auto& source) {
      constexpr device_shape S = decltype(shape_tag)::value;
      reduce_whole_kernel<S, W, block_threads><<<grid, block_threads, 0, s.stream>>>(red, source, n, head, partials, blocks_done, d_out, o.warp);
    };
    auto run = [&](const auto& source) {
      switch (shape) {
        case device_shape::single_pass: launch(std::integral_constant<device_shape, device_shape::single_pass>{}, source); break;
        case device_shape::two_pass_partials:  // algorithm::two_pass, a study variant (compiled_options)
          if constexpr (portable::study_kernels) launch(std::integral_constant<device_shape, device_shape::two_pass_partials>{}, source);
          break;
        case device_shape::atomic:
          if constexpr (has_atomic_merge<Reducer, Acc>()) launch(std::integral_constant<device_shape, device_shape::atomic>{}, source);
          break;
      }
    };
    if constexpr (L::vectorized && !L::always_usable) {
      if (!vectorized) run(portable::scalar_view<Source>{src});
      else run(src);
    } else {
      run(src);
    }
    check_gpu(hipGetLastError(), "reduce: launching the reduction kernel");
    if constexpr (portable::study_kernels) {
      if (shape == device_shape::two_pass_partials && grid > 1) {
        reduce_partials_kernel<W, block_threads><<<1, block_threads, 0, s.stream>>>(red, partials, grid, d_out, o.warp);
        check_gpu(hipGetLastError(), "reduce: launching the second pass");
      }
    }
  });
}

}  // namespace backend
}  // namespace preduce
