// SPDX-License-Identifier: Apache-2.0
// preduce cuda: how the whole-array kernel's launches are planned from the tuning table
// (tuning.hpp): rounds, grids, splits.
#pragma once

#include <cstdint>

#include <preduce/config.hpp>
#include <preduce/detail/reducer.hpp>

#include <preduce/backend/tuning.hpp>

namespace preduce {
namespace backend {

//! Elements one block of the whole-array kernel takes per round (whole_grid's `round`): every
//! thread's `vectors` vectors (vectors_in_flight, or deep_arg_vectors for the deep arg kernel) of
//! `elements_per_vector` elements.
constexpr std::uint64_t whole_block_elements(std::uint64_t elements_per_vector, int vectors = vectors_in_flight) {
  return std::uint64_t(whole_block_threads) * std::uint64_t(vectors) * elements_per_vector;
}

//! Blocks per SM a whole-array grid uses (its wave): `resident_per_sm` (the kernel's occupancy),
//! at least 1 and at most whole_blocks_per_sm.
inline std::uint64_t whole_wave_blocks_per_sm(int resident_per_sm) {
  return std::uint64_t(resident_per_sm < 1 ? 1 : (resident_per_sm < whole_blocks_per_sm ? resident_per_sm : whole_blocks_per_sm));
}

//! Whether an arg reducer over n elements takes the deep arg kernel: n is longer than one wave's
//! round of the 4-vector kernel (whole_grid's wave, from `per_sm` resident blocks on each of
//! sm_count SMs) and at most deep_arg_max_rounds waves' rounds of the deep kernel (from
//! `deep_per_sm`).
inline bool whole_deep_arg(std::uint64_t n, std::uint64_t elements_per_vector, int sm_count, int per_sm, int deep_per_sm) {
  const std::uint64_t wave = std::uint64_t(sm_count) * whole_wave_blocks_per_sm(per_sm) * whole_block_elements(elements_per_vector);
  const std::uint64_t deep_wave =
      std::uint64_t(sm_count) * whole_wave_blocks_per_sm(deep_per_sm) * whole_block_elements(elements_per_vector, deep_arg_vectors);
  return n > wave && n <= deep_arg_max_rounds * deep_wave;
}

//! Element vectors a thread reads in one stripe round of `loads` 16-byte loads when each element
//! vector takes loads_per_vector of them (a dot's: one of x, one of y): at least one.
PREDUCE_HD constexpr int vectors_per_round(int loads, int loads_per_vector) {
  return loads / loads_per_vector > 0 ? loads / loads_per_vector : 1;
}

//! Elements one block of the whole-array kernel folds in one stripe round (the one-block
//! kernel's Rounds count these): every thread's vectors_in_flight loads, read as
//! vectors_per_round element vectors of `elements_per_vector` elements. A whole round
//! (whole_block_elements) is one stripe round, or two for a dot.
constexpr std::uint64_t whole_stripe_elements(std::uint64_t elements_per_vector, int loads_per_vector) {
  return std::uint64_t(whole_block_threads) * std::uint64_t(vectors_per_round(vectors_in_flight, loads_per_vector)) * elements_per_vector;
}

//! Whether n elements are one block of the whole-array kernel: no more than one round.
constexpr bool whole_one_block(std::uint64_t n, std::uint64_t round) { return n <= round; }

//! Most blocks a whole-array launch uses on a device (the size of its partial slots).
inline unsigned whole_grid_cap(int sm_count, int /*cc_major*/) { return unsigned(sm_count) * whole_blocks_per_sm; }

//! The split whole_grid takes for Reducer over n elements, `round` elements a block's round, on
//! sm_count SMs: for arg reducers whole_arg_split while the split grid has at most
//! whole_warp_collector_blocks blocks; for min and max over 8-byte values 2 while it has at most
//! one block per SM; otherwise 1.
template <class Reducer>
constexpr unsigned whole_split(std::uint64_t n, std::uint64_t round, int sm_count) {
  const std::uint64_t blocks = (n + round - 1) / round;
  if constexpr (detail::has_value_reducer<Reducer>::value) {
    return whole_arg_split * blocks <= whole_warp_collector_blocks ? whole_arg_split : 1;
  } else if constexpr (detail::is_extreme_reducer<Reducer>::value && sizeof(typename Reducer::acc_type) == 8) {
    return 2 * blocks <= std::uint64_t(sm_count) ? 2 : 1;
  } else {
    return 1;
  }
}

//! Blocks of the whole-array kernel for n elements, `round` elements being one block's round
//! (whole_block_elements): one block while n fits in one round (whole_one_block), otherwise one
//! block per round / split elements; capped at one wave, whole_blocks_per_sm or, if fewer fit
//! (registers), `resident_per_sm` blocks per SM, so every block runs at once and none waits for a
//! second wave. Requires: split divides round.
inline unsigned whole_grid(int sm_count, int resident_per_sm, std::uint64_t n, std::uint64_t round, unsigned split) {
  const std::uint64_t per_block = round / split, cap = std::uint64_t(sm_count) * whole_wave_blocks_per_sm(resident_per_sm);
  const std::uint64_t needed = whole_one_block(n, round) ? 1 : (n + per_block - 1) / per_block;
  return unsigned(needed < cap ? needed : cap);
}

}  // namespace backend
}  // namespace preduce
