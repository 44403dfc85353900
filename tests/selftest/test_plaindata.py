"""harness/plaindata.py: what the trusted parent accepts from a child's JSON, at the edges the
fast paths take (an ndarray's items and a list of scalars are checked by their exact types at
C speed; anything else item by item): the same values and the same refusals as item by item."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.harness.plaindata import MAX_DEPTH, PlainDataError, decode, encode


def array(dtype: str, data: list, shape=None) -> dict:
    return {"__ndarray__": {"dtype": dtype, "shape": shape or [len(data)], "data": data}}


@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_float_arrays_round_trip_bit_for_bit_with_their_non_finite_items(dtype):
    rng = np.random.default_rng(0)
    value = rng.normal(size=(7, 300)).astype(dtype)
    assert np.array_equal(decode(encode(value)), value) and decode(encode(value)).dtype == value.dtype
    value[0, :3] = [np.nan, np.inf, -np.inf]
    got = decode(encode(value))
    assert got.dtype == value.dtype
    assert np.array_equal(got, value, equal_nan=True)
    assert encode(value)["__ndarray__"]["data"][:3] == ["nan", "inf", "-inf"]


@pytest.mark.parametrize("item", ["nan", "x", None, [1.0], {"a": 1}])
def test_an_int_array_takes_numbers_only(item):
    with pytest.raises(PlainDataError, match="bad ndarray element"):
        decode(array("i8", [1, 2, item]))


@pytest.mark.parametrize("item", ["x", "NaN", None, [1.0]])
def test_a_float_array_takes_numbers_and_its_three_markers_only(item):
    assert np.isnan(decode(array("f8", [1.0, "nan", 2]))[1])
    with pytest.raises(PlainDataError, match="bad ndarray element"):
        decode(array("f8", [1.0, "inf", item]))


def test_numbers_of_any_json_type_fill_an_array():
    got = decode(array("f8", [True, 2, 3.5]))
    assert got.tolist() == [1.0, 2.0, 3.5]
    assert decode(array("i8", [True, False, 3])).tolist() == [1, 0, 3]


class Int(int):
    pass


def test_a_subclass_of_a_number_is_still_a_number():
    """(not from JSON, but decode takes any plain data: a subclass is checked one by one)"""
    assert decode(array("i8", [Int(4), 5])).tolist() == [4, 5]
    assert decode([Int(4), 5.0]) == [4, 5.0]


def test_a_list_of_scalars_is_itself_and_the_depth_limit_holds():
    items = [None, True, "s", 3, 2.5, math.inf]
    assert decode(items) == items
    nested: object = [1.0]
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    assert decode(nested) == nested  # the scalar at depth MAX_DEPTH
    with pytest.raises(PlainDataError, match="nesting too deep"):
        decode([nested])
