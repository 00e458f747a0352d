"""A waiting enqueue refills the queue within the dequeue that makes room, against TF 1.15's
recorded answers (tests/tf_reference/record_queue_waits.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.queue_wait_cases import CASES

AREA = "queue_waits"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_dequeue_lets_the_waiting_enqueue_refill_the_queue(name: str) -> None:
    reference.assert_case_equal(AREA, name, CASES[name](tf))
