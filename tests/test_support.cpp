// SPDX-License-Identifier: Apache-2.0
// preduce tests: the compiled part of test_support.hpp: comparing results with the oracle, and
// the memory check of the largest inputs.
#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace test {

std::string text(const fields& f) {
  std::string s = "{";
  for (std::size_t i = 0; i < f.size; ++i) {
    char b[128];
    if (f.at[i].bound > 0.0L) {
      std::snprintf(b, sizeof b, "%s%s %.21Lg +- %.3Lg", i ? ", " : "", f.at[i].name, f.at[i].value, f.at[i].bound);
    } else {
      std::snprintf(b, sizeof b, "%s%s %.21Lg", i ? ", " : "", f.at[i].name, f.at[i].value);
    }
    s += b;
  }
  return s + "}";
}

namespace {
bool matches(const fields::field& got, const fields::field& want) {
  if (std::isnan(got.value) || std::isnan(want.value)) return std::isnan(got.value) && std::isnan(want.value);
  return got.value == want.value || std::fabs(got.value - want.value) <= want.bound;
}
}  // namespace

bool same_fields(const fields& got, const fields& want) {
  if (got.size != want.size) return false;
  for (std::size_t i = 0; i < got.size; ++i)
    if (!std::isfinite(want.at[i].bound) || !matches(got.at[i], want.at[i])) return false;
  return true;
}

bool enough_memory_for(std::uint64_t bytes) {
  std::uint64_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") available = kib * 1024;
  }
  if (available >= bytes) return true;
  MESSAGE("skipped: MemAvailable is " << available / (1 << 20) << " MiB, below the " << bytes / (1 << 20)
                                      << " MiB this test needs (the input, host memory on host backends, plus headroom)");
  return false;
}

void check_fields(const fields& got, const fields& want) {
  INFO("got " << text(got) << ", expected " << text(want));
  REQUIRE(got.size == want.size);
  for (std::size_t i = 0; i < got.size; ++i) {
    INFO("field " << std::string(want.at[i].name));
    REQUIRE(std::isfinite(want.at[i].bound));
    CHECK(matches(got.at[i], want.at[i]));
  }
}

void check_fields_each(const std::vector<fields>& got, const std::vector<fields>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("result " << i);
    check_fields(got[i], want[i]);
  }
}

}  // namespace test
