// SPDX-License-Identifier: Apache-2.0
// preduce hip: wavefront-level reduction two ways, both driven by the step tables of
// portable/wave_steps.hpp (which the host lane model proves; see tests/lane_model_tests.cpp):
//   DPP      the move between lanes is a DPP modifier (or permlanex16) that the compiler folds
//            into the operator's ALU instruction (v_add_f32_dpp ...): AMD's twin of the cuda
//            backend's fused PTX shuffle. Full wavefronts, operators with a `fused_op` tag.
//   shuffle  a ds_bpermute (__shfl_down) tree in increasing distances, each lane combining only
//            values read from data lanes: any operator, full or partial wavefronts.
// Kernels are instantiated for wavefronts of 64 and of 32 lanes; the host picks the one that
// matches the device's warpSize at run time, and in each target's compile only the
// instantiation of that target's wavefront size has a body.
#pragma once

#include <hip/hip_runtime.h>

#include <type_traits>

#include <preduce/detail/reducer.hpp>
#include <preduce/execution.hpp>
#include <preduce/portable/study_kernels.hpp>
#include <preduce/portable/wave_steps.hpp>

namespace preduce {
namespace backend {

// The wavefront size and DPP family of the target being compiled (device passes only; the host
// pass compiles no kernel body and sees 0).
#if defined(__HIP_DEVICE_COMPILE__)
constexpr int compiled_wave = __AMDGCN_WAVEFRONT_SIZE;
#else
constexpr int compiled_wave = 0;
#endif
#if defined(__GFX8__) || defined(__GFX9__)
constexpr portable::dpp_family compiled_dpp_family = portable::dpp_family::gfx9;
#else
constexpr portable::dpp_family compiled_dpp_family = portable::dpp_family::gfx10;
#endif

//! Whether the kernels' Wave template argument is this target's wavefront size. Kernels
//! instantiated for the other size compile to a trap: launching one would be a host bug (a wrong
//! warpSize), and a trap surfaces as errc::device_fault instead of a silently wrong reduction.
template <int Wave>
constexpr bool wave_matches = Wave == compiled_wave;

//! Applies move(word) to each 32-bit word of v (any trivially copyable type: narrow types ride
//! in the low bytes of one word, 64-bit ones in two). Every lane must call it (the moves are
//! cross-lane operations). __builtin_memcpy, not std::memcpy: <cstring> included before the HIP
//! headers leaves std::memcpy naming the host function only.
template <class T, class Move>
__device__ __forceinline__ T move_words(const T& v, Move move) {
  static_assert(std::is_trivially_copyable<T>::value, "wavefront-reduced accumulators must be trivially copyable");
  constexpr int words = int((sizeof(T) + 3) / 4);
  unsigned w[words] = {};
  __builtin_memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) w[k] = move(w[k]);
  T out;
  __builtin_memcpy(&out, w, sizeof(T));
  return out;
}

//! The value this lane receives in step K of Sequence (wave_steps.hpp, where each control code
//! is decoded), every word moved with the step's row mask, bank mask and bound_ctrl.
template <class Sequence, int K, int Wave, class T>
__device__ __forceinline__ T exchange(const T& v) {
  using portable::lane_exchange;
  constexpr portable::wave_step S = Sequence::steps[K];
  if constexpr (S.exchange == lane_exchange::dpp) {
    // old = 0: never observed, since every row and bank is written and invalid sources read 0.
    return move_words(v, [](unsigned w) {
      return unsigned(__builtin_amdgcn_update_dpp(0, int(w), S.ctrl, S.row_mask, S.bank_mask, S.bound_ctrl));
    });
  } else if constexpr (S.exchange == lane_exchange::permlane_x16) {
    // Selectors 0x76543210 / 0xfedcba98: lane i of a row reads lane i of the other row of its
    // 32-lane half. fi = false: inactive sources count as invalid (bound_ctrl: read 0).
    return move_words(v, [](unsigned w) {
      return unsigned(__builtin_amdgcn_permlanex16(0, int(w), 0x76543210u, 0xfedcba98u, false, S.bound_ctrl));
    });
  } else {
    return move_words(v, [](unsigned w) { return unsigned(__shfl_down(int(w), S.ctrl, Wave)); });
  }
}

//! Step K of Sequence: exchange, then combine in the step's order.
template <class Sequence, int K, int Wave, class Reducer, class Acc>
__device__ __forceinline__ Acc combine_step(const Reducer& red, const Acc& v) {
  const Acc moved = exchange<Sequence, K, Wave>(v);
  return Sequence::steps[K].order == portable::combine_order::moved_first ? red.combine(moved, v) : red.combine(v, moved);
}

template <class Sequence, int Wave, int... K, class Reducer, class Acc>
__device__ __forceinline__ Acc run_dpp_steps(const Reducer& red, Acc v, std::integer_sequence<int, K...>) {
  ((v = combine_step<Sequence, K, Wave>(red, v)), ...);
  return v;
}

//! The DPP sequence of this target (wave_steps.hpp) over a full wavefront.
//! Requires: all Wave lanes active, each holding a valid accumulator (identity where it has no
//! data); portable::reduces_by_dpp<Reducer>(). Returns the wavefront's result in every lane (read
//! from the sequence's result lane with v_readlane).
template <int Wave, class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce_dpp(const Reducer& red, Acc v) {
  using Sequence = typename portable::dpp_sequence_for<compiled_dpp_family, Wave>::type;
  v = run_dpp_steps<Sequence, Wave>(red, v, std::make_integer_sequence<int, Sequence::count>{});
  return move_words(v, [](unsigned w) { return unsigned(__builtin_amdgcn_readlane(int(w), Sequence::result_lane)); });
}

template <int Wave, int Valid, int... K, class Reducer, class Acc>
__device__ __forceinline__ Acc run_shuffle_steps(const Reducer& red, Acc v, std::integer_sequence<int, K...>) {
  using Sequence = portable::shuffle_sequence<Wave>;
  const int lane = int(__lane_id());
  auto step = [&](auto k) {
    constexpr int k_ = decltype(k)::value;
    constexpr unsigned distance = Sequence::steps[k_].ctrl;
    if constexpr (Sequence::runs(distance, Valid)) {
      const Acc combined = combine_step<Sequence, k_, Wave>(red, v);  // every lane moves: the exchange is wave-wide
      if (Sequence::combines(lane, distance, Valid)) v = combined;
    }
  };
  (step(std::integral_constant<int, K>{}), ...);
  return v;
}

//! The shuffle-down tree (wave_steps.hpp) over the first Valid lanes of a wavefront.
//! Requires: all Wave lanes active (lanes >= Valid may hold anything: their values are never
//! combined into a data lane's). Returns the reduction of lanes 0 .. Valid-1, combined in index
//! order, in lane 0.
template <int Wave, int Valid, class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce_shuffle(const Reducer& red, Acc v) {
  static_assert(Valid >= 1 && Valid <= Wave, "1 .. Wave data lanes");
  return run_shuffle_steps<Wave, Valid>(red, v, std::make_integer_sequence<int, portable::shuffle_sequence<Wave>::count>{});
}

//! The wavefront reduction chosen by `w`: DPP for operators it serves unless `shuffle` is asked
//! for (`fused_shuffle`, `hardware` and `automatic` all take DPP; AMD has no whole-wavefront
//! reduce instruction). Requires: all Wave lanes active, each holding a valid accumulator.
//! Returns the wavefront's result in lane 0 (DPP: in every lane). Without the study variants
//! (portable::compiled_warp) `w` is automatic, so DPP's operators carry no shuffle code.
template <int Wave, class Reducer, class Acc>
__device__ __forceinline__ Acc warp_reduce(const Reducer& red, Acc v, warp_algorithm w) {
  if constexpr (portable::reduces_by_dpp<Reducer>()) {
    if (portable::compiled_warp(w) != warp_algorithm::shuffle) return warp_reduce_dpp<Wave>(red, v);
  }
  return warp_reduce_shuffle<Wave, Wave>(red, v);
}

}  // namespace backend
}  // namespace preduce
