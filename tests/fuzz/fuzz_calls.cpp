// SPDX-License-Identifier: Apache-2.0
// preduce fuzzing: the libFuzzer target preduce-fuzz. Each input decodes into ONE call of the
// public API (reduce, reduce_async, reduce_rows, reduce_columns or reduce_segments), with every
// pointer inside one 64 KiB device_buffer (the arena) on the default queue, and checks, against
// a host copy of the arena taken before the call:
//   - a refused call (preduce::error from the call, or from the q.synchronize() after it for
//     bad segment offsets) was refused for a reason the input holds (errc in the set the input
//     allows), and left every byte of the arena as it was;
//   - a call the input allows succeeded, wrote nothing but its result slots, and each result
//     equals the host oracle (testing/preduce/testing/reference.hpp): exactly for integers,
//     comparisons, arg forms, logical and bitwise operators; within the oracle's bound for
//     floating sums, products and moments (NaN and infinity rules as README.md states them);
//   - nothing but preduce::error escapes, and no error is reported twice.
// A failure prints the decoded call, what was expected and what happened, then abort()s, so
// libFuzzer keeps the input. ASan and UBSan (in the library too) report bad accesses.
//
// Build (clang; the whole build, library included, with the sanitizers):
//   cmake -S . -B build/fuzz -G Ninja -DBACKEND=kokkos -DCMAKE_BUILD_TYPE=RelWithDebInfo \
//     -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
//     -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1" \
//     -DPREDUCE_BUILD_FUZZER=ON -DPREDUCE_BUILD_BENCH=OFF
//   cmake --build build/fuzz -j 2 --target preduce-fuzz
// (tests/fuzz/CMakeLists.txt also gives libpreduce coverage counters for libFuzzer's feedback:
// PREDUCE_FUZZ_LIBRARY_COVERAGE, on by default.)
// Fuzz (on a copy of the seeds: libFuzzer adds the inputs it finds to the first directory):
//   rm -rf /tmp/preduce-corpus && cp -r tests/fuzz/corpus /tmp/preduce-corpus
//   build/fuzz/tests/fuzz/preduce-fuzz -max_total_time=120 /tmp/preduce-corpus
// Replay the seeds (ctest test preduce.kokkos.fuzz_corpus): ctest --test-dir build/fuzz -R fuzz_corpus
// Decode inputs by hand: PREDUCE_FUZZ_VERBOSE=1 preduce-fuzz -runs=1 FILE... prints each call,
// the refusals its input allows, what happened, and its first results against the oracle's.
//
// Input layout (every byte past the end of the input reads as 0):
//   byte 0      function: % 5 -> reduce, reduce_async, reduce_rows, reduce_columns, reduce_segments
//   byte 1      element type: % 12 -> int8 int16 int32 int64 uint8 uint16 uint32 uint64 float
//               double half bfloat16
//   byte 2      operator: % 24 -> the table `operator_names` below. A pair the API rejects at
//               compile time (bit_* on floating types; partial_of on integers or in a batched
//               form) becomes plus.
//   bytes 3-5   options: determinism, algorithm, warp_algorithm. Below 0xF0: the byte modulo the
//               enumeration's size; 0xF0..0xFE: the value byte - 0xF0 (0..14, out of range from
//               3 or 4 on); 0xFF: -1. Out-of-range values must be refused (invalid_argument).
//   byte 6      bit 0: strided output (batched forms); bits 1-3: null pointer (1 input, 2 dot's
//               second input, 3 offsets, 4 output, else none); bits 4-5: offset type (int32,
//               int64, uint32, uint64)
//   byte 7      bits 0-1: element values (0 raw bytes, 1 small integers, 2 special values, 3 raw);
//               bits 2-3: offsets (0 and 3 valid, 1 raw bytes, 2 valid but one corrupted)
//   bytes 8-15  placements in the arena, 2 bytes each, little-endian: input, dot's second input,
//               offsets, output (rounded down to the type's alignment)
//   then sizes, each one size code: reduce, reduce_async: n; reduce_rows, reduce_columns: rows,
//               cols; reduce_segments: n, segments; then, for a strided output, the stride.
//               Size code: a byte b below 0xC0 is b; 0xC0..0xDF: (b - 0xC0) * 256 + the next
//               byte; 0xE0..0xEF: (b - 0xE0) * 65536 + the next 2 bytes, little-endian (up to
//               2^20: every length the 64 KiB arena holds); 0xF0..0xFE: `huge_sizes`[b - 0xF0];
//               0xFF: the next 8 bytes, little-endian.
//   then the payload, read cyclically (zeros when empty): the input's elements, dot's second
//               input's, then the offsets' values; written into the arena in that order (later
//               ones win where placements overlap), the rest of the arena holding 0xA5.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <preduce/testing/reference.hpp>
#include <preduce/preduce.hpp>

