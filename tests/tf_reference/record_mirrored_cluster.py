"""Records TensorFlow 1.15's answers to mirrored_cluster_cases.py (MirroredStrategy under a
TF_CONFIG cluster): data/mirrored_cluster.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_mirrored_cluster.py
"""

from __future__ import annotations

from case_tools import record_tf115
from mirrored_cluster_cases import CASES

record_tf115("mirrored_cluster", CASES)
