"""One policy for two values that float computations produced on different machines.

Matrix products, reductions and transcendental functions round differently under other
kernels: torch's ATen picks AVX-512, AVX2 or plain code (`ATEN_CPU_CAPABILITY`), MKL and
OpenBLAS pick theirs (`MKL_ENABLE_INSTRUCTIONS`, `OPENBLAS_CORETYPE`), libm's last bit
differs, and another intra-op thread count splits a sum elsewhere. On a 2-core AVX-512 machine
each of the first two changed the bits of a 64x300 @ 300x77 float32 matmul, its softmax and
its layer norm (tests/selftest/test_kernels.py shows it). The goldens, the mutants' values and
a check's recorded arrays are made on one machine and compared on another, so nothing made by
float arithmetic is compared bit for bit: `same_result` allows what those kernels change, and
`excess` says by how much two values differ in units of that allowance.

The allowance for a float array `r` (the reference: the stored value) at each element is

    ULPS * u * (|r| + max|r|)

a relative part (ULPS units of roundoff `u` of the element) and an absolute floor scaled to
the array (a sum's rounding error follows the size of its terms, not of the result, so an
element that cancels to near zero moves by the array's scale times u, not its own). `u` is
the precision the values were computed in: float32's 2**-23 for float32 arrays and for float64
arrays whose every value is a float32 (a float32 tensor recorded as float64: its noise is
float32's), float64's 2**-52 otherwise; where the precision is not known (a named check's
value: a float64 sum of float32 gradients is float32's noise in float64 clothes) the caller
passes float32's as the least. Python floats are one-element arrays, a list of numbers one
array. ULPS = 256, measured: regenerating all eight assignments' goldens on an AVX-512
machine under `ATEN_CPU_CAPABILITY=default`, under `MKL_ENABLE_INSTRUCTIONS=AVX2` with
`OPENBLAS_CORETYPE=Haswell` and with two threads, and on that machine against goldens made on
another CPU, moved no value computed directly (matmuls, attention, a few training steps) by
more than 0.2 allowances (50 units); an optimizer's fit moves further, and its test states a
looser tolerance of its own. It stays far tighter than what a bug changes: every stored
mutant value is at least MARGIN allowances from its golden
(`tests/selftest/test_float_policy.py` checks all of them; the nearest, a standard deviation
with ddof 0 instead of 1 over many seeds, is 7), so a correct answer on any machine is never
taken for a recorded bug.

Where it applies: hints (hints.py: a student's value against a mutant's, a named check's
within the allowance, a `close` one within it or the observation's own tolerance), the
stale-golden check (authoring/goldens.py: a regeneration's inputs and `close` values against
the committed ones), and the self-test's margins. A student's
value against a golden keeps the manifest's tolerance (docs/WRITING_TESTS.md, "Tolerances").
Exact comparison stays for what no float computation made or what the contract fixes bit for
bit: integers, strings, bytes, booleans, None, shapes, dtypes, `exact` observations (an
ordered left-to-right sum is the same IEEE result everywhere: SPEC 5.7) and the named checks a
checks.py lists in BITWISE_CHECKS (repro's simulated atomic adds, sums in a given order).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..harness.plaindata import Unencodable

ULPS = 256  # units of roundoff other kernels and thread counts may move a value (see above)
# a recorded mutant's value is at least this many allowances from its golden: a correct answer
# (within one of the golden) then lies at least MARGIN - 1 from the mutant's, never within one
MARGIN = 4
FLOAT32_ROUNDOFF = 2.0**-23
FLOAT64_ROUNDOFF = 2.0**-52


def roundoff(values: np.ndarray, at_least: float = 0.0) -> float:
    """The unit roundoff of the precision a float array was computed in: float32's for a
    float32 (or smaller) array and for a float64 one whose every finite value is a float32,
    float64's otherwise; never below `at_least`."""
    if values.dtype.itemsize < 8:
        return max(at_least, float(np.finfo(values.dtype).eps))
    finite = values[np.isfinite(values)]
    with np.errstate(over="ignore", invalid="ignore"):
        as32 = finite.astype(np.float32).astype(values.dtype)
    found = FLOAT32_ROUNDOFF if np.array_equal(as32, finite) else FLOAT64_ROUNDOFF
    return max(at_least, found)


