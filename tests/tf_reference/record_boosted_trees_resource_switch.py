"""Records what constructing a BoostedTrees estimator does to TensorFlow 1.15's resource
variable switch and the variables made after it (boosted_trees_resource_switch_cases.py):
data/boosted_trees_resource_switch.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_boosted_trees_resource_switch.py
"""

from __future__ import annotations

from boosted_trees_resource_switch_cases import CASES
from case_tools import record_tf115

record_tf115("boosted_trees_resource_switch", CASES)
