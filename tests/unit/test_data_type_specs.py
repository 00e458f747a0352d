"""tf.data.DatasetSpec and tf.OptionalSpec repr, compare and check as TF 1.15's (recorded by
tests/tf_reference/record_data_specs.py from data_spec_cases.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.data_spec_cases import data_specs


def test_dataset_and_optional_specs_as_tf() -> None:
    got = data_specs(tf)
    recorded = reference.case("data_specs", "data_specs")
    for key in sorted(recorded):
        assert got[key] == recorded[key], key
