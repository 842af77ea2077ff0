// SPDX-License-Identifier: Apache-2.0
// preduce: umbrella header of the public API (everything but extend.hpp, which needs the
// backend's compiler).
#pragma once

#include "batched.hpp"
#include "error.hpp"
#include "execution.hpp"
#include "memory.hpp"
#include "ops.hpp"
#include "reduce.hpp"
#include "reproducible.hpp"
#include "types.hpp"
