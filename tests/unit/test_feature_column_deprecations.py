"""TF 1.15's input_layer, linear_model and canned estimators call the deprecated v1 protocol of
its feature columns, and TF announces each method once, in the order its code calls them
("EmbeddingColumn._get_dense_tensor (from tensorflow.python.feature_column.feature_column_v2)
is deprecated ...", then IdentityCategoricalColumn._get_sparse_tensors, ...), with the other
deprecated functions its code calls on the way (v1 where in safe_embedding_lookup_sparse,
Layer.add_variable, to_float, the queue runners of numpy_input_fn, ...). A program's stdout
and every deprecation warning it gets are compared with TF 1.15's
(tests/tf_reference/data/feature_column_deprecations.json), the site of those printed from
the framework's own files left out."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tf_reference.feature_column_deprecation_cases import CASES, run_case

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "feature_column_deprecations.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_gets_tfs_feature_column_deprecations(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_case(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
