// SPDX-License-Identifier: Apache-2.0
// preduce's Python extension (_preduce): the calls of <preduce/preduce.hpp> on the arrays
// python/preduce/__init__.py describes (pointer, size, element type, device), zero-copy. Each call names its
// operator, element type and accumulator at run time; the visitors below turn them into the C++
// API's (operator, type) pair, so Python runs exactly what a C++ caller runs. The caller's stream
// comes in as an integer (0: the default stream) and becomes a queue kept per (stream, device).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <preduce/preduce.hpp>

namespace nb = nanobind;

namespace {

using preduce::errc;
using preduce::error;
using preduce::detail::type_tag;

[[noreturn]] void refuse(errc code, const std::string& what) { throw error(code, what); }

// ---------------------------------------------------------------------------------------------
// Queues: one per (stream, device), made on first use and kept (a queue wraps the caller's
// stream, never owns it; making one allocates its scratch and slots, so no call makes its own).
// ---------------------------------------------------------------------------------------------
const preduce::queue& queue_for(std::uintptr_t stream, int device) {
  static std::mutex mutex;
  static auto* queues = new std::map<std::pair<std::uintptr_t, int>, preduce::queue>;  // never freed: may outlive the backend
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(stream, device);
  auto it = queues->find(key);
  if (it == queues->end()) it = queues->emplace(key, preduce::queue::wrap(reinterpret_cast<void*>(stream), device)).first;
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Arrays: __init__.py describes each array as (pointer, element count, element code, where,
// device, item size, C-contiguous): from torch's and CuPy's own attributes where it can (a few
// hundred nanoseconds, where a DLPack export costs microseconds), else through describe() below.
// ---------------------------------------------------------------------------------------------
//! The element types, as Python names them (the order of the codes __init__.py sees).
enum class element : int { int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, boolean };
const char* const element_names[] = {"int8",   "int16",  "int32",    "int64",   "uint8",   "uint16", "uint32",
                                     "uint64", "float16", "bfloat16", "float32", "float64", "bool"};
constexpr int no_element = -1;  //!< an element type preduce does not reduce

//! The element type a call reduces: bool arrays as uint8 (their bytes are 0 and 1, so sum
//! counts, all / any and min / max answer as for bool).
element as_reduced(int code) { return code == int(element::boolean) ? element::uint8 : element(code); }


//! Where an array lives.
enum class where : int { host, gpu, other };

//! One array as __init__.py describes it.
struct view {
  std::uintptr_t ptr;
  std::size_t count;
  int elem;
  int place;
  int device;
  std::size_t itemsize;
  bool contiguous;
};
using described = std::tuple<std::uintptr_t, std::size_t, int, int, int, std::size_t, bool>;
view view_of(const described& d) {
  return view{std::get<0>(d), std::get<1>(d), std::get<2>(d), std::get<3>(d), std::get<4>(d), std::get<5>(d), std::get<6>(d)};
}

//! The element code of a DLPack element type, or no_element.
int element_of(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  if (t.lanes != 1) return no_element;
  if (t.code == std::uint8_t(code::Int)) {
    if (t.bits == 8) return int(element::int8);
    if (t.bits == 16) return int(element::int16);
    if (t.bits == 32) return int(element::int32);
    if (t.bits == 64) return int(element::int64);
  } else if (t.code == std::uint8_t(code::UInt)) {
    if (t.bits == 8) return int(element::uint8);
    if (t.bits == 16) return int(element::uint16);
    if (t.bits == 32) return int(element::uint32);
    if (t.bits == 64) return int(element::uint64);
  } else if (t.code == std::uint8_t(code::Float)) {
    if (t.bits == 16) return int(element::float16);
    if (t.bits == 32) return int(element::float32);
    if (t.bits == 64) return int(element::float64);
  } else if (t.code == std::uint8_t(code::Bfloat) && t.bits == 16) {
    return int(element::bfloat16);
  } else if (t.code == std::uint8_t(code::Bool) && t.bits == 8) {
    return int(element::boolean);
  }
  return no_element;
}

//! Any DLPack array (or buffer) described, with its shape: the path for frameworks __init__.py
//! has no attribute reader for. The array must stay alive while preduce reads it (the caller's
//! reference keeps it).
std::tuple<described, nb::tuple> describe(nb::ndarray<nb::ro> x) {
  std::size_t n = 1;
  std::int64_t expected = 1;
  bool contiguous = true;
  nb::list shape;
  for (std::size_t d = 0; d < x.ndim(); ++d) shape.append(x.shape(d));
  for (std::size_t d = x.ndim(); d-- > 0;) {
    if (x.shape(d) != 1 && x.stride(d) != expected) contiguous = false;
    expected *= std::int64_t(x.shape(d));
    n *= x.shape(d);
  }
  if (n == 0) contiguous = true;  // nothing to read: any strides will do
  const int type = x.device_type();
  const where place = type == nb::device::cpu::value ? where::host
                      : (type == nb::device::cuda::value || type == nb::device::cuda_managed::value || type == nb::device::rocm::value)
                          ? where::gpu
                          : where::other;
  const auto t = x.dtype();
  return {described{reinterpret_cast<std::uintptr_t>(x.data()), n, element_of(t), int(place), place == where::host ? 0 : int(x.device_id()),
                    std::size_t(t.bits / 8 * t.lanes), contiguous},
          nb::tuple(shape)};
}

//! Refuses an array preduce's backend cannot read: cuda and hip read GPU memory; kokkos host
//! memory or its execution space's device (libpreduce checks the pointer itself).
void check_place(const view& v, const char* what) {
  static const std::string backend = preduce::backend_name();  // asked once: this runs on every call
  const bool ok = backend == "kokkos" ? v.place != int(where::other) : v.place == int(where::gpu);
  if (!ok)
    refuse(errc::not_device_memory, std::string(what) + " lives in " + (v.place == int(where::host) ? "host memory" : "memory preduce cannot read") +
                                        ", but preduce was built for the " + backend + " backend, which reads " +
                                        (backend == "kokkos" ? "host or device memory" : "GPU memory: move it to the GPU first"));
}

//! Checks x (the input) and returns its element count.
std::size_t check_input(const view& v, const char* what) {
  check_place(v, what);
  if (!v.contiguous)
    refuse(errc::invalid_argument, std::string(what) + " is not C-contiguous (make a contiguous copy first: x.contiguous() in torch, "
                                                       "cupy.ascontiguousarray or numpy.ascontiguousarray)");
  if (v.elem == no_element)
    refuse(errc::unsupported, std::string(what) + " has an element type preduce does not reduce; use int8..int64, uint8..uint64, "
                                                  "float16, bfloat16, float32 or float64");
  return v.count;
}

//! Refuses `other` unless it is on x's device.
void check_same_device(const view& x, const view& other, const char* what) {
  if (other.place != x.place || other.device != x.device) refuse(errc::wrong_device, std::string(what) + " must be on x's device");
}

// ---------------------------------------------------------------------------------------------
// Operators: the codes __init__.py sends, and the C++ operator each names
// ---------------------------------------------------------------------------------------------
enum class op_code : int { sum, prod, sum_of_squares, dot, moments, min, max, minmax, argmin, argmax, all, any, bit_and, bit_or, bit_xor };
enum class acc_code : int { automatic = -1 };  // else an element code: int32, int64, uint32, uint64, float32, float64

//! One call's operator as Python named it.
struct op_spec {
  op_code op;
  bool nan_ignoring;  //!< min, max, minmax, argmin, argmax: skip NaNs
  int acc;            //!< acc_code::automatic or an element code
  const void* y;      //!< dot's second input (same element type and extent as x)
};

//! The library's element tag of an element code: the codes run in detail::dtype's order, from
//! int8 (i8) to bool (boolean).
preduce::detail::dtype dtype_of(int code) { return preduce::detail::dtype(code + 1); }
static_assert(int(preduce::detail::dtype::i8) == int(element::int8) + 1 && int(preduce::detail::dtype::boolean) == int(element::boolean) + 1,
              "element codes follow detail::dtype");

//! f(type_tag<T>) for the C++ element type of e.
template <class F>
void with_element(element e, F&& f) {
  preduce::detail::with_input_dtype(dtype_of(int(e)), f, [] { refuse(errc::unsupported, "an element type preduce does not reduce"); });
}

//! f(type_tag<A>) for an accumulator code (void: the operator's default).
template <class F>
void with_accumulator(int acc, F&& f) {
  if (acc == int(acc_code::automatic)) return f(type_tag<void>{});
  preduce::detail::with_accumulator_dtype(acc >= 0 && acc <= int(element::boolean) ? dtype_of(acc) : preduce::detail::dtype::none, f, [&] {
    refuse(errc::unsupported, std::string("no accumulator of type ") + (acc >= 0 && acc <= int(element::boolean) ? element_names[acc] : "?") +
                                  "; accumulators are int32, int64, uint32, uint64, float32 or float64");
  });
}

//! Whether the C++ API takes Op on T (its compile-time checks, asked at compile time here so
//! that no refused pair is instantiated).
template <class Op, class T>
constexpr bool takes() {
  using namespace preduce::detail;
  constexpr int family = op_traits<Op>::family;
  if constexpr (family == 4) return std::is_integral<T>::value;
  else if constexpr (family == 0 || family == 1) return op_supports<Op, T>();
  else return true;
}

//! f(Op{}) for the operator of s on element type T: the C++ API's operator object.
template <class T, class F>
void with_operator(const op_spec& s, F&& f) {
  auto run = [&](auto op) {
    using Op = decltype(op);
    if constexpr (takes<Op, T>()) return f(op);
    else refuse(errc::unsupported, "this operator does not take this element type and accumulator (integers: bit_and, bit_or, bit_xor; "
                                   "floating inputs accumulate in float32 or float64, float64 inputs in float64; integers in a 32- or "
                                   "64-bit integer of the same signedness)");
  };
  auto compare = [&](auto plain) {
    if (s.nan_ignoring) return run(preduce::nan_ignoring<decltype(plain)>{});
    return run(plain);
  };
  switch (s.op) {
    case op_code::min: return compare(preduce::minimum{});
    case op_code::max: return compare(preduce::maximum{});
    case op_code::minmax: return compare(preduce::minmax{});
    case op_code::argmin: return compare(preduce::argmin{});
    case op_code::argmax: return compare(preduce::argmax{});
    case op_code::all: return run(preduce::logical_and{});
    case op_code::any: return run(preduce::logical_or{});
    case op_code::bit_and: return run(preduce::bit_and{});
    case op_code::bit_or: return run(preduce::bit_or{});
    case op_code::bit_xor: return run(preduce::bit_xor{});
    default: break;
  }
  with_accumulator(s.acc, [&](auto a) {
    using A = typename decltype(a)::type;
    switch (s.op) {
      case op_code::sum: return run(preduce::plus<A>{});
      case op_code::prod: return run(preduce::multiplies<A>{});
      case op_code::sum_of_squares: return run(preduce::sum_of_squares<A>{});
      case op_code::moments: return run(preduce::moments<A>{});
      default: return run(preduce::dot<T, A>{static_cast<const T*>(s.y)});
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Results: their layout (for the arrays __init__.py makes) and their Python values
// ---------------------------------------------------------------------------------------------
template <class V>
constexpr int element_code() {
  if constexpr (std::is_same<V, bool>::value) return int(element::boolean);
  else if constexpr (std::is_same<V, std::int8_t>::value) return int(element::int8);
  else if constexpr (std::is_same<V, std::int16_t>::value) return int(element::int16);
  else if constexpr (std::is_same<V, std::int32_t>::value) return int(element::int32);
  else if constexpr (std::is_same<V, std::int64_t>::value) return int(element::int64);
  else if constexpr (std::is_same<V, std::uint8_t>::value) return int(element::uint8);
  else if constexpr (std::is_same<V, std::uint16_t>::value) return int(element::uint16);
  else if constexpr (std::is_same<V, std::uint32_t>::value) return int(element::uint32);
  else if constexpr (std::is_same<V, std::uint64_t>::value) return int(element::uint64);
  else if constexpr (std::is_same<V, preduce::half>::value) return int(element::float16);
  else if constexpr (std::is_same<V, preduce::bfloat16>::value) return int(element::bfloat16);
  else if constexpr (std::is_same<V, float>::value) return int(element::float32);
  else return int(element::float64);
}

template <class R> struct result_kind { static constexpr const char* name = "value"; using value = R; };
template <class T> struct result_kind<preduce::arg<T>> { static constexpr const char* name = "arg"; using value = T; };
template <class T> struct result_kind<preduce::minmax_result<T>> { static constexpr const char* name = "minmax"; using value = T; };
template <class A> struct result_kind<preduce::moments_result<A>> { static constexpr const char* name = "moments"; using value = A; };

template <class V>
nb::object scalar(const V& v) {
  if constexpr (std::is_same<V, bool>::value) return nb::bool_(v);
  else if constexpr (std::is_integral<V>::value) return nb::int_(v);
  else if constexpr (std::is_same<V, preduce::half>::value || std::is_same<V, preduce::bfloat16>::value) return nb::float_(double(float(v)));
  else return nb::float_(double(v));
}

nb::object index_of(std::uint64_t i) { return i == preduce::npos ? nb::int_(-1) : nb::int_(i); }

template <class R>
nb::object python_value(const R& r) {
  if constexpr (std::is_same<typename result_kind<R>::value, R>::value) return scalar(r);
  else if constexpr (std::is_same<R, preduce::arg<typename result_kind<R>::value>>::value) return nb::make_tuple(scalar(r.value), index_of(r.index));
  else if constexpr (std::is_same<R, preduce::minmax_result<typename result_kind<R>::value>>::value) return nb::make_tuple(scalar(r.min), scalar(r.max));
  else return nb::make_tuple(nb::int_(r.count), scalar(r.mean), scalar(r.m2));
}

//! (kind, bytes a result, the value's element code): how __init__.py lays out an output.
nb::tuple result_layout(int in, const op_spec& s) {
  nb::tuple out;
  with_element(as_reduced(in), [&](auto t) {
    using T = typename decltype(t)::type;
    with_operator<T>(s, [&](auto op) {
      using R = preduce::detail::result_t<decltype(op), T>;
      out = nb::make_tuple(result_kind<R>::name, sizeof(R), element_code<typename result_kind<R>::value>());
    });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The calls
// ---------------------------------------------------------------------------------------------
preduce::options options_of(int det) {
  if (det < 0 || det > int(preduce::determinism::reproducible)) refuse(errc::invalid_argument, "determinism must be run_to_run, fast or reproducible");
  preduce::options o{};
  o.det = preduce::determinism(det);
  return o;
}

//! The operator spec of a call, checking dot's second input (described as y, or none) against x.
op_spec spec_of(const view& x, int op, bool nan_ignoring, int acc, const std::optional<described>& y) {
  if (op < 0 || op > int(op_code::bit_xor)) refuse(errc::invalid_argument, "unknown operator code");
  op_spec s{op_code(op), nan_ignoring, acc, nullptr};
  if (s.op == op_code::dot) {
    if (!y) refuse(errc::invalid_argument, "dot needs its second array (preduce.dot(y))");
    const view other = view_of(*y);
    check_input(other, "dot's second array");
    check_same_device(x, other, "dot's second array");
    if (other.elem != x.elem) refuse(errc::invalid_argument, "dot's second array must have x's element type");
    if (other.count != x.count) refuse(errc::invalid_argument, "dot's second array must have x's size");
    s.y = reinterpret_cast<const void*>(other.ptr);
  }
  return s;
}

//! f(type_tag<T>, Op) for x's element type and the call's operator.
template <class F>
void visit(const view& x, const op_spec& s, F&& f) {
  with_element(as_reduced(x.elem), [&](auto t) {
    using T = typename decltype(t)::type;
    with_operator<T>(s, [&](auto op) { f(t, op); });
  });
}

//! Where `results` results of R go: a C-contiguous array (of any shape) on x's device of
//! `results` elements of R's type, or, for a structured result (arg, minmax, moments), of
//! results * sizeof(R) bytes (uint8) or `results` elements of a type preduce does not name (a
//! NumPy structured type of R's size).
template <class R>
R* output_of(const described& d, std::size_t results, const view& x) {
  const view out = view_of(d);
  check_place(out, "out");
  check_same_device(x, out, "out");
  constexpr bool value = std::is_same<typename result_kind<R>::value, R>::value;
  const bool typed = value ? out.elem == element_code<R>()
                           : (out.elem == int(element::uint8) && out.itemsize == 1) || (out.elem == no_element && out.itemsize == sizeof(R));
  if (!out.contiguous || !typed || out.count * out.itemsize != results * sizeof(R))
    refuse(errc::invalid_argument, "out must be a C-contiguous array of " + std::to_string(results) + " result" + (results == 1 ? "" : "s") +
                                       (value ? std::string(" of type ") + element_names[element_code<R>()]
                                              : " of " + std::to_string(sizeof(R)) + " bytes each, as uint8") +
                                       " (what preduce.reduce returns without out)");
  return reinterpret_cast<R*>(out.ptr);
}

using maybe_view = std::optional<described>;

//! f(input, output, Op) for x's element type and the call's operator, the output `results`
//! results in out.
template <class F>
void visit_into(const view& x, const op_spec& s, const described& out, std::size_t results, F&& f) {
  visit(x, s, [&](auto t, auto opr) {
    using T = typename decltype(t)::type;
    using R = preduce::detail::result_t<decltype(opr), T>;
    f(reinterpret_cast<const T*>(x.ptr), output_of<R>(out, results, x), opr);
  });
}

//! reduce (out: none, returns the value) or reduce_async (into out): the whole array.
nb::object reduce_whole(const described& xd, int op, bool nan_ignoring, int acc, int det, const maybe_view& y, const maybe_view& out,
                        std::uintptr_t stream) {
  const view x = view_of(xd);
  const std::size_t n = check_input(x, "x");
  const op_spec s = spec_of(x, op, nan_ignoring, acc, y);
  const preduce::options o = options_of(det);
  const preduce::queue& q = queue_for(stream, x.device);
  nb::object result = nb::none();
  visit(x, s, [&](auto t, auto opr) {
    using T = typename decltype(t)::type;
    using R = preduce::detail::result_t<decltype(opr), T>;
    const T* in = reinterpret_cast<const T*>(x.ptr);
    if (out) return preduce::reduce_async(q, in, n, output_of<R>(*out, 1, x), opr, o);
    R r;
    {
      nb::gil_scoped_release released;
      r = preduce::reduce(q, in, n, opr, o);
    }
    result = python_value(r);
  });
  return result;
}

//! reduce_rows (axis 1: each of `rows` rows of `cols`) or reduce_columns (axis 0), into out.
void reduce_lines(const described& xd, std::size_t rows, std::size_t cols, int axis, int op, bool nan_ignoring, int acc, int det,
                  const maybe_view& y, const described& out, std::uintptr_t stream) {
  const view x = view_of(xd);
  std::size_t n = 0;
  if (__builtin_mul_overflow(rows, cols, &n) || check_input(x, "x") != n) refuse(errc::invalid_argument, "rows * cols must be x's size");
  const op_spec s = spec_of(x, op, nan_ignoring, acc, y);
  const preduce::options o = options_of(det);
  const preduce::queue& q = queue_for(stream, x.device);
  visit_into(x, s, out, axis == 1 ? rows : cols, [&](auto* in, auto* to, auto opr) {
    if (axis == 1) preduce::reduce_rows(q, in, rows, cols, to, opr, o);
    else preduce::reduce_columns(q, in, rows, cols, to, opr, o);
  });
}

//! reduce_segments: x[offsets[i] .. offsets[i + 1]) for i < len(offsets) - 1, into out.
void reduce_segments(const described& xd, const described& offsets_d, int op, bool nan_ignoring, int acc, int det, const maybe_view& y,
                     const described& out, std::uintptr_t stream) {
  const view x = view_of(xd), offsets = view_of(offsets_d);
  const std::size_t n = check_input(x, "x"), bounds = check_input(offsets, "offsets");
  check_same_device(x, offsets, "offsets");
  if (bounds == 0) refuse(errc::invalid_argument, "offsets must hold segments + 1 bounds (at least one)");
  const op_spec s = spec_of(x, op, nan_ignoring, acc, y);
  const preduce::options o = options_of(det);
  const preduce::queue& q = queue_for(stream, x.device);
  visit_into(x, s, out, bounds - 1, [&](auto* in, auto* to, auto opr) {
    auto run = [&](auto* off) { preduce::reduce_segments(q, in, n, off, bounds - 1, to, opr, o); };
    switch (element(offsets.elem)) {
      case element::int32: return run(reinterpret_cast<const std::int32_t*>(offsets.ptr));
      case element::int64: return run(reinterpret_cast<const std::int64_t*>(offsets.ptr));
      case element::uint32: return run(reinterpret_cast<const std::uint32_t*>(offsets.ptr));
      case element::uint64: return run(reinterpret_cast<const std::uint64_t*>(offsets.ptr));
      default: refuse(errc::invalid_argument, "offsets must be 32- or 64-bit integers");
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Partials: reproducible_partial states as their serialised bytes
// ---------------------------------------------------------------------------------------------
//! partial_of(op) over the whole array, as to_bytes() gives it.
nb::bytes partial(const described& xd, int op, int acc, const maybe_view& y, std::uintptr_t stream) {
  const view x = view_of(xd);
  const std::size_t n = check_input(x, "x");
  const op_spec s = spec_of(x, op, false, acc, y);
  if (s.op != op_code::sum && s.op != op_code::sum_of_squares && s.op != op_code::dot && s.op != op_code::moments)
    refuse(errc::unsupported, "partials are of sum, sum_of_squares, dot or moments");
  const preduce::queue& q = queue_for(stream, x.device);
  nb::bytes out;
  visit(x, s, [&](auto t, auto opr) {
    using T = typename decltype(t)::type;
    using preduce::detail::op_id;
    constexpr op_id id = decltype(opr)::id;
    if constexpr (!preduce::detail::is_floating<T> || !(id == op_id::plus || id == op_id::sum_of_squares || id == op_id::dot ||
                                                         id == op_id::moments)) {
      refuse(errc::unsupported, "partials take floating-point arrays (float16, bfloat16, float32, float64)");
    } else {
      const T* in = reinterpret_cast<const T*>(x.ptr);
      using P = decltype(preduce::reduce(q, in, n, preduce::partial_of(opr)));
      P p;
      {
        nb::gil_scoped_release released;
        p = preduce::reduce(q, in, n, preduce::partial_of(opr));
      }
      const auto bytes = p.to_bytes();
      out = nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
  });
  return out;
}

//! f(type_tag<P>) for the partial type a serialised partial's header names (kind, width).
template <class F>
void with_partial(const nb::bytes& b, F&& f) {
  const auto* p = static_cast<const unsigned char*>(b.data());
  if (b.size() < preduce::detail::binned::header_bytes) refuse(errc::invalid_argument, "not a serialised preduce partial");
  const unsigned kind = p[5], width = p[6];
  if (kind == 1 && width == 4) return f(type_tag<preduce::reproducible_partial<float>>{});
  if (kind == 1 && width == 8) return f(type_tag<preduce::reproducible_partial<double>>{});
  if (kind == 2 && width == 4) return f(type_tag<preduce::reproducible_partial<preduce::moments_result<float>>>{});
  if (kind == 2 && width == 8) return f(type_tag<preduce::reproducible_partial<preduce::moments_result<double>>>{});
  refuse(errc::invalid_argument, "not a serialised preduce partial");
}

template <class P>
P read_partial(const nb::bytes& b) {
  return P::from_bytes(b.data(), b.size());
}

nb::bytes partial_add(const nb::bytes& a, const nb::bytes& b) {
  nb::bytes out;
  with_partial(a, [&](auto t) {
    using P = typename decltype(t)::type;
    const auto sum = read_partial<P>(a) + read_partial<P>(b);  // from_bytes refuses b of another type
    const auto bytes = sum.to_bytes();
    out = nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  });
  return out;
}

nb::object partial_value(const nb::bytes& a) {
  nb::object out;
  with_partial(a, [&](auto t) {
    using P = typename decltype(t)::type;
    out = python_value(read_partial<P>(a).value());
  });
  return out;
}

nb::object error_type;  // preduce.Error, set by __init__.py

}  // namespace

NB_MODULE(_preduce, m) {
  m.doc() = "preduce's compiled calls; use the preduce package, not this module";
  m.attr("backend") = preduce::backend_name();
  nb::list names;
  for (const char* name : element_names) names.append(name);
  m.attr("element_names") = nb::tuple(names);
  nb::list sizes;  // bytes an element, by element code
  for (int code = 0; code <= int(element::boolean); ++code) sizes.append(preduce::detail::dtype_size(dtype_of(code)));
  m.attr("element_sizes") = nb::tuple(sizes);
  m.def("_set_error_type", [](nb::object type) { error_type = std::move(type); });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const preduce::error& e) {
      if (!error_type.is_valid()) throw;
      nb::object err = error_type(nb::str(e.what()), nb::str(preduce::to_string(e.code())));
      PyErr_SetObject(error_type.ptr(), err.ptr());
    }
  });
  m.def("describe", &describe);
  m.def("device_count", [] { return preduce::device_count(); });
  m.def("device_description", [](int device) { return preduce::device_description(device); });
  m.def("synchronize", [](std::uintptr_t stream, int device) {
    const preduce::queue& q = queue_for(stream, device);
    nb::gil_scoped_release released;
    q.synchronize();
  });
  m.def("result_layout", [](int in, int op, bool nan_ignoring, int acc) {
    if (in < 0 || in > int(element::boolean) || op < 0 || op > int(op_code::bit_xor)) refuse(errc::invalid_argument, "unknown element or operator code");
    return result_layout(in, op_spec{op_code(op), nan_ignoring, acc, nullptr});
  });
  m.def("reduce_whole", &reduce_whole);
  m.def("reduce_lines", &reduce_lines);
  m.def("reduce_segments", &reduce_segments);
  m.def("partial", &partial);
  m.def("partial_add", &partial_add);
  m.def("partial_value", &partial_value);
}
