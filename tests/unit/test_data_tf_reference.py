"""tf.data against TensorFlow: every case of tests/tf_reference/data_cases.py built and read
by tfcluster gives what TensorFlow 1.15 gave (record_data.py): the same elements in the same
order (seeded shuffles: the same multiset, each epoch a permutation), the same output types,
shapes and classes, the same error classes, and the same next read after an error; and what
TensorFlow 2.x's tf.compat.v1 gave, where it behaves as 1.15 does."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import data_cases as cases
from tf_reference import reference

RECORDED = reference.load("data")  # TensorFlow 1.15
RECORDED_TF2 = reference.load("data_tf2")
# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15):
TF2_DIFFERS = {
    # 1.15 refuses the function when the pipeline is built (TypeError); 2.x fails later
    # with an AttributeError.
    "build_error_flat_map_not_dataset",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return cases.write_files(str(tmp_path_factory.mktemp("data_cases")))


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


def _key(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((k, _key(v)) for k, v in sorted(value.items()))
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    arr = np.asarray(value)
    return (arr.dtype.str, arr.shape, arr.tobytes() if arr.dtype != object else repr(arr.tolist()))


def assert_same_multiset(actual: list[Any], expected: list[Any]) -> None:
    assert collections.Counter(map(_key, actual)) == collections.Counter(map(_key, expected))


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.name)
def test_dataset_reads_as_tensorflow_reads_it(case: cases.Case, files: dict[str, str]) -> None:
    got = cases.strip_dir(cases.run_case(tf, case, files), files)
    for recorded in (RECORDED, RECORDED_TF2):
        _compare(case, got, recorded[case.name])


def _compare(case: cases.Case, got: dict[str, Any], want: dict[str, Any]) -> None:
    for key in ("types", "shapes", "classes", "handle_type"):
        if key in want:
            assert_same(got[key], want[key], key)
    if case.order == "exact":
        assert_same(got["elements"], want["elements"], "elements")
        if "elements_then" in want:
            assert_same(got["elements_then"], want["elements_then"], "elements_then")
    elif case.order == "multiset":
        assert_same_multiset(got["elements"], want["elements"])
    else:
        n = int(case.order.split(":")[1])
        assert len(got["elements"]) == len(want["elements"])
        for i in range(0, len(want["elements"]), n):
            assert_same_multiset(got["elements"][i : i + n], want["elements"][i : i + n])


@pytest.mark.parametrize("name,build,_", cases.RUN_ERRORS, ids=[c[0] for c in cases.RUN_ERRORS])
def test_bad_input_raises_tensorflows_error_and_the_session_goes_on(
    name: str, build: Any, _: int, files: dict[str, str]
) -> None:
    got = cases.run_error(tf, build, files)
    for recorded in (RECORDED, RECORDED_TF2):
        want = recorded[f"error_{name}"]
        assert got["error"] == want["error"]
        assert_same(got["before"], want["before"], "before")
        assert_same(got["after"], want["after"], "after")


@pytest.mark.parametrize("name,build", cases.BUILD_ERRORS, ids=[c[0] for c in cases.BUILD_ERRORS])
def test_a_bad_pipeline_is_refused_when_built(name: str, build: Any, files: dict[str, str]) -> None:
    got = cases.build_error(tf, build, files)
    assert got == RECORDED[f"build_error_{name}"]["error_class"]
    if f"build_error_{name}" not in TF2_DIFFERS:
        assert got == RECORDED_TF2[f"build_error_{name}"]["error_class"]


def test_iterator_ops_have_tensorflows_names() -> None:
    want = RECORDED["names"]
    assert want == RECORDED_TF2["names"]
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(3).make_one_shot_iterator()
        x = it.get_next()
        y = it.get_next(name="second")
        init_it = tf.data.Dataset.range(3).make_initializable_iterator()
        assert x.name == want["get_next"]
        assert y.name == want["named_get_next"]
        assert it._iterator_resource.op.type == want["one_shot_op"]
        assert init_it._iterator_resource.op.type == want["initializable_op"]
        assert init_it.initializer.type == want["initializer_op"]
        assert it.string_handle().dtype.name == want["string_handle"]
