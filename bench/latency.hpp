// SPDX-License-Identifier: Apache-2.0
// preduce-bench --latency: what a call costs the calling host thread, preduce against the vendor
// library's hand-written equivalent (baseline.hpp's reduce_to_host and enqueue) on the same
// buffers, timed with the host's steady clock.
#pragma once

#include <string>

#include <preduce/preduce.hpp>

#include "baseline.hpp"

namespace preduce {
namespace bench {

//! Measures, for f32 sums of 1, 2^10, 2^16 and 2^20 elements on q: the synchronous call (median
//! of `calls` back-to-back calls, each timed, preduce and vendor interleaved in rounds), the
//! asynchronous call (host time of `calls` back-to-back calls and one wait, over `calls`), and
//! 8 threads each making synchronous calls on a queue of its own (calls per second in all).
//! Every result is checked against the exact sum first. Prints a table; writes JSON to
//! `json_path` when it is not empty. Returns the number of failed checks.
int run_latency(const queue& q, const device_report& device, int calls, const std::string& json_path, const std::string& command);

}  // namespace bench
}  // namespace preduce
