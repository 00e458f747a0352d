"""Behaviours of public TF1 programs (pix2pix, seq2seq signal prediction, Transformer, RL
estimators) against TF 1.15's recorded answers (tests/tf_reference/record_image_graph_sweep.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.image_graph_sweep_cases import CASES

AREA = "image_graph_sweep"

# tfcluster builds tf.cond as one functional If op (its op count matches TF1's Switch/Merge
# form, see control_flow_ops.cond): graphs with a cond are compared up to the cond.
_COND_OPS = ("Switch", "StatelessIf", "If")


def _before_cond(ops: list[Any]) -> list[Any]:
    for i, (_, op_type) in enumerate(ops):
        if op_type in _COND_OPS:
            return ops[:i]
    return ops


def _run(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return CASES[name](tf), reference.case(AREA, name)


def test_image_ops_on_images_of_unknown_size_make_tf115_asserts_and_op_seeds() -> None:
    actual, expected = _run("image_ops_on_images_of_unknown_size_add_tf115_asserts")
    assert sorted(actual["graphs"]) == sorted(expected["graphs"])
    for name, want in expected["graphs"].items():
        got = actual["graphs"][name]
        assert got["seed_after"] == want["seed_after"], name
        assert got["shape"] == want["shape"], name
        want_ops = [list(op) for op in want["ops"]]
        got_ops = [list(op) for op in got["ops"]]
        if any(op_type in _COND_OPS for _, op_type in want_ops):
            assert _before_cond(got_ops) == _before_cond(want_ops), name
        else:
            assert got_ops == want_ops, name


def test_image_asserts_fail_the_step_on_an_empty_image_or_a_crop_that_does_not_fit() -> None:
    actual, expected = _run("image_asserts_fail_the_step_on_a_bad_image")
    assert actual == expected


def test_tensordot_builds_tf115_transpose_reshape_matmul_graph() -> None:
    actual, expected = _run("tensordot_builds_tf115_transpose_reshape_matmul")
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = actual[name]
        assert [list(op) for op in got["ops"]] == [list(op) for op in want["ops"]], name
        assert got["name"] == want["name"], name
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sobel_edges_is_one_depthwise_convolution_with_tf_values(dtype: str) -> None:
    actual, expected = _run("sobel_edges_is_one_depthwise_convolution")
    got, want = actual[dtype], expected[dtype]
    assert [list(op) for op in got["ops"]] == [list(op) for op in want["ops"]]
    assert got["shape"] == want["shape"]
    np.testing.assert_array_equal(np.asarray(got["value"]), np.asarray(want["value"]))


def test_resize_area_adds_cells_in_tf_order_bit_for_bit() -> None:
    actual, expected = _run("resize_area_adds_cells_in_tf_order")
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = np.asarray(actual[name], np.float32)
        np.testing.assert_array_equal(got, np.asarray(want, np.float32), name)


def test_py_func_keeps_its_function_on_a_graph_list_not_in_a_collection() -> None:
    actual, expected = _run("py_func_keeps_its_function_off_the_collections")
    assert actual == expected


def test_power_of_a_constant_is_powf_folded_not_rewritten_to_square() -> None:
    actual, expected = _run("power_of_a_constant_is_folded_before_the_pow_rewrite")
    assert actual == expected


def test_extract_glimpse_merges_the_batch_with_the_offsets_and_checks_them() -> None:
    actual, expected = _run("extract_glimpse_merges_the_batch_with_the_offsets")
    assert actual == expected


def test_crop_and_resize_checks_boxes_and_image_shape_errors_name_the_node() -> None:
    actual, expected = _run("crop_and_resize_and_resize_shape_errors")
    assert actual == expected
