// SPDX-License-Identifier: Apache-2.0
// preduce lane-model tests (host only, every backend's build): the wavefront reductions of the
// hip backend, run on the host model of AMD's lane exchanges (testing/lane_model.hpp) from the
// same step tables the device code runs (portable/wave_steps.hpp). They prove, for 32 and 64
// lanes, full and partial wavefronts:
//   - with a probe that records which lanes reached a lane and in what order, that the lane the
//     device reads holds every data lane exactly once and nothing else (no bound_ctrl zero, no
//     `old`, no undefined read), and that the shuffle tree keeps index order;
//   - with every built-in operator on random data, that the read lane finalizes to the host
//     oracle's result;
//   - that the model itself sees the hardware rules it claims to (sources, masks, bound_ctrl)
//     and catches broken sequences (a step dropped, the wrong lane read, a partial wavefront).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <preduce/testing/lane_model.hpp>
#include <preduce/portable/wave_steps.hpp>

#include "test_support.hpp"

namespace {

namespace pp = preduce::portable;
namespace lm = preduce::testing::lane_model;

// ---------------------------------------------------------------------------------------------
// The probe: a value that is the list of lanes combined into it, in combine order. Combining
// concatenates, which is associative and not commutative, so the list shows the exact order.
// ---------------------------------------------------------------------------------------------

using word = std::vector<int>;

word concat(const word& a, const word& b) {
  word c = a;
  c.insert(c.end(), b.begin(), b.end());
  return c;
}

const lm::lane_state<word> no_old{word{}, false};  // the device's `old` operand: never data

//! Runs Sequence on the probe with `active` active lanes, the first `valid` of them holding data.
template <class Sequence>
lm::lane_state<word> probe(int active, int valid, lm::wave_state<word>* out = nullptr) {
  auto w = lm::make_wave<word>(Sequence::wave, active, valid, [](int l) { return word{l}; }, word{-1});
  const auto r = lm::run<Sequence>(w, concat, no_old, word{});
  if (out) *out = w;
  return r;
}

word lanes_below(int n) {
  word w(std::size_t(n), 0);
  std::iota(w.begin(), w.end(), 0);
  return w;
}

//! Whether a probe value holds each lane in [0, n) exactly once and nothing else.
bool is_every_lane_once(word w, int n) {
  std::sort(w.begin(), w.end());
  return w == lanes_below(n);
}

std::string text(const word& w) {
  std::string s;
  for (int l : w) s += std::to_string(l) + " ";
  return s;
}

// ---------------------------------------------------------------------------------------------
// Sequences as the tests name them
// ---------------------------------------------------------------------------------------------

using gfx9_w64 = pp::dpp_sequence_for<pp::dpp_family::gfx9, 64>::type;
using gfx10_w32 = pp::dpp_sequence_for<pp::dpp_family::gfx10, 32>::type;

//! A sequence built at run time from another's steps, for the tests that break one on purpose.
struct edited_sequence {
  int wave, result_lane;
  std::vector<pp::wave_step> steps;
};

template <class Sequence>
edited_sequence copy_of() {
  return {Sequence::wave, Sequence::result_lane, std::vector<pp::wave_step>(Sequence::steps, Sequence::steps + Sequence::count)};
}

lm::lane_state<word> probe(const edited_sequence& s, const lm::lane_state<word>& old = no_old) {
  auto w = lm::make_wave<word>(s.wave, s.wave, s.wave, [](int l) { return word{l}; }, word{-1});
  for (const auto& step : s.steps) lm::apply(step, w, concat, old, word{});
  return w.lanes[std::size_t(s.result_lane)];
}

bool complete(const lm::lane_state<word>& r, int n) { return r.clean && is_every_lane_once(r.value, n); }

// ---------------------------------------------------------------------------------------------
// Every built-in operator through a sequence, against the host oracle
// ---------------------------------------------------------------------------------------------

//! The partial-wavefront sizes checked for a wave: 1 .. 8 (a block's per-wave partials are 4
//! or 8), around each power of two, and the full wave.
std::vector<int> partial_sizes(int wave) {
  std::vector<int> v;
  for (int k : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64})
    if (k <= wave) v.push_back(k);
  return v;
}

