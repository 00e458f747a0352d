"""Records how TensorFlow 1.15 prints ClusterSpecs (cluster_spec_repr_cases.py):
data/cluster_spec_repr.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_cluster_spec_repr.py
"""

from __future__ import annotations

from case_tools import record_tf115
from cluster_spec_repr_cases import CASES

record_tf115("cluster_spec_repr", CASES)
