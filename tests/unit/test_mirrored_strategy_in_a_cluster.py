"""MirroredStrategy() under a TF_CONFIG cluster behaves as TF 1.15's: its default devices are
the cluster's chief and worker tasks, refused when they are more than one task
(tests/tf_reference/mirrored_cluster_cases.py, recorded by record_mirrored_cluster.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.mirrored_cluster_cases import CASES

AREA = "mirrored_cluster"


def test_default_devices_come_from_the_tf_config_cluster() -> None:
    name = "default_devices_from_tf_config"
    reference.assert_case_equal(AREA, name, CASES[name](tf))
