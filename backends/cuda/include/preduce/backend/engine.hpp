// SPDX-License-Identifier: Apache-2.0
// preduce cuda: the backend engine, portable/gpu_engine.hpp over this backend's host planning
// (see portable/run_request.hpp for the contract every backend's engine keeps). Included by the
// library's per-group translation units and by user files that include <preduce/extend.hpp>;
// both must be compiled by nvcc.
#pragma once

#include <preduce/backend/columns/dispatch_columns.cuh>
#include <preduce/backend/distributed/dispatch_distributed.cuh>
#include <preduce/backend/rows/dispatch_rows.cuh>
#include <preduce/backend/segments/dispatch_segments.cuh>
#include <preduce/backend/whole/dispatch_whole.cuh>

#include <preduce/portable/gpu_engine.hpp>
