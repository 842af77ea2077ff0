// SPDX-License-Identifier: Apache-2.0
// preduce tests: doctest's main(); every test lives in the other files of this folder.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
