"""A MirroredVariable read in cross-replica context (a Keras model built in a
MirroredStrategy's scope) goes through an identity of a copy as in TF 1.15: the same ops,
and so the same seeded initial weights for the layers after it (mirrored_read_cases.py,
recorded by tests/tf_reference/record_mirrored_read.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.mirrored_read_cases import run


def test_a_model_built_in_a_mirrored_scope_reads_its_weights_through_identities() -> None:
    got = run(tf)
    want = reference.case("mirrored_read", "keras_model_built_in_scope")
    assert got["ops"] == want["ops"]
    for value, expected in zip(got["weights"], want["weights"]):
        reference.assert_close(value, expected)
