// SPDX-License-Identifier: Apache-2.0
// preduce tests: batched reductions over more than 2^32 elements (a 65537 x 65537 int8 matrix:
// rows * cols and every element offset past 32 bits), on backends declaring large_inputs
// (tests/CMakeLists.txt; GPUs), where the host has the memory to fill the input (as
// reduce.n_2pow32_plus_17 in big_sizes.cpp).
#include "test_support.hpp"

// Data in [0, 120] with the value 127 at the element n - 10 (row 65536, column 65527), so the
// last row's, that column's and the long segment's argmax are known, the last with an index
// past 2^32. Sums accumulate in int64 and are exact.
TEST_CASE("batched.n_over_2pow32") {
  if (!test::enough_memory_for(std::uint64_t(12) << 30)) return;  // 4 GiB of input plus headroom
  const auto& q = test::shared_queue();
  constexpr std::size_t rows = 65537, cols = 65537, n = rows * cols;
  constexpr std::size_t peak = n - 10;
  preduce::device_buffer<std::int8_t> d(q, n);
  std::vector<std::int64_t> row_sums(rows, 0), col_sums(cols, 0);
  std::int64_t first5 = 0, last5 = 0;
  {
    // Filled 1024 rows (64 MiB) at a time so the host never holds a second copy of the input.
    constexpr std::size_t rows_per_chunk = 1024;
    std::vector<std::int8_t> h(rows_per_chunk * cols);
    test::rng r(test::seed_for<std::int8_t>("batched 2^32", n));
    for (std::size_t r0 = 0; r0 < rows; r0 += rows_per_chunk) {
      const std::size_t chunk_rows = std::min(rows_per_chunk, rows - r0), len = chunk_rows * cols;
      for (std::size_t i = 0; i < len; i += 8) {
        std::uint64_t bits = r.next();
        for (std::size_t b = 0; b < 8 && i + b < len; ++b, bits >>= 8) h[i + b] = std::int8_t(((bits & 0xff) * 121) >> 8);
      }
      const std::size_t begin = r0 * cols;
      if (peak >= begin && peak < begin + len) h[peak - begin] = std::int8_t(127);
      for (std::size_t k = 0; k < chunk_rows; ++k) {
        for (std::size_t c = 0; c < cols; ++c) {
          row_sums[r0 + k] += h[k * cols + c];
          col_sums[c] += h[k * cols + c];
        }
      }
      for (std::size_t i = 0; i < len; ++i) {
        if (begin + i < 5) first5 += h[i];
        if (begin + i >= n - 5) last5 += h[i];
      }
      preduce::copy_to_device(q, d.data() + begin, h.data(), len);
    }
  }
  std::int64_t total = 0;
  for (const std::int64_t v : row_sums) total += v;

  // No SUBCASEs: each would refill the 4 GiB input.
  {
    preduce::device_buffer<std::int64_t> out(q, rows);
    preduce::reduce_rows(q, d.data(), rows, cols, out.data(), preduce::plus<>{});
    CHECK_MESSAGE(out.to_host() == row_sums, "reduce_rows plus");
  }
  {
    preduce::device_buffer<std::int64_t> out(q, cols);
    preduce::reduce_columns(q, d.data(), rows, cols, out.data(), preduce::plus<>{});
    CHECK_MESSAGE(out.to_host() == col_sums, "reduce_columns plus");
  }
  {
    preduce::device_buffer<preduce::arg<std::int8_t>> out(q, rows);
    preduce::reduce_rows(q, d.data(), rows, cols, out.data(), preduce::argmax{});
    const auto last = out.to_host().back();
    CHECK_MESSAGE(int(last.value) == 127, "reduce_rows argmax: value of the last row");
    CHECK_MESSAGE(last.index == peak % cols, "reduce_rows argmax: column of the last row's peak");
  }
  {
    preduce::device_buffer<preduce::arg<std::int8_t>> out(q, cols);
    preduce::reduce_columns(q, d.data(), rows, cols, out.data(), preduce::argmax{});
    const auto at = out.to_host()[peak % cols];
    CHECK_MESSAGE(int(at.value) == 127, "reduce_columns argmax: value of the peak's column");
    CHECK_MESSAGE(at.index == peak / cols, "reduce_columns argmax: row of the peak");
  }
  {
    // Segments [0, 5), [5, n - 5), [n - 5, n) with int64 offsets: the middle one is longer than
    // 2^32 and holds the peak at index peak - 5.
    const std::vector<std::int64_t> h_offsets = {0, 5, std::int64_t(n - 5), std::int64_t(n)};
    const preduce::device_buffer<std::int64_t> offsets(q, h_offsets);
    preduce::device_buffer<std::int64_t> sums(q, 3);
    preduce::reduce_segments(q, d.data(), n, offsets.data(), 3, sums.data(), preduce::plus<>{});
    const std::vector<std::int64_t> want = {first5, total - first5 - last5, last5};
    CHECK_MESSAGE(sums.to_host() == want, "reduce_segments plus");
    preduce::device_buffer<preduce::arg<std::int8_t>> args(q, 3);
    preduce::reduce_segments(q, d.data(), n, offsets.data(), 3, args.data(), preduce::argmax{});
    const auto middle = args.to_host()[1];
    CHECK_MESSAGE(int(middle.value) == 127, "reduce_segments argmax: value");
    CHECK_MESSAGE(middle.index == peak - 5, "reduce_segments argmax: index within the segment, past 2^32");
  }
}
