// SPDX-License-Identifier: Apache-2.0
// preduce consumer: reduces a random array through the installed package and checks the result.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <preduce/preduce.hpp>

int main() {
  std::mt19937 gen(20240611u);
  std::uniform_int_distribution<std::int32_t> dist(-1000, 1000);
  std::vector<std::int32_t> x(100003);
  for (auto& v : x) v = dist(gen);
  x[77777] = 5000;  // the unique maximum

  std::int64_t want = 0;
  for (const std::int32_t v : x) want += v;

  preduce::queue q;
  const preduce::device_buffer<std::int32_t> d(q, x);
  const std::int32_t sum = preduce::reduce(q, d.data(), x.size());
  const std::int32_t sum_default_queue = preduce::reduce(d.data(), x.size());
  const preduce::arg<std::int32_t> peak = preduce::reduce(q, d.data(), x.size(), preduce::argmax{});

  const bool sums_ok = sum == want && sum_default_queue == want;
  const bool peak_ok = peak.value == 5000 && peak.index == 77777;
  const bool backend_ok = std::strcmp(preduce::backend_name(), PREDUCE_CONSUMER_EXPECTED_BACKEND) == 0;
  std::printf("preduce consumer: backend %s (package says '%s'), device %s\n", preduce::backend_name(),
              PREDUCE_CONSUMER_EXPECTED_BACKEND, preduce::device_description(q.device()).c_str());
  std::printf("sum %d (expected %lld), argmax {%d, %llu} (expected {5000, 77777})\n", int(sum), static_cast<long long>(want),
              int(peak.value), static_cast<unsigned long long>(peak.index));
  const bool ok = sums_ok && peak_ok && backend_ok;
  std::printf("%s\n", ok ? "consumer OK" : "consumer FAILED");
  return ok ? 0 : 1;
}
