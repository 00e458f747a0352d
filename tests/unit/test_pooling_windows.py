"""Pooling windows over the batch and depth dimensions against TF 1.15's recorded answers
(tests/tf_reference/record_pooling_windows.py): the static shapes TF's shape functions give,
a depthwise MaxPool's values (a maxout over channels), and the Unimplemented errors of TF's
CPU kernels, when made and when run, for the pools and their gradients."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.pooling_window_cases import CASES

AREA = "pooling_windows"


@pytest.mark.parametrize("name", sorted(CASES))
def test_pooling_window_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
