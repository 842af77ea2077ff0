# SPDX-License-Identifier: Apache-2.0
"""preduce: reductions at the memory-bandwidth limit, on the arrays you already have.

    import preduce
    preduce.reduce(x)                        # the sum of every element, as a Python number
    preduce.reduce(x, "argmax")              # (value, index)
    preduce.reduce(x, "max", axis=-1)        # one result a row, an array of x's framework
    preduce.reduce(x, "sum", axis=0, determinism="reproducible")   # the same bits on any GPU
    preduce.segment_reduce(x, offsets, "max")
    p = preduce.partial(x1) + preduce.partial(x2)                  # exact, mergeable sums

Arrays are read in place (torch, CuPy, JAX and NumPy arrays, and any array with __dlpack__): GPU
arrays on the cuda and hip backends, host or device arrays on kokkos. On a GPU the call runs on
the caller's current stream (torch's or CuPy's) or on `stream=`; calls that return arrays are
asynchronous like the framework's own, calls that return Python numbers wait for their result.
Errors raise preduce.Error, whose `errc` names the kind (invalid_argument, unsupported, ...).
"""
from __future__ import annotations

import math
import sys
from typing import Any, NamedTuple, Optional, Tuple, Union

from . import _preduce as _C

# The operator objects named like builtins (sum, min, max, all, any) are reached as preduce.sum
# and so on, never through `from preduce import *`.
__all__ = [
    "Error", "Op", "Moments", "Partial", "reduce", "segment_reduce", "partial", "synchronize", "backend",
    "prod", "sum_of_squares", "minmax", "argmin", "argmax", "moments", "bit_and", "bit_or", "bit_xor", "dot", "nan_ignoring",
]

#: The backend this preduce was built for: "cuda", "hip" or "kokkos".
backend: str = _C.backend


class Error(RuntimeError):
    """A call preduce refused or a device fault; `errc` names the kind (as preduce::errc does)."""

    def __init__(self, message: str, errc: str = "invalid_argument"):
        super().__init__(message)
        self.errc = errc


_C._set_error_type(Error)


def _refuse(message: str, errc: str = "invalid_argument"):
    raise Error("preduce: " + message, errc)


# ---------------------------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------------------------
_OP_CODES = {"sum": 0, "prod": 1, "sum_of_squares": 2, "dot": 3, "moments": 4, "min": 5, "max": 6, "minmax": 7, "argmin": 8,
             "argmax": 9, "all": 10, "any": 11, "bit_and": 12, "bit_or": 13, "bit_xor": 14}
_COMPARISONS = ("min", "max", "minmax", "argmin", "argmax")


class Op:
    """An operator: a name from `preduce.Op.names`, NaN handling for comparisons, and dot's
    second array. Use the module's instances (preduce.argmax), preduce.dot(y) and
    preduce.nan_ignoring("max"), or a plain string ("max")."""

    names = tuple(_OP_CODES)
    __slots__ = ("name", "code", "nan_ignoring", "y")

    def __init__(self, name: str, *, nan_ignoring: bool = False, y: Any = None):
        if name not in _OP_CODES:
            _refuse(f"unknown operator {name!r}; operators are {', '.join(_OP_CODES)}")
        if nan_ignoring and name not in _COMPARISONS:
            _refuse(f"nan_ignoring takes {', '.join(_COMPARISONS)}, not {name!r}")
        if (name == "dot") != (y is not None):
            _refuse("dot takes its second array: preduce.dot(y)")
        self.name, self.code, self.nan_ignoring, self.y = name, _OP_CODES[name], nan_ignoring, y

    def __repr__(self) -> str:
        if self.nan_ignoring:
            return f"preduce.nan_ignoring({self.name!r})"
        return "preduce.dot(y)" if self.name == "dot" else f"preduce.{self.name}"


sum = Op("sum")
prod = Op("prod")
sum_of_squares = Op("sum_of_squares")
moments = Op("moments")
min = Op("min")
max = Op("max")
minmax = Op("minmax")
argmin = Op("argmin")
argmax = Op("argmax")
all = Op("all")
any = Op("any")
bit_and = Op("bit_and")
bit_or = Op("bit_or")
bit_xor = Op("bit_xor")
_BY_NAME = {op.name: op for op in (sum, prod, sum_of_squares, moments, min, max, minmax, argmin, argmax, all, any, bit_and, bit_or,
                                   bit_xor)}


