"""Reading TensorFlow's recorded values in tests, and comparing with them."""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import numpy as np

from tf_reference.codec import decode

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@functools.cache
def load(area: str) -> dict[str, dict[str, Any]]:
    """case -> recorded values, for tests/tf_reference/data/<area>.json."""
    with open(os.path.join(DATA_DIR, f"{area}.json")) as f:
        doc = json.load(f)
    cases = doc["cases"].items()
    return {case: {k: decode(v) for k, v in values.items()} for case, values in cases}


def case(area: str, name: str) -> dict[str, Any]:
    return load(area)[name]


def assert_case_equal(area: str, name: str, actual: dict[str, Any]) -> None:
    """A case's values are TF's recorded ones exactly: the same keys, each value equal."""
    expected = case(area, name)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key


def assert_close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Same dtype, shape and values (to tolerance for floats; exact otherwise)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != TF's {expected.shape}"
    if expected.dtype != object:
        assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != TF's {expected.dtype}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(actual, expected)


def assert_nested_close(actual: Any, expected: Any) -> None:
    """assert_close through nested dicts (same keys), lists and tuples (same lengths);
    strings and None equal."""
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for k in expected:
            assert_nested_close(actual[k], expected[k])
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, b in zip(actual, expected):
            assert_nested_close(a, b)
    elif isinstance(expected, str) or expected is None:
        assert actual == expected
    else:
        assert_close(np.asarray(actual), expected)


def error_class(recorded: dict[str, Any]) -> str:
    """The class name of a recorded error."""
    return str(recorded["error"])
