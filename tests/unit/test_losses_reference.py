"""tf.losses against TensorFlow: every program of tf_reference/losses_cases.py runs on
tfcluster and must give what TensorFlow 1.15 gave: loss values and gradients for every loss,
weights kind and reduction, the ops each loss adds (names, types, inputs; conds compared from
outside, see support/case_compare.py), the LOSSES collection, get_total_loss and the
regularization losses, and the error classes and messages of bad input; and the values and
error classes TensorFlow 2.x's tf.compat.v1 gave."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from support.case_compare import assert_same, assert_same_ops
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.losses_cases import CASES

# Messages that name TF's own op internals or wording tfcluster does not share; their error
# classes are still compared.
_CLASS_ONLY = {
    ("dynamic_shapes", "bad_weights_rank"),  # names the tensors in TF's Switch/Merge cond
}


def _compare(got: Any, want: Any, path: str) -> None:
    """Values to tolerance, op lists (keys "ops", "ops_*") with assert_same_ops."""
    if isinstance(want, dict):
        for key in [k for k in want if k == "ops" or k.startswith("ops_")]:
            assert key in got, f"{path}: no {key} recorded"
            assert_same_ops(got[key], want[key], f"{path}.{key}")
        got = {k: v for k, v in got.items() if not (k == "ops" or k.startswith("ops_"))}
        want = {k: v for k, v in want.items() if not (k == "ops" or k.startswith("ops_"))}
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _compare(got[k], want[k], f"{path}.{k}")
        return
    assert_same(got, want, path, rtol=2e-6, atol=1e-6)


def _strip_messages(result: dict[str, Any], name: str) -> dict[str, Any]:
    for case, key in _CLASS_ONLY:
        if case == name and isinstance(result.get(key), dict):
            result[key] = {"error": result[key]["error"]}
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("losses", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    _compare(_strip_messages(got, name), _strip_messages(want, name), name)


def _values_only(value: Any) -> Any:
    """Without op lists and error messages (error classes stay): what TF 2.x's compat.v1
    shares with TF 1.15 here. Its graphs differ (shapes through shape_as_tensor, reductions
    over Rank/range), and so does the wording of several errors."""
    if isinstance(value, dict):
        if "error" in value:
            return {"error": value["error"]}
        return {
            k: _values_only(v) for k, v in value.items() if not (k == "ops" or k.startswith("ops_"))
        }
    if isinstance(value, list):
        return [_values_only(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_the_values_tensorflow_2_compat_v1_gives(name: str) -> None:
    want = reference.case("losses_tf2", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    _compare(_values_only(got), _values_only(want), name)
