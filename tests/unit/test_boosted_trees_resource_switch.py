"""Constructing a BoostedTrees estimator turns resource variables on process-wide, as TF 1.15's
_BoostedTreesBase does: the variables (and global steps) made after it are VarHandleOps, with
TF's op count and hence TF's seeded draws, in any graph. Recorded under TF 1.15:
tests/tf_reference/record_boosted_trees_resource_switch.py.
"""

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.boosted_trees_resource_switch_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_switch_and_variables_made_after_are_tf_ones(name: str) -> None:
    actual = CASES[name](tf)
    expected = reference.case("boosted_trees_resource_switch", name)
    value, want_value = actual.pop("value"), expected.pop("value")
    assert actual == expected
    np.testing.assert_allclose(value, want_value, rtol=1e-6)


def test_cases_restore_the_switch() -> None:
    CASES["variables_after_boosted_trees_regressor"](tf)
    assert not tf.resource_variables_enabled()