def dot(y: Any) -> Op:
    """The dot product with y (same shape and element type as x): reduce(x, preduce.dot(y))."""
    return Op("dot", y=y)


def nan_ignoring(op: Union[str, Op]) -> Op:
    """min, max, minmax, argmin or argmax skipping NaNs (the result is NaN only when every
    element is); the plain forms propagate the first NaN."""
    return Op(op if isinstance(op, str) else op.name, nan_ignoring=True)


def _op(op: Union[str, Op]) -> Op:
    if isinstance(op, Op):
        return op
    found = _BY_NAME.get(op)
    if found is None:
        if op == "dot":
            _refuse("dot takes its second array: preduce.dot(y)")
        _refuse(f"unknown operator {op!r}; operators are {', '.join(_OP_CODES)}")
    return found


_DETERMINISM = {"run_to_run": 0, "fast": 1, "reproducible": 2}
_ELEMENTS = _C.element_names  # element codes are indices into this
_CODE = {name: code for code, name in enumerate(_ELEMENTS)}


def _determinism(d: str) -> int:
    code = _DETERMINISM.get(d)
    if code is None:
        _refuse(f"determinism must be 'run_to_run', 'fast' or 'reproducible', not {d!r}")
    return code


def _accumulator(dtype: Any) -> int:
    if dtype is None:
        return -1
    name = str(dtype).replace("torch.", "").replace("<class 'numpy.", "").rstrip("'>")
    code = _CODE.get(name)
    if code is None or name not in ("int32", "int64", "uint32", "uint64", "float32", "float64"):
        _refuse(f"dtype (the accumulator) must be int32, int64, uint32, uint64, float32 or float64, not {dtype!r}", "unsupported")
    return code


class Moments(NamedTuple):
    """moments' result: the count, the mean and M2 (the sum of squared deviations from the
    mean); numbers for a whole array, arrays for rows, columns and segments."""

    count: Any
    mean: Any
    m2: Any

    @property
    def variance(self):
        """Population variance, M2 / count."""
        return self.m2 / self.count

    @property
    def sample_variance(self):
        """Sample variance, M2 / (count - 1)."""
        return self.m2 / (self.count - 1)


# ---------------------------------------------------------------------------------------------
# Arrays: what the extension reads (pointer, count, element code, where, device, item size,
# C-contiguous), from torch's and CuPy's own attributes, else through DLPack. A back-to-back
# call reads two arrays, so each attribute counts: a torch method call costs 50-180 ns on an
# H200 host (x.shape 110-230), the whole description 0.8-1.3 us (docs/python.md).
# ---------------------------------------------------------------------------------------------
_HOST, _GPU, _OTHER = 0, 1, 2
_ITEMSIZE = _C.element_sizes  # by element code


def _torch():
    torch = sys.modules["torch"]
    codes = {getattr(torch, name): code for code, name in enumerate(_ELEMENTS) if isinstance(getattr(torch, name, None), torch.dtype)}

    def read(x):
        device = x.get_device()
        code = codes.get(x.dtype, -1)
        return (x.data_ptr(), x.numel(), code, _GPU if device >= 0 else _HOST, device if device >= 0 else 0,
                _ITEMSIZE[code] if code >= 0 else x.element_size(), x.is_contiguous())

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # torch's own fast path to its current stream
    current = raw if raw is not None else (lambda device: torch.cuda.current_stream(device).cuda_stream)
    return read, current


def _cupy():
    cupy = sys.modules["cupy"]
    codes = {}  # by dtype: its .name costs microseconds a call

    def read(x):
        code = codes.get(x.dtype)
        if code is None:
            code = codes[x.dtype] = _CODE.get(x.dtype.name, -1)
        return x.data.ptr, x.size, code, _GPU, x.device.id, x.itemsize, x.flags.c_contiguous

    return read, lambda device: cupy.cuda.get_current_stream().ptr


