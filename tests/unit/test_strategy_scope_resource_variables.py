"""Variables made in a distribution strategy's scope are resource variables, as TF 1.15's
(tests/tf_reference/strategy_variable_cases.py, recorded by record_strategy_variables.py):
their kinds, the optimizer's global-step increment through a mirrored resource step, and the
steps an Estimator with train_distribute logs (the step read before the step's increment)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import tfcluster as tf
from tf_reference.strategy_variable_cases import CASES

DATA = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "strategy_variables.json"
REFERENCE = json.loads(DATA.read_text())


def test_variables_in_a_strategy_scope_are_resource_variables() -> None:
    assert CASES["scope_variable_kinds"](tf) == REFERENCE["scope_variable_kinds"]


def test_minimize_increments_a_mirrored_resource_global_step() -> None:
    got = CASES["step_updates"](tf)
    want = REFERENCE["step_updates"]
    assert [s for s, _ in got] == [s for s, _ in want]
    np.testing.assert_allclose([w for _, w in got], [w for _, w in want], rtol=1e-6)


def test_estimator_with_train_distribute_logs_the_step_before_its_increment() -> None:
    assert CASES["estimator_logged_steps"](tf) == REFERENCE["estimator_logged_steps"]
