"""tf.keras optimizers' attributes as TF 1.15's: `lr` is the learning_rate hyperparameter, and
a missing attribute's AttributeError names the attribute asked for (`lr` on the TFOptimizer
model.compile wraps a tf.train optimizer in, which ReduceLROnPlateau reads). Recorded under
TF 1.15: tests/tf_reference/record_keras_optimizer_attributes.py.
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_optimizer_attribute_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_attribute_is_tf_one(name: str) -> None:
    assert CASES[name](tf) == reference.case("keras_optimizer_attributes", name)
