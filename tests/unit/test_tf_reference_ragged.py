"""tf.RaggedTensor, tf.ragged and the ragged tf.strings ops against TensorFlow 1.15's recorded
values (tests/tf_reference/cases_ragged.py): outputs part by part (flat values, row splits),
dtypes, shapes, tensor names, gradients and error classes; static shapes and names; and what
a session gives back for a fetched or fed RaggedTensor."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import cases_ragged, reference
from tf_reference.casebook import run_case
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_ragged.BOOK.cases)


# Gradients TF 1.15 gives as IndexedSlices (those through a gather of the values); tfcluster's
# may be dense where it builds the op from others: both are compared as dense arrays.
def _dense_gradient(value: Any, like: np.ndarray) -> np.ndarray:
    """An IndexedSlicesValue (or its recorded (values, indices, dense_shape)) as an array."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        return value
    values, indices, dense_shape = (np.asarray(v) for v in value)
    out = np.zeros(tuple(dense_shape), dtype=values.dtype)
    np.add.at(out, indices, values)
    return out


@pytest.mark.parametrize("name", CASES)
def test_ragged_case_matches_tensorflow(name: str) -> None:
    case = cases_ragged.BOOK.cases[name]
    recorded = reference.case("ragged", name)
    if case.grad is None or "error" in recorded:
        assert_case_matches("ragged", cases_ragged.BOOK, name)
        return
    inputs = {k[3:]: v for k, v in recorded.items() if k.startswith("in:")}
    ours = run_case(tf, dataclasses.replace(case, inputs=inputs))
    assert "error" not in ours, ours.get("error")
    for key, want in recorded.items():
        if key.startswith("in:") or (key.startswith("name:") and not case.names):
            continue
        assert key in ours, f"{name}: tfcluster has no {key}"
        if key.startswith("name:"):
            assert ours[key] == want, f"{name}: {key} is {ours[key]!r}, TF's {want!r}"
        elif key.startswith("grad:"):
            like = inputs[key[5:]]
            got = _dense_gradient(ours[key], like)
            np.testing.assert_allclose(got, _dense_gradient(want, like), rtol=1e-5, atol=1e-6)
            assert got.shape == like.shape
        else:
            np.testing.assert_array_equal(np.asarray(ours[key]), np.asarray(want), err_msg=key)


def _plain(recorded: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in recorded.items()}


@pytest.mark.parametrize("name", sorted(cases_ragged.STATIC))
def test_static_shape_dtype_and_names_match_tensorflow(name: str) -> None:
    want = _plain(reference.case("ragged", "static:" + name))
    got = _plain(cases_ragged.describe(tf, cases_ragged.STATIC[name]))
    assert got == want


def test_session_fetches_ragged_tensor_value_and_feeds_placeholder_as_tensorflow() -> None:
    want = _plain(reference.case("ragged", "session:fetch_and_feed"))
    got = _plain(cases_ragged.fetch_and_feed(tf))
    assert got == want


def test_constant_value_gives_numpy_values_as_tensorflow() -> None:
    want = _plain(reference.case("ragged", "constant_value"))
    assert _plain(cases_ragged.constant_values(tf)) == want


def test_ragged_tensor_spec_matches_tensorflow() -> None:
    want = _plain(reference.case("ragged", "spec"))
    assert _plain(cases_ragged.spec_facts(tf)) == want