namespace {

namespace ref = preduce::reference;
using preduce::errc;

constexpr std::size_t arena_bytes = std::size_t(1) << 16;
constexpr unsigned char poison = 0xa5;  // every arena byte no placement writes

// ---------------------------------------------------------------------------------------------
// The decoded call
// ---------------------------------------------------------------------------------------------

enum class form { reduce, reduce_async, rows, columns, segments };
constexpr const char* form_names[] = {"reduce", "reduce_async", "reduce_rows", "reduce_columns", "reduce_segments"};

enum class elem { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, f16, bf16 };
constexpr const char* elem_names[] = {"int8",  "int16", "int32",  "int64",  "uint8", "uint16",
                                      "uint32", "uint64", "float", "double", "half",  "bfloat16"};

enum class opcode {
  plus, multiplies, sum_of_squares, moments, dot, minimum, maximum, minmax, argmin, argmax,
  ni_minimum, ni_maximum, ni_minmax, ni_argmin, ni_argmax, logical_and, logical_or, bit_and, bit_or, bit_xor,
  partial_plus, partial_sum_of_squares, partial_moments, partial_dot,
};
constexpr const char* operator_names[] = {
    "plus", "multiplies", "sum_of_squares", "moments", "dot", "minimum", "maximum", "minmax", "argmin", "argmax",
    "nan_ignoring<minimum>", "nan_ignoring<maximum>", "nan_ignoring<minmax>", "nan_ignoring<argmin>",
    "nan_ignoring<argmax>", "logical_and", "logical_or", "bit_and", "bit_or", "bit_xor", "partial_of(plus)",
    "partial_of(sum_of_squares)", "partial_of(moments)", "partial_of(dot)"};
constexpr unsigned operator_count = sizeof(operator_names) / sizeof(operator_names[0]);

enum class null_arg { none, input, second, offsets, output };
enum class offset_kind { i32, i64, u32, u64 };
constexpr const char* offset_names[] = {"int32", "int64", "uint32", "uint64"};

//! Sizes near the limits, so every overflow check of the front door is reached.
constexpr std::uint64_t huge_sizes[15] = {
    ~std::uint64_t(0),          ~std::uint64_t(0) - 1,      (std::uint64_t(1) << 63) - 1, std::uint64_t(1) << 63,
    std::uint64_t(1) << 62,     (std::uint64_t(1) << 62) + 1, std::uint64_t(1) << 61,    (std::uint64_t(1) << 32) - 1,
    std::uint64_t(1) << 32,     (std::uint64_t(1) << 32) + 1, std::uint64_t(1) << 31,    65536,
    65537,                      ~std::uint64_t(0) / 3 + 1,  (std::uint64_t(1) << 60) + 1};

struct call {
  form f;
  elem type;
  opcode op;
  int det, algo, warp;  // as decoded, possibly outside the enumerations
  bool strided;
  null_arg null;
  offset_kind offsets;
  unsigned values;        // element encoding
  unsigned offsets_mode;  // offsets encoding
  std::size_t x_at, y_at, offsets_at, out_at;
  std::size_t n = 0, rows = 0, cols = 0, segments = 0, stride = 1;
};

constexpr bool is_floating(elem e) { return e == elem::f32 || e == elem::f64 || e == elem::f16 || e == elem::bf16; }
constexpr bool is_bitwise(opcode o) { return o == opcode::bit_and || o == opcode::bit_or || o == opcode::bit_xor; }
constexpr bool is_partial(opcode o) { return o >= opcode::partial_plus; }
constexpr bool is_dot(opcode o) { return o == opcode::dot || o == opcode::partial_dot; }
constexpr bool is_whole(form f) { return f == form::reduce || f == form::reduce_async; }

//! Reads the input: header bytes (0 past the end), then a payload read cyclically.
class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t u16() {
    const unsigned lo = byte();
    return static_cast<std::uint16_t>(lo | unsigned(byte()) << 8);
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(byte()) << (8 * i);
    return v;
  }
  //! One size code (see the layout at the top).
  std::size_t size_code() {
    const unsigned b = byte();
    if (b < 0xc0) return b;
    if (b < 0xe0) return std::size_t(b - 0xc0) << 8 | byte();
    if (b < 0xf0) return std::size_t(b - 0xe0) << 16 | u16();
    if (b < 0xff) return static_cast<std::size_t>(huge_sizes[b - 0xf0]);
    return static_cast<std::size_t>(u64());
  }
  //! Marks the rest of the input as the payload.
  void start_payload() { payload_ = pos_; }
  //! The next payload byte, cycling over the payload; 0 when it is empty.
  std::uint8_t payload() {
    if (payload_ >= size_) return 0;
    if (pos_ >= size_) pos_ = payload_;
    return data_[pos_++];
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::size_t payload_ = 0;
};

//! An option byte: below 0xF0 a valid value, else one that may be out of range (see the top).
int option_value(std::uint8_t b, int count) {
  if (b < 0xf0) return b % count;
  if (b < 0xff) return b - 0xf0;
  return -1;
}

//! Decodes the header and the sizes; leaves r at the payload.
call decode(reader& r) {
  call c{};
  c.f = static_cast<form>(r.byte() % 5);
  c.type = static_cast<elem>(r.byte() % 12);
  c.op = static_cast<opcode>(r.byte() % operator_count);
  // Pairs that do not compile become plus (see the layout).
  if (is_bitwise(c.op) && is_floating(c.type)) c.op = opcode::plus;
  if (is_partial(c.op) && (!is_floating(c.type) || !is_whole(c.f))) c.op = opcode::plus;
  c.det = option_value(r.byte(), 3);
  c.algo = option_value(r.byte(), 4);
  c.warp = option_value(r.byte(), 4);
  const unsigned flags = r.byte();
  c.strided = (flags & 1) != 0;
  const unsigned null = (flags >> 1) & 7;
  c.null = null <= 4 ? static_cast<null_arg>(null) : null_arg::none;
  c.offsets = static_cast<offset_kind>((flags >> 4) & 3);
  const unsigned values = r.byte();
  c.values = values & 3;
  c.offsets_mode = (values >> 2) & 3;
  c.x_at = r.u16();
  c.y_at = r.u16();
  c.offsets_at = r.u16();
  c.out_at = r.u16();
  switch (c.f) {
    case form::reduce: case form::reduce_async: c.n = r.size_code(); break;
    case form::rows: case form::columns:
      c.rows = r.size_code();
      c.cols = r.size_code();
      break;
    case form::segments:
      c.n = r.size_code();
      c.segments = r.size_code();
      break;
  }
  if (!is_whole(c.f) && c.strided) c.stride = r.size_code();
  r.start_payload();
  return c;
}

//! One line naming everything the input decoded to.
std::string describe(const call& c) {
  char b[640];
  const char* nulls[] = {"none", "input", "dot's y", "offsets", "output"};
  std::snprintf(b, sizeof b,
                "%s<%s>, op %s, options{det %d, algo %d, warp %d}, null %s, values %u, offsets %s mode %u, "
                "placements x@%zu y@%zu offsets@%zu out@%zu (before alignment), n %zu, rows %zu, cols %zu, "
                "segments %zu, %s output stride %zu",
                form_names[int(c.f)], elem_names[int(c.type)], operator_names[int(c.op)], c.det, c.algo, c.warp,
                nulls[int(c.null)], c.values, offset_names[int(c.offsets)], c.offsets_mode, c.x_at, c.y_at, c.offsets_at,
                c.out_at, c.n, c.rows, c.cols, c.segments, c.strided ? "strided" : "plain", c.stride);
  return b;
}

// ---------------------------------------------------------------------------------------------
// Element values and offsets written into the arena
// ---------------------------------------------------------------------------------------------

//! Special value k (0..15) of T: zeros, ones, NaN, infinities, extremes, subnormals...
template <class T>
T special_value(unsigned k) {
  if constexpr (std::is_same<T, preduce::half>::value || std::is_same<T, preduce::bfloat16>::value) {
    constexpr bool h = std::is_same<T, preduce::half>::value;
    const std::uint16_t bits[16] = {0x0000, 0x8000,                  // +0, -0
                                    h ? 0x3c00 : 0x3f80,             // 1
                                    h ? 0xbc00 : 0xbf80,             // -1
                                    h ? 0x3800 : 0x3f00,             // 0.5
                                    h ? 0x4200 : 0x4040,             // 3
                                    h ? 0xc100 : 0xc020,             // -2.5
                                    h ? 0x7e00 : 0x7fc0,             // NaN
                                    h ? 0x7c00 : 0x7f80,             // +inf
                                    h ? 0xfc00 : 0xff80,             // -inf
                                    h ? 0x7bff : 0x7f7f,             // largest finite
                                    h ? 0xfbff : 0xff7f,             // its negative
                                    h ? 0x0400 : 0x0080,             // smallest normal
                                    0x0001,                          // smallest subnormal
                                    h ? 0x3c01 : 0x3f81,             // 1 + eps
                                    h ? 0x6400 : 0x4974};            // 1024 (half), ~1e6 (bfloat16)
    return T::from_bits(bits[k & 15]);
  } else if constexpr (std::is_floating_point<T>::value) {
    using L = std::numeric_limits<T>;
    const T v[16] = {T(0), -T(0), T(1), T(-1), T(0.5), T(3), T(-2.5), L::quiet_NaN(), L::infinity(), -L::infinity(),
                     L::max(), -L::max(), L::min(), L::denorm_min(), T(1) + L::epsilon(), T(1e6)};
    return v[k & 15];
  } else {
    using L = std::numeric_limits<T>;
    using U = std::make_unsigned_t<T>;
    const T v[16] = {T(0),     T(1),         static_cast<T>(U(~U(0))),  T(2),  T(3), static_cast<T>(U(~U(1))),
                     L::max(), L::lowest(),  T(L::max() - 1),           T(L::lowest() + 1),
                     static_cast<T>(U(~U(0)) / 3),                      static_cast<T>(U(~U(0)) / 3 * 2),
                     T(7),     T(100),       static_cast<T>(U(U(1) << (sizeof(T) * 8 - 2))), T(42)};
    return v[k & 15];
  }
}

//! One element from the payload in encoding `mode` (raw bytes, small integers, special values).
template <class T>
T next_element(reader& r, unsigned mode) {
  if (mode == 1) {
    const auto v = static_cast<std::int8_t>(r.payload());
    if constexpr (std::is_same<T, preduce::half>::value || std::is_same<T, preduce::bfloat16>::value) {
      return T(float(v));
    } else {
      return static_cast<T>(v);
    }
  }
  if (mode == 2) return special_value<T>(r.payload());
  unsigned char b[sizeof(T)];
  for (auto& x : b) x = r.payload();
  T v;
  std::memcpy(&v, b, sizeof v);
  return v;
}

//! Writes n elements of T at byte `at` of the host image (as many as fit in the arena).
template <class T>
void write_elements(std::vector<unsigned char>& image, std::size_t at, std::size_t n, reader& r, unsigned mode) {
  const std::size_t fit = (arena_bytes - at) / sizeof(T);
  for (std::size_t i = 0; i < std::min(n, fit); ++i) {
    const T v = next_element<T>(r, mode);
    std::memcpy(&image[at + i * sizeof(T)], &v, sizeof v);
  }
}

constexpr std::size_t offset_size(offset_kind k) { return k == offset_kind::i32 || k == offset_kind::u32 ? 4 : 8; }
constexpr bool offset_signed(offset_kind k) { return k == offset_kind::i32 || k == offset_kind::i64; }

//! The segment offsets (as many of segments + 1 as fit in the arena), as 64-bit patterns whose
//! low bytes are written: valid (non-decreasing from about 0, clamped at n), raw bytes, or valid
//! with one value made bad (-1, n + 1, above the next one, the type's largest value).
std::vector<std::uint64_t> make_offsets(const call& c, reader& r) {
  const std::size_t size = offset_size(c.offsets);
  const std::size_t wanted = c.segments == std::size_t(-1) ? c.segments : c.segments + 1;
  const std::size_t count = std::min(wanted, (arena_bytes - c.offsets_at) / size);
  std::vector<std::uint64_t> v(count);
  if (count == 0) return v;
  if (c.offsets_mode == 1) {
    for (auto& o : v)
      for (std::size_t i = 0; i < size; ++i) o |= std::uint64_t(r.payload()) << (8 * i);
    return v;
  }
  const unsigned first = r.payload();
  std::uint64_t at = first < 0xe0 ? 0 : first & 7;
  for (auto& o : v) {
    o = std::min<std::uint64_t>(at, c.n);
    const unsigned b = r.payload();
    at = o + (b < 0xc0 ? b % 24 : (b - 0xc0) * 32u);
  }
  if (c.offsets_mode == 2) {
    const std::size_t i = r.payload() % count;
    switch (r.payload() % 4) {
      case 0: v[i] = ~std::uint64_t(0); break;
      case 1: v[i] = std::uint64_t(c.n) + 1; break;
      case 2: v[i] = i + 1 < count ? v[i + 1] + 1 : std::uint64_t(c.n) + 1; break;
      default: v[i] = offset_signed(c.offsets) ? (~std::uint64_t(0) >> (65 - 8 * size)) : ~std::uint64_t(0); break;
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The arena
// ---------------------------------------------------------------------------------------------

//! The queue and the one device_buffer every pointer of a call points into.
struct arena_state {
  preduce::queue q;
  preduce::device_buffer<unsigned char> memory{q, arena_bytes};
};
arena_state& arena() {
  static arena_state a;
  return a;
}

std::vector<unsigned char> arena_to_host() { return arena().memory.to_host(); }

bool verbose() {
  static const bool v = std::getenv("PREDUCE_FUZZ_VERBOSE") != nullptr;
  return v;
}

// ---------------------------------------------------------------------------------------------
// What the call must do: the refusals the input allows
// ---------------------------------------------------------------------------------------------

//! The call as the front door sees it: addresses (0 for null), counts and byte sizes.
struct plan {
  const call* c;
  std::uintptr_t base;            // the arena's address
  std::uintptr_t x, y, offsets, out;
  std::size_t n;                  // input elements (rows * cols for matrices)
  bool n_overflows = false;       // rows * cols overflows
  std::size_t results;            // 0 for the synchronous reduce (its result goes to the host)
  std::size_t stride;             // between results, in results
  std::size_t elem_size, result_bytes;
};

unsigned bit(errc e) { return 1u << unsigned(e); }

std::string errc_set(unsigned set) {
  std::string s;
  for (unsigned e = 0; e < 32; ++e)
    if (set & (1u << e)) s += std::string(s.empty() ? "" : "|") + preduce::to_string(static_cast<errc>(e));
  return s.empty() ? "none" : s;
}

bool multiply_overflows(std::size_t a, std::size_t b, std::size_t& p) { return __builtin_mul_overflow(a, b, &p); }

//! Every errc the call may be refused with (0: it must be accepted). Written from the documented
//! rules (README "Errors", request.hpp): options outside their enumerations; sizes whose
//! products overflow or whose byte ranges exceed PTRDIFF_MAX; determinism::reproducible's
//! refusals; null pointers where data is read or written; a zero stride for several results;
//! a range that starts in the arena and runs past its end; an output overlapping an input.
unsigned allowed_refusals(const plan& p) {
  const call& c = *p.c;
  if (p.n_overflows) return bit(errc::size_overflow);  // reduce_rows / reduce_columns refuse at once
  unsigned set = 0;
  const int det = is_partial(c.op) ? 2 : c.det;  // partial_of runs reproducible whatever det holds
  if (det < 0 || det > 2 || c.algo < 0 || c.algo > 3 || c.warp < 0 || c.warp > 3) set |= bit(errc::invalid_argument);

  std::size_t in_bytes = 0;
  const bool in_ok = !multiply_overflows(p.n, p.elem_size, in_bytes);
  if (!in_ok) set |= bit(errc::size_overflow);
  std::size_t out_bytes = 0, span = 0;
  bool out_ok = true;
  if (p.results > 0) {
    out_ok = !multiply_overflows(p.results - 1, p.stride, span) && span != std::size_t(-1) &&
             !multiply_overflows(span + 1, p.result_bytes, out_bytes);
    if (!out_ok) set |= bit(errc::size_overflow);
  }
  std::size_t offset_bytes = 0;
  bool offsets_ok = true;
  if (c.f == form::segments) {
    offsets_ok = c.segments != std::size_t(-1) && !multiply_overflows(c.segments + 1, offset_size(c.offsets), offset_bytes);
    if (!offsets_ok) set |= bit(errc::size_overflow);
  }
  if (det == 2) {
    const bool refused = (c.op == opcode::multiplies && is_floating(c.type)) ||  // rounding order
                         (c.op == opcode::moments && !is_floating(c.type));    // no compiled form
    if (refused) set |= bit(errc::unsupported);
  }
  if (p.n > 0 && p.x == 0) set |= bit(errc::null_pointer);
  if (is_dot(c.op) && p.n > 0 && p.y == 0) set |= bit(errc::null_pointer);
  if (p.results > 0 && p.out == 0) set |= bit(errc::null_pointer);
  if (c.f == form::segments && p.offsets == 0) set |= bit(errc::null_pointer);
  if (!is_whole(c.f) && p.stride == 0 && p.results > 1) set |= bit(errc::invalid_argument);

  // A range: past PTRDIFF_MAX or the top of the address space, or from inside the arena past
  // its end.
  auto range = [&](std::uintptr_t a, std::size_t bytes) {
    if (bytes > std::size_t(PTRDIFF_MAX) || a > std::uintptr_t(-1) - bytes) set |= bit(errc::size_overflow);
    if (a >= p.base && a < p.base + arena_bytes && bytes > p.base + arena_bytes - a) set |= bit(errc::out_of_bounds);
  };
  if (p.n > 0 && in_ok) range(p.x, in_bytes);
  if (p.n > 0 && in_ok && p.y) range(p.y, in_bytes);
  if (p.offsets && offsets_ok) range(p.offsets, offset_bytes);
  if (p.out && p.results > 0 && out_ok) range(p.out, out_bytes);

  auto overlap = [](std::uintptr_t a, std::size_t a_bytes, std::uintptr_t b, std::size_t b_bytes) {
    return a_bytes && b_bytes && a < b + b_bytes && b < a + a_bytes;
  };
  if (p.out && out_ok) {
    if (in_ok && overlap(p.out, out_bytes, p.x, in_bytes)) set |= bit(errc::overlap);
    if (in_ok && p.y && overlap(p.out, out_bytes, p.y, in_bytes)) set |= bit(errc::overlap);
    if (offsets_ok && p.offsets && overlap(p.out, out_bytes, p.offsets, offset_bytes)) set |= bit(errc::overlap);
  }
  return set;
}

//! The offsets the call reads, from the arena's host copy (all segments + 1 lie in the arena
//! when the call is not refused), and whether they are valid: none negative, non-decreasing, the
//! last at most n.
std::vector<std::uint64_t> read_offsets(const plan& p, const std::vector<unsigned char>& image, bool& valid) {
  const call& c = *p.c;
  const std::size_t size = offset_size(c.offsets);
  std::vector<std::uint64_t> v(c.segments + 1);
  valid = true;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint64_t o = 0;
    for (std::size_t k = 0; k < size; ++k) o |= std::uint64_t(image[p.offsets - p.base + i * size + k]) << (8 * k);
    if (offset_signed(c.offsets) && (o >> (8 * size - 1)) & 1) valid = false;  // negative
    v[i] = o;
    if (i > 0 && v[i] < v[i - 1]) valid = false;
  }
  if (v.back() > p.n) valid = false;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Results as the checks see them
// ---------------------------------------------------------------------------------------------

//! One field of a result (a value, an index, a count, ...) and what is accepted for it.
struct field {
  const char* name;
  long double value;           // NaN: the result must be NaN
  long double bound = 0.0L;    // a finite result within this distance of value is accepted
  bool nan_too = false;        // a NaN is accepted as well
  bool nonfinite_too = false;  // any infinity or NaN is accepted as well (intermediates may overflow)
  bool anything = false;       // no constraint (products whose intermediates may leave the range)
};
struct fields {
  std::size_t size = 0;
  field at[3];
  fields& add(field f) {
    at[size++] = f;
    return *this;
  }
  fields& add(const char* name, long double v) { return add(field{name, v}); }
};

bool matches(long double got, const field& want) {
  if (want.anything) return true;
  if (std::isnan(got)) return std::isnan(want.value) || want.nan_too || want.nonfinite_too;
  if (std::isinf(got)) return got == want.value || want.nonfinite_too;
  if (!std::isfinite(want.value)) return false;
  return got == want.value || std::fabs(got - want.value) <= want.bound;
}

std::string text(const fields& f) {
  std::string s = "{";
  for (std::size_t i = 0; i < f.size; ++i) {
    char b[160];
    const field& x = f.at[i];
    std::snprintf(b, sizeof b, "%s%s %.21Lg", i ? ", " : "", x.name, x.value);
    s += b;
    if (x.bound > 0) {
      std::snprintf(b, sizeof b, " +- %.3Lg", x.bound);
      s += b;
    }
    if (x.anything) s += " (anything)";
    else if (x.nonfinite_too) s += " (or inf/NaN)";
    else if (x.nan_too) s += " (or NaN)";
  }
  return s + "}";
}

bool same(const fields& got, const fields& want) {
  if (got.size != want.size) return false;
  for (std::size_t i = 0; i < got.size; ++i)
    if (!matches(got.at[i].value, want.at[i])) return false;
  return true;
}

// The fields of each result type the library returns.
template <class V>
fields got_fields(const V& v) {
  return fields{}.add("value", ref::value(v));
}
template <class V>
fields got_fields(const preduce::arg<V>& a) {
  return fields{}.add("value", ref::value(a.value)).add("index", static_cast<long double>(a.index));
}
template <class V>
fields got_fields(const preduce::minmax_result<V>& m) {
  return fields{}.add("min", ref::value(m.min)).add("max", ref::value(m.max));
}
template <class A>
fields got_fields(const preduce::moments_result<A>& m) {
  return fields{}.add("count", static_cast<long double>(m.count)).add("mean", m.mean).add("m2", m.m2);
}
template <class R>
fields got_fields(const preduce::reproducible_partial<R>& p) {
  return got_fields(p.value());
}

//! A result read from its device slot (a copy of the arena). A bool must hold 0 or 1.
template <class R>
fields slot_fields(const unsigned char* slot, bool& well_formed) {
  if constexpr (std::is_same<R, bool>::value) {
    well_formed = *slot <= 1;
    return fields{}.add("value", *slot);
  } else {
    R r;
    std::memcpy(static_cast<void*>(&r), slot, sizeof r);
    well_formed = true;
    return got_fields(r);
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

//! The type reduce() returns for Op on T (tests/test_support.hpp's result_of).
template <class Op, class T>
using result_of = decltype(preduce::reduce(std::declval<const preduce::queue&>(), std::declval<const T*>(), std::size_t{},
                                           std::declval<Op>()));

constexpr long double not_a_number = std::numeric_limits<long double>::quiet_NaN();
constexpr long double infinity = std::numeric_limits<long double>::infinity();

template <class A>
long double largest() {
  return static_cast<long double>(std::numeric_limits<A>::max());
}

//! The absolute error results near the bottom of A's range may carry beyond the oracle's
//! relative bounds: products and squares that round into the subnormals (2^-149 in float) and,
//! for reproducible double sums, the binned lattice's finest unit (2^-1040).
template <class A>
long double tiny_unit() {
  return std::ldexp(1.0L, std::is_same<A, double>::value ? -1036 : -147);
}

//! A floating sum in A of the n terms term(i) (exact, long double), given the oracle's estimate
//! of it. A NaN term, or infinite terms of both signs, give NaN; otherwise an infinite term gives
//! that infinity. Where the magnitudes of the finite terms add up to half of A's range, an
//! intermediate sum (or a square, a product formed in A) may overflow: a non-finite result is
//! accepted then, and a finite one must still lie within the bound. `binned`: the reproducible
//! sum, whose documented bound (ulp(r) / 2 + n 2^-78 max |t|) is allowed where it is wider.
template <class A, class Term>
field sum_field(std::size_t n, Term term, const ref::estimate& e, bool binned) {
  bool nan = false, pos = false, neg = false;
  long double abs_sum = 0.0L, max_abs = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    const long double t = term(i);
    if (std::isnan(t)) nan = true;
    else if (std::isinf(t)) (t > 0 ? pos : neg) = true;
    else {
      abs_sum += std::fabs(t);
      max_abs = std::max(max_abs, std::fabs(t));
    }
  }
  const bool may_overflow = abs_sum >= largest<A>() / 2;
  if (nan || (pos && neg)) return field{"value", not_a_number};
  if (pos || neg) {
    field f{"value", pos ? infinity : -infinity};
    f.nan_too = may_overflow;
    return f;
  }
  long double bound = e.bound;
  if (binned)
    bound = std::max(bound, 1.01L * ref::unit_roundoff<A>() * std::fabs(e.value) + n * std::ldexp(max_abs, -78));
  field f{"value", e.value, bound + (n + 4) * tiny_unit<A>()};
  f.nonfinite_too = may_overflow;
  return f;
}

//! A floating product in A of x[0..n). NaN in, or an infinity and a zero: NaN. Where every
//! partial product, in any order, stays in A's normal range (the product of all factors above
//! 1 and that of all below 1 do), the result is the infinity or zero the specials make, or the
//! oracle's estimate; otherwise intermediates may overflow or underflow and anything goes.
template <class A, class T>
field product_field(const T* x, std::size_t n) {
  bool nan = false, inf = false, zero = false, negative = false;
  long double log_big = 0.0L, log_small = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = ref::value(x[i]);
    if (std::isnan(v)) {
      nan = true;
      continue;
    }
    if (std::signbit(v)) negative = !negative;
    if (std::isinf(v)) inf = true;
    else if (v == 0) zero = true;
    else (std::fabs(v) >= 1 ? log_big : log_small) += std::log2(std::fabs(v));
  }
  if (nan || (inf && zero)) return field{"value", not_a_number};
  const bool safe = log_big < std::log2(largest<A>()) - 2 &&
                    log_small > std::log2(static_cast<long double>(std::numeric_limits<A>::min())) + 2;
  if (!safe) {
    field f{"value", 0};
    f.anything = true;
    return f;
  }
  if (inf) return field{"value", negative ? -infinity : infinity};
  if (zero) return field{"value", 0};
  const ref::estimate e = ref::product<A>(x, n);
  return field{"value", e.value, e.bound};
}

//! Moments in A of x[0..n): count exact; a NaN, or infinities of both signs, give mean NaN, one
//! infinity that infinity; either way M2 NaN (README, every determinism mode). Finite data:
//! the oracle's estimates, within the reproducible documented bounds where `binned` and they
//! are wider; where max|x| or n max|x|^2 approach A's largest value, intermediates may overflow
//! and a non-finite result is accepted.
template <class A, class T>
fields moments_fields(const T* x, std::size_t n, bool binned) {
  bool nan = false, pos = false, neg = false;
  long double max_abs = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = ref::value(x[i]);
    if (std::isnan(v)) nan = true;
    else if (std::isinf(v)) (v > 0 ? pos : neg) = true;
    else max_abs = std::max(max_abs, std::fabs(v));
  }
  const bool may_overflow = max_abs >= largest<A>() / 4 || 4.0L * n * max_abs * max_abs >= largest<A>();
  fields f;
  f.add("count", static_cast<long double>(n));
  if (nan || (pos && neg)) return f.add("mean", not_a_number).add("m2", not_a_number);
  if (pos || neg) {
    field mean{"mean", pos ? infinity : -infinity};
    mean.nan_too = may_overflow;
    return f.add(mean).add("m2", not_a_number);
  }
  const ref::moments_estimate e = ref::moments<A>(x, n);
  const long double slack = 4.0L * (n + 4) * (n + 4) * tiny_unit<A>();
  field mean{"mean", e.mean.value, e.mean.bound};
  field m2{"m2", e.m2.value, e.m2.bound};
  if (binned) {
    const long double u = ref::unit_roundoff<A>();
    mean.bound = std::max(mean.bound, 2.01L * u * std::fabs(mean.value) + std::ldexp(max_abs, -78));
    m2.bound = std::max(m2.bound, 2.01L * u * std::fabs(m2.value) + n * std::ldexp(max_abs * max_abs, -76));
  }
  mean.bound += slack;
  m2.bound += slack;
  mean.nonfinite_too = m2.nonfinite_too = may_overflow;
  return f.add(mean).add(m2);
}

using ref::nan_policy;

// want(op, x, y, n, binned): the oracle's result for one reduction of x[0..n) (and y for dot).
template <class T, class A>
fields want(preduce::plus<A> op, const T* x, const T*, std::size_t n, bool binned) {
  using R = result_of<decltype(op), T>;
  if constexpr (std::is_integral<R>::value) {
    return fields{}.add("value", ref::value(ref::sum<R>(x, n)));
  } else {
    return fields{}.add(sum_field<R>(n, [&](std::size_t i) { return ref::value(x[i]); }, ref::sum<R>(x, n), binned));
  }
}
template <class T, class A>
fields want(preduce::sum_of_squares<A> op, const T* x, const T*, std::size_t n, bool binned) {
  using R = result_of<decltype(op), T>;
  if constexpr (std::is_integral<R>::value) {
    return fields{}.add("value", ref::value(ref::sum_of_squares<R>(x, n)));
  } else {
    return fields{}.add(sum_field<R>(
        n, [&](std::size_t i) { return ref::value(x[i]) * ref::value(x[i]); }, ref::sum_of_squares<R>(x, n), binned));
  }
}
template <class T, class U, class A>
fields want(preduce::dot<U, A> op, const T* x, const T* y, std::size_t n, bool binned) {
  using R = result_of<decltype(op), T>;
  if constexpr (std::is_integral<R>::value) {
    return fields{}.add("value", ref::value(ref::dot<R>(x, y, n)));
  } else {
    return fields{}.add(
        sum_field<R>(n, [&](std::size_t i) { return ref::value(x[i]) * ref::value(y[i]); }, ref::dot<R>(x, y, n), binned));
  }
}
template <class T, class A>
fields want(preduce::multiplies<A> op, const T* x, const T*, std::size_t n, bool) {
  using R = result_of<decltype(op), T>;
  if constexpr (std::is_integral<R>::value) {
    return fields{}.add("value", ref::value(ref::product<R>(x, n)));
  } else {
    return fields{}.add(product_field<R>(x, n));
  }
}
template <class T, class A>
fields want(preduce::moments<A> op, const T* x, const T*, std::size_t n, bool binned) {
  return moments_fields<decltype(result_of<decltype(op), T>::mean)>(x, n, binned);
}
template <class T>
fields value_fields(T v) {
  return fields{}.add("value", ref::value(v));
}
template <class T>
fields minmax_fields(const preduce::minmax_result<T>& m) {
  return fields{}.add("min", ref::value(m.min)).add("max", ref::value(m.max));
}
template <class T>
fields arg_fields(const preduce::arg<T>& a) {
  return fields{}.add("value", ref::value(a.value)).add("index", static_cast<long double>(a.index));
}
template <class T>
fields want(preduce::minimum, const T* x, const T*, std::size_t n, bool) {
  return value_fields(ref::minimum(x, n, nan_policy::propagate));
}
template <class T>
fields want(preduce::maximum, const T* x, const T*, std::size_t n, bool) {
  return value_fields(ref::maximum(x, n, nan_policy::propagate));
}
template <class T>
fields want(preduce::minmax, const T* x, const T*, std::size_t n, bool) {
  return minmax_fields(ref::minmax(x, n, nan_policy::propagate));
}
template <class T>
fields want(preduce::argmin, const T* x, const T*, std::size_t n, bool) {
  return arg_fields(ref::argmin(x, n, nan_policy::propagate));
}
template <class T>
fields want(preduce::argmax, const T* x, const T*, std::size_t n, bool) {
  return arg_fields(ref::argmax(x, n, nan_policy::propagate));
}
template <class T>
fields want(preduce::nan_ignoring<preduce::minimum>, const T* x, const T*, std::size_t n, bool) {
  return value_fields(ref::minimum(x, n, nan_policy::ignore));
}
template <class T>
fields want(preduce::nan_ignoring<preduce::maximum>, const T* x, const T*, std::size_t n, bool) {
  return value_fields(ref::maximum(x, n, nan_policy::ignore));
}
template <class T>
fields want(preduce::nan_ignoring<preduce::minmax>, const T* x, const T*, std::size_t n, bool) {
  return minmax_fields(ref::minmax(x, n, nan_policy::ignore));
}
template <class T>
fields want(preduce::nan_ignoring<preduce::argmin>, const T* x, const T*, std::size_t n, bool) {
  return arg_fields(ref::argmin(x, n, nan_policy::ignore));
}
template <class T>
fields want(preduce::nan_ignoring<preduce::argmax>, const T* x, const T*, std::size_t n, bool) {
  return arg_fields(ref::argmax(x, n, nan_policy::ignore));
}
template <class T>
fields want(preduce::logical_and, const T* x, const T*, std::size_t n, bool) {
  return fields{}.add("value", ref::logical_and(x, n));
}
template <class T>
fields want(preduce::logical_or, const T* x, const T*, std::size_t n, bool) {
  return fields{}.add("value", ref::logical_or(x, n));
}
template <class T>
fields want(preduce::bit_and, const T* x, const T*, std::size_t n, bool) { return value_fields(ref::bit_and(x, n)); }
template <class T>
fields want(preduce::bit_or, const T* x, const T*, std::size_t n, bool) { return value_fields(ref::bit_or(x, n)); }
template <class T>
fields want(preduce::bit_xor, const T* x, const T*, std::size_t n, bool) { return value_fields(ref::bit_xor(x, n)); }
//! partial_of(op): its value() is op's reproducible (binned) result.
template <class T, class Op>
fields want(preduce::partial<Op> p, const T* x, const T* y, std::size_t n, bool) {
  return want(p.op, x, y, n, true);
}

// ---------------------------------------------------------------------------------------------
// Running one call and checking it
// ---------------------------------------------------------------------------------------------

[[noreturn]] void fail(const call& c, const std::string& what) {
  std::fprintf(stderr, "\npreduce-fuzz: PROPERTY FAILED\n  call: %s\n  %s\n", describe(c).c_str(), what.c_str());
  std::fflush(stderr);
  std::abort();
}

//! What the call and the synchronize after it did.
struct observed {
  bool threw = false;          // the call threw preduce::error
  bool threw_at_sync = false;  // the q.synchronize() after it did
  errc code = errc::invalid_argument;
  std::string what;
};

//! Runs f (one library call), then q.synchronize(), then q.synchronize() again, which must find
//! nothing left to report. Any exception but preduce::error is a failure.
template <class F>
observed run_call(const call& c, F&& f) {
  observed o;
  const preduce::queue& q = arena().q;
  auto guarded = [&](auto&& g, bool& threw) {
    try {
      g();
    } catch (const preduce::error& e) {
      threw = true;
      o.code = e.code();
      o.what = e.what();
    } catch (const std::exception& e) {
      fail(c, std::string("an exception other than preduce::error escaped: ") + e.what());
    } catch (...) {
      fail(c, "an exception other than preduce::error escaped (not a std::exception)");
    }
  };
  guarded(f, o.threw);
  if (!o.threw) guarded([&] { q.synchronize(); }, o.threw_at_sync);
  bool again = false;
  observed first = o;
  guarded([&] { q.synchronize(); }, again);
  if (again) fail(c, "a second q.synchronize() threw " + std::string(preduce::to_string(o.code)) + " (" + o.what + ")");
  return first;
}

//! Checks what the call did against what the input allows; returns whether it succeeded (its
//! results are then to be compared with the oracle's).
bool check_outcome(const plan& p, const observed& o, const std::vector<unsigned char>& before,
                   const std::vector<unsigned char>& after, bool offsets_valid) {
  const call& c = *p.c;
  const unsigned allowed = allowed_refusals(p);
  auto what = [&] {
    return std::string("allowed refusals: ") + errc_set(allowed) + (offsets_valid ? "" : " (offsets bad)") + "; got " +
           (o.threw ? "a refusal by the call: " : o.threw_at_sync ? "a refusal at synchronize: " : "success") +
           (o.threw || o.threw_at_sync ? std::string(preduce::to_string(o.code)) + " (" + o.what + ")" : "");
  };
  if (verbose()) std::fprintf(stderr, "preduce-fuzz: %s\n  %s\n", describe(c).c_str(), what().c_str());
  if (allowed != 0) {
    if (!o.threw) fail(c, "the call must be refused; " + what());
    if (!(allowed & bit(o.code))) fail(c, "refused with an errc the input does not explain; " + what());
  } else if (!offsets_valid) {
    if (o.threw) fail(c, "bad offsets must be reported at the next synchronizing call, not by the call; " + what());
    if (!o.threw_at_sync || o.code != errc::bad_offsets)
      fail(c, "bad offsets must throw errc::bad_offsets at q.synchronize(); " + what());
  } else if (o.threw || o.threw_at_sync) {
    fail(c, "a valid call was refused; " + what());
  }
  const bool succeeded = !o.threw && !o.threw_at_sync;
  // Every byte but the result slots (when the call succeeded) must be as it was: compared a gap
  // between slots at a time (memcmp: a byte loop here outweighed the call under the coverage
  // instrumentation). Slots are disjoint and ascending (stride >= 1 for several results).
  std::size_t from = 0;
  auto unchanged_up_to = [&](std::size_t to) {
    if (to <= from || std::memcmp(&before[from], &after[from], to - from) == 0) return;
    std::size_t i = from;
    while (before[i] == after[i]) ++i;
    char b[160];
    std::snprintf(b, sizeof b, "arena byte %zu changed from 0x%02x to 0x%02x outside the result slots; ", i, before[i],
                  after[i]);
    fail(c, b + what());
  };
  if (succeeded) {
    for (std::size_t k = 0; k < p.results; ++k) {
      const std::size_t slot = p.out - p.base + k * p.stride * p.result_bytes;
      unchanged_up_to(slot);
      from = slot + p.result_bytes;
    }
  }
  unchanged_up_to(arena_bytes);
  return succeeded;
}

//! Compares results with the oracle's, printing the first mismatches (under PREDUCE_FUZZ_VERBOSE,
//! the first results in any case).
void check_results(const call& c, const std::vector<fields>& got, const std::vector<fields>& want) {
  if (got.size() != want.size()) fail(c, "result count differs from the oracle's");
  auto line = [&](std::size_t i) {
    return "\n  result " + std::to_string(i) + ": got " + text(got[i]) + ", expected " + text(want[i]);
  };
  if (verbose()) {
    std::string first;
    for (std::size_t i = 0; i < std::min<std::size_t>(got.size(), 4); ++i) first += line(i);
    std::fprintf(stderr, "  %zu results%s\n", got.size(), first.c_str());
  }
  std::string errors;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same(got[i], want[i]) && wrong++ < 4) errors += line(i);
  if (wrong)
    fail(c, std::to_string(wrong) + " of " + std::to_string(got.size()) + " results differ from the oracle:" + errors);
}

//! A host copy of n elements of T at byte `at` of the arena image.
template <class T>
std::vector<T> elements_at(const std::vector<unsigned char>& image, std::size_t at, std::size_t n) {
  std::vector<T> v(n);
  if (n) std::memcpy(static_cast<void*>(v.data()), &image[at], n * sizeof(T));
  return v;
}

template <class Op> struct partial_trait : std::false_type {};
template <class Op> struct partial_trait<preduce::partial<Op>> : std::true_type {};

//! Builds the plan of the call of Op on T, runs it, and checks it.
template <class T, class Op>
void run_op(const call& c, reader& r, Op op_without_y) {
  using R = result_of<Op, T>;
  arena_state& a = arena();
  unsigned char* base = a.memory.data();

  // Placements, aligned to their types.
  const std::size_t x_at = c.x_at & ~(alignof(T) - 1), y_at = c.y_at & ~(alignof(T) - 1);
  const std::size_t out_at = c.out_at & ~(alignof(R) - 1);
  const std::size_t off_align = offset_size(c.offsets);
  const std::size_t offsets_at = c.offsets_at & ~(off_align - 1);
  call placed = c;
  placed.offsets_at = offsets_at;

  plan p{};
  p.c = &c;
  p.base = reinterpret_cast<std::uintptr_t>(base);
  p.elem_size = sizeof(T);
  p.result_bytes = sizeof(R);
  p.n = c.n;
  if (c.f == form::rows || c.f == form::columns) p.n_overflows = multiply_overflows(c.rows, c.cols, p.n);
  switch (c.f) {
    case form::reduce: p.results = 0; break;
    case form::reduce_async: p.results = 1; break;
    case form::rows: p.results = c.rows; break;
    case form::columns: p.results = c.cols; break;
    case form::segments: p.results = c.segments; break;
  }
  p.stride = is_whole(c.f) ? 1 : c.stride;
  T* x = c.null == null_arg::input ? nullptr : reinterpret_cast<T*>(base + x_at);
  T* y = !is_dot(c.op) || c.null == null_arg::second ? nullptr : reinterpret_cast<T*>(base + y_at);
  void* offsets = c.f != form::segments || c.null == null_arg::offsets ? nullptr : base + offsets_at;
  R* out = c.f == form::reduce || c.null == null_arg::output ? nullptr : reinterpret_cast<R*>(base + out_at);
  p.x = reinterpret_cast<std::uintptr_t>(x);
  p.y = reinterpret_cast<std::uintptr_t>(y);
  p.offsets = reinterpret_cast<std::uintptr_t>(offsets);
  p.out = reinterpret_cast<std::uintptr_t>(out);

  // The arena's contents: poison, then the input, dot's y and the offsets from the payload.
  std::vector<unsigned char> before(arena_bytes, poison);
  write_elements<T>(before, x_at, p.n_overflows ? ~std::size_t(0) : p.n, r, c.values);
  if (is_dot(c.op)) write_elements<T>(before, y_at, p.n_overflows ? ~std::size_t(0) : p.n, r, c.values);
  if (c.f == form::segments) {
    const std::size_t size = offset_size(c.offsets);
    const std::vector<std::uint64_t> values = make_offsets(placed, r);
    for (std::size_t i = 0; i < values.size(); ++i)
      for (std::size_t k = 0; k < size; ++k)
        before[offsets_at + i * size + k] = static_cast<unsigned char>(values[i] >> (8 * k));
  }
  preduce::copy_to_device(a.q, base, before.data(), arena_bytes);

  Op op = op_without_y;
  if constexpr (partial_trait<Op>::value) {
    if constexpr (std::is_same<decltype(op.op), preduce::dot<T>>::value) op.op.y = y;
  } else if constexpr (std::is_same<Op, preduce::dot<T>>::value) {
    op.y = y;
  }
  const preduce::options o{static_cast<preduce::determinism>(c.det), static_cast<preduce::algorithm>(c.algo),
                           static_cast<preduce::warp_algorithm>(c.warp)};

  // The call.
  R host_result{};
  const observed seen = run_call(c, [&] {
    switch (c.f) {
      case form::reduce: host_result = preduce::reduce(a.q, x, c.n, op, o); break;
      case form::reduce_async: preduce::reduce_async(a.q, x, c.n, out, op, o); break;
      case form::rows: case form::columns: case form::segments:
        if constexpr (!partial_trait<Op>::value) {
          auto run = [&](auto output) {
            if (c.f == form::rows) {
              preduce::reduce_rows(a.q, x, c.rows, c.cols, output, op, o);
            } else if (c.f == form::columns) {
              preduce::reduce_columns(a.q, x, c.rows, c.cols, output, op, o);
            } else {
              auto with = [&](const auto* typed) {
                preduce::reduce_segments(a.q, x, c.n, typed, c.segments, output, op, o);
              };
              switch (c.offsets) {
                case offset_kind::i32: with(static_cast<const std::int32_t*>(offsets)); break;
                case offset_kind::i64: with(static_cast<const std::int64_t*>(offsets)); break;
                case offset_kind::u32: with(static_cast<const std::uint32_t*>(offsets)); break;
                case offset_kind::u64: with(static_cast<const std::uint64_t*>(offsets)); break;
              }
            }
          };
          if (c.strided) run(preduce::strided(out, c.stride));
          else run(out);
        }
        break;
    }
  });
  const std::vector<unsigned char> after = arena_to_host();

  // Offsets are checked only where the call gets past the front door.
  bool offsets_valid = true;
  std::vector<std::uint64_t> segment_offsets;
  if (c.f == form::segments && allowed_refusals(p) == 0 && c.segments > 0)
    segment_offsets = read_offsets(p, before, offsets_valid);
  if (!check_outcome(p, seen, before, after, offsets_valid)) return;

  // Results against the oracle, from the arena as it was before the call.
  const bool sum_like =
      c.op == opcode::plus || c.op == opcode::sum_of_squares || c.op == opcode::dot || c.op == opcode::moments;
  const bool binned = is_partial(c.op) || (c.det == 2 && is_floating(c.type) && sum_like);
  const std::vector<T> xs = elements_at<T>(before, x_at, x ? p.n : 0);
  const std::vector<T> ys = elements_at<T>(before, y_at, y ? p.n : 0);
  std::vector<fields> got, expected;
  bool well_formed = true;
  auto slot_at = [&](std::size_t k) { return &after[out_at + k * p.stride * sizeof(R)]; };
  switch (c.f) {
    case form::reduce:
      got.push_back(got_fields(host_result));
      expected.push_back(want(op, xs.data(), ys.data(), p.n, binned));
      break;
    case form::reduce_async:
      got.push_back(slot_fields<R>(slot_at(0), well_formed));
      expected.push_back(want(op, xs.data(), ys.data(), p.n, binned));
      break;
    case form::rows:
      for (std::size_t i = 0; i < c.rows; ++i) {
        got.push_back(slot_fields<R>(slot_at(i), well_formed));
        expected.push_back(want(op, xs.data() + i * c.cols, ys.data() + (ys.empty() ? 0 : i * c.cols), c.cols, binned));
      }
      break;
    case form::columns: {
      // (No column, no gather: rows may be huge when cols is 0.)
      std::vector<T> cx(c.cols ? c.rows : 0), cy(c.cols && !ys.empty() ? c.rows : 0);
      for (std::size_t j = 0; j < c.cols; ++j) {
        for (std::size_t k = 0; k < c.rows; ++k) {
          cx[k] = xs[k * c.cols + j];
          if (!cy.empty()) cy[k] = ys[k * c.cols + j];
        }
        got.push_back(slot_fields<R>(slot_at(j), well_formed));
        expected.push_back(want(op, cx.data(), cy.data(), c.rows, binned));
      }
      break;
    }
    case form::segments:
      for (std::size_t i = 0; i < c.segments; ++i) {
        const std::size_t begin = segment_offsets[i], length = segment_offsets[i + 1] - begin;
        got.push_back(slot_fields<R>(slot_at(i), well_formed));
        expected.push_back(want(op, xs.data() + begin, ys.data() + (ys.empty() ? 0 : begin), length, binned));
      }
      break;
  }
  if (!well_formed) fail(c, "a bool result slot holds a byte other than 0 or 1");
  check_results(c, got, expected);
}

//! Calls run_op with the operator c.op names (pairs that do not compile never reach here).
template <class T>
void run_type(const call& c, reader& r) {
  using preduce::nan_ignoring;
  constexpr bool floating = ref::is_floating<T>;
  switch (c.op) {
    case opcode::plus: return run_op<T>(c, r, preduce::plus<>{});
    case opcode::multiplies: return run_op<T>(c, r, preduce::multiplies<>{});
    case opcode::sum_of_squares: return run_op<T>(c, r, preduce::sum_of_squares<>{});
    case opcode::moments: return run_op<T>(c, r, preduce::moments<>{});
    case opcode::dot: return run_op<T>(c, r, preduce::dot<T>{nullptr});
    case opcode::minimum: return run_op<T>(c, r, preduce::minimum{});
    case opcode::maximum: return run_op<T>(c, r, preduce::maximum{});
    case opcode::minmax: return run_op<T>(c, r, preduce::minmax{});
    case opcode::argmin: return run_op<T>(c, r, preduce::argmin{});
    case opcode::argmax: return run_op<T>(c, r, preduce::argmax{});
    case opcode::ni_minimum: return run_op<T>(c, r, nan_ignoring<preduce::minimum>{});
    case opcode::ni_maximum: return run_op<T>(c, r, nan_ignoring<preduce::maximum>{});
    case opcode::ni_minmax: return run_op<T>(c, r, nan_ignoring<preduce::minmax>{});
    case opcode::ni_argmin: return run_op<T>(c, r, nan_ignoring<preduce::argmin>{});
    case opcode::ni_argmax: return run_op<T>(c, r, nan_ignoring<preduce::argmax>{});
    case opcode::logical_and: return run_op<T>(c, r, preduce::logical_and{});
    case opcode::logical_or: return run_op<T>(c, r, preduce::logical_or{});
    default: break;
  }
  if constexpr (!floating) {
    switch (c.op) {
      case opcode::bit_and: return run_op<T>(c, r, preduce::bit_and{});
      case opcode::bit_or: return run_op<T>(c, r, preduce::bit_or{});
      case opcode::bit_xor: return run_op<T>(c, r, preduce::bit_xor{});
      default: break;
    }
  } else {
    switch (c.op) {
      case opcode::partial_plus: return run_op<T>(c, r, preduce::partial_of(preduce::plus<>{}));
      case opcode::partial_sum_of_squares: return run_op<T>(c, r, preduce::partial_of(preduce::sum_of_squares<>{}));
      case opcode::partial_moments: return run_op<T>(c, r, preduce::partial_of(preduce::moments<>{}));
      case opcode::partial_dot: return run_op<T>(c, r, preduce::partial_of(preduce::dot<T>{nullptr}));
      default: break;
    }
  }
  fail(c, "the decoder produced an operator this type does not take");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r(data, size);
  const call c = decode(r);
  switch (c.type) {
    case elem::i8: run_type<std::int8_t>(c, r); break;
    case elem::i16: run_type<std::int16_t>(c, r); break;
    case elem::i32: run_type<std::int32_t>(c, r); break;
    case elem::i64: run_type<std::int64_t>(c, r); break;
    case elem::u8: run_type<std::uint8_t>(c, r); break;
    case elem::u16: run_type<std::uint16_t>(c, r); break;
    case elem::u32: run_type<std::uint32_t>(c, r); break;
    case elem::u64: run_type<std::uint64_t>(c, r); break;
    case elem::f32: run_type<float>(c, r); break;
    case elem::f64: run_type<double>(c, r); break;
    case elem::f16: run_type<preduce::half>(c, r); break;
    case elem::bf16: run_type<preduce::bfloat16>(c, r); break;
  }
  return 0;
}
