// SPDX-License-Identifier: Apache-2.0
// preduce: a host model of what AMD's lane exchanges do, to check the wavefront reductions of
// wave_steps.hpp on a CPU. No AMD GPU is reachable from our machines, so the sequences the hip
// backend runs are proved here instead: lane_model_tests.cpp runs each table with every
// built-in operator and with a probe that records which lanes reached which lane, in which
// order, for 32 and 64 lanes, full and partial wavefronts.
//
// What the model knows about the hardware (AMD "Vega" / CDNA / RDNA ISA manuals, DPP and
// DS_BPERMUTE sections):
//   - DPP rows are 16 lanes and banks are 4 consecutive lanes of a row. A lane whose row or
//     bank is masked off is not written: it keeps `old`. A lane whose source does not exist
//     (outside its row for row shifts, row 0 for row_bcast:15, rows 0-1 for row_bcast:31) or is
//     inactive (EXEC bit clear) reads 0 under bound_ctrl, else is not written and keeps `old`.
//   - permlanex16 reads the same position in the other row of the 32-lane half; an inactive
//     source behaves as for DPP (fetch-inactive off).
//   - ds_bpermute (shuffles) reads any lane; an inactive lane's register holds whatever it last
//     held, so what it gives is treated as undefined.
//   - An inactive lane executes nothing: its value stays as it was.
// The model does not decide what an undefined or zero read is worth; it marks the lane
// `clean = false` and carries that through every combine, so a test can require that the lane
// the device reads was built from data lanes only, whatever the hardware put in the others.
#pragma once

#include <cstddef>
#include <vector>

#include <preduce/portable/wave_steps.hpp>

namespace preduce {
namespace testing {
namespace lane_model {

using namespace ::preduce::portable;  // the wave tables it models (portable/wave_steps.hpp)

//! The lane `lane` reads in step s on a wave of `wave` lanes, or -1 when it has no source.
//! shuffle_down past the end of the wave reads the lane itself (__shfl_down's rule).
inline int source_lane(const wave_step& s, int lane, int wave) {
  const int row = lane / 16, i = lane % 16;
  switch (s.exchange) {
    case lane_exchange::dpp:
      if (s.ctrl <= 0xff) return (lane & ~3) | int((s.ctrl >> (2 * (lane & 3))) & 3u);  // quad_perm
      if (s.ctrl >= 0x101 && s.ctrl <= 0x10f) {                                         // row_shl:n
        const int j = i + int(s.ctrl - 0x100);
        return j < 16 ? 16 * row + j : -1;
      }
      if (s.ctrl >= 0x111 && s.ctrl <= 0x11f) {  // row_shr:n
        const int j = i - int(s.ctrl - 0x110);
        return j >= 0 ? 16 * row + j : -1;
      }
      if (s.ctrl >= 0x121 && s.ctrl <= 0x12f) return 16 * row + (i - int(s.ctrl - 0x120) + 16) % 16;  // row_ror:n
      if (s.ctrl == 0x140) return 16 * row + 15 - i;                                                  // row_mirror
      if (s.ctrl == 0x141) return 16 * row + (i & 8) + 7 - (i & 7);                                   // row_half_mirror
      if (s.ctrl == dpp_row_bcast_15) return row >= 1 ? 16 * row - 1 : -1;
      if (s.ctrl == dpp_row_bcast_31) return wave == 64 && row >= 2 ? 31 : -1;
      return -1;  // a code the model does not know: never a valid source
    case lane_exchange::permlane_x16: return lane ^ 16;
    case lane_exchange::shuffle_down: {
      const int j = lane + int(s.ctrl);
      return j < wave ? j : lane;
    }
  }
  return -1;
}

//! Whether step s writes `lane` at all (DPP row and bank masks; other exchanges write every lane).
inline bool writes(const wave_step& s, int lane) {
  if (s.exchange != lane_exchange::dpp) return true;
  return ((s.row_mask >> (lane / 16)) & 1u) && ((s.bank_mask >> ((lane % 16) / 4)) & 1u);
}

//! One lane's register in the model.
template <class V>
struct lane_state {
  V value;
  bool clean;  //!< built only from data lanes' values: no zero read, no `old`, no undefined read
};

//! A wavefront: its lanes' registers, which lanes are active (EXEC), and how many leading lanes
//! hold data (`valid`: the shuffle-down tree combines only reads from lanes below it).
template <class V>
struct wave_state {
  std::vector<lane_state<V>> lanes;
  std::vector<bool> active;
  int valid;
};

//! A wave of `wave` lanes: lanes below `valid` hold data(l) and are clean; the others hold
//! `filler` (not clean). Lanes below `active` are active.
template <class V, class Data>
wave_state<V> make_wave(int wave, int active, int valid, Data data, const V& filler) {
  wave_state<V> w{std::vector<lane_state<V>>(std::size_t(wave), lane_state<V>{filler, false}), std::vector<bool>(std::size_t(wave), false),
                  valid};
  for (int l = 0; l < wave; ++l) {
    w.active[std::size_t(l)] = l < active;
    if (l < valid) w.lanes[std::size_t(l)] = {data(l), true};
  }
  return w;
}

//! Runs one step on every active lane, as the device does: moved = the exchanged value, then
//! own = combine(moved, own) or combine(own, moved) per the step's order. `old` is what the
//! device passes as the DPP move's old operand; `zero` is V with every bit 0 (a bound_ctrl read).
template <class V, class Combine>
void apply(const wave_step& s, wave_state<V>& w, Combine combine, const lane_state<V>& old, const V& zero) {
  const int wave = int(w.lanes.size());
  const std::vector<lane_state<V>> before = w.lanes;  // every lane reads the values before the step
  for (int l = 0; l < wave; ++l) {
    if (!w.active[std::size_t(l)]) continue;
    const int src = source_lane(s, l, wave);
    const bool source_ok = src >= 0 && w.active[std::size_t(src)];
    lane_state<V> moved;
    if (s.exchange == lane_exchange::shuffle_down) {
      if (!shuffle_sequence_base::combines(l, s.ctrl, w.valid)) continue;  // as the device: data lanes only
      moved = source_ok ? before[std::size_t(src)] : lane_state<V>{zero, false};
    } else if (!writes(s, l)) {
      moved = old;
    } else if (!source_ok) {
      moved = s.bound_ctrl ? lane_state<V>{zero, false} : old;
    } else {
      moved = before[std::size_t(src)];
    }
    const lane_state<V>& own = before[std::size_t(l)];
    const bool moved_first = s.order == combine_order::moved_first;
    w.lanes[std::size_t(l)] = {moved_first ? combine(moved.value, own.value) : combine(own.value, moved.value), moved.clean && own.clean};
  }
}

//! Runs every step of Sequence that the device runs for w.valid data lanes (the shuffle tree
//! skips distances >= valid; the DPP sequences run all steps) and returns the lane the device
//! reads the result from.
template <class Sequence, class V, class Combine>
lane_state<V> run(wave_state<V>& w, Combine combine, const lane_state<V>& old, const V& zero) {
  for (int k = 0; k < Sequence::count; ++k) {
    const wave_step& s = Sequence::steps[k];
    if (s.exchange == lane_exchange::shuffle_down && !shuffle_sequence_base::runs(s.ctrl, w.valid)) continue;
    apply(s, w, combine, old, zero);
  }
  return w.lanes[std::size_t(Sequence::result_lane)];
}

}  // namespace lane_model
}  // namespace testing
}  // namespace preduce
