// SPDX-License-Identifier: Apache-2.0
// preduce tests: whole-array comparisons (minimum, maximum, minmax, argmin, argmax and their
// nan_ignoring forms) for every element type at every size, on spread data and on data full of
// ties (the arg forms must return the first index of the extreme value).
#include "test_support.hpp"

namespace {
constexpr std::initializer_list<test::data> compare_shapes = {test::data::spread, test::data::ties};
}  // namespace

TEST_CASE_TEMPLATE_DEFINE("reduce.extremes", T, reduce_extremes) {
  using preduce::nan_ignoring;
  SUBCASE("minimum") { test::check_whole_sizes<T>(preduce::minimum{}, "minimum", compare_shapes); }
  SUBCASE("maximum") { test::check_whole_sizes<T>(preduce::maximum{}, "maximum", compare_shapes); }
  SUBCASE("minmax") { test::check_whole_sizes<T>(preduce::minmax{}, "minmax", compare_shapes); }
  SUBCASE("nan_ignoring<minimum>") { test::check_whole_sizes<T>(nan_ignoring<preduce::minimum>{}, "fmin", compare_shapes); }
  SUBCASE("nan_ignoring<maximum>") { test::check_whole_sizes<T>(nan_ignoring<preduce::maximum>{}, "fmax", compare_shapes); }
  SUBCASE("nan_ignoring<minmax>") { test::check_whole_sizes<T>(nan_ignoring<preduce::minmax>{}, "fminmax", compare_shapes); }
}
TEST_CASE_TEMPLATE_APPLY(reduce_extremes, test::all_types);

TEST_CASE_TEMPLATE_DEFINE("reduce.arg", T, reduce_arg) {
  using preduce::nan_ignoring;
  SUBCASE("argmin") { test::check_whole_sizes<T>(preduce::argmin{}, "argmin", compare_shapes); }
  SUBCASE("argmax") { test::check_whole_sizes<T>(preduce::argmax{}, "argmax", compare_shapes); }
  SUBCASE("nan_ignoring<argmin>") { test::check_whole_sizes<T>(nan_ignoring<preduce::argmin>{}, "fargmin", compare_shapes); }
  SUBCASE("nan_ignoring<argmax>") { test::check_whole_sizes<T>(nan_ignoring<preduce::argmax>{}, "fargmax", compare_shapes); }
}
TEST_CASE_TEMPLATE_APPLY(reduce_arg, test::all_types);
