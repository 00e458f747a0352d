"""What a distributed program prints as it starts is what TF 1.15 prints: the version dunders
(kubeflow's tf_smoke.py logs tf.__git_version__) and the cluster protos with their map entries
in full (tests/tf_reference/program_startup_cases.py, recorded by record_program_startup.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.program_startup_cases import CASES

AREA = "program_startup"


def test_the_build_dunders_beside_version_exist_as_in_tf() -> None:
    name = "version_dunders"
    assert CASES[name](tf) == reference.case(AREA, name)
    assert tf.__git_version__ == tf.version.GIT_VERSION
    assert tf.__compiler_version__ == tf.version.COMPILER_VERSION
    assert tf.compat.v1.__git_version__ == tf.__git_version__


def test_printed_cluster_protos_write_map_entries_at_their_defaults() -> None:
    name = "cluster_protos_printed"
    reference.assert_case_equal(AREA, name, CASES[name](tf))
