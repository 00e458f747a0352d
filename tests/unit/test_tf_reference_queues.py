"""Queue-based input against TensorFlow: every case of tf_reference/queues_cases.py runs on
tfcluster and must return what it returned on TensorFlow (record_queues.py): the elements
and their order (sorted where TF leaves the order open), shapes, dtypes, op/tensor/summary
names, and the classes and messages of errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import queues_cases as cases
from tf_reference import reference
from tf_reference.codec import decode, encode

AREA = "queues"
# Python-level errors (ValueError, TypeError) are compared by class; OpErrors by message too,
# except these, where tfcluster's message says more than TF's (the file of a bad record).
CLASS_ONLY = {
    ("tfrecord_reader_bad_files", "corrupt"),
    ("tfrecord_reader_bad_files", "truncated"),
}


def _compare(actual: Any, expected: Any, where: str, case: str) -> None:
    if isinstance(expected, dict) and "error" in expected and "message" in expected:
        assert isinstance(actual, dict) and "error" in actual, f"{where}: expected an error"
        assert actual["error"] == expected["error"], f"{where}: {actual} != TF's {expected}"
        python_level = expected["error"] in ("ValueError", "TypeError", "AttributeError")
        if not python_level and not any(f"/{part}" in where for c, part in CLASS_ONLY if c == case):
            assert actual["message"] == expected["message"], f"{where}: message differs"
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {type(actual).__name__} != dict"
        assert sorted(actual) == sorted(expected), f"{where}: keys {sorted(actual)}"
        for k in expected:
            _compare(actual[k], expected[k], f"{where}/{k}", case)
        return
    if isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: {type(actual).__name__} != list"
        assert len(actual) == len(expected), f"{where}: {len(actual)} items != TF's {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{i}]", case)
        return
    if isinstance(expected, np.ndarray):
        reference.assert_close(actual, expected)
        return
    assert actual == expected, f"{where}: {actual!r} != TF's {expected!r}"


def _plain(value: Any) -> Any:
    """A case's result as the recorder stored it (SparseTensorValues as dicts, errors as
    dicts), through the same codec."""
    return decode(encode(value))


def _sorted(value: Any) -> Any:
    return sorted(value) if isinstance(value, list) else value


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_queue_case_matches_tensorflow(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = _plain(cases.CASES[name](tf))
    for field in cases.SORTED_FIELDS.get(name, []):
        assert _sorted(actual[field]) == _sorted(expected[field]), field
        actual.pop(field)
        expected = {k: v for k, v in expected.items() if k != field}
    _compare(actual, expected, name, name)
