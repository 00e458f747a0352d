"""A tf.keras model compiled in a MirroredStrategy's scope (its metrics updated once per
replica from compile's cross-replica context), fitted on a Dataset, its weights saved and
loaded back (mirrored variables restored) and evaluated, as TF 1.15 does
(keras_strategy_scope_cases.py, recorded by record_keras_strategy_scope.py)."""

from __future__ import annotations

from typing import Any

import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_strategy_scope_cases import run


def test_compile_fit_save_load_evaluate_in_a_mirrored_strategy_scope(tmp_path: Any) -> None:
    got = run(tf, str(tmp_path))
    want = reference.case("keras_strategy_scope", "mirrored_one_replica")
    assert got["metrics_names"] == want["metrics_names"]
    assert got["restored"] == want["restored"]
    assert sorted(got["history"]) == sorted(want["history"])
    for key, values in want["history"].items():
        reference.assert_close(got["history"][key], values)
    reference.assert_close(got["evaluate"], want["evaluate"])
