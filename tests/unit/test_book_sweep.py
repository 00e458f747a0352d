"""Behaviours of TF1 programs from deep-learning books (Keras models given arrays of the wrong
shape, kernels' shape errors, queue-fed input pipelines) against TF 1.15's recorded answers
(tests/tf_reference/record_book_sweep.py)."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.book_sweep_cases import CASES

AREA = "book_sweep"


def _same_outcomes(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key


def test_keras_checks_input_arrays_first_and_targets_only_for_key_losses() -> None:
    _same_outcomes("keras_array_shape_checks")


def test_keras_names_the_wrong_input_and_takes_flat_arrays_as_columns() -> None:
    _same_outcomes("keras_named_inputs_and_flat_arrays")


def test_softmax_cross_entropy_and_bias_add_errors_write_shapes_as_tf() -> None:
    name = "nn_kernel_shape_errors"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        if want and isinstance(want[0], str):
            assert actual[key] == want, key
        else:
            np.testing.assert_allclose(actual[key], want, rtol=1e-6, err_msg=key)


def _without_private_ids(value: Any) -> Any:
    """Private resource names (`'_<id>_<node>'`) with their id left out: the id counts the
    process's private resources so far (TF's ResourceMgr counter), in the recorder's
    process as in the test suite's."""
    return json.loads(re.sub(r"'_\d+_", "'_<id>_", json.dumps(value)))


def test_a_waiting_shuffle_dequeue_takes_each_element_as_it_comes() -> None:
    name = "shuffle_queue_waiting_dequeue"
    expected = _without_private_ids(reference.case(AREA, name))
    actual = _without_private_ids(CASES[name](tf))
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key


def test_control_dependencies_and_feed_keys_must_be_elements_of_the_graph() -> None:
    _same_outcomes("control_dependencies_and_feeds_of_other_graphs")


def test_keras_upsampling_makes_tfs_resize_ops_so_later_seeds_match() -> None:
    name = "keras_upsampling_graph_and_seeds"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = actual[key]
        assert got["ops"] == want["ops"], key
        assert got["shape"] == want["shape"], key
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(got["kernel"], want["kernel"], rtol=1e-6, err_msg=key)


def test_keras_repeat_elements_and_upsampling_1d_3d_make_tfs_ops() -> None:
    name = "keras_repeat_elements_graphs"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = actual[key]
        assert got["ops"] == want["ops"], key
        for field in ("consts", "shape", "value"):
            if field in want:
                assert got[field] == want[field], (key, field)
        if "kernel" in want:
            np.testing.assert_allclose(got["kernel"], want["kernel"], rtol=1e-6, err_msg=key)


def test_keras_reads_static_shapes_of_variables_without_ops() -> None:
    name = "keras_shape_reads_make_no_ops"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    assert actual["depthwise_ops"] == expected["depthwise_ops"]
    for key in ("bias_add_and_conv1d_ops", "nn_convolution_1d", "nn_convolution_2d"):
        assert actual[key] == expected[key], key
    for got, want in zip(actual["bias_add_forms"], expected["bias_add_forms"]):
        assert got[:4] == want[:4]
        np.testing.assert_allclose(got[4], want[4], rtol=1e-6)
    assert len(actual["bias_add_forms"]) == len(expected["bias_add_forms"])
    np.testing.assert_allclose(
        actual["dense_kernel_after"], expected["dense_kernel_after"], rtol=1e-6
    )


def test_keras_channels_first_asks_for_nchw_once_opening_the_session() -> None:
    name = "keras_channels_first_opens_the_session"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key]["ops"] == want["ops"], key
        np.testing.assert_allclose(actual[key]["kernel"], want["kernel"], rtol=1e-6, err_msg=key)


def test_conv_lstm_loop_takes_its_steps_as_maximum_iterations() -> None:
    name = "keras_conv_lstm_loop_and_seeds"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        np.testing.assert_allclose(actual[key]["kernel"], want["kernel"], rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(
            actual[key]["value"], want["value"], rtol=1e-5, atol=1e-6, err_msg=key
        )


def test_slices_infer_their_index_dtype_from_the_first_index_input_as_tf() -> None:
    _same_outcomes("slice_index_dtypes")
