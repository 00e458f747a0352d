"""Divisions by a square root against TF 1.15's recorded bits
(tests/tf_reference/record_sqrt_divisions.py): grappler's x / Sqrt(y) -> x * Rsqrt(y), where
the Sqrt has one reader and is not fetched or fed, in graphs of four nodes or more."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.sqrt_division_cases import CASES, DIVISIONS

AREA = "sqrt_divisions"


def _same(got: Any, want: Any, key: str) -> None:
    assert len(got) == len(want), key
    wrong = sum(1 for a, b in zip(got, want) if a != b)
    assert not wrong, f"{key}: {wrong} values differ"


@pytest.fixture(scope="module")
def divisions() -> dict[str, Any]:
    return CASES["divisions_by_a_square_root"](tf)


@pytest.mark.parametrize("name", sorted(DIVISIONS))
def test_a_division_by_a_square_root_rounds_as_tfs_rewrite(
    divisions: dict[str, Any], name: str
) -> None:
    _same(divisions[name], reference.case(AREA, "divisions_by_a_square_root")[name], name)


@pytest.mark.parametrize(
    "case", ["float64_division_by_a_square_root", "three_node_graph_keeps_its_division"]
)
def test_float64_and_small_graphs(case: str) -> None:
    expected = reference.case(AREA, case)
    actual = CASES[case](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        _same(actual[key], want, key)


def test_an_instance_normalised_network_trains_to_tfs_bits() -> None:
    expected = reference.case(AREA, "instance_normalised_network_trains")
    actual = CASES["instance_normalised_network_trains"](tf)
    _same(actual["losses"], expected["losses"], "losses")
    for i, (got, want) in enumerate(zip(actual["weights"], expected["weights"])):
        _same(got, want, f"weights[{i}]")
