"""Involution pairs (Neg, Reciprocal, LogicalNot, Invert) around value-preserving ops against
TF 1.15's recorded answers (tests/tf_reference/record_involutions.py): grappler's
RemoveInvolution bypasses a read outer op and leaves a fetched one computing f of the chain
of x."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.involution_cases import CASES

AREA = "involutions"


def _check(case: str) -> None:
    expected = reference.case(AREA, case)
    actual = CASES[case](tf)
    assert sorted(actual) == sorted(expected)
    wrong = [key for key, want in expected.items() if actual[key] != want]
    assert not wrong, f"differ from TF 1.15: {wrong}"


def test_fetched_negation_around_value_preserving_ops_keeps_one_negation() -> None:
    _check("fetched_negations_around_value_preserving_ops")


def test_negations_around_other_ops_are_computed() -> None:
    _check("negations_tf_leaves_as_they_are")


def test_other_readers_and_fetches_decide_the_rewrite() -> None:
    _check("chain_readers_and_fetches")


@pytest.mark.parametrize("case", ["other_involutions"])
def test_reciprocal_logical_not_and_invert_pairs_as_tf(case: str) -> None:
    _check(case)


def test_autoencoder_prints_its_loss_with_tfs_sign() -> None:
    _check("printed_loss_of_a_trained_autoencoder")
