// SPDX-License-Identifier: Apache-2.0
// preduce-bench: one row per case, printed as a table line and written to the JSON report (by
// hand: a small writer, no dependency).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <ctime>
#include <ostream>
#include <string>
#include <vector>

#include "check.hpp"

// The revision the JSON records (bench/CMakeLists.txt defines both; a build without .git passes
// -DPREDUCE_GIT_REVISION=<rev>[-dirty]).
#ifndef PREDUCE_BENCH_GIT_REVISION
#define PREDUCE_BENCH_GIT_REVISION "unknown"
#endif
#ifndef PREDUCE_BENCH_GIT_DIRTY
#define PREDUCE_BENCH_GIT_DIRTY 0
#endif

namespace preduce {
namespace bench {

//! One implementation's figures for one case.
struct column {
  bool ran = false;          //!< false: "n/a" (see unavailable) or an error before timing
  std::string unavailable;   //!< why the vendor has no equivalent, or the error that stopped the column
  bool error = false;        //!< the column threw: counted as a failure
  double median_us = 0, min_us = 0;
  int reps = 0;
  double gb_per_s = 0, percent_of_ceiling = 0;
  check_result check;
  //! The column's status word in the table.
  std::string status() const {
    if (error) return "ERROR";
    return ran ? verdict_name(check.worst) : "n/a";
  }
  bool failed() const { return error || (ran && check.worst == verdict::fail); }
};

//! One case: what ran, how the input was laid out in memory, and both columns.
struct row {
  std::string name;  //!< {lvl:device,algo:reduce,backend:..,op:..,type:..,shape:..[,len:..],n:2^k[,cfg:..]}
  std::string op, type, layout;
  std::size_t len = 0;  //!< rows: row length; columns: column length; 0 otherwise
  std::size_t n = 0, results = 0, segments = 0;
  int log2_n = 0;
  std::size_t bytes = 0;  //!< minimum traffic: inputs (and offsets) read once, results written once
  int copies = 1;         //!< input copies the timed calls rotate among
  std::size_t working_set = 0;
  column preduce, vendor;
  //! Vendor time over preduce time (> 1: preduce faster); 0 when either did not run.
  double speedup() const { return preduce.ran && vendor.ran ? vendor.median_us / preduce.median_us : 0.0; }
};

//! The current time as ISO 8601 UTC, for the JSON reports.
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

//! The table's column names; "vendor" is the backend's vendor library, named in the heading.
inline void print_table_header(std::FILE* out) {
  std::fprintf(out, "%-86s %11s %9s %6s %11s %9s %6s %8s  %s\n", "case", "preduce_us", "GB/s", "%ceil", "vendor_us", "GB/s", "%ceil",
               "speedup", "check preduce/vendor");
}

inline void print_table_row(std::FILE* out, const row& r) {
  auto figures = [&](const column& c) {
    char b[64];
    if (c.ran) std::snprintf(b, sizeof b, "%11.2f %9.2f %6.1f", c.median_us, c.gb_per_s, c.percent_of_ceiling);
    else std::snprintf(b, sizeof b, "%11s %9s %6s", "n/a", "n/a", "n/a");
    return std::string(b);
  };
  char speedup[32];
  if (r.speedup() > 0) std::snprintf(speedup, sizeof speedup, "%8.2f", r.speedup());
  else std::snprintf(speedup, sizeof speedup, "%8s", "n/a");
  std::fprintf(out, "%-86s %s %s %s  %s/%s\n", r.name.c_str(), figures(r.preduce).c_str(), figures(r.vendor).c_str(), speedup,
               r.preduce.status().c_str(), r.vendor.status().c_str());
}

//! A minimal JSON writer: objects, arrays, strings and numbers, commas handled.
class json_writer {
 public:
  explicit json_writer(std::ostream& out) : out_(out) {}
  json_writer& open(char bracket) {
    separate();
    out_ << bracket;
    first_ = true;
    return *this;
  }
  json_writer& close(char bracket) {
    out_ << bracket;
    first_ = false;
    return *this;
  }
  json_writer& key(const std::string& k) {
    separate();
    quote(k);
    out_ << ':';
    first_ = true;  // the value follows without a comma
    return *this;
  }
  json_writer& value(const std::string& s) {
    separate();
    quote(s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string(s)); }
  json_writer& value(bool b) {
    separate();
    out_ << (b ? "true" : "false");
    return *this;
  }
  json_writer& value(double d) {
    separate();
    if (std::isfinite(d)) {
      char b[32];
      std::snprintf(b, sizeof b, "%.6g", d);
      out_ << b;
    } else {
      out_ << "null";
    }
    return *this;
  }
  json_writer& value(std::size_t v) {
    separate();
    out_ << v;
    return *this;
  }
  json_writer& value(int v) {
    separate();
    out_ << v;
    return *this;
  }
  json_writer& null() {
    separate();
    out_ << "null";
    return *this;
  }
  template <class V>
  json_writer& field(const std::string& k, const V& v) {
    return key(k).value(v);
  }

 private:
  void separate() {
    if (!first_) out_ << ',';
    first_ = false;
  }
  void quote(const std::string& s) {
    out_ << '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') out_ << '\\' << ch;
      else if (c == '\n') out_ << "\\n";
      else if (c < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        out_ << b;
      } else out_ << ch;
    }
    out_ << '"';
  }
  std::ostream& out_;
  bool first_ = true;
};

inline void write_column(json_writer& j, const column& c) {
  j.open('{').field("status", c.status());
  if (c.ran) {
    j.field("us_median", c.median_us).field("us_min", c.min_us).field("reps", c.reps).field("gb_per_s", c.gb_per_s);
    j.field("percent_of_ceiling", c.percent_of_ceiling).field("max_rel_error", c.check.max_rel_error);
    if (!c.check.first_failure.empty()) j.field("failure", c.check.first_failure);
  } else if (!c.unavailable.empty()) {
    j.field(c.error ? "error" : "why", c.unavailable);
  }
  j.close('}');
}

inline void write_row(json_writer& j, const row& r) {
  j.open('{').field("name", r.name).field("op", r.op).field("type", r.type).field("shape", r.layout);
  j.key("len");
  if (r.len) j.value(r.len);
  else j.null();
  j.field("n", r.n).field("log2_n", r.log2_n).field("results", r.results);
  if (r.layout == "segments") j.field("segments", r.segments);
  j.field("bytes", r.bytes).field("copies", r.copies).field("working_set_bytes", r.working_set);
  j.key("preduce");
  write_column(j, r.preduce);
  j.key("vendor");
  write_column(j, r.vendor);
  j.key("speedup");
  if (r.speedup() > 0) j.value(r.speedup());
  else j.null();
  j.close('}');
}

}  // namespace bench
}  // namespace preduce