def _dlpack():
    """Any array through DLPack or the buffer protocol (NumPy's too: under a microsecond); GPU
    arrays of other frameworks run on the default stream unless stream= names one."""

    def read(x):
        try:
            return _C.describe(x)[0]
        except TypeError:
            _refuse(f"preduce reads arrays with __dlpack__ (torch, CuPy, JAX, NumPy ...), not {type(x).__name__}")

    return read, lambda device: 0


_FRAMEWORKS: dict = {}  # array type -> (read, current stream)


def _framework(kind: type):
    found = _FRAMEWORKS.get(kind)
    if found is None:
        module = kind.__module__.split(".")[0]
        if module == "torch":
            found = _torch()
        elif module == "cupy" and kind.__name__ == "ndarray":
            found = _cupy()
        else:
            found = _dlpack()
        _FRAMEWORKS[kind] = found
    return found


def _describe(x):
    """(pointer, count, element code, where, device, item size, C-contiguous)."""
    return (_FRAMEWORKS.get(x.__class__) or _framework(x.__class__))[0](x)


def _shape(x) -> Tuple[int, ...]:
    """x's shape: its own attribute, else what DLPack says (a buffer without one)."""
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else _C.describe(x)[1]


def _stream_of(x, stream, place: int, device: int) -> int:
    """The stream a call runs on: `stream` (an integer handle, or an object with cuda_stream
    (torch) or ptr (CuPy)), else the current stream of x's framework, else the default stream."""
    if place != _GPU:
        return 0
    if stream is None:
        return (_FRAMEWORKS.get(x.__class__) or _framework(x.__class__))[1](device)
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle
    _refuse(f"stream must be an integer handle or a torch / CuPy stream, not {type(stream).__name__}")


# ---------------------------------------------------------------------------------------------
# Outputs: arrays of x's framework on x's device
# ---------------------------------------------------------------------------------------------
def _module(x) -> str:
    return type(x).__module__.split(".")[0]


def _is_jax(x) -> bool:
    return _module(x) in ("jax", "jaxlib")


def _empty(x, shape: Tuple[int, ...], element: str):
    module = _module(x)
    if module == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, element), device=x.device)
    if module == "cupy":
        cupy = sys.modules["cupy"]
        with x.device:
            return cupy.empty(shape, dtype=element)
    if module == "numpy":
        return sys.modules["numpy"].empty(shape, dtype=element)
    if module in ("jax", "jaxlib"):
        # A fresh buffer on x's device that nothing else references; the call writes it before
        # any JAX operation reads it (_outputs' finish waits for the call).
        out = sys.modules["jax.numpy"].empty(shape, dtype=element, device=x.device)
        out.block_until_ready()
        return out
    _refuse(f"preduce makes outputs for torch, CuPy, JAX and NumPy arrays; for {type(x).__name__} pass out=", "unsupported")


def _column(buffer, element: str, column: int, shape):
    """Column `column` of the bytes buffer (results x bytes a result) read as `element`."""
    if _module(buffer) == "torch":
        view = buffer.view(getattr(sys.modules["torch"], element))
    else:
        view = buffer.view(element)
    return view[:, column].reshape(shape)


_LAYOUTS: dict = {}


def _layout(element: int, op: Op, acc: int):
    key = (element, op.code, op.nan_ignoring, acc)
    found = _LAYOUTS.get(key)
    if found is None:
        found = _LAYOUTS[key] = _C.result_layout(element, op.code, op.nan_ignoring, acc)
    return found


