"""tf.metrics against TensorFlow: every program of tf_reference/metrics_cases.py runs on
tfcluster and must give what TensorFlow 1.15 gave: per metric, the update_op's result and the
value after each of several batches, the value before any update and after
local_variables_initializer, the local/metric variables and their names, the ops (names,
types, inputs; conds compared from outside, see support/case_compare.py), collections,
placement under replica_device_setter and the error classes and messages; and the values
and error classes TensorFlow 2.x's tf.compat.v1 gave."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from support.case_compare import assert_same, assert_same_ops, without_cond_bodies
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.metrics_cases import CASES
from tfcluster.lib.metrics import at_k

# Messages that name TF's own op internals or wording tfcluster does not share; their error
# classes are still compared.
_CLASS_ONLY: set[tuple[str, str]] = set()
# Op lists not compared (values are): TF 1.15's Switch/Merge cond names the branch ops of
# _maybe_expand_labels' sparse_reshape by the caller's scope (outside the cond's own scope);
# tfcluster's functional cond keeps them in the branch functions.
_OPS_NOT_COMPARED = {"at_k_sparse_labels"}


def _needs_top_k_ops(name: str) -> None:
    """The top-k and per-class metrics build on tf.nn.top_k, tf.dynamic_stitch and
    tf.scatter_add, which come with another part of tfcluster; without them tf.metrics does
    not offer those metrics (they are unimplemented names), and their cases skip."""
    top_k_case = name.startswith("at_k_") or name.startswith("mean_per_class_accuracy")
    if top_k_case and not at_k.has_its_ops():
        pytest.skip("needs tf.nn.top_k, tf.dynamic_stitch and tf.scatter_add (not in this build)")


def _outside_conds(devices: dict[str, str], ops: list[list[Any]]) -> dict[str, str]:
    outside = {op[0] for op in without_cond_bodies(ops)}
    return {k: v for k, v in devices.items() if k in outside}


def _compare(got: Any, want: Any, path: str) -> None:
    """Values to tolerance, op lists (keys "ops", "ops_*") with assert_same_ops."""
    if isinstance(want, dict) and "devices" in want and "ops" in want:
        # Devices of the ops outside conds (TF's cond bodies are ops in the graph).
        got = dict(got, devices=_outside_conds(got["devices"], got["ops"]))
        want = dict(want, devices=_outside_conds(want["devices"], want["ops"]))
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
    want = reference.case("metrics", name)
    assert "skipped" not in want, want.get("skipped")
    _needs_top_k_ops(name)
    got = decode(encode(CASES[name](tf)))
    if name in _OPS_NOT_COMPARED:
        got, want = dict(got), dict(want)
        del got["ops"], want["ops"]
    _compare(_strip_messages(got, name), _strip_messages(want, name), name)


def _values_only(value: Any) -> Any:
    """Without op lists, the devices of each op, and error messages (error classes stay):
    what TF 2.x's compat.v1 shares with TF 1.15 here. Its graphs differ (shapes through
    shape_as_tensor, reductions over Rank/range), and so does the wording of several errors."""
    if isinstance(value, dict):
        if "error" in value:
            return {"error": value["error"]}
        return {
            k: _values_only(v)
            for k, v in value.items()
            if not (k in ("ops", "devices") or k.startswith("ops_"))
        }
    if isinstance(value, list):
        return [_values_only(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_the_values_tensorflow_2_compat_v1_gives(name: str) -> None:
    want = reference.case("metrics_tf2", name)
    assert "skipped" not in want, want.get("skipped")
    _needs_top_k_ops(name)
    got = decode(encode(CASES[name](tf)))
    _compare(_values_only(got), _values_only(want), name)
