// SPDX-License-Identifier: Apache-2.0
// preduce cuda: combine_row_slots, the pairwise fold of a thread's row slots that the short-row
// and small-row kernels share.
#pragma once

namespace preduce {
namespace backend {

//! Folds a thread's row slots in place, `per` consecutive slots a row (per a power of two
//! dividing S): slots s0 .. s0 + per - 1 (s0 a multiple of per) into slot s0 by a pairwise tree,
//! level k combining slot s + 2^k into slot s for s a multiple of 2^(k + 1), while 2^k < per.
template <class Reducer, class Acc, int S>
__device__ __forceinline__ void combine_row_slots(const Reducer& red, Acc (&a)[S], unsigned per) {
#pragma unroll
  for (int step = 1; step < S; step *= 2) {
    if (per > unsigned(step)) {
#pragma unroll
      for (int s = 0; s + step < S; s += 2 * step) a[s] = red.combine(a[s], a[s + step]);
    }
  }
}

}  // namespace backend
}  // namespace preduce
