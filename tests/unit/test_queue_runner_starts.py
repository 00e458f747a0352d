"""tf.train.start_queue_runners against TF 1.15's recorded answers
(tests/tf_reference/record_queue_runner_starts.py): the warning when the default graph has no
queue runners, the errors without a default session or with what is not a session, nothing
for a MonitoredSession."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.queue_runner_start_cases import CASES

AREA = "queue_runner_starts"


@pytest.mark.parametrize("name", sorted(CASES))
def test_start_queue_runners_says_and_raises_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