def _outputs(x, xd, op: Op, acc: int, shape: Tuple[int, ...], stream: int):
    """(what the call writes into, finish) for x, described as xd: finish() returns what the
    call returns, once the call is enqueued. Torch, CuPy and NumPy results are views of what the call writes; JAX arrays
    are immutable, so a JAX result is made after the call has written (finish waits for it): a
    structured result's columns are read through NumPy and put back on x's device (as int32
    where JAX runs without 64-bit types)."""
    kind, size, value = _layout(xd[2], op, acc)
    count = math.prod(shape)
    if kind == "value":
        out = _empty(x, (count,), _ELEMENTS[value])
        if _is_jax(x):
            return out, lambda: (_C.synchronize(stream, xd[4]), out.reshape(shape))[1]
        result = out.reshape(shape)
        return out, lambda: result
    buffer = _empty(x, (count, size), "uint8")

    def columns(source):
        name = _ELEMENTS[value]
        if kind == "arg":
            return _column(source, name, 0, shape), _column(source, "int64", 1, shape)
        if kind == "minmax":
            return _column(source, name, 0, shape), _column(source, name, 1, shape)
        first = 1 if size == 24 else 2  # moments: count, then mean and M2 as float64 (24 bytes) or float32 (16)
        return Moments(_column(source, "int64", 0, shape), _column(source, name, first, shape), _column(source, name, first + 1, shape))

    if _is_jax(x):
        def finish():
            _C.synchronize(stream, xd[4])
            jax, numpy = sys.modules["jax"], sys.modules["numpy"]
            host = columns(numpy.asarray(buffer))
            placed = [jax.device_put(numpy.ascontiguousarray(c), x.device) for c in host]
            return Moments(*placed) if kind == "moments" else tuple(placed)
        return buffer, finish
    result = columns(buffer)
    return buffer, lambda: result


def _value(op: Op, result):
    return Moments(*result) if op.code == 4 else result


# ---------------------------------------------------------------------------------------------
# The calls
# ---------------------------------------------------------------------------------------------
def reduce(x, op: Union[str, Op] = "sum", *, axis: Optional[int] = None, out=None, determinism: str = "run_to_run",
           dtype: Any = None, stream: Any = None):
    """Reduces x by op: all of it (axis=None), each row of its last axis (axis=-1), or each
    column (axis=0: x as a matrix of shape[0] rows).

    op: "sum", "prod", "sum_of_squares", "min", "max", "minmax", "argmin", "argmax", "moments",
    "all", "any", "bit_and", "bit_or", "bit_xor", or an Op (preduce.dot(y),
    preduce.nan_ignoring("max")). dtype: the accumulator of sum, prod, sum_of_squares, dot and
    moments (default: float32 for 16-bit floats, int64 / uint64 for 8- and 16-bit integers, else
    x's type). determinism: "run_to_run" (the same bits every call), "fast" (may use atomics) or
    "reproducible" (sums correctly rounded: the same bits on any GPU, any backend, any split).

    Returns, with out None: for axis=None a Python number ((value, index) for argmin / argmax,
    (min, max) for minmax, a Moments for moments), waiting for it; for an axis an array of x's
    framework (a tuple of arrays, or Moments of arrays, for the structured results), not waiting
    (for JAX arrays, which are immutable, waiting). With out (a C-contiguous array of the
    results' type and count; for the structured results, their bytes as uint8): writes there,
    returns out, does not wait.
    """
    # Written for the back-to-back case (a microsecond here is a seventh of the call).
    o = op if op.__class__ is Op else (_BY_NAME.get(op) or _op(op))
    det = _DETERMINISM.get(determinism)
    if det is None:
        det = _determinism(determinism)
    acc = -1 if dtype is None else _accumulator(dtype)
    framework = _FRAMEWORKS.get(x.__class__) or _framework(x.__class__)
    xd = framework[0](x)
    s = framework[1](xd[4]) if stream is None and xd[3] == _GPU else _stream_of(x, stream, xd[3], xd[4])
    y = _describe(o.y) if o.y is not None else None
    if axis is None:
        if out is not None:  # the extension checks out's type, size and contiguity
            _C.reduce_whole(xd, o.code, o.nan_ignoring, acc, det, y, _describe(out), s)
            return out
        return _value(o, _C.reduce_whole(xd, o.code, o.nan_ignoring, acc, det, y, None, s))
    shape = _shape(x)
    ndim = len(shape)
    if ndim == 0:
        _refuse("axis needs an array of at least one dimension")
    if not isinstance(axis, int) or not -ndim <= axis < ndim:
        _refuse(f"axis {axis!r} is out of range for an array of {ndim} dimensions")
    axis %= ndim
    if axis == ndim - 1:  # rows: every axis but the last is a row
        rows, cols, line_axis, result_shape = math.prod(shape[:-1]), shape[-1], 1, tuple(shape[:-1])
    elif axis == 0:  # columns
        rows, cols, line_axis, result_shape = shape[0], math.prod(shape[1:]), 0, tuple(shape[1:])
    else:
        _refuse(f"axis must be None, 0 or the last axis ({ndim - 1} or -1): preduce reduces rows and columns of contiguous arrays")
    target, finish = (out, None) if out is not None else _outputs(x, xd, o, acc, result_shape, s)
    _C.reduce_lines(xd, rows, cols, line_axis, o.code, o.nan_ignoring, acc, det, y, _describe(target), s)
    return out if finish is None else finish()


