"""Optimizer.compute_gradients takes the loss as TF 1.15 does, unconverted: a Python number,
a list or `...` fails on its dtype (AttributeError), an integer tensor with TF's ValueError,
a variable is its own loss (tests/tf_reference/data/optimizer_loss_arguments.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tfcluster as tf
from tf_reference.optimizer_loss_argument_cases import run_all

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "optimizer_loss_arguments.json"
_RECORDED: dict[str, str] = json.loads(_DATA.read_text())["cases"]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    return run_all(tf)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_outcome_is_tfs(outcomes: dict[str, str], name: str) -> None:
    assert outcomes[name] == _RECORDED[name]
