"""Plain-data encoding of observations and test inputs (JSON only, never pickle).

`encode` runs in the sandbox (and at golden time); `decode` runs in the trusted parent and must
survive any JSON the sandbox writes: it raises `PlainDataError` on anything malformed.
Tuples come back as lists; numpy scalars as Python scalars; torch tensors as numpy arrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

MAX_DEPTH = 64
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_ARRAY_KINDS = "biuf"
_NUMBERS = frozenset({bool, int, float})  # an ndarray's items, as JSON gives them
_SCALARS = frozenset({type(None), bool, str, int, float})  # items that decode to themselves


class PlainDataError(ValueError):
    """Malformed plain data."""


def _float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"__float__": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def encode(value: Any, _depth: int = 0) -> Any:
    """Encode `value` as JSON-compatible data; unencodable objects become a marker."""
    if _depth > MAX_DEPTH:
        raise PlainDataError("nesting too deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _float(float(value))
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes__": bytes(value).hex()}
    if isinstance(value, np.generic):
        return encode(value.item(), _depth + 1)
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _ARRAY_KINDS:
            return {"__unencodable__": f"ndarray of dtype {value.dtype}"}
        flat = value.ravel().tolist()
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            flat = [x if math.isfinite(x) else _float(x)["__float__"] for x in flat]
        return {"__ndarray__": {"dtype": value.dtype.str.lstrip("<>|="), "shape": list(value.shape),
                                "data": flat}}
    if isinstance(value, (list, tuple)):
        return [encode(v, _depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [encode(v, _depth + 1) for v in value]
        return {"__set__": sorted(items, key=repr)}
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in value):
            return {k: encode(v, _depth + 1) for k, v in value.items()}
        return {"__map__": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()]}
    return {"__unencodable__": type(value).__name__[:100]}


def _hashable(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, (set, frozenset)):
        return frozenset(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    return x


class Unencodable:
    """Stands for a value the sandbox could not encode; equal to nothing."""

    def __init__(self, what: str):
        self.what = what

    def __repr__(self) -> str:
        return f"<unencodable {self.what}>"


def decode(data: Any, _depth: int = 0) -> Any:
    """Decode plain data written by `encode`. Raises PlainDataError when malformed."""
    if _depth > MAX_DEPTH:
        raise PlainDataError("nesting too deep")
    if data is None or isinstance(data, (bool, str, int)):
        return data
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        if _depth < MAX_DEPTH and set(map(type, data)) <= _SCALARS:
            return list(data)  # each item decodes to itself: no call per item
        return [decode(v, _depth + 1) for v in data]
    if not isinstance(data, dict):
        raise PlainDataError(f"unexpected JSON type {type(data).__name__}")
    if len(data) == 1:
        (key, body), = data.items()
        if key == "__float__":
            if body not in _NONFINITE:
                raise PlainDataError("bad float marker")
            return _NONFINITE[body]
        if key == "__bytes__":
            try:
                return bytes.fromhex(body)
            except (TypeError, ValueError) as e:
                raise PlainDataError("bad bytes") from e
        if key == "__ndarray__":
            return _decode_array(body)
        if key == "__set__":
            if not isinstance(body, list):
                raise PlainDataError("bad set")
            try:
                return {_hashable(decode(v, _depth + 1)) for v in body}
            except TypeError as e:
                raise PlainDataError("unhashable set item") from e
        if key == "__map__":
            if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
                raise PlainDataError("bad map")
            try:
                return {_hashable(decode(k, _depth + 1)): decode(v, _depth + 1) for k, v in body}
            except TypeError as e:
                raise PlainDataError("unhashable map key") from e
        if key == "__unencodable__":
            return Unencodable(str(body)[:100])
    if any(k.startswith("__") for k in data):
        raise PlainDataError("unknown marker")
    return {k: decode(v, _depth + 1) for k, v in data.items()}


def _decode_array(body: Any) -> np.ndarray:
    if not isinstance(body, dict) or set(body) != {"dtype", "shape", "data"}:
        raise PlainDataError("bad ndarray")
    dtype, shape, flat = body["dtype"], body["shape"], body["data"]
    if not isinstance(shape, list) or not all(isinstance(s, int) and 0 <= s for s in shape):
        raise PlainDataError("bad ndarray shape")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError) as e:
        raise PlainDataError("bad ndarray dtype") from e
    if dt.kind not in _ARRAY_KINDS or not isinstance(flat, list) or len(flat) != math.prod(shape):
        raise PlainDataError("bad ndarray data")
    # the element checks look at each item's exact type (C speed: an array holds up to
    # millions); an item of another type (a subclass) is checked one by one
    types = set(map(type, flat))
    if dt.kind == "f" and str in types:
        flat = [_NONFINITE[x] if isinstance(x, str) and x in _NONFINITE else x for x in flat]
        types = set(map(type, flat))
    if not types <= _NUMBERS and not all(isinstance(x, (int, float)) for x in flat):
        raise PlainDataError("bad ndarray element")
    try:
        return np.array(flat, dtype=dt).reshape(shape)
    except (TypeError, ValueError, OverflowError) as e:
        raise PlainDataError("bad ndarray values") from e
