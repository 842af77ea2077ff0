// SPDX-License-Identifier: Apache-2.0
// preduce tests (cuda backend): each device algorithm (single_pass, two_pass, atomic) with each
// warp reduction (shuffle, PTX-fused shuffle, redux.sync) under both run_to_run and fast, for
// every built-in operator on a spread of types, against the host oracle; run_to_run
// bit-identity of every algorithm over repeated calls; and the single-pass collector on the grids
// where its shape changes (2 blocks, 3 for argmin/argmax; 32 and 33), for partials of 1 to 4
// flagged words and one too wide for them; the one-block kernel's shapes; the deep arg kernel.
// Without PREDUCE_STUDY_KERNELS, two_pass and the non-default warp algorithms run as automatic
// (portable/study_kernels.hpp): their variants then check that fallback against the oracle.
#include <preduce/backend/whole/whole_plan.hpp>
#include <preduce/portable/study_kernels.hpp>

#include "../../test_support.hpp"

namespace {

struct variant {
  preduce::options opt;
  std::string name;
};

std::vector<variant> all_variants() {
  using preduce::algorithm;
  using preduce::determinism;
  using preduce::warp_algorithm;
  const std::pair<algorithm, const char*> algos[] = {
      {algorithm::single_pass, "single_pass"}, {algorithm::two_pass, "two_pass"}, {algorithm::atomic, "atomic"}};
  const std::pair<warp_algorithm, const char*> warps[] = {
      {warp_algorithm::shuffle, "shuffle"}, {warp_algorithm::fused_shuffle, "fused_shuffle"}, {warp_algorithm::hardware, "hardware"}};
  const std::pair<determinism, const char*> dets[] = {{determinism::run_to_run, "run_to_run"}, {determinism::fast, "fast"}};
  std::vector<variant> v;
  for (const auto& a : algos)
    for (const auto& w : warps)
      for (const auto& d : dets) v.push_back({preduce::options{d.first, a.first, w.first}, std::string(a.second) + "/" + w.second + "/" + d.second});
  return v;
}

//! What the one-block checks compare bits with where the study kernels are built: two_pass with
//! plain shuffles (its one-block path folds the same elements in the same order as
//! `automatic`'s one-block kernel).
const preduce::options two_pass_shuffle{preduce::determinism::run_to_run, preduce::algorithm::two_pass,
                                        preduce::warp_algorithm::shuffle};
//! What the deep arg checks compare bits with: single_pass, which never takes the deep kernel
//! (an arg result does not depend on the order).
const preduce::options single_pass{preduce::determinism::run_to_run, preduce::algorithm::single_pass, preduce::warp_algorithm::automatic};

// One block, one block + a scalar tail, a few blocks, many blocks with head and tail.
const std::size_t variant_sizes[] = {1, 33, 4097, 65537, (std::size_t(1) << 20) + 3};

template <class T, class Op>
void check_variants(Op op, const char* name) {
  const preduce::queue& q = test::shared_queue();
  for (const std::size_t n : variant_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const std::vector<T> x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>(name, n, 11));
      // Misaligned by one element, so head, vector body and tail all take part.
      std::vector<T> shifted(n + 1);
      std::copy(x.begin(), x.end(), shifted.begin() + 1);
      const preduce::device_buffer<T> d(q, shifted);
      const auto want = test::expected(op, x.data(), n);
      for (const variant& v : all_variants()) {
        CAPTURE(v.name);
        test::check_result(preduce::reduce(q, d.data() + 1, n, op, v.opt), want);
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("cuda.algorithms", T, cuda_algorithms) {
  test::for_each_operator<T>([](auto op) { check_variants<T>(op, "cuda.algorithms"); });
}
TEST_CASE_TEMPLATE_APPLY(cuda_algorithms, test::sample_types);

TEST_CASE("cuda.algorithms.dot") {
  const preduce::queue& q = test::shared_queue();
  for (const std::size_t n : variant_sizes) {
    SUBCASE(test::size_name(n).c_str()) {
      const auto x = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.dot.x", n, 1));
      const auto y = test::make_data<float>(test::data::small_integers, n, test::seed_for<float>("cuda.dot.y", n, 2));
      const preduce::device_buffer<float> dx(q, x), dy(q, y);
      const auto want = test::expected(preduce::dot<float>{nullptr}, x.data(), y.data(), n);
      for (const variant& v : all_variants()) {
        CAPTURE(v.name);
        test::check_result(preduce::reduce(q, dx.data(), n, preduce::dot{dy.data()}, v.opt), want);
        // y one element further from a 16-byte boundary than x: the scalar path.
        test::check_result(preduce::reduce(q, dx.data(), n - 1, preduce::dot{dy.data() + 1}, v.opt),
                           test::expected(preduce::dot<float>{nullptr}, x.data(), y.data() + 1, n - 1));
      }
    }
  }
}

TEST_CASE("cuda.algorithms.run_to_run_bits") {
  const preduce::queue& q = test::shared_queue();
  const std::size_t n = (std::size_t(1) << 22) + 5;
  const auto x = test::make_data<float>(test::data::spread, n, test::seed_for<float>("cuda.bits", n, 3));
  const preduce::device_buffer<float> d(q, x);
  for (const variant& v : all_variants()) {
    if (v.opt.det != preduce::determinism::run_to_run) continue;
    CAPTURE(v.name);
    const float first = preduce::reduce(q, d.data(), n, preduce::plus<>{}, v.opt);
    const auto first_arg = preduce::reduce(q, d.data(), n, preduce::argmax{}, v.opt);
    for (int rep = 0; rep < 20; ++rep) {
      CHECK(test::same_bits(first, preduce::reduce(q, d.data(), n, preduce::plus<>{}, v.opt)));
      CHECK(test::same_bits(first_arg, preduce::reduce(q, d.data(), n, preduce::argmax{}, v.opt)));
    }
  }
}

namespace {

//! The one-block kernel's shapes under `automatic` (one stripe round or two, with or without the
//! scalar head and tail) against the host oracle and, where the study kernels are built, against
//! two_pass with plain shuffles, which folds the same elements in the same order through
//! reduce_whole_kernel's one-block path.
template <class T>
void check_one_block_shapes(const char* name) {
  const preduce::queue& q = test::shared_queue();
  // Stripe rounds of the one-block kernel (a dot's element vector takes two 16-byte loads).
  constexpr std::size_t w = 16 / sizeof(T), plus_round = preduce::backend::whole_stripe_elements(w, 1),
                        dot_round = preduce::backend::whole_stripe_elements(w, 2);
  // Whole vectors at offset 0 take the kernel without head and tail; offset 1 or a partial
  // vector take it with them; past one stripe round a dot takes two rounds.
  for (const std::size_t n : {3 * w, plus_round / 2, plus_round - 1, plus_round, dot_round - w, dot_round + w, dot_round + 1}) {
    for (const std::size_t offset : {std::size_t(0), std::size_t(1)}) {
      CAPTURE(n);
      CAPTURE(offset);
      const auto x = test::make_data<T>(test::data::small_integers, n + 1, test::seed_for<T>(name, n, 7 + offset));
      const auto y = test::make_data<T>(test::data::small_integers, n + 1, test::seed_for<T>(name, n, 9 + offset));
      const preduce::device_buffer<T> dx(q, x), dy(q, y);
      const T* px = dx.data() + offset;
      const auto sum = preduce::reduce(q, px, n, preduce::plus<>{});
      test::check_result(sum, test::expected(preduce::plus<>{}, x.data() + offset, n));
      if constexpr (preduce::portable::study_kernels) CHECK(test::same_bits(sum, preduce::reduce(q, px, n, preduce::plus<>{}, two_pass_shuffle)));
      const preduce::dot<T> dot{dy.data() + offset};
      const auto product = preduce::reduce(q, px, n, dot);
      test::check_result(product, test::expected(preduce::dot<T>{nullptr}, x.data() + offset, y.data() + offset, n));
      if constexpr (preduce::portable::study_kernels) CHECK(test::same_bits(product, preduce::reduce(q, px, n, dot, two_pass_shuffle)));
    }
  }
}

}  // namespace

TEST_CASE("cuda.algorithms.one_block_shapes") {
  SUBCASE("float") { check_one_block_shapes<float>("one block f32"); }
  SUBCASE("bfloat16") { check_one_block_shapes<preduce::bfloat16>("one block bf16"); }
  SUBCASE("int32") { check_one_block_shapes<std::int32_t>("one block i32"); }
}

namespace {

//! Elements in one round of the whole-array kernel over T (whole_grid: an array of up to one
//! round is one block).
template <class T>
constexpr std::size_t round_elements() {
  return std::size_t(preduce::backend::whole_block_elements(16 / sizeof(T)));
}

template <class T, class Op>
void check_collector(Op op, const char* name) {
  const preduce::queue& q = test::shared_queue();
  // Past one round, whole_grid gives a block per round, or per half round for arg reducers
  // while that makes at most whole_warp_collector_blocks (32) blocks (whole_split).
  constexpr bool split = preduce::detail::has_value_reducer<preduce::detail::reducer<Op, T>>::value;
  constexpr std::size_t per_block = round_elements<T>() / (split ? preduce::backend::whole_arg_split : 1);
  constexpr std::size_t warp_blocks = preduce::backend::whole_warp_collector_blocks;
  // One round + 1 (2 blocks, 3 for arg); 32 blocks (warp 0 collects, one partial a lane); 32
  // rounds + 1 (33 blocks: the whole block collects).
  for (const std::size_t n : {round_elements<T>() + 1, warp_blocks * per_block, warp_blocks * round_elements<T>() + 1}) {
    SUBCASE(test::size_name(n).c_str()) {
      const std::vector<T> x = test::make_data<T>(test::shape_for<Op, T>(), n, test::seed_for<T>(name, n, 5));
      const preduce::device_buffer<T> d(q, x);
      const auto first = preduce::reduce(q, d.data(), n, op);
      test::check_result(first, test::expected(op, x.data(), n));
      for (int rep = 0; rep < 30; ++rep) CHECK(test::same_bits(first, preduce::reduce(q, d.data(), n, op)));
    }
  }
}

}  // namespace

TEST_CASE("cuda.algorithms.collector_grids") {
  SUBCASE("argmax float (3 words)") { check_collector<float>(preduce::argmax{}, "collector argmax f32"); }
  SUBCASE("argmin double (4 words)") { check_collector<double>(preduce::argmin{}, "collector argmin f64"); }
  SUBCASE("minmax float (2 words)") { check_collector<float>(preduce::minmax{}, "collector minmax f32"); }
  SUBCASE("plus double (2 words)") { check_collector<double>(preduce::plus<>{}, "collector plus f64"); }
  SUBCASE("maximum int32 (1 word)") { check_collector<std::int32_t>(preduce::maximum{}, "collector max i32"); }
  SUBCASE("moments float (4 words)") { check_collector<float>(preduce::moments<>{}, "collector moments f32"); }
  SUBCASE("moments double (released, not flagged words)") { check_collector<double>(preduce::moments<>{}, "collector moments f64"); }
}

namespace {

//! Arg reducers over arrays between one wave's round of the 4-vector whole-array kernel and a
//! few waves' rounds of the deep arg kernel (whole_deep_arg: on 132 SMs, 3.2M to 17.3M f32 or
//! i32 elements; on 108, 2.7M to 14.2M; bf16's 8-element vectors double the bounds, so only
//! 10000019 is deep there), which f32, i32 and bf16 take under `automatic`: against the host
//! oracle (tie-heavy data: the first index must win) and bit for bit against single_pass, whose
//! kernel has 4 vectors in flight. Offset 1 gives a scalar head and tail.
template <class T, class Op>
void check_deep_arg(Op op, const char* name) {
  const preduce::queue& q = test::shared_queue();
  for (const std::size_t n : {(std::size_t(1) << 22) + 1, std::size_t(10000019)}) {
    for (const std::size_t offset : {std::size_t(0), std::size_t(1)}) {
      CAPTURE(n);
      CAPTURE(offset);
      const auto x = test::make_data<T>(test::shape_for<Op, T>(), n + 1, test::seed_for<T>(name, n, 3 + offset));
      const preduce::device_buffer<T> d(q, x);
      const auto got = preduce::reduce(q, d.data() + offset, n, op);
      test::check_result(got, test::expected(op, x.data() + offset, n));
      CHECK(test::same_bits(got, preduce::reduce(q, d.data() + offset, n, op, single_pass)));
    }
  }
}

}  // namespace

TEST_CASE("cuda.algorithms.deep_arg") {
  SUBCASE("argmax float") { check_deep_arg<float>(preduce::argmax{}, "deep argmax f32"); }
  SUBCASE("argmin float") { check_deep_arg<float>(preduce::argmin{}, "deep argmin f32"); }
  SUBCASE("argmax int32") { check_deep_arg<std::int32_t>(preduce::argmax{}, "deep argmax i32"); }
  SUBCASE("argmin bfloat16") { check_deep_arg<preduce::bfloat16>(preduce::argmin{}, "deep argmin bf16"); }
}
