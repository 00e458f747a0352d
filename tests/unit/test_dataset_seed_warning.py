"""The warning about the outer graph's seed in tf.data functions against TF 1.15's recorded
answers (tests/tf_reference/record_dataset_seed_warning.py): given for map, filter and
flat_map functions whose random op has no op seed under a graph seed, naming lambdas,
functions, partials and methods as TF does and pointing at the program's file; none without
a graph seed, with an op seed, without random ops or inside a cond's branch."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.dataset_seed_warning_cases import CASES

AREA = "dataset_seed_warning"


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataset_seed_warning_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