def segment_reduce(x, offsets, op: Union[str, Op] = "sum", *, out=None, determinism: str = "run_to_run", dtype: Any = None,
                   stream: Any = None):
    """Reduces each segment x[offsets[i] : offsets[i + 1]] of the flattened x, for i below
    len(offsets) - 1. offsets: 32- or 64-bit integers on x's device, non-decreasing, within x
    (checked on the device: a bad offset raises preduce.Error at the next preduce.synchronize
    or waiting call on the stream, and leaves out untouched). Empty segments give the identity;
    argmin / argmax indices are relative to the segment's start. Returns an array (or arrays)
    of x's framework (for JAX arrays made after the call, waiting), or out; does not wait. The
    other arguments are reduce's.
    """
    o = _op(op)
    det = _determinism(determinism)
    acc = _accumulator(dtype)
    xd = _describe(x)
    od = _describe(offsets)
    offset_shape = _shape(offsets)
    if len(offset_shape) != 1:
        _refuse("offsets must be a 1-D array")
    s = _stream_of(x, stream, xd[3], xd[4])
    y = _describe(o.y) if o.y is not None else None
    segments = offset_shape[0] - 1 if offset_shape[0] > 0 else 0
    target, finish = (out, None) if out is not None else _outputs(x, xd, o, acc, (segments,), s)
    _C.reduce_segments(xd, od, o.code, o.nan_ignoring, acc, det, y, _describe(target), s)
    return out if finish is None else finish()


class Partial:
    """The exact state of a sum, sum_of_squares, dot or moments (preduce::reproducible_partial):
    partials of pieces add (+, sum()) to the partial of the whole, bit for bit, in any order and
    grouping; value() rounds once; to_bytes() / from_bytes() move it between processes."""

    __slots__ = ("_bytes",)

    def __init__(self, data: bytes):
        self._bytes = bytes(data)
        _C.partial_value(self._bytes)  # refuses bytes that are not a partial

    @classmethod
    def from_bytes(cls, data: bytes) -> "Partial":
        return cls(data)

    def to_bytes(self) -> bytes:
        return self._bytes

    def value(self):
        """The reduction's value: the exact sum rounded once (a Moments for moments)."""
        r = _C.partial_value(self._bytes)
        return Moments(*r) if isinstance(r, tuple) else r

    def __add__(self, other: "Partial") -> "Partial":
        if not isinstance(other, Partial):
            return NotImplemented
        merged = Partial.__new__(Partial)
        merged._bytes = _C.partial_add(self._bytes, other._bytes)
        return merged

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:  # sum(partials)
            return self
        return NotImplemented

    def __eq__(self, other) -> bool:
        return isinstance(other, Partial) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __repr__(self) -> str:
        return f"preduce.Partial(value={self.value()!r})"


def partial(x, op: Union[str, Op] = "sum", *, dtype: Any = None, stream: Any = None) -> Partial:
    """The Partial of reducing all of x (floating-point) by sum, sum_of_squares, dot or moments;
    waits for it. dtype: float32 or float64, the type value() rounds to."""
    o = _op(op)
    acc = _accumulator(dtype)
    xd = _describe(x)
    s = _stream_of(x, stream, xd[3], xd[4])
    y = _describe(o.y) if o.y is not None else None
    result = Partial.__new__(Partial)
    result._bytes = _C.partial(xd, o.code, acc, y, s)
    return result


def synchronize(x=None, *, stream: Any = None, device: int = 0) -> None:
    """Waits for preduce's calls on a stream (x's framework's current stream, or `stream`, on
    x's device or `device`) and raises what they found on the device (bad segment offsets)."""
    if x is not None:
        xd = _describe(x)
        device = xd[4]
        s = _stream_of(x, stream, xd[3], xd[4])
    else:
        s = _stream_of(0, stream, _GPU, device) if stream is not None else 0
    _C.synchronize(s, device)
