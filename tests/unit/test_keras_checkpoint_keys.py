"""tf.keras save_weights' checkpoint keys (TF format) as TF 1.15 writes them for RNNs, stacked
cells, wrappers, Bidirectional layers and a nested Sequential, and the round trip
(tests/tf_reference/data/keras_checkpoint_keys.json): a TF 1.15 program's load_weights finds
every weight where tfcluster put it, and the other way round."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_checkpoint_key_cases import CASES

AREA = "keras_checkpoint_keys"


@pytest.mark.parametrize("name", sorted(CASES))
def test_checkpoint_keys_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
