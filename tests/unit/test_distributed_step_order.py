"""Between-graph training steps fetch what TF 1.15 fetches: the global step from before the
step's increment, and the loss and weights the gradients came from
(tests/tf_reference/distributed_step_order_cases.py, recorded by
record_distributed_step_order.py on a ps and a worker server of TF 1.15)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.distributed_step_order_cases import CASES

AREA = "distributed_step_order"


def _assert_same_steps(actual: dict, expected: dict) -> None:
    assert actual.keys() == expected.keys()
    assert actual["step_after"] == expected["step_after"]
    for key in ("first_steps", "warm_steps"):
        for got, want in zip(actual[key], expected[key], strict=True):
            assert got[0] is None and want[0] is None
            assert got[2] == want[2], f"{key}: global step {got[2]}, TF fetched {want[2]}"
            np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
            np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


def test_a_global_step_fetched_beside_the_train_op_is_the_one_before_its_increment() -> None:
    name = "global_step_beside_train_op"
    _assert_same_steps(CASES[name](tf), reference.case(AREA, name))


def test_get_or_create_global_step_fetched_beside_the_train_op_is_the_one_before_it() -> None:
    name = "created_global_step_beside_train_op"
    _assert_same_steps(CASES[name](tf), reference.case(AREA, name))
