"""The order in which fit_generator / evaluate_generator take a keras.utils.Sequence's batches
is TF 1.15's: each pass a fresh Python random.shuffle of one list of indices (numpy's
generator untouched), epochs shorter than the Sequence going on with the pass, a validation
Sequence from its start each epoch, no shuffling without an enqueuer (workers=0); and the
progress bar fit_generator's validation loop prints, as TF 1.15's does. Programs
in tf_reference/sequence_order_cases.py, recorded by record_sequence_order.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.sequence_order_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_batches_come_in_tf_order(name: str) -> None:
    want = reference.case("sequence_order", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    same(got, want, name)