def allowance(reference: np.ndarray, at_least: float = 0.0) -> np.ndarray:
    """Per element of a float array, how far another machine's result may lie from it. The
    floor's scale is the largest finite magnitude of the element's field: of the whole array
    up to one dimension, of its column (the last axis) otherwise, since a table's columns
    (compute, parameters, loss) are quantities of their own size."""
    r = np.abs(reference.astype(np.float64))
    r = np.where(np.isfinite(r), r, 0.0)
    over = tuple(range(r.ndim - 1)) if r.ndim >= 2 else None
    scale = r.max(axis=over, keepdims=True, initial=0.0)
    return ULPS * roundoff(reference, at_least) * (r + scale)


def excess(value: Any, reference: Any, at_least: float = 0.0) -> float:
    """How far decoded plain data `value` lies from `reference`, in allowances (the largest
    element's |value - reference| / allowance): 0 where equal, <= 1 within what kernels
    change, `inf` where anything not made by float arithmetic differs (a type, a length, a
    key, a shape, a dtype kind, an integer, a string, NaN against a number). `at_least`: the
    roundoff to assume at least (FLOAT32_ROUNDOFF where the value's precision is unknown)."""
    if isinstance(value, Unencodable) or isinstance(reference, Unencodable):
        return math.inf
    value, reference = _as_array(value), _as_array(reference)
    if isinstance(value, np.ndarray) or isinstance(reference, np.ndarray):
        if not (isinstance(value, np.ndarray) and isinstance(reference, np.ndarray)) \
                or value.shape != reference.shape or value.dtype.kind != reference.dtype.kind:
            return math.inf
        if value.dtype.kind != "f":
            return 0.0 if np.array_equal(value, reference) else math.inf
        return _float_excess(value, reference, at_least)
    if type(value) is not type(reference):
        return math.inf
    if isinstance(value, list):
        if len(value) != len(reference):
            return math.inf
        return max((excess(v, r, at_least) for v, r in zip(value, reference)), default=0.0)
    if isinstance(value, dict):
        if value.keys() != reference.keys():
            return math.inf
        return max((excess(value[k], reference[k], at_least) for k in value), default=0.0)
    return 0.0 if value == reference else math.inf


def same_result(value: Any, reference: Any, at_least: float = 0.0) -> bool:
    """Whether `value` is `reference` as another machine's kernels could have computed it
    (`at_least`: as in `excess`)."""
    return excess(value, reference, at_least) <= 1.0


def _as_array(value: Any) -> Any:
    """A Python float, or a list of numbers holding a float (same type at every position is
    checked by the caller's comparison), as one float64 array; anything else unchanged."""
    if isinstance(value, float):
        return np.array(value)
    if isinstance(value, list) and value and any(isinstance(x, float) for x in value) \
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        if not all(isinstance(x, float) for x in value):
            return [np.array(x) if isinstance(x, float) else x for x in value]
        return np.array(value, dtype=np.float64)
    return value


def _float_excess(value: np.ndarray, reference: np.ndarray, at_least: float) -> float:
    if value.size == 0:
        return 0.0
    v, r = value.astype(np.float64), reference.astype(np.float64)
    nan_v, nan_r = np.isnan(v), np.isnan(r)
    inf_r = np.isinf(r)
    if (nan_v != nan_r).any() or (inf_r & (v != r)).any() or (np.isinf(v) & ~inf_r).any():
        return math.inf
    ok = ~(nan_r | inf_r)
    diff = np.abs(v[ok] - r[ok])
    room = allowance(reference, at_least)[ok]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(diff == 0.0, 0.0, diff / room)
    return float(ratio.max(initial=0.0))
