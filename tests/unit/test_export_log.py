"""What an Estimator's export and a SavedModelBuilder's save log, against TF 1.15's recorded
lines (tests/tf_reference/record_export_log.py): the signature report (included per method,
excluded with the reason, no default signature), "Assets added to graph.", "No assets to
write." and "SavedModel written to: ..."."""

from __future__ import annotations

from pathlib import Path

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.export_log_cases import CASES

AREA = "export_log"


@pytest.mark.parametrize("name", sorted(CASES))
def test_export_logs_as_tf(name: str, tmp_path: Path) -> None:
    with tf.Graph().as_default():
        assert CASES[name](tf, str(tmp_path)) == reference.case(AREA, name)
