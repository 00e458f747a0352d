"""tf.data.experimental's group_by_window, bucket_by_sequence_length, group_by_reducer,
dense_to_sparse_batch, Optional / get_next_as_optional and TFRecordWriter against TensorFlow
1.15 (tests/tf_reference/record_data_extras.py): the same elements in the same order, the same
output types, shapes and classes, the same error classes and the same next read after one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import data_cases, reference
from tf_reference import data_extras_cases as cases

RECORDED = reference.load("data_extras")


def assert_same(actual: Any, expected: Any, where: str = "") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and sorted(actual) == sorted(expected), where
        for k in expected:
            assert_same(actual[k], expected[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (where, actual, expected)
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        reference.assert_close(actual, expected)
    else:
        assert actual == expected, (where, actual, expected)


@pytest.fixture()
def files(tmp_path: Any) -> dict[str, str]:
    return {"dir": str(tmp_path)}


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.name)
def test_grouped_dataset_reads_as_tensorflow_reads_it(
    case: data_cases.Case, files: dict[str, str]
) -> None:
    got = data_cases.run_case(tf, case, files)
    want = RECORDED[case.name]
    for key in ("types", "shapes", "classes"):
        assert_same(got[key], want[key], key)
    assert_same(got["elements"], want["elements"], "elements")


@pytest.mark.parametrize(
    "name,build", [*cases.STEP_CASES, *cases.WRITE_CASES], ids=lambda c: str(c)[:40]
)
def test_optional_and_writer_steps_give_tensorflows_values(
    name: str, build: Any, files: dict[str, str]
) -> None:
    got = cases.run_steps(tf, build, files)
    assert_same(got["elements"], RECORDED[name]["elements"], "elements")


@pytest.mark.parametrize("name,build,_", cases.RUN_ERRORS, ids=[c[0] for c in cases.RUN_ERRORS])
def test_bad_input_raises_tensorflows_error_and_the_pipeline_goes_on(
    name: str, build: Any, _: int, files: dict[str, str]
) -> None:
    got = data_cases.run_error(tf, build, files)
    want = RECORDED[f"error_{name}"]
    assert got["error"] == want["error"]
    assert_same(got["before"], want["before"], "before")
    assert_same(got["after"], want["after"], "after")


@pytest.mark.parametrize("name,build", cases.BUILD_ERRORS, ids=[c[0] for c in cases.BUILD_ERRORS])
def test_a_bad_grouping_is_refused_when_built(name: str, build: Any, files: dict[str, str]) -> None:
    assert (
        data_cases.build_error(tf, build, files) == RECORDED[f"build_error_{name}"]["error_class"]
    )


@pytest.mark.parametrize(
    "name,initial", cases.RESAMPLE_CASES, ids=[c[0] for c in cases.RESAMPLE_CASES]
)
def test_rejection_resample_moves_classes_as_tensorflow_does(name: str, initial: Any) -> None:
    # Different random streams: the same structure, about as many elements, about the same
    # class proportions (TF's own runs with other seeds differ by less than these bounds).
    got = cases.run_resample(tf, initial)
    want = RECORDED[f"rejection_resample_{name}"]
    for key in ("types", "shapes", "classes"):
        assert_same(got[key], want[key], key)
    assert abs(got["count"] - int(want["count"])) <= 0.05 * int(want["count"])
    np.testing.assert_allclose(got["proportions"], np.asarray(want["proportions"]), atol=0.04)
