"""Keras layers and models (and tf.layers layers) are tf.Module instances, walked as TF 1.15
walks them (tests/tf_reference/keras_layer_module_cases.py, recorded by
record_keras_layer_module.py under TF 1.15)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_layer_module_cases import CASES

AREA = "keras_layer_module"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_layers_are_modules_as_in_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)


@pytest.mark.parametrize("name", ["walk_warning", "nest_warning"])
def test_nest_warns_once_of_sets_as_tfs_does(name: str) -> None:
    """Walking Keras layers, or tf.nest meeting a set: TF's once-per-process warning."""
    import os
    import sys
    from pathlib import Path

    from tf_reference.keras_layer_module_cases import warning_lines

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root / "server"), *filter(None, [env.get("PYTHONPATH")])]
    )
    want = reference.case(AREA, name)["lines"]
    assert warning_lines(sys.executable, "tfcluster", name, env) == want
