// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the host side of whole-array reductions: which kernel (whole/reduce_*.cuh) runs
// an array, on how many blocks, and its launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <preduce/execution.hpp>
#include <preduce/portable/study_kernels.hpp>

#include <preduce/backend/launch.cuh>
#include <preduce/backend/queue_state.hpp>
#include <preduce/backend/whole/reduce_binned.cuh>
#include <preduce/backend/whole/reduce_one_block.cuh>
#include <preduce/backend/whole/reduce_partials.cuh>
#include <preduce/backend/whole/reduce_whole.cuh>
#include <preduce/backend/whole/whole_plan.hpp>

namespace preduce {
namespace backend {

//! Enqueues the reduction of src[0..n) on s's stream with the shape `o` asks for (see the
//! fallbacks in execution.hpp; `o` as portable::compiled_options leaves it; an array of one
//! round or less is one block whatever the shape: reduce_one_block_kernel under
//! warp_algorithm::automatic, else two_pass_partials's kernel);
//! writes finalize(result) to d_out. determinism::fast with
//! algorithm::automatic takes single_pass too: it is deterministic and, with the collector, at
//! least as fast as the atomic merge (whose last-block counter costs a second round trip).
template <class Reducer, class Source>
void reduce_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                  typename Reducer::result_type* d_out, options o) {
  using Acc = typename Reducer::acc_type;
  constexpr int B = whole_block_threads;
  device_shape shape = o.algo == algorithm::two_pass ? device_shape::two_pass_partials : device_shape::single_pass;
  if constexpr (has_atomic_merge<Reducer, Acc>()) {
    if (o.det == determinism::fast && o.algo == algorithm::atomic) shape = device_shape::atomic;
  }

  // Vectors, MinBlocks: reduce_whole_kernel's (vectors_in_flight and 1, or the deep arg kernel's).
  auto launch_shape = [&](auto shape_tag, auto vectors_tag, auto min_blocks_tag, const auto& source) {
    constexpr device_shape S = decltype(shape_tag)::value;
    constexpr int V = decltype(vectors_tag)::value, M = decltype(min_blocks_tag)::value;
    using View = std::decay_t<decltype(source)>;
    constexpr auto kernel = reduce_whole_kernel<S, B, V, M, Reducer, View>;
    const std::uint64_t head = vector_head(source, n), round = whole_block_elements(elements_per_vector<View>(), V);
    const unsigned split = whole_split<Reducer>(n, round, s.sm_count);
    const unsigned grid = whole_grid(s.sm_count, resident_blocks_per_sm<kernel, B>(), n, round, split);
    Acc* partials = nullptr;
    if (grid > 1 && (S == device_shape::two_pass_partials || !publishes_words<Acc>())) partials = static_cast<Acc*>(s.scratch(grid * sizeof(Acc)));
    launch(s, kernel, grid, B, "reduce: launching the reduction kernel", red, source, n, head, partials, s.partial_slots, s.control,
           d_out, o.warp);
    if constexpr (S == device_shape::two_pass_partials) {
      if (grid > 1) launch(s, reduce_partials_kernel<B, Reducer>, 1, B, "reduce: launching the second pass", red, partials, grid, d_out, o.warp);
    }
  };
  auto run = [&](const auto& source) {
    // An array of at most one round is one block (whole_one_block), which every shape reduces
    // alike: fold, block reduction, result written. Under `automatic` reduce_one_block_kernel
    // does it; other warp algorithms take two_pass_partials's kernel, which has the least code
    // of the three shapes (no collector, no atomic merge) and is faster.
    // Evidence: i32 maximum 2^12 1.51 -> 1.33 us against single_pass's (docs/tuning/whole.md#reduce_whole).
    using View = std::decay_t<decltype(source)>;
    const bool one_block = whole_one_block(n, whole_block_elements(elements_per_vector<View>()));
    if (one_block && o.warp == warp_algorithm::automatic) {
      constexpr bool vectorized = chunk_loader<View>::vectorized;
      constexpr std::uint64_t per_round = whole_stripe_elements(elements_per_vector<View>(), loads_per_vector<View>());
      constexpr int most_rounds = int((whole_block_elements(elements_per_vector<View>()) + per_round - 1) / per_round);
      const std::uint64_t head = vector_head(source, n);
      const bool whole_vectors = vectorized && head == 0 && n % elements_per_vector<View>() == 0;
      using Src = std::decay_t<decltype(source)>;
      const auto kernel = n > per_round ? reduce_one_block_kernel<B, most_rounds, false, Reducer, Src>
                          : whole_vectors ? reduce_one_block_kernel<B, 1, vectorized, Reducer, Src>
                                          : reduce_one_block_kernel<B, 1, false, Reducer, Src>;
      launch(s, kernel, 1, B, "reduce: launching the reduction kernel", red, source, n, head, d_out);
      return;
    }
    using shape_t = std::integral_constant<device_shape, device_shape::single_pass>;
    using plain_vectors = std::integral_constant<int, vectors_in_flight>;
    using plain_blocks = std::integral_constant<int, 1>;
    if constexpr (detail::has_value_reducer<Reducer>::value && sizeof(typename View::value_type) <= 4) {
      // Arg reducers between one wave's round and a few deep waves' rounds: the deep arg kernel
      // (whole_deep_arg), under algorithm::automatic. 8-byte values keep the 4-vector kernel:
      // the deep one was within 1% of it for f64 and spills 20 bytes.
      using deep_vectors = std::integral_constant<int, deep_arg_vectors>;
      using deep_blocks = std::integral_constant<int, deep_arg_blocks_per_sm>;
      constexpr auto plain = reduce_whole_kernel<device_shape::single_pass, B, vectors_in_flight, 1, Reducer, View>;
      constexpr auto deep = reduce_whole_kernel<device_shape::single_pass, B, deep_arg_vectors, deep_arg_blocks_per_sm, Reducer, View>;
      if (!one_block && o.algo == algorithm::automatic && shape == device_shape::single_pass &&
          whole_deep_arg(n, elements_per_vector<View>(), s.sm_count, resident_blocks_per_sm<plain, B>(), resident_blocks_per_sm<deep, B>()))
        return launch_shape(shape_t{}, deep_vectors{}, deep_blocks{}, source);
    }
    if constexpr (portable::study_kernels) {  // else o.warp is automatic (one blocks went above) and o.algo never two_pass
      if (one_block || shape == device_shape::two_pass_partials)
        return launch_shape(std::integral_constant<device_shape, device_shape::two_pass_partials>{}, plain_vectors{}, plain_blocks{}, source);
    }
    if constexpr (has_atomic_merge<Reducer, Acc>()) {
      if (shape == device_shape::atomic)
        return launch_shape(std::integral_constant<device_shape, device_shape::atomic>{}, plain_vectors{}, plain_blocks{}, source);
    }
    launch_shape(shape_t{}, plain_vectors{}, plain_blocks{}, source);
  };
  with_loadable(src, run);
}

//! Enqueues the binned reduction of src[0..n) on s's stream; writes finalize(result) to d_out.
//! algorithm::two_pass stores partials and finishes in reduce_partials_kernel; every other
//! choice is the single-pass kernel (a binned sum has no atomic form).
template <class Reducer, class Source>
void reduce_whole_binned(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                         typename Reducer::result_type* d_out, options o) {
  using Acc = typename Reducer::acc_type;
  const bool two_pass = o.algo == algorithm::two_pass;
  unsigned grid = 1;
  Acc* partials = nullptr;
  with_loadable(src, [&](const auto& source) {
    using View = std::decay_t<decltype(source)>;
    const std::uint64_t head = vector_head(source, n), per_block = std::uint64_t(block_threads) * vectors_in_flight * elements_per_vector<View>();
    const std::uint64_t needed = (n + per_block - 1) / per_block;
    const std::uint64_t resident = std::uint64_t(s.sm_count) * binned_blocks_per_sm<Acc>();
    grid = unsigned(needed < 1 ? 1 : (needed < resident ? needed : resident));
    partials = grid > 1 ? static_cast<Acc*>(s.scratch(grid * sizeof(Acc))) : nullptr;
    using Src = std::decay_t<decltype(source)>;
    auto kernel = reduce_binned_kernel<false, block_threads, Reducer, Src>;
    if constexpr (portable::study_kernels) {
      if (two_pass) kernel = reduce_binned_kernel<true, block_threads, Reducer, Src>;
    }
    launch(s, kernel, grid, block_threads, "reduce: launching the binned reduction kernel", red, source, n, head, partials,
           &s.control->blocks_done, d_out);
  });
  if constexpr (portable::study_kernels) {
    if (two_pass && grid > 1)
      launch(s, reduce_partials_kernel<block_threads, Reducer>, 1, block_threads, "reduce: launching the second pass", red, partials, grid,
             d_out, warp_algorithm::shuffle);
  }
}

//! Enqueues the reduction of src[0..n) on s's stream: the binned kernel for the reproducible
//! values and partials, reduce_whole for every other reducer.
template <class Reducer, class Source>
void enqueue_whole(detail::queue_state& s, const Reducer& red, const Source& src, std::size_t n,
                   typename Reducer::result_type* d_out, options o) {
  if constexpr (is_binned_reducer<Reducer>::value) reduce_whole_binned(s, red, src, n, d_out, o);
  else reduce_whole(s, red, src, n, d_out, o);
}

}  // namespace backend
}  // namespace preduce