//! Reduces x[0 .. valid) as lanes of Sequence with Op's reducer and checks the read lane
//! against the oracle. Inactive and data-less lanes start from the reducer's zero bits.
template <class Sequence, class T, class Op>
void check_operator(Op op, int valid, const char* name) {
  using Red = preduce::detail::reducer_for<Op, T>;
  using Acc = typename Red::acc_type;
  const auto x = test::make_data<T>(test::shape_for<Op, T>(), std::size_t(valid), test::seed_for<T>(name, std::size_t(valid), Sequence::wave));
  Acc zero;
  std::memset(&zero, 0, sizeof zero);
  auto w = lm::make_wave<Acc>(Sequence::wave, Sequence::wave, valid, [&](int l) { return Red::lift(x[std::size_t(l)], std::uint64_t(l)); },
                              zero);
  const auto combine = [](const Acc& a, const Acc& b) { return Red::combine(a, b); };
  const auto r = lm::run<Sequence>(w, combine, lm::lane_state<Acc>{zero, false}, zero);
  CHECK(r.clean);
  test::check_result(Red::finalize(r.value), test::expected(op, x.data(), std::size_t(valid)));
}

//! Whether a lane-word combine is the same both ways round (value-equal: -0 == +0), on random
//! accumulators: the DPP path combines moved-first, the oracle in index order.
template <class T, class Op>
void check_commutes() {
  using Red = preduce::detail::reducer_for<Op, T>;
  const auto x = test::make_data<T>(test::shape_for<Op, T>(), 256, test::seed_for<T>("commutes", 256));
  for (std::size_t i = 0; i + 1 < x.size(); i += 2) {
    const auto a = Red::lift(x[i], i), b = Red::lift(x[i + 1], i + 1);
    test::check_result(Red::finalize(Red::combine(a, b)), Red::finalize(Red::combine(b, a)));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The hardware rules the model encodes
// ---------------------------------------------------------------------------------------------

TEST_CASE("lane_model.dpp_sources") {
  const auto src = [](unsigned ctrl, int lane, int wave) { return lm::source_lane(pp::dpp_step(ctrl), lane, wave); };
  // quad_perm:[1,0,3,2] swaps neighbours, [2,3,0,1] swaps pairs, within each group of 4.
  CHECK(src(pp::dpp_quad_perm_1032, 0, 64) == 1);
  CHECK(src(pp::dpp_quad_perm_1032, 1, 64) == 0);
  CHECK(src(pp::dpp_quad_perm_1032, 6, 64) == 7);
  CHECK(src(pp::dpp_quad_perm_1032, 63, 64) == 62);
  CHECK(src(pp::dpp_quad_perm_2301, 0, 64) == 2);
  CHECK(src(pp::dpp_quad_perm_2301, 3, 64) == 1);
  CHECK(src(pp::dpp_quad_perm_2301, 45, 64) == 47);
  // row_ror:n: lane i of a row reads lane (i - n) mod 16 of the same row.
  CHECK(src(pp::dpp_row_ror_4, 0, 64) == 12);
  CHECK(src(pp::dpp_row_ror_4, 5, 64) == 1);
  CHECK(src(pp::dpp_row_ror_4, 20, 64) == 16);  // lane 4 of row 1 reads lane 0 of row 1
  CHECK(src(pp::dpp_row_ror_8, 3, 32) == 11);
  CHECK(src(pp::dpp_row_ror_8, 27, 32) == 19);
  // row_shr:1: lane 0 of each row has no source.
  CHECK(src(0x111, 16, 64) == -1);
  CHECK(src(0x111, 17, 64) == 16);
  // row_bcast:15: row r >= 1 reads lane 15 of row r - 1; row 0 has no source.
  for (int l = 0; l < 16; ++l) CHECK(src(pp::dpp_row_bcast_15, l, 64) == -1);
  CHECK(src(pp::dpp_row_bcast_15, 16, 64) == 15);
  CHECK(src(pp::dpp_row_bcast_15, 40, 64) == 31);
  CHECK(src(pp::dpp_row_bcast_15, 63, 64) == 47);
  // row_bcast:31: rows 2 and 3 read lane 31; rows 0 and 1 have no source; nothing on wave32.
  CHECK(src(pp::dpp_row_bcast_31, 31, 64) == -1);
  CHECK(src(pp::dpp_row_bcast_31, 32, 64) == 31);
  CHECK(src(pp::dpp_row_bcast_31, 63, 64) == 31);
  CHECK(src(pp::dpp_row_bcast_31, 20, 32) == -1);
  // permlanex16: the same position in the other row of the 32-lane half.
  const pp::wave_step x16 = gfx10_w32::steps[4];
  REQUIRE(x16.exchange == pp::lane_exchange::permlane_x16);
  CHECK(lm::source_lane(x16, 3, 32) == 19);
  CHECK(lm::source_lane(x16, 19, 32) == 3);
  CHECK(lm::source_lane(x16, 40, 64) == 56);
  // __shfl_down past the end reads the lane itself.
  CHECK(lm::source_lane(pp::shuffle_down_step(4), 30, 32) == 30);
  CHECK(lm::source_lane(pp::shuffle_down_step(4), 27, 32) == 31);
}

TEST_CASE("lane_model.masks_and_bound_ctrl") {
  const lm::lane_state<word> identity_old{word{}, true};  // an `old` that is the operator's identity
  auto run_step = [&](pp::wave_step s, const lm::lane_state<word>& old) {
    auto w = lm::make_wave<word>(64, 64, 64, [](int l) { return word{l}; }, word{-1});
    lm::apply(s, w, concat, old, word{});
    return w.lanes;
  };
  SUBCASE("bound_ctrl on: a lane without a source reads zero, which is not data") {
    const auto lanes = run_step(pp::dpp_step(0x111), identity_old);  // row_shr:1
    CHECK_FALSE(lanes[16].clean);
    CHECK(lanes[16].value == word{16});  // zero (empty) combined with its own value
    CHECK(lanes[17].clean);
    CHECK(lanes[17].value == (word{16, 17}));
  }
  SUBCASE("bound_ctrl off: a lane without a source keeps old") {
    pp::wave_step s = pp::dpp_step(0x111);
    s.bound_ctrl = false;
    const auto lanes = run_step(s, identity_old);
    CHECK(lanes[32].clean);
    CHECK(lanes[32].value == word{32});
    CHECK_FALSE(run_step(s, no_old)[32].clean);  // and `old` is data only if the caller makes it so
  }
  SUBCASE("row_mask: rows whose bit is clear keep old") {
    pp::wave_step s = pp::dpp_step(pp::dpp_row_bcast_15);
    s.row_mask = 0xa;  // rows 1 and 3
    const auto lanes = run_step(s, identity_old);
    CHECK(lanes[5].value == word{5});                 // row 0: old, then its own value
    CHECK(lanes[20].value == (word{15, 20}));         // row 1: lane 15 moved in
    CHECK(lanes[40].value == word{40});               // row 2: old
    CHECK(lanes[63].value == (word{47, 63}));         // row 3: lane 47 moved in
    CHECK(std::all_of(lanes.begin(), lanes.end(), [](const auto& l) { return l.clean; }));
  }
  SUBCASE("bank_mask: lanes 4b .. 4b+3 of every row whose bit is clear keep old") {
    pp::wave_step s = pp::dpp_step(0x114);  // row_shr:4
    s.bank_mask = 0xe;                      // banks 1-3: lanes 4-15 of each row
    const auto lanes = run_step(s, no_old);
    for (int l : {0, 3, 16, 51}) CHECK_FALSE(lanes[std::size_t(l)].clean);  // bank 0: old (not data here)
    CHECK(lanes[4].value == (word{0, 4}));
    CHECK(lanes[55].value == (word{51, 55}));
  }
  SUBCASE("an inactive source is no source for DPP") {
    auto w = lm::make_wave<word>(64, 48, 48, [](int l) { return word{l}; }, word{-1});
    lm::apply(pp::dpp_step(pp::dpp_row_bcast_31), w, concat, no_old, word{});
    CHECK(w.lanes[40].value == (word{31, 40}));
    CHECK(w.lanes[63].value == word{-1});  // inactive: untouched
  }
}

// ---------------------------------------------------------------------------------------------
// The sequences the device runs: every lane once, nothing else, in the lane the device reads
// ---------------------------------------------------------------------------------------------

TEST_CASE("lane_model.dpp_sequences") {
  SUBCASE("gfx9 wave64: row_bcast") {
    lm::wave_state<word> w;
    const auto r = probe<gfx9_w64>(64, 64, &w);
    CAPTURE(text(r.value));
    CHECK(complete(r, 64));
    // Row 3 (lanes 48-63) ends complete. Rows 0 and 1 read zeros (no source under row_bcast,
    // bound_ctrl) and row 2 counts row 1 twice: none of them is ever read.
    for (int l = 48; l < 64; ++l) CHECK(complete(w.lanes[std::size_t(l)], 64));
    for (int l = 0; l < 48; ++l) CHECK_FALSE(complete(w.lanes[std::size_t(l)], 64));
    CHECK_FALSE(w.lanes[0].clean);
  }
  SUBCASE("gfx10 wave32: permlanex16, every lane complete") {
    lm::wave_state<word> w;
    const auto r = probe<gfx10_w32>(32, 32, &w);
    CAPTURE(text(r.value));
    CHECK(complete(r, 32));
    for (const auto& lane : w.lanes) CHECK(complete(lane, 32));
  }
}

TEST_CASE("lane_model.shuffle_sequences") {
  // Every count of data lanes, with the rest of the wave active (block_reduce's second stage)
  // and with the rest inactive: lane 0 holds lanes 0 .. valid-1 in index order.
  for (int valid = 1; valid <= 64; ++valid) {
    CAPTURE(valid);
    for (int active : {64, valid}) {
      CAPTURE(active);
      const auto r = probe<pp::shuffle_sequence<64>>(active, valid);
      CHECK(r.clean);
      CHECK(r.value == lanes_below(valid));
      if (valid <= 32) {
        const auto r32 = probe<pp::shuffle_sequence<32>>(std::min(active, 32), valid);
        CHECK(r32.clean);
        CHECK(r32.value == lanes_below(valid));
      }
    }
  }
}

TEST_CASE("lane_model.alternative_masked_broadcast") {
  // The classic wave64 form (LLVM's atomic optimizer, rocPRIM): row_bcast:15 with row_mask 0xa,
  // row_bcast:31 with row_mask 0xc, bound_ctrl off and `old` = the identity. The model agrees it
  // also completes lane 63, whatever `old` holds: no masked-off lane feeds lane 63.
  auto s = copy_of<gfx9_w64>();
  s.steps[4].row_mask = 0xa;
  s.steps[5].row_mask = 0xc;
  s.steps[4].bound_ctrl = s.steps[5].bound_ctrl = false;
  CHECK(complete(probe(s, lm::lane_state<word>{word{}, true}), 64));
  CHECK(complete(probe(s, no_old), 64));
}

TEST_CASE("lane_model.catches_broken_sequences") {
  SUBCASE("any one step dropped") {
    const auto check_each_dropped = [](edited_sequence full) {
      for (std::size_t k = 0; k < full.steps.size(); ++k) {
        CAPTURE(k);
        edited_sequence s = full;
        s.steps.erase(s.steps.begin() + std::ptrdiff_t(k));
        CHECK_FALSE(complete(probe(s), s.wave));
      }
    };
    check_each_dropped(copy_of<gfx9_w64>());
    check_each_dropped(copy_of<gfx10_w32>());
  }
  SUBCASE("the wrong lane read") {
    auto s = copy_of<gfx9_w64>();
    for (int lane : {0, 15, 31, 47}) {
      s.result_lane = lane;
      CHECK_FALSE(complete(probe(s), 64));
    }
  }
  SUBCASE("row_ror:2 instead of row_ror:4: lanes counted twice, others missing") {
    auto s = copy_of<gfx10_w32>();
    s.steps[2].ctrl = 0x122;  // row_ror:2
    CHECK_FALSE(complete(probe(s), 32));
  }
  SUBCASE("a partial wavefront through DPP") {
    // With lanes off in EXEC no lane at all ends with the active lanes' reduction after a DPP
    // sequence: the reason partial wavefronts take the shuffle tree.
    const auto check_no_lane_complete = [](auto sequence, int active) {
      using S = decltype(sequence);
      if (active >= S::wave) return;
      lm::wave_state<word> w;
      probe<S>(active, active, &w);
      CHECK(std::none_of(w.lanes.begin(), w.lanes.end(), [&](const auto& l) { return complete(l, active); }));
    };
    for (int active = 1; active < 64; ++active) {
      CAPTURE(active);
      check_no_lane_complete(gfx9_w64{}, active);
      check_no_lane_complete(gfx10_w32{}, active);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every built-in operator, through each sequence the device uses for it
// ---------------------------------------------------------------------------------------------

TEST_CASE_TEMPLATE_DEFINE("lane_model.operators", T, lane_model_operators) {
  test::for_each_operator<T>([](auto op) {
    using Op = decltype(op);
    using Red = preduce::detail::reducer_for<Op, T>;
    SUBCASE("shuffle tree, wave64") {
      for (int valid : partial_sizes(64)) check_operator<pp::shuffle_sequence<64>, T>(op, valid, "lane_model.shuffle64");
    }
    SUBCASE("shuffle tree, wave32") {
      for (int valid : partial_sizes(32)) check_operator<pp::shuffle_sequence<32>, T>(op, valid, "lane_model.shuffle32");
    }
    if constexpr (pp::reduces_by_dpp<Red>()) {
      SUBCASE("dpp gfx9 wave64") { check_operator<gfx9_w64, T>(op, 64, "lane_model.gfx9_w64"); }
      SUBCASE("dpp gfx10 wave32") { check_operator<gfx10_w32, T>(op, 32, "lane_model.gfx10_w32"); }
      SUBCASE("combine commutes (the DPP order is moved-first)") { check_commutes<T, Op>(); }
    }
  });
}
TEST_CASE_TEMPLATE_APPLY(lane_model_operators, test::all_types);
