// SPDX-License-Identifier: Apache-2.0
// preduce hip: the backend engine, portable/gpu_engine.hpp over this backend's host planning
// (see portable/run_request.hpp for the contract every backend's engine keeps). Included by the
// library's per-group translation units and by user files that include <preduce/extend.hpp>;
// both must be compiled by hipcc.
#pragma once

#include <preduce/backend/columns/dispatch_columns.hpp>
#include <preduce/backend/distributed/dispatch_distributed.hpp>
#include <preduce/backend/rows/dispatch_rows.hpp>
#include <preduce/backend/segments/dispatch_segments.hpp>
#include <preduce/backend/whole/dispatch_whole.hpp>

#include <preduce/portable/gpu_engine.hpp>
