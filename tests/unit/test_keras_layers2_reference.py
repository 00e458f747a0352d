"""tf.keras layers against TensorFlow 1.15 (tf_reference/keras_layers2_cases.py): padding,
cropping, up-sampling, depthwise and locally-connected convolutions, parametric activations,
noise layers (inference), LayerNormalization, wrappers, stacked cells and ConvLSTM2D give
TF's outputs, static shapes, variable names, configs and gradients."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.keras_layers2_cases import CASES, FUNCTIONS, run_case

RTOL, ATOL = 2e-5, 2e-6


def _same_config(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (
            f"{path}: keys {sorted(got) if isinstance(got, dict) else got} != TF's {sorted(want)}"
        )
        for k in want:
            _same_config(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got} != TF's {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same_config(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        # float32 values (configs, logged metrics) agree to a few units in the last place.
        assert got == pytest.approx(want, rel=2e-6), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_layer_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("keras_layers2", name)
    assert "skipped" not in want, want.get("skipped")
    got = run_case(tf, name)
    np.testing.assert_array_equal(got["input"], want["input"])
    assert got["shape"] == want["shape"]
    assert got["variables"] == want["variables"]
    _same_config(got["config"], want["config"], "config")
    reference.assert_close(got["output"], want["output"], rtol=RTOL, atol=ATOL)
    assert got["grad_present"] == want["grad_present"]
    for g, w in zip(got["grads"], want["grads"]):
        reference.assert_close(g, w, rtol=1e-4, atol=1e-5)


def _same_values(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same_values(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got} != TF's {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same_values(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray):
        try:
            reference.assert_close(got, want, rtol=RTOL, atol=ATOL)
        except AssertionError as e:
            raise AssertionError(f"{path}: {e}") from None
    else:
        _same_config(got, want, path)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_keras_function_gives_what_tensorflow_1_15_gives(name: str) -> None:
    """Constraints, backend maths and masked recurrences on fixed tensors."""
    want = reference.case("keras_layers2", "function_" + name)
    assert "skipped" not in want, want.get("skipped")
    tf.keras.backend.clear_session()
    got = decode(encode(FUNCTIONS[name](tf)))
    _same_values(got, want, name)
