// SPDX-License-Identifier: Apache-2.0
// preduce: which execution variants a build compiles. The variants that exist to be compared
// (algorithm::two_pass, and the warp algorithms other than automatic) are compiled only with
// CMake's PREDUCE_STUDY_KERNELS=ON (the compile definition PREDUCE_STUDY_KERNELS=1); without it
// those options fall back to the tuned choice, as on a backend that lacks a variant. Every kernel
// that algorithm::automatic picks, single_pass, and determinism::fast's atomic shape are in every
// build. docs/tuning/build.md has what the variants cost the build.
#pragma once

#include <preduce/config.hpp>
#include <preduce/execution.hpp>

#ifndef PREDUCE_STUDY_KERNELS
#define PREDUCE_STUDY_KERNELS 0
#endif

namespace preduce {
namespace portable {

//! Whether this build compiles the study-only variants.
inline constexpr bool study_kernels = PREDUCE_STUDY_KERNELS != 0;

//! The warp algorithm a kernel of this build runs for w: w itself with the study variants,
//! else automatic. Kernels that take the caller's warp_algorithm pass it through here first, so
//! a default build's kernels carry only the tuned warp code.
PREDUCE_HD constexpr warp_algorithm compiled_warp(warp_algorithm w) { return study_kernels ? w : warp_algorithm::automatic; }

//! The options a call runs with in this build: o, with the variants it does not compile
//! replaced by automatic.
constexpr options compiled_options(options o) {
  if constexpr (!study_kernels) {
    if (o.algo == algorithm::two_pass) o.algo = algorithm::automatic;
    o.warp = warp_algorithm::automatic;
  }
  return o;
}

}  // namespace portable
}  // namespace preduce
