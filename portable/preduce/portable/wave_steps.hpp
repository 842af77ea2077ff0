// SPDX-License-Identifier: Apache-2.0
// preduce: the lane-exchange sequences of the AMD wavefront reductions, as data. The hip
// backend's warp/warp_reduce.hpp runs these tables step by step on the device, and
// testing/lane_model.hpp runs the very same tables on the host (tests/lane_model_tests.cpp), so
// what is proved on the host is what the device executes: neither side has its own copy of a
// sequence.
//
// A step moves one value per lane (lane l receives the value of the lane the step names for it)
// and combines it with the lane's own value. Vendor-neutral: no HIP header, only numbers.
#pragma once

#include <type_traits>

#include <preduce/detail/reducer.hpp>

namespace preduce {
namespace portable {

//! How a step moves values between lanes.
enum class lane_exchange : unsigned char {
  //! DPP (data-parallel primitives) modifier on a VALU instruction, GFX8+: lane l reads the lane
  //! that `ctrl` names within l's row of 16 lanes (or, for row_bcast, the row before); written as
  //! __builtin_amdgcn_update_dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl), which the
  //! compiler folds into the next ALU operation (v_add_f32_dpp and friends).
  dpp,
  //! v_permlanex16_b32 (GFX10+): lane l reads lane `l ^ 16`: the same position in the other row
  //! of its 32-lane half (selectors 0x76543210 / 0xfedcba98 keep the position).
  permlane_x16,
  //! ds_bpermute (__shfl_down): lane l reads lane l + ctrl, or its own value when l + ctrl is
  //! past the wave. Used for partial wavefronts: a lane combines only when l + ctrl holds data.
  shuffle_down,
};

//! Which side of combine() the received value goes: the DPP form puts the moved operand first
//! (src0 of the fused VALU op); the shuffle-down tree keeps the lower lane first, so lane 0
//! combines its lanes in index order.
enum class combine_order : unsigned char { moved_first, own_first };

//! One step of a sequence. row_mask, bank_mask and bound_ctrl matter only for dpp and
//! permlane_x16 (bound_ctrl) and follow the hardware's meaning:
//!   row_mask  bit r set: lanes of row r (16r .. 16r + 15) are written; clear: they keep `old`
//!   bank_mask bit b set: lanes 4b .. 4b + 3 of every row are written; clear: they keep `old`
//!   bound_ctrl true: a lane whose source is invalid (outside the row, missing row, inactive
//!             lane) reads 0; false: such a lane is not written and keeps `old`
struct wave_step {
  lane_exchange exchange;
  unsigned ctrl;       //!< dpp: the dpp_ctrl code; shuffle_down: the lane distance
  unsigned row_mask;   //!< 4 bits
  unsigned bank_mask;  //!< 4 bits
  bool bound_ctrl;
  combine_order order;
};

// DPP control codes used below, decoded (AMD GCN3 / Vega / CDNA ISA, "DPP_CTRL"):
//   0x000-0x0ff quad_perm:[a,b,c,d]  lane 4q+i reads lane 4q+p[i]; p[i] = bits 2i+1..2i
//   0x121-0x12f row_ror:n            lane i of a row reads lane (i - n) mod 16 of that row
//   0x142       row_bcast:15         every lane of row r >= 1 reads lane 15 of row r - 1
//                                    (GFX8/9 only; row 0 has no source)
//   0x143       row_bcast:31         every lane of rows 2 and 3 reads lane 31 (GFX8/9 wave64
//                                    only; rows 0 and 1 have no source)
constexpr unsigned dpp_quad_perm_1032 = 0xb1;  // quad_perm:[1,0,3,2] = 1 | 0<<2 | 3<<4 | 2<<6: swap neighbours
constexpr unsigned dpp_quad_perm_2301 = 0x4e;  // quad_perm:[2,3,0,1] = 2 | 3<<2 | 0<<4 | 1<<6: swap pairs
constexpr unsigned dpp_row_ror_4 = 0x124;      // row_ror:4 (0x120 + 4)
constexpr unsigned dpp_row_ror_8 = 0x128;      // row_ror:8 (0x120 + 8)
constexpr unsigned dpp_row_bcast_15 = 0x142;   // row_bcast:15
constexpr unsigned dpp_row_bcast_31 = 0x143;   // row_bcast:31

//! A DPP step with every row and bank written and bound_ctrl set. All masks on and bound_ctrl
//! let the compiler fuse the move into the ALU op for every operator, floats included (LLVM's
//! GCNDPPCombine fuses a masked or bound_ctrl-off move only when `old` is the identity of an
//! integer op). The price is that lanes without a valid source read 0; lane_model_tests.cpp
//! proves no such lane feeds the lane the result is read from.
constexpr wave_step dpp_step(unsigned ctrl) {
  return {lane_exchange::dpp, ctrl, 0xf, 0xf, true, combine_order::moved_first};
}

//! Full-wavefront reduction on GFX8/GFX9 with wave64 (gfx90a: MI200, gfx940: MI300). After
//! the two quad_perm and two row_ror steps every lane holds its row's reduction (a butterfly:
//! all lanes valid, no bound_ctrl reads); row_bcast:15 adds row 0 into row 1 and row 2 into row
//! 3, row_bcast:31 adds rows 0-1 (held by lane 31) into row 3. Lane 63 holds the wavefront's.
struct dpp_sequence_gfx9_wave64 {
  static constexpr int wave = 64;
  static constexpr int result_lane = 63;
  static constexpr int count = 6;
  static constexpr wave_step steps[count] = {dpp_step(dpp_quad_perm_1032), dpp_step(dpp_quad_perm_2301),
                                             dpp_step(dpp_row_ror_4),      dpp_step(dpp_row_ror_8),
                                             dpp_step(dpp_row_bcast_15),   dpp_step(dpp_row_bcast_31)};
};

//! Full-wavefront reduction on GFX10+ with wave32 (gfx1030: RDNA2), which has no row_bcast: the
//! four in-row steps as above, then permlanex16 adds the other row of the 32 lanes. Every lane
//! holds the result; lane 31 is read.
struct dpp_sequence_gfx10_wave32 {
  static constexpr int wave = 32;
  static constexpr int result_lane = 31;
  static constexpr int count = 5;
  static constexpr wave_step steps[count] = {
      dpp_step(dpp_quad_perm_1032), dpp_step(dpp_quad_perm_2301), dpp_step(dpp_row_ror_4), dpp_step(dpp_row_ror_8),
      {lane_exchange::permlane_x16, 0, 0xf, 0xf, true, combine_order::moved_first}};
};

//! The targets' DPP families: GFX8/GFX9 have row_bcast (and only wave64); GFX10+ have
//! permlanex16 instead, and under HIP only wave32 (HIP 5.2's hip_runtime.h refuses GFX10 with
//! wave64: "HIP is not supported on GFX10 with wavefront size 64").
enum class dpp_family { gfx9, gfx10 };

//! The full-wavefront DPP sequence of a family and wave size.
template <dpp_family F, int Wave>
struct dpp_sequence_for;
template <> struct dpp_sequence_for<dpp_family::gfx9, 64> { using type = dpp_sequence_gfx9_wave64; };
template <> struct dpp_sequence_for<dpp_family::gfx10, 32> { using type = dpp_sequence_gfx10_wave32; };

//! Whether the hip backend reduces Reducer's accumulators with the DPP sequences: its combine
//! is one machine operation (a `fused_op` tag other than none: add, mul, min, max, and, or, xor)
//! on a scalar of at most 64 bits, moved between lanes as one or two 32-bit words. Every other
//! reducer (moments, minmax, argmin/argmax, custom operators) takes the shuffle-down tree.
template <class Reducer>
constexpr bool reduces_by_dpp() {
  using A = typename Reducer::acc_type;
  return Reducer::fused != detail::fused_op::none && std::is_arithmetic<A>::value && sizeof(A) <= 8;
}

//! One step of the shuffle-down tree: lane l reads lane l + distance, lower lane first.
constexpr wave_step shuffle_down_step(unsigned distance) {
  return {lane_exchange::shuffle_down, distance, 0xf, 0xf, false, combine_order::own_first};
}

//! The shuffle-down tree over the first `valid` lanes of a wave of Wave lanes (valid = Wave: a
//! full wave; fewer: a partial one, e.g. the per-wave partials of a block). The distances double
//! from 1 to Wave / 2; a lane combines only when the lane it reads holds data (lane + distance <
//! valid), and steps whose distance is >= valid are skipped (no lane would combine). After the
//! step of distance d, lane l holds lanes [l, min(l + 2d, valid)) in index order, so lane 0 ends
//! with lanes 0 .. valid-1 combined in index order (a non-commutative operator is safe here).
template <int Wave>
struct shuffle_sequence;

//! What both shuffle trees share.
struct shuffle_sequence_base {
  static constexpr int result_lane = 0;
  //! Whether a step of `distance` runs at all for `valid` data lanes (some lane would combine).
  static constexpr bool runs(unsigned distance, int valid) { return int(distance) < valid; }
  //! Whether `lane` combines what it reads at `distance`: only a value from a data lane.
  static constexpr bool combines(int lane, unsigned distance, int valid) { return lane + int(distance) < valid; }
};

template <>
struct shuffle_sequence<64> : shuffle_sequence_base {
  static constexpr int wave = 64;
  static constexpr int count = 6;
  static constexpr wave_step steps[count] = {shuffle_down_step(1), shuffle_down_step(2),  shuffle_down_step(4),
                                             shuffle_down_step(8), shuffle_down_step(16), shuffle_down_step(32)};
};

template <>
struct shuffle_sequence<32> : shuffle_sequence_base {
  static constexpr int wave = 32;
  static constexpr int count = 5;
  static constexpr wave_step steps[count] = {shuffle_down_step(1), shuffle_down_step(2), shuffle_down_step(4),
                                             shuffle_down_step(8), shuffle_down_step(16)};
};

}  // namespace portable
}  // namespace preduce
