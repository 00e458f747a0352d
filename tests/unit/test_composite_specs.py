"""tf.IndexedSlicesSpec and tf.TensorArraySpec repr, compare, check and merge as TF 1.15's
(recorded by tests/tf_reference/record_composite_specs.py from composite_spec_cases.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.composite_spec_cases import indexed_slices_specs, tensor_array_specs


def test_indexed_slices_spec_as_tf() -> None:
    assert indexed_slices_specs(tf) == reference.case("composite_specs", "indexed_slices_specs")


def test_tensor_array_spec_as_tf() -> None:
    assert tensor_array_specs(tf) == reference.case("composite_specs", "tensor_array_specs")
