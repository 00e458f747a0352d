"""tfcluster's BoostedTrees raw ops compute what TF 1.15's compute: each program of
tests/tf_reference/boosted_trees_cases.py (statistics, split finding, growing with each pruning
mode, training-time and plain prediction, serialized ensemble bytes, quantile summaries and
boundaries, bucketizing, and the errors of bad input) runs here and is compared with TF 1.15's
recorded answers (record_boosted_trees.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.boosted_trees_cases import CASES


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, np.ndarray) and recorded.dtype.kind in "fc":
        reference.assert_close(got, recorded, rtol=1e-5, atol=1e-6)
    elif isinstance(recorded, np.ndarray):
        np.testing.assert_array_equal(np.asarray(got), recorded, err_msg=where)
        assert np.asarray(got).shape == recorded.shape, where
    elif isinstance(recorded, (float, np.floating)):
        assert got == pytest.approx(recorded, rel=1e-5), where
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    got = CASES[name](tf)
    recorded = reference.case("boosted_trees", name)
    assert sorted(got) == sorted(recorded)
    for key in sorted(recorded):
        _assert_same(got[key], recorded[key], f"{name}.{key}")
