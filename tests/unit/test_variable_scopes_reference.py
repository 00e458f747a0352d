"""Variable scopes, get_variable, partitioned variables, templates, initializers and
regularizers against TensorFlow: every program of tf_reference/variable_scope_cases.py runs
on tfcluster and must give what TensorFlow 1.15 gave (names of variables and ops, name
scopes, collections, devices, shapes, dtypes, values, error classes and messages, initializer
limits), and what TensorFlow 2.x's tf.compat.v1 gave where it behaves as 1.15 does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.variable_scope_cases import CASES

# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15):
TF2_DIFFERS = {
    # 2.x makes regularizer losses lazily (and once more to test for None): other op names.
    "regularization_losses": "regularizer ops are made lazily in 2.x (Const_4, not Const)",
    "keras_regularizers": "tf.keras is Keras 3 in 2.x, not usable with graph variables",
    # 2.x's random_normal/truncated_normal add with AddV2 where 1.15's make Add.
    "initializer_graphs_and_limits": "AddV2 in random_normal and truncated_normal",
    # 2.x builds the identity initializer's eye with the V3 matrix ops (one node more).
    "deterministic_initializer_values": "identity initializer ops are the V3 matrix ops in 2.x",
    # 2.x's random_uniform adds with AddV2 where 1.15's math_ops.add makes Add.
    "default_names_are_unique": "AddV2 in random_uniform",
    "nested_scopes_and_reuse": "AddV2 in random_uniform",
    "scope_opened_twice": "AddV2 in random_uniform",
    # 2.x reworded these errors.
    "get_variable_errors": "2.x: 'did not get an initializer, so its `shape`...'",
    "initializer_errors_and_configs": "2.x: 'Invalid type for initial value={} of type...'",
    "partitioned_variable": "2.x: 'Takes at most 16, but got 40.'",
    "partitioners": "2.x adds the values to the max_shard_bytes error",
    # Random draws are TF's own streams, with op seeds from the op count (which 2.x changes).
    "random_initializer_moments": "op seeds follow 2.x's op count",
}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-6), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf)))


COMPARED = sorted(CASES)


@pytest.mark.parametrize("name", COMPARED)
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("variable_scopes", name)
    assert "skipped" not in want, want.get("skipped")
    _same(_run(name), want, name)


@pytest.mark.parametrize("name", sorted(n for n in COMPARED if n not in TF2_DIFFERS))
def test_case_gives_what_tensorflow_2_compat_v1_gives(name: str) -> None:
    _same(_run(name), reference.case("variable_scopes_tf2", name), name)


def test_random_initializers_draw_from_tensorflows_distributions() -> None:
    """Sample mean, std, min and max of 120000 draws against TF's own sample: within a few
    standard errors (mean, std), and inside the same bounds (min, max)."""
    want = reference.case("variable_scopes", "random_initializer_moments")
    got = CASES["random_initializer_moments"](tf)
    assert sorted(got) == sorted(want)
    n = 400 * 300
    for name, (mean, std, lo, hi) in want.items():
        g_mean, g_std, g_lo, g_hi = got[name]
        assert abs(g_mean - mean) < 6 * std / np.sqrt(n), name
        assert abs(g_std - std) < 6 * std / np.sqrt(2 * n), name
        if "uniform" in name:
            width = hi - lo
            assert lo - 1e-3 * width <= g_lo and g_hi <= hi + 1e-3 * width, name
        elif "untruncated" not in name and name != "random_normal":  # cut at 2 stddev
            assert abs(g_lo - lo) < 0.05 * std and abs(g_hi - hi) < 0.05 * std, name
